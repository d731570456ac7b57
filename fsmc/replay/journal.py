"""The replay journal: one line per finished trajectory, synced to disk, so a killed run resumes where it stopped.

DATA/progress.jsonl starts with a header naming the fingerprint of the inputs; a journal of other
inputs is refused rather than mixed in. A line cut short by a kill is dropped on the next start.
Every other file replay writes is written whole or not at all (`fsmc.atomic.write_atomic`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from fsmc.replay.inputs import InputError

JOURNAL = "progress.jsonl"


class Journal:
    """Open with `with Journal(data_dir, fingerprint) as j:`; `j.done` holds the results already recorded."""

    def __init__(self, data_dir: Path, fingerprint: str):
        self.path = data_dir / JOURNAL
        self.fingerprint = fingerprint
        self.done: dict[str, dict[str, Any]] = {}
        self._file: IO[str] | None = None

    def _load(self) -> None:
        raw = self.path.read_bytes()
        cut = raw.rfind(b"\n") + 1  # a kill can leave the last line unfinished
        if cut < len(raw):
            with self.path.open("r+b") as f:
                f.truncate(cut)
        lines = raw[:cut].decode("utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if header.get("fingerprint") != self.fingerprint:
            raise InputError(f"{self.path.parent} holds a replay of other trajectories, another site or other options; "
                             "replay into a new folder, or pass --restart to discard it")
        for n, line in enumerate(lines[1:], 2):
            try:
                record = json.loads(line)
                self.done[record["id"]] = record
            except (json.JSONDecodeError, KeyError, TypeError):
                raise InputError(f"{self.path}:{n}: damaged journal line; pass --restart to replay from scratch") from None

    def __enter__(self) -> Journal:
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
            self._file = self.path.open("a", encoding="utf-8")
        else:
            self._file = self.path.open("w", encoding="utf-8")
            self._write({"fingerprint": self.fingerprint})
        return self

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def add(self, record: dict[str, Any]) -> None:
        self._write(record)
        self.done[record["id"]] = record

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        if self._file is not None:
            self._file.close()
