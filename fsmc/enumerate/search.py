"""The search: explore the state space with an engine, then scan it once for every goal.

The scan visits states in BFS order, so the first state where a goal holds ends a shortest
trajectory. Up to K other states where it holds, within `slack` steps of the shortest, are drawn by
reservoir sampling with a generator seeded by (seed, goal id): the same inputs give the same
choice. A goal stops being evaluated once the scan is past that depth.

Only the StateSpace interface is used (`len`, `state(i)`, `depth`, `path(i)`, `complete`), so a
native engine's space works the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fsmc.engines import Progress, Space
from fsmc.enumerate.goals import Family, Goal, TerminalFamily, derived_families, task_goals
from fsmc.semantics import Machine, State


@dataclass(frozen=True)
class Options:
    """Everything that decides an enumeration's output (recorded in the manifest)."""

    max_depth: int | None = 25
    max_states: int = 2_000_000
    per_page_cap: int | None = None
    per_goal: int = 2
    slack: int = 2
    negatives: bool = False
    seed: int = 0
    derived: bool = True
    engine: str = "python"

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class Hits:
    """Where one goal holds: the first state (shortest trajectory) and a seeded sample of others."""

    goal: Goal
    first: int = -1
    depth: int = -1
    others: list[int] = field(default_factory=list)
    seen: int = 0
    rng: random.Random | None = None

    def offer(self, i: int, d: int, k: int, seed: int) -> None:
        if self.first < 0:
            self.first, self.depth = i, d
            return
        if k <= 0:
            return
        self.seen += 1
        if len(self.others) < k:
            self.others.append(i)
            return
        if self.rng is None:
            self.rng = random.Random(f"{seed}:{self.goal.id}")
        j = self.rng.randrange(self.seen)
        if j < k:
            self.others[j] = i

    def closed(self, d: int, slack: int) -> bool:
        return self.first >= 0 and d > self.depth + slack


_TaskEntry = tuple[Hits, Callable[[State, tuple[Any, ...]], bool], tuple[Any, ...]]


class Scanner:
    """Evaluates every goal on every state, in BFS order, and keeps the hits."""

    def __init__(self, machine: Machine, opts: Options):
        self.machine, self.opts = machine, opts
        self.task_hits: list[Hits] = []
        self._by_page: list[list[_TaskEntry]] = [[] for _ in machine.pages]
        self._anywhere: list[_TaskEntry] = []
        for goal, _ti, fn in task_goals(machine):
            hits = Hits(goal)
            self.task_hits.append(hits)
            entry = (hits, fn, goal.args)
            if goal.page is None:
                self._anywhere.append(entry)
            else:
                self._by_page[machine.page_index[goal.page]].append(entry)
        self.families: list[Family] = derived_families(machine) if opts.derived else [TerminalFamily(machine)]
        self._families_on = [[f for f in self.families if f.pages is None or pi in f.pages]
                             for pi in range(len(machine.pages))]
        self.family_hits: dict[str, Hits] = {}
        self.per_depth: list[int] = []
        self.per_page = [0] * len(machine.pages)

    def _prune(self, d: int) -> None:
        slack = self.opts.slack
        self._anywhere = [e for e in self._anywhere if not e[0].closed(d, slack)]
        self._by_page = [[e for e in lst if not e[0].closed(d, slack)] for lst in self._by_page]

    def _visit(self, i: int, s: State, d: int) -> None:
        k, seed = self.opts.per_goal, self.opts.seed
        for hits, fn, args in self._by_page[s[0]]:
            if fn(s, args):
                hits.offer(i, d, k, seed)
        for hits, fn, args in self._anywhere:
            if fn(s, args):
                hits.offer(i, d, k, seed)
        for fam in self._families_on[s[0]]:
            goal = fam.goal_of(s)
            if goal is not None:
                fh = self.family_hits.get(goal.id)
                if fh is None:
                    fh = self.family_hits[goal.id] = Hits(goal)
                if not fh.closed(d, self.opts.slack):
                    fh.offer(i, d, k, seed)

    def scan(self, space: Space, on_progress: Progress | None = None) -> None:
        """Visit every state once, in BFS order; also counts states per depth and per page."""
        depth, last = space.depth, -1
        per_depth, per_page = self.per_depth, self.per_page
        for i in range(len(space)):
            d = depth[i]
            if d != last:
                self._prune(d)
                last = d
                per_depth.append(0)
            s = space.state(i)
            per_depth[-1] += 1
            per_page[s[0]] += 1
            self._visit(i, s, d)
            if on_progress is not None and i % 10_000 == 0:
                on_progress(i, len(space), d)
        if on_progress is not None:
            on_progress(len(space), len(space), last)

    def results(self) -> list[Hits]:
        """Every goal's hits: task goals in declaration order, then derived ones by family and discovery."""
        derived = [self.family_hits[g.id] for fam in self.families for g in fam.goals.values()]
        for h in (*self.task_hits, *derived):
            h.others.sort()
        return [*self.task_hits, *derived]
