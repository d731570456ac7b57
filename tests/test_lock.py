"""One writer per output folder (fsmc.lock): a second writer refuses at once naming the first; a lock left by a
process killed with -9 is taken over with a note; nothing is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fsmc.cli import main
from fsmc.lock import FolderBusy, lock_path, output_lock

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
BUSY = 75

HOLD = """
import sys
from fsmc.lock import output_lock
with output_lock(sys.argv[1], "fsmc enumerate"):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextmanager
def held_elsewhere(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding `folder`'s lock until the block ends (it waits on its stdin)."""
    other = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], cwd=ROOT, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        yield other
    finally:
        if other.poll() is None:
            other.communicate("")
        other.wait(timeout=30)


def test_a_second_writer_refuses_at_once_naming_the_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with held_elsewhere(out) as other:
        assert main(["enumerate", str(MINI), "-o", str(out)]) == BUSY
        err = capsys.readouterr().err
        assert f"is being written by another fsmc command: pid {other.pid} (fsmc enumerate, since " in err
        assert not out.exists()  # nothing written, not even a checkpoint
        assert not (tmp_path / ".out.resume").exists()
    assert main(["enumerate", str(MINI), "-o", str(out)]) == 0  # once it has let go
    assert (out / "manifest.json").is_file() and not lock_path(out).exists()


def test_a_lock_left_by_kill_9_is_taken_over_with_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with held_elsewhere(out) as other:
        os.kill(other.pid, signal.SIGKILL)
        other.wait(timeout=30)
    assert lock_path(out).is_file()  # it never let go: the file stays, its flock went with the process
    assert main(["enumerate", str(MINI), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"note: took over the lock of pid {other.pid} (fsmc enumerate, since " in err
    assert not lock_path(out).exists()


def test_in_process_the_lock_is_exclusive_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "out"
    with output_lock(folder, "fsmc build") as lock:
        assert lock.stale is None and lock.path == tmp_path / "a" / "b" / ".out.lock"
        with pytest.raises(FolderBusy, match=rf"pid {os.getpid()} \(fsmc build, since "), \
                output_lock(folder, "fsmc build"):
            pass
    assert not (tmp_path / "a").exists()  # the folders made for the lock, removed when left empty


def test_two_enumerates_at_once_never_mix_their_lines(tmp_path: Path) -> None:
    """Started together, one writes OUT and the other refuses (or, should the first end before the second starts,
    both write it in turn): never two writers, so no line is written twice."""
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "fsmc", "enumerate", str(MINI), "-o", str(out)]
    runs = [subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    codes = sorted(r.wait(timeout=120) for r in runs)
    assert codes in ([0, 0], [0, BUSY]), [r.communicate() for r in runs]
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines and len(lines) == len(set(lines))
