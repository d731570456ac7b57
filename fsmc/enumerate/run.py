"""`enumerate_spec`: explore, scan for goals, stream trajectories and tasks into an output folder."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc import __version__, ir
from fsmc.compilation import Compilation
from fsmc.engines import Progress
from fsmc.enumerate.checkpoint import EVERY, PARTS, Checkpoint, Note, goal_from_json, goal_to_json, run_key
from fsmc.enumerate.checkpoint import Progress as CheckpointProgress
from fsmc.enumerate.goals import holds_before_end
from fsmc.enumerate.negatives import negatives
from fsmc.enumerate.output import OutDir, bfs_path, dumps_doc, dumps_line, file_digest, spec_digest, spec_reference
from fsmc.enumerate.progress import PhaseProgress  # on_phase(name, done, total, depth): explore, scan, write
from fsmc.enumerate.search import Options, Scanner, Space
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


def _profile(machine: Machine, space: Space, scanner: Scanner) -> dict[str, Any]:
    """The counts of the search, as the plan records them."""
    return {"states": len(space), "complete": bool(space.complete), "states_per_depth": scanner.per_depth,
            "max_depth": len(scanner.per_depth) - 1,
            "states_per_page": {p.name: scanner.per_page[i] for i, p in enumerate(machine.pages)}}


def _plan(machine: Machine, space: Space, scanner: Scanner) -> dict[str, Any]:
    """What the search decided, as plain JSON: the counts, and per goal the moves of its trajectories."""
    def moves(i: int) -> list[int]:
        return [mv.index for mv in space.path(i)]

    goals = [{"goal": goal_to_json(h.goal), "shortest": moves(h.first) if h.first >= 0 else None,
              "others": [moves(i) for i in h.others]} for h in scanner.results()]
    return {"counts": _profile(machine, space, scanner), "goals": goals}


class _Writer:
    """Streams one goal at a time into the checkpoint's trajectories.jsonl and tasks.jsonl, checkpointing as it goes."""

    def __init__(self, machine: Machine, opts: Options, ck: Checkpoint, done: CheckpointProgress,
                 summary: Summary):
        self.machine, self.opts, self.ck, self.done, self.summary = machine, opts, ck, done, summary
        self.files = {name: open(ck.part(name), "ab") for name in PARTS}  # noqa: SIM115 - closed in close()
        self.hashes = {name: hashlib.sha256(ck.part(name).read_bytes()) for name in PARTS}
        counters = done.counters
        for name in ("goals", "reached", "trajectories"):
            getattr(summary, name).update(counters.get(name, {}))
        self.bfs_paths: dict[str, list[dict[str, Any]]] = counters.get("bfs_paths", {})
        self.saved = time.monotonic()

    def _line(self, name: str, record: dict[str, Any]) -> None:
        data = dumps_line(record).encode("utf-8")
        self.files[name].write(data)
        self.hashes[name].update(data)

    def _emit(self, rec: dict[str, Any]) -> str:
        self._line("trajectories.jsonl", rec)
        self.summary.trajectories[rec["label"]] += 1
        return str(rec["id"])

    def goal(self, planned: dict[str, Any]) -> None:
        g, m = goal_from_json(planned["goal"]), self.machine
        self.summary.goals[g.kind] += 1
        ids: list[str] = []
        task: dict[str, Any] = {"id": g.id, "kind": g.kind, "task": g.task, "params": g.params, "page": g.page,
                                "instruction": g.instruction, "goal": g.to_json(),
                                "reached": planned["shortest"] is not None}
        if planned["shortest"] is not None:
            self.summary.reached[g.kind] += 1
            shortest = [m.all_moves[k] for k in planned["shortest"]]
            rec = trajectory(m, g, f"{g.id}#0", shortest)
            paths = [bfs_path(m.spec, rec)]
            ids.append(self._emit(rec))
            task["answer"], task["shortest"] = rec["answer"], len(shortest)
            # an alternative that passes through a state where the goal holds is no demonstration: an episode
            # would end there
            others = [[m.all_moves[k] for k in other] for other in planned["others"]]
            goal = g.to_json()
            for n, moves in enumerate((mv for mv in others if not holds_before_end(m, goal, mv)), 1):
                alt = trajectory(m, g, f"{g.id}#{n}", moves, label="alternative")
                paths.append(bfs_path(m.spec, alt))
                ids.append(self._emit(alt))
            if self.opts.negatives:
                ids += [self._emit(neg) for neg in negatives(m, g, shortest, self.opts.seed)]
            if g.page is not None and (g.kind == "terminal" or g.source == f"on {g.page}: true"):
                self.bfs_paths.setdefault(g.page, paths)  # the terminal's goal, or the task that asks for the page
        else:
            task["answer"], task["shortest"] = None, None
        task["trajectories"] = ids
        self._line("tasks.jsonl", task)
        self.done.goals += 1
        if time.monotonic() - self.saved >= EVERY:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Record the goals written so far, once their bytes are out of this process."""
        for name, f in self.files.items():
            f.flush()
            self.done.sizes[name], self.done.hashes[name] = f.tell(), self.hashes[name].hexdigest()
        s = self.summary
        self.done.counters = {"goals": dict(s.goals), "reached": dict(s.reached),
                              "trajectories": dict(s.trajectories), "bfs_paths": self.bfs_paths}
        self.ck.save_progress(self.done)
        self.saved = time.monotonic()

    def close(self) -> None:
        for f in self.files.values():
            f.close()


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
        "spec": {"path": spec_reference(c.path, out.final) if c.path else None, "site": c.ir.site.name,
                 "sha256": spec_digest(c.source, c.ir)},
        "options": opts.to_json(), "counts": summary.to_json(), "files": files,
    }


def _search(c: Compilation, opts: Options, phase: Callable[..., Progress | None], note: Note | None) -> dict[str, Any]:
    """Explore (the checks' states where the caps give exactly those) and scan: the plan of the output."""
    space = c.explore(opts.engine, max_states=opts.max_states, max_depth=opts.max_depth,
                      max_per_page=opts.per_page_cap, on_progress=phase("explore"), on_note=note)
    scanner = Scanner(c.machine, opts)
    scanner.scan(space, phase("scan", len(space)))
    return _plan(c.machine, space, scanner)


def enumerate_spec(spec: Compilation | ir.Spec | str | Path, out: str | Path, opts: Options | None = None, *,
                   on_phase: PhaseProgress | None = None, on_note: Note | None = None) -> Summary:
    """Explore the spec, find every goal, write OUT; raises SpecError when the spec has errors.

    Given a Compilation, its machine and the states its checks explored serve the search. A run that
    was killed resumes from its checkpoint (fsmc.enumerate.checkpoint); `on_note` hears, in one line
    each, that it resumed, that a corrupt checkpoint was dropped, or that the engine fell back to python.
    """
    c = spec if isinstance(spec, Compilation) else Compilation(spec)
    opts = opts or Options()
    machine = c.machine

    def phase(name: str, total: int = 0) -> Progress | None:
        """The progress callback of a phase, called once now so that the phase is timed from its start."""
        if on_phase is None:
            return None
        on_phase(name, 0, total, 0)
        return lambda a, b, d: on_phase(name, a, b, d)

    OutDir(out).prepare()
    ck = Checkpoint(out, run_key(spec_digest(c.source, c.ir), opts.to_json(), __version__))
    found = ck.start(on_note)
    if found is None:
        plan, done = _search(c, opts, phase, on_note), CheckpointProgress()
        ck.save_plan(plan)
    else:
        plan, done = found
        if on_note is not None:
            on_note(f"resuming from the checkpoint in {ck.dir} ({done.goals:,} of {len(plan['goals']):,} goals written)")
    summary = Summary(**{k: v for k, v in plan["counts"].items()})
    goals = plan["goals"]
    write = phase("write", len(goals))
    writer = _Writer(machine, opts, ck, done, summary)
    try:
        for n in range(done.goals, len(goals)):
            writer.goal(goals[n])
            if write is not None:
                write(n + 1, len(goals), 0)
        writer.checkpoint()
    finally:
        writer.close()
    with OutDir(out) as d:
        for name in PARTS:
            _link(ck.part(name), d.path(name))
        d.write("bfs.json", dumps_doc(_bfs_doc(c.ir, writer.bfs_paths)))
        d.write("manifest.json", dumps_doc(_manifest(c, opts, summary, d)))
        d.commit()
    ck.clear()
    return summary


def _link(src: Path, dst: Path) -> None:
    """dst as a hard link to src (no copy; the checkpoint keeps its own), else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
