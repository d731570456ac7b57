"""Stamps: what `fsmc run` recorded of each stage's last success, so that a stage whose inputs have not changed
is skipped, as make skips a target, but by content rather than by time: a stamp holds the digest of the
stage's inputs (spec, options, fsmc's version, the digests of the outputs it reads) and of the outputs it left.

PROJECT/.fsmc/<site>/<stage>.json is written, whole, only after the stage has finished; a stage that is under
way has a <stage>.pending beside it naming the inputs it started from, so a killed run, run again with the
same inputs, resumes that stage's work (enumerate and replay keep their own checkpoints) instead of discarding it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic


def digest(value: Any) -> str:
    """sha256 of a JSON value, keys sorted: the same value gives the same digest in every process."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def folder_digest(folder: Path, skip: frozenset[str] = frozenset()) -> str:
    """sha256 of every file under `folder` (relative path and bytes, in path order) but those named in `skip`;
    symbolic links are not followed. A missing folder has a digest of its own, so it never matches a stamp."""
    if not folder.is_dir():
        return "missing"
    h = hashlib.sha256()
    files = []
    for where, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in skip]
        files += [Path(where) / n for n in names if n not in skip and not (Path(where) / n).is_symlink()]
    for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
        h.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


class Stamps:
    """The stamps of one site: `done(stage)`, `pending(stage)`, `begin(stage, key)`, `finish(stage, key, outputs)`."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _read(self, name: str) -> dict[str, Any] | None:
        try:
            value = json.loads((self.folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or damaged: the stage simply runs
            return None
        return value if isinstance(value, dict) else None

    def done(self, stage: str) -> dict[str, Any] | None:
        """The stamp of the stage's last success: {"key": inputs digest, "outputs": outputs digest}."""
        return self._read(f"{stage}.json")

    def pending(self, stage: str) -> str | None:
        """The inputs digest a run of the stage started from and did not finish, if one did."""
        found = self._read(f"{stage}.pending")
        return found.get("key") if found else None

    def begin(self, stage: str, key: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{stage}.json").unlink(missing_ok=True)  # its outputs are about to change
        write_atomic(self.folder / f"{stage}.pending", json.dumps({"key": key}) + "\n")

    def finish(self, stage: str, key: str, outputs: str) -> None:
        write_atomic(self.folder / f"{stage}.json", json.dumps({"key": key, "outputs": outputs}, indent=1) + "\n")
        (self.folder / f"{stage}.pending").unlink(missing_ok=True)
