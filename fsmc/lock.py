"""One writer per output folder: a lock file beside the folder, held with flock(2), that names its holder.

    with output_lock(Path("out/shop"), "fsmc enumerate") as lock:
        ...                                  # write out/shop; lock.stale names a holder killed before it let go

The lock file is `.NAME.lock` beside the folder NAME (not inside it: commands replace their folder as a whole).
A second writer refuses at once with FolderBusy, which names the first: its pid, its command and since when. The
kernel lets go of a flock when its holder dies, even by kill -9, so a lock file whose lock is free is a stale one:
it is taken over, and what it said is handed back (`lock.stale`) for the command to note.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fsmc.errors import EXIT_BUSY, FsmcError


@dataclass(frozen=True)
class Holder:
    """Who holds (or held) a folder's lock: the process, its command line, since when (UTC, ISO 8601)."""

    pid: int
    command: str
    since: str

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command}, since {self.since})"


class FolderBusy(FsmcError):
    """Another process writes the folder now; the message names it."""

    exit_code = EXIT_BUSY

    def __init__(self, folder: Path, holder: Holder | None):
        who = str(holder) if holder else "a process that is starting"
        super().__init__(f"{folder} is being written by another fsmc command: {who}; "
                         "wait for it to end, or write elsewhere")
        self.folder, self.holder = folder, holder


@dataclass(frozen=True)
class Lock:
    """A folder's lock, held: where its file is, and the stale holder it took over (None when it was free)."""

    folder: Path
    path: Path
    stale: Holder | None


def lock_path(folder: Path) -> Path:
    """The lock file of `folder`: `.NAME.lock` beside it."""
    folder = Path(os.path.abspath(folder))
    return folder.parent / f".{folder.name}.lock"


@contextlib.contextmanager
def output_lock(folder: Path | str, command: str) -> Iterator[Lock]:
    """Hold `folder`'s lock while the block writes it; FolderBusy at once when another process holds it."""
    folder = Path(folder)
    path = lock_path(folder)
    made = _make_parents(path.parent)
    try:
        fd = _take(folder, path)
    except BaseException:
        _remove_empty(made)
        raise
    try:
        stale = _read(fd)
        _write(fd, Holder(os.getpid(), command, time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())))
        yield Lock(folder, path, stale)
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # before letting go, so that no one locks a file on its way out
        os.close(fd)
        _remove_empty(made)


def _make_parents(folder: Path) -> list[Path]:
    """Make `folder` and the folders above it that are missing; those made, deepest first."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders the lock made that are still empty (a command that failed leaves nothing behind)."""
    for made in folders:
        with contextlib.suppress(OSError):
            made.rmdir()


def _take(folder: Path, path: Path) -> int:
    """An open descriptor of the lock file, locked by this process."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise FolderBusy(folder, holder) from None
        if _still_there(fd, path):
            return fd
        os.close(fd)  # its holder removed the file while letting go: lock the next one


def _still_there(fd: int, path: Path) -> bool:
    try:
        there = path.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _read(fd: int) -> Holder | None:
    """The holder the lock file names, or None when it names none (new, or cut short by a crash)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return Holder(int(data["pid"]), str(data["command"]), str(data["since"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(fd: int, holder: Holder) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps({"pid": holder.pid, "command": holder.command, "since": holder.since}).encode(), 0)
