"""Counterexamples as trajectory records (trajectories.jsonl's format, so `fsmc replay` acts them out) and OUT.

A record is what `fsmc enumerate` writes (fsmc/enumerate/trajectories.py), its goal the state the
counterexample ends in: `{"kind": "property", "source", "page", "match": that state}`, so `fsmc verify`'s
checks of moves, states and GUI operations hold for it too. Two fields are added: `property` (the id of
the property, or `site` for a divergence) and `loop` (for `always ... eventually`: the path is back at
the state after `loop` moves, and goes round for ever; else null). OUT holds trajectories.jsonl and
manifest.json, written whole or not at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsmc import __version__, ir
from fsmc.compilation import Compilation
from fsmc.enumerate.goals import Goal
from fsmc.enumerate.output import OutDir, dumps_doc, dumps_line, file_digest, spec_digest, spec_reference
from fsmc.enumerate.trajectories import final_state, trajectory
from fsmc.printer import expr_to_fsm, property_keyword, property_to_fsm
from fsmc.semantics import Machine, Move


def property_id(prop: ir.Property, index: int) -> str:
    """How files and reports name a property: its name, else its kind and its place among the properties (from 1)."""
    return prop.name or f"{property_keyword(prop)}_{index + 1}"


def _instruction(prop: ir.Property, loop: int | None) -> str:
    cond = expr_to_fsm(prop.cond)
    if prop.kind == "invariant":
        return f"Reach a state where `{cond}` does not hold."
    if prop.kind == "never":
        return f"Reach a state where `{cond}` holds."
    assert prop.then is not None
    then = expr_to_fsm(prop.then)
    how = "then go round a loop" if loop is not None else "then end where no move is left"
    return f"Reach a state where `{cond}` holds, {how}, `{then}` holding nowhere on the way."


def record(machine: Machine, pid: str, moves: tuple[Move, ...], instruction: str, source: str,
           loop: int | None = None) -> dict[str, Any]:
    """The record of property `pid` (or `site`) whose trajectory ends in the state `moves` reach, its goal."""
    tid = pid if pid == "site" else f"property/{pid}"
    final = machine.to_json(final_state(machine, list(moves)))
    goal = Goal(id=tid, kind="property", instruction=instruction, source=source, page=final["page"], match=final)
    out = trajectory(machine, goal, tid, list(moves), label="shortest" if loop is None else "alternative")
    return {**out, "property": pid, "loop": loop}


def counterexample(machine: Machine, prop: ir.Property, index: int, moves: tuple[Move, ...],
                   loop: int | None) -> dict[str, Any]:
    """The record of a property's counterexample."""
    return record(machine, property_id(prop, index), moves, _instruction(prop, loop), property_to_fsm(prop), loop)


def write_out(out: str | Path, c: Compilation, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """OUT/trajectories.jsonl (one record a line) and OUT/manifest.json, moved into place together."""
    with OutDir(out) as d:
        d.write("trajectories.jsonl", "".join(dumps_line(r) for r in records))
        manifest = {
            "fsmc_version": __version__, "command": "test",
            "spec": {"path": spec_reference(c.path, d.final) if c.path else None, "site": c.ir.site.name,
                     "sha256": spec_digest(c.source, c.ir)},
            **summary, "counts": {"trajectories": len(records)},
            "files": {"trajectories.jsonl": file_digest(d.path("trajectories.jsonl"))},
        }
        d.write("manifest.json", dumps_doc(manifest))
        d.commit()
