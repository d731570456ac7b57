"""`enumerate_spec`: explore, scan for goals, stream trajectories and tasks into an output folder."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fsmc import __version__, ir
from fsmc.compilation import Compilation
from fsmc.enumerate.negatives import negatives
from fsmc.enumerate.output import OutDir, bfs_path, dumps_doc, dumps_line, file_digest, spec_digest
from fsmc.enumerate.progress import PhaseProgress  # on_phase(name, done, total, depth): explore, scan, write
from fsmc.enumerate.search import Hits, Options, Scanner, Space
from fsmc.enumerate.trajectories import trajectory
from fsmc.semantics import Machine


@dataclass
class Summary:
    """What an enumeration produced (also the `counts` of manifest.json)."""

    states: int = 0
    complete: bool = True
    max_depth: int = 0
    goals: Counter[str] = field(default_factory=Counter)
    reached: Counter[str] = field(default_factory=Counter)
    trajectories: Counter[str] = field(default_factory=Counter)
    states_per_depth: list[int] = field(default_factory=list)
    states_per_page: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "states": self.states, "complete": self.complete, "max_depth": self.max_depth,
            "goals": dict(sorted(self.goals.items())), "goals_reached": dict(sorted(self.reached.items())),
            "trajectories": sum(self.trajectories.values()),
            "trajectories_by_label": dict(sorted(self.trajectories.items())),
            "states_per_depth": self.states_per_depth, "states_per_page": self.states_per_page,
        }


def _profile(machine: Machine, space: Space, scanner: Scanner, summary: Summary) -> None:
    summary.states, summary.complete = len(space), bool(space.complete)
    summary.states_per_depth = scanner.per_depth
    summary.max_depth = len(scanner.per_depth) - 1
    summary.states_per_page = {p.name: scanner.per_page[i] for i, p in enumerate(machine.pages)}


class _Writer:
    """Streams one goal at a time into trajectories.jsonl and tasks.jsonl."""

    def __init__(self, machine: Machine, space: Space, opts: Options, out: OutDir, summary: Summary):
        self.machine, self.space, self.opts, self.summary = machine, space, opts, summary
        self.traj: IO[str] = out.open("trajectories.jsonl")
        self.tasks: IO[str] = out.open("tasks.jsonl")
        self.bfs_paths: dict[str, list[dict[str, Any]]] = {}

    def _emit(self, rec: dict[str, Any]) -> str:
        self.traj.write(dumps_line(rec))
        self.summary.trajectories[rec["label"]] += 1
        return str(rec["id"])

    def goal(self, hits: Hits) -> None:
        g, m = hits.goal, self.machine
        self.summary.goals[g.kind] += 1
        ids: list[str] = []
        task: dict[str, Any] = {"id": g.id, "kind": g.kind, "task": g.task, "params": g.params, "page": g.page,
                                "instruction": g.instruction, "goal": g.to_json(), "reached": hits.first >= 0}
        if hits.first >= 0:
            self.summary.reached[g.kind] += 1
            shortest = self.space.path(hits.first)
            rec = trajectory(m, g, f"{g.id}#0", shortest)
            paths = [bfs_path(m.spec, rec)]
            ids.append(self._emit(rec))
            task["answer"], task["shortest"] = rec["answer"], len(shortest)
            for n, other in enumerate(hits.others, 1):
                alt = trajectory(m, g, f"{g.id}#{n}", self.space.path(other), label="alternative")
                paths.append(bfs_path(m.spec, alt))
                ids.append(self._emit(alt))
            if self.opts.negatives:
                ids += [self._emit(neg) for neg in negatives(m, g, shortest, self.opts.seed)]
            if g.kind == "terminal" and g.page is not None:
                self.bfs_paths[g.page] = paths
        else:
            task["answer"], task["shortest"] = None, None
        task["trajectories"] = ids
        self.tasks.write(dumps_line(task))


def _bfs_doc(spec: ir.Spec, paths: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    terminals = []
    for t in spec.site.terminals:
        ps = paths.get(t, [])
        terminals.append({"terminal_page": t, "shortest_step_count": len(ps[0]["actions"]) if ps else None,
                          "paths": ps})
    return {"initial": spec.site.entry, "terminals": terminals}


def _manifest(c: Compilation, opts: Options, summary: Summary, out: OutDir) -> dict[str, Any]:
    files = {name: file_digest(out.path(name)) for name in ("bfs.json", "trajectories.jsonl", "tasks.jsonl")}
    return {
        "fsmc_version": __version__,
        "spec": {"path": os.path.abspath(c.path) if c.path else None, "site": c.ir.site.name,
                 "sha256": spec_digest(c.source, c.ir)},
        "options": opts.to_json(), "counts": summary.to_json(), "files": files,
    }


def enumerate_spec(spec: Compilation | ir.Spec | str | Path, out: str | Path, opts: Options | None = None, *,
                   on_phase: PhaseProgress | None = None) -> Summary:
    """Explore the spec, find every goal, write OUT; raises SpecError when the spec has errors.

    Given a Compilation, its machine and the states its checks explored serve the search.
    """
    c = spec if isinstance(spec, Compilation) else Compilation(spec)
    opts = opts or Options()
    machine = c.machine

    def phase(name: str, total: int = 0) -> Callable[[int, int, int], None] | None:
        """The progress callback of a phase, called once now so that the phase is timed from its start."""
        if on_phase is None:
            return None
        on_phase(name, 0, total, 0)
        return lambda a, b, d: on_phase(name, a, b, d)

    space = c.explore(opts.engine, max_states=opts.max_states, max_depth=opts.max_depth,
                      max_per_page=opts.per_page_cap, on_progress=phase("explore"))
    summary = Summary()
    scanner = Scanner(machine, opts)
    scanner.scan(space, phase("scan", len(space)))
    _profile(machine, space, scanner, summary)
    results = scanner.results()
    write = phase("write", len(results))
    with OutDir(out) as d:
        writer = _Writer(machine, space, opts, d, summary)
        for n, hits in enumerate(results):
            writer.goal(hits)
            if write is not None:
                write(n + 1, len(results), 0)
        writer.traj.close()
        writer.tasks.close()
        d.write("bfs.json", dumps_doc(_bfs_doc(c.ir, writer.bfs_paths)))
        d.write("manifest.json", dumps_doc(_manifest(c, opts, summary, d)))
        d.commit()
    return summary
