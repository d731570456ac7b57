"""Checkpoints of `enumerate_spec` in a hidden folder beside OUT, so that a killed run resumes and writes the same bytes.

`.OUT.resume/` holds:

- plan.json: what the search decided, written once after the goal scan: the counts of the summary
  and, per goal, its record and the moves (indices into `machine.all_moves`) of its shortest and
  other trajectories. A resumed run needs neither the exploration nor the scan again.
- trajectories.jsonl, tasks.jsonl: the lines of the goals written so far (linked into OUT at the end).
- done.json: how many goals are written, the byte length and sha256 of both files then, and the
  counters that go with them; replaced atomically every EVERY seconds while writing.

Every JSON file carries the run's key (the sha256 of the spec's digest, the options but the engine,
and the fsmc version) and the sha256 of its body. A folder with another key belongs to another run
and is cleared. A file that fails its hash, or part files that do not start with the bytes done.json
describes, make a corrupt checkpoint: the run starts over (with a note), never resumes from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.enumerate.goals import Goal
from fsmc.errors import FsmcError

EVERY = float(os.environ.get("FSMC_CHECKPOINT_EVERY", "0.5"))  # seconds between two checkpoints while writing
FORMAT = 1
PARTS = ("trajectories.jsonl", "tasks.jsonl")
Note = Callable[[str], None]


def run_key(spec_sha256: str, options: dict[str, Any], version: str) -> str:
    """What a checkpoint must match to be resumed: the same spec bytes, options and fsmc version."""
    blob = json.dumps({"format": FORMAT, "spec": spec_sha256, "options": options, "fsmc": version}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def goal_to_json(g: Goal) -> dict[str, Any]:
    return {"id": g.id, "kind": g.kind, "instruction": g.instruction, "source": g.source, "page": g.page,
            "task": g.task, "args": list(g.args), "params": g.params, "match": g.match, "retrieval": g.retrieval}


def goal_from_json(d: dict[str, Any]) -> Goal:
    return Goal(id=d["id"], kind=d["kind"], instruction=d["instruction"], source=d["source"], page=d["page"],
                task=d["task"], args=_tuples(d["args"]), params=d["params"], match=d["match"],
                retrieval=d["retrieval"])


@dataclass
class Progress:
    """How far the writing got: goals written, the part files' lengths and hashes, the summary's counters."""

    goals: int = 0
    sizes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    hashes: dict[str, str] = field(default_factory=lambda: {p: hashlib.sha256().hexdigest() for p in PARTS})
    counters: dict[str, Any] = field(default_factory=dict)


class CorruptCheckpoint(FsmcError):
    """A checkpoint file is truncated, altered or inconsistent."""


class Checkpoint:
    """The checkpoint folder of one run into OUT (see the module docstring)."""

    def __init__(self, out: str | Path, key: str):
        final = Path(out)
        self.dir = final.parent / f".{final.name}.resume"
        self.key = key

    def part(self, name: str) -> Path:
        return self.dir / name

    # ---------------------------------------------------------------- sealed JSON files
    def _seal(self, name: str, body: Any) -> None:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(f"{self.key}\n{text}".encode()).hexdigest()
        tmp = self.dir / f"{name}.tmp"
        tmp.write_text(json.dumps({"key": self.key, "sha256": digest, "body": text}), encoding="utf-8")
        os.replace(tmp, self.dir / name)

    def _open(self, name: str) -> Any:
        """The body of a sealed file; None when absent; CorruptCheckpoint when it fails its hash."""
        path = self.dir / name
        if not path.exists():
            return None
        try:
            sealed = json.loads(path.read_text(encoding="utf-8"))
            text = sealed["body"]
            if sealed["key"] != self.key:
                return None
            if hashlib.sha256(f"{self.key}\n{text}".encode()).hexdigest() != sealed["sha256"]:
                raise CorruptCheckpoint(f"{name} fails its sha256")
            return json.loads(text)
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise CorruptCheckpoint(f"{name} cannot be read: {err}") from None

    # ---------------------------------------------------------------- the run's life
    def start(self, note: Note | None) -> tuple[Any, Progress] | None:
        """The plan and progress of an earlier run with this key, or None (the folder then starts over empty)."""
        try:
            found = self._resume()
        except CorruptCheckpoint as err:
            if note is not None:
                note(f"the checkpoint in {self.dir} is corrupt ({err}); starting over")
            found = None
        if found is None:
            self.clear()
            self.dir.mkdir(parents=True, exist_ok=True)
        return found

    def _resume(self) -> tuple[Any, Progress] | None:
        if not self.dir.is_dir():
            return None
        plan = self._open("plan.json")
        if plan is None:
            return None
        raw = self._open("done.json")
        done = Progress() if raw is None else Progress(raw["goals"], raw["sizes"], raw["hashes"], raw["counters"])
        for name in PARTS:
            self._truncate(name, done.sizes[name], done.hashes[name])
        return plan, done

    def _truncate(self, name: str, size: int, digest: str) -> None:
        """Cut a part file back to what done.json describes, after checking that it starts with those bytes."""
        path = self.part(name)
        try:
            with open(path, "rb+") as f:
                data = f.read(size)
                if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
                    raise CorruptCheckpoint(f"{name} does not hold the {size:,} bytes done.json describes")
                f.truncate(size)
        except FileNotFoundError:
            if size:
                raise CorruptCheckpoint(f"{name} is missing") from None
            path.touch()
        except OSError as err:
            raise CorruptCheckpoint(f"{name} cannot be read: {err}") from None

    def save_plan(self, plan: Any) -> None:
        self._seal("plan.json", plan)

    def save_progress(self, done: Progress) -> None:
        self._seal("done.json", {"goals": done.goals, "sizes": done.sizes, "hashes": done.hashes,
                                 "counters": done.counters})

    def clear(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
