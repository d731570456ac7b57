"""The search: explore the state space with an engine, then scan it once for every goal.

The scan visits states in BFS order, so the first state where a goal holds ends a shortest
trajectory. Up to K other states where it holds, within `slack` steps of the shortest, are drawn by
reservoir sampling with a generator seeded by (seed, goal id): the same inputs give the same
choice. A goal stops being evaluated once the scan is past that depth.

Only the StateSpace interface is used (`len`, `state(i)`, `depth`, `path(i)`, `complete`), so a
native engine's space works the same way.
"""

from __future__ import annotations

import bisect
import random
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmc import ir
from fsmc.engines import Progress, Space
from fsmc.engines.python import reads
from fsmc.enumerate.classes import Grouping, Groups, Slots
from fsmc.enumerate.goals import Family, Goal, TerminalFamily, derived_families, task_goals
from fsmc.semantics import Machine, State


@dataclass(frozen=True)
class Options:
    """Everything that decides an enumeration's output (recorded in the manifest), and the engine, which does not.

    engine: "auto" (native where a C compiler is found, else python), "python" (the reference) or "native";
    every engine gives the same bytes, so the manifest leaves it out.
    """

    max_depth: int | None = 25
    max_states: int = 2_000_000
    per_page_cap: int | None = None
    per_goal: int = 2
    slack: int = 2
    negatives: bool = False
    seed: int = 0
    derived: bool = True
    engine: str = "auto"

    def to_json(self) -> dict[str, Any]:
        """The options that decide the output (all but the engine)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "engine"}


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

    def fill(self, states: list[int], depth: int, k: int, seed: int) -> None:
        """offer() each of `states` (in BFS order, none past the slack) at once: the same choice, faster."""
        self.first, self.depth = states[0], depth
        if k <= 0:
            return
        rest = states[1:]
        self.others, self.seen = rest[:k], len(rest)
        if len(rest) <= k:
            return
        others = self.others
        self.rng = rng = random.Random(f"{seed}:{self.goal.id}")
        draw = rng.randrange
        for seen, i in enumerate(rest[k:], k + 1):
            j = draw(seen)
            if j < k:
                others[j] = i

    def closed(self, d: int, slack: int) -> bool:
        return self.first >= 0 and d > self.depth + slack


def goal_slots(machine: Machine, task: ir.Task) -> list[set[int]]:
    """Per page, the state slots a task's goal reads there (views followed); none on pages it does not hold on.

    A task on no page reads session variables only, the same slots on every page (not the page, slot 0).
    """
    if task.page is not None:
        pi = machine.page_index[task.page]
        return [set(reads(machine, page, [task.goal], task.params)) if j == pi else set()
                for j, page in enumerate(machine.pages)]
    names = ir.expr_names(task.goal, set()) - {p.name for p in task.params}
    session = {1 + i for i, v in enumerate(machine.spec.session) if v.name in names}
    return [session for _ in machine.pages]


def level_starts(space: Space) -> list[int]:
    """The index of the first state of each BFS level (states are in BFS order, so depths never decrease)."""
    depth = space.depth
    starts = getattr(depth, "starts", None)
    if starts is not None:
        return list(starts)
    if len(space) == 0:
        return []
    d = np.frombuffer(depth, dtype=np.dtype(depth.typecode)) if isinstance(depth, array) else np.asarray(depth)
    return [0, *(np.flatnonzero(np.diff(d)) + 1).tolist()]


def _width(machine: Machine, page: int) -> int:
    return 1 + len(machine.spec.session) + len(machine.pages[page].vars)


_GoalFn = Callable[[State, tuple[Any, ...]], bool]


class Scanner:
    """Decides every goal on the explored states and keeps the hits, as if it visited every state in BFS order.

    Each task's goals are decided once per group of states that agree on what the task's goal reads,
    and each derived family's key once per group that agrees on the slots the family reads
    (fsmc.enumerate.classes): the same hits as deciding every goal on every state, much faster.
    """

    def __init__(self, machine: Machine, opts: Options):
        self.machine, self.opts = machine, opts
        self.task_hits: list[Hits] = []
        self._tasks: dict[int, list[tuple[Hits, _GoalFn]]] = {}
        for goal, ti, fn in task_goals(machine):
            self.task_hits.append(Hits(goal))
            self._tasks.setdefault(ti, []).append((self.task_hits[-1], fn))
        self.families: list[Family] = derived_families(machine) if opts.derived else [TerminalFamily(machine)]
        self.family_hits: dict[str, Hits] = {}
        self.per_depth: list[int] = []
        self.per_page = [0] * len(machine.pages)

    def _task_slots(self, ti: int) -> Slots:
        pages = goal_slots(self.machine, self.machine.spec.tasks[ti])
        if self.machine.spec.tasks[ti].page is None:
            return {p: sorted(s) for p, s in enumerate(pages)}
        return {p: sorted(s) for p, s in enumerate(pages) if s}

    def _family_slots(self, fam: Family) -> Slots:
        pages = range(len(self.machine.pages)) if fam.pages is None else sorted(fam.pages)
        return {p: sorted(fam.slots) if fam.slots is not None else list(range(_width(self.machine, p)))
                for p in pages}

    def scan(self, space: Space, on_progress: Progress | None = None) -> None:
        """Decide every goal; also counts states per depth and per page."""
        n = len(space)
        if on_progress is not None:
            on_progress(0, n, 0)
        starts = level_starts(space)
        self.per_depth = [b - a for a, b in zip(starts, [*starts[1:], n], strict=True)]
        deciders: list[tuple[Slots, int | Family]] = [(self._task_slots(ti), ti) for ti in self._tasks]
        deciders += [(self._family_slots(fam), fam) for fam in self.families]
        union: list[set[int]] = [{0} for _ in self.machine.pages]  # level one always tells pages apart
        for slots, _ in deciders:
            for p, s in slots.items():
                union[p].update(s)
        grouping = Grouping(space, [sorted(s) for s in union])
        self.per_page = np.bincount(grouping.pages, minlength=len(self.machine.pages)).tolist()
        for slots, what in deciders:
            groups = grouping.by(slots)

            def state(i: int, slots: Slots = slots) -> State:
                return grouping.state(i, slots)

            if isinstance(what, int):
                found = self._decide_task(groups, state, what)
            else:
                found = self._decide_family(groups, state, what)
            for hits, gs in found:
                self._fill(hits, groups.states(gs), starts, n)
        if on_progress is not None:
            on_progress(n, n, len(starts) - 1)

    def _decide_task(self, groups: Groups, state: Callable[[int], State], ti: int) -> list[tuple[Hits, list[int]]]:
        where: list[tuple[Hits, list[int]]] = [(hits, []) for hits, _ in self._tasks[ti]]
        for g, i in enumerate(groups.first):
            s = state(i)
            for (hits, fn), (_, gs) in zip(self._tasks[ti], where, strict=True):
                if fn(s, hits.goal.args):
                    gs.append(g)
        return [(hits, gs) for hits, gs in where if gs]

    def _decide_family(self, groups: Groups, state: Callable[[int], State], fam: Family) -> list[tuple[Hits, list[int]]]:
        """The family's goals, created in BFS order of the groups' first states (as a visit of every state would)."""
        where: dict[str, tuple[Hits, list[int]]] = {}
        for g, i in enumerate(groups.first):
            goal = fam.goal_of(state(i))
            if goal is not None:
                if goal.id not in where:
                    where[goal.id] = (self.family_hits.setdefault(goal.id, Hits(goal)), [])
                where[goal.id][1].append(g)
        return list(where.values())

    def _fill(self, hits: Hits, states: np.ndarray, starts: list[int], n: int) -> None:
        """The first state and the sample of the others within the slack, from the states where the goal holds."""
        first = int(states[0])
        d = bisect.bisect_right(starts, first) - 1
        end = starts[d + self.opts.slack + 1] if d + self.opts.slack + 1 < len(starts) else n
        hits.fill(states[:int(np.searchsorted(states, end))].tolist(), d, self.opts.per_goal, self.opts.seed)

    def results(self) -> list[Hits]:
        """Every goal's hits: task goals in declaration order, then derived ones by family and discovery."""
        # a derived goal that a task without parameters states already is not repeated
        stated = {h.goal.source for h in self.task_hits if not h.goal.args}
        derived = [self.family_hits[g.id] for fam in self.families for g in fam.goals.values()
                   if g.source not in stated]
        for h in (*self.task_hits, *derived):
            h.others.sort()
        return [*self.task_hits, *derived]
