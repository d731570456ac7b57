"""The transcript of a propose run, JSON lines beside the output: a header, one line per round, and the error
that stopped the run if one did. Rewritten whole after each round, so an interrupted run keeps what it did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic
from fsmc.propose.loop import Round


class Transcript:
    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = path
        self.lines: list[dict[str, Any]] = [{"transcript": "fsmc propose", **header}]

    def add(self, r: Round) -> None:
        self.lines.append(r.to_json())
        self._write()

    def stop(self, error: str) -> None:
        self.lines.append({"stopped": error})
        self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines))
