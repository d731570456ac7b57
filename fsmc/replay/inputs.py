"""What replay reads: the trajectories of an `fsmc enumerate` output folder, each move with its expected state."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.backends import Backend, Op
from fsmc.errors import EXIT_UNREADABLE, FsmcError


class InputError(FsmcError):
    """An input folder is missing, unreadable or not what replay needs; the message says which and why."""

    exit_code = EXIT_UNREADABLE


def canonical(value: Any) -> str:
    """The one JSON text of a state or move that replay compares and keys by."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class KeyedState:
    """A state read once: its value (`Machine.to_json` form) and the canonical text that keys and compares it."""

    key: str
    value: dict[str, Any] = field(compare=False, hash=False, repr=False)

    @classmethod
    def of(cls, value: dict[str, Any]) -> KeyedState:
        return cls(canonical(value), value)


@dataclass(frozen=True)
class Move:
    key: str  # canonical JSON of {page, action, args}
    ops: tuple[Op, ...]
    state: KeyedState  # the state the semantics give after the move
    enabled: bool = True  # False for the last move of a `disabled_move` negative: it must change nothing


@dataclass(frozen=True)
class Trajectory:
    id: str
    initial: KeyedState
    moves: tuple[Move, ...]
    record: dict[str, Any] = field(compare=False, hash=False, repr=False)  # the enumerate line, carried to the output


def _move(m: dict[str, Any]) -> Move:
    key = canonical({"page": m["page"], "action": m["action"], "args": m["args"]})
    return Move(key, tuple(Op.from_json(g) for g in m["gui"]), KeyedState.of(m["state"]), bool(m.get("enabled", True)))


def _trajectory(record: dict[str, Any]) -> Trajectory:
    return Trajectory(record["id"], KeyedState.of(record["initial"]), tuple(_move(m) for m in record["moves"]), record)


def read_trajectories(out_dir: Path, limit: int | None = None) -> Iterator[Trajectory]:
    """The trajectories of OUT/trajectories.jsonl in file order (the first `limit` of them)."""
    path = out_dir / "trajectories.jsonl"
    if not (out_dir / "manifest.json").is_file() or not path.is_file():
        raise InputError(f"{out_dir}: not an `fsmc enumerate` output (no manifest.json and trajectories.jsonl)")
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if limit is not None and n > limit:
                return
            try:
                yield _trajectory(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as err:
                raise InputError(f"{path}:{n}: not a trajectory ({type(err).__name__}: {err}); "
                                 f"run `fsmc verify {out_dir}`") from None


def fingerprint(out_dir: Path, backend: Backend, options: dict[str, Any]) -> str:
    """A hash of everything a replay's results depend on: the trajectories, the backend, the options."""
    h = hashlib.sha256()
    h.update((out_dir / "trajectories.jsonl").read_bytes())
    backend.fingerprint(h)
    h.update(canonical(options).encode())
    return h.hexdigest()
