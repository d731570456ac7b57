"""Deciding a spec's properties exactly over its explored state space, with a short counterexample for each violation.

`invariant C` fails at the first state in breadth-first order where C is false, `never C` at the first
where C holds: the path to it is a shortest counterexample. `reachable C` holds at the first state
where C holds. `always A eventually B` ([](A -> <>B)) fails when some reachable state satisfies A and
from it a path avoids B forever: around a cycle of states without B, or into a state where no move is
enabled (a path that ends stays in its last state for ever, as SPIN reads it). The counterexample is the
shortest path to the first such A state, then the nearest way from it into a dead end or a cycle.

A capped exploration decides what it can: a violation of `invariant` or `never` and a state for
`reachable` are found in any explored part; the rest is left undecided.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from fsmc import ir
from fsmc.analysis.conditions import Cond, Junction, Leaf, Names, Not, PageTest, condition
from fsmc.engines import StateSpace
from fsmc.semantics import Machine, Move, State

Predicate = Callable[[State], bool]


@dataclass(frozen=True)
class Verdict:
    """What deciding one property found: `holds` (None: undecided, `note` says why) and a counterexample."""

    prop: ir.Property
    holds: bool | None
    moves: tuple[Move, ...] = ()  # from the initial state: the counterexample of a violation
    loop: int | None = None  # always ... eventually: after the last move the path is back at the state after `loop` moves
    note: str = ""


# ---------------------------------------------------------------- conditions as Python predicates


class Predicates:
    """Compiles property conditions to functions of a state, with the machine's own expression compiler."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self.names = Names.of(machine.spec)

    def of(self, e: ir.Expr) -> Predicate:
        namespace = dict(self.machine.namespace)
        code = f"def _property(s):\n    a = ()\n    m = {{}}\n    return bool({self.source(condition(e, self.names))})"
        exec(compile(code, f"<fsmc:{self.machine.spec.site.name}:property>", "exec"), namespace)  # noqa: S102
        fn: Predicate = namespace["_property"]
        return fn

    def source(self, c: Cond) -> str:
        """Python source of a condition over the state `s`; a page test comes first where it scopes the rest."""
        if isinstance(c, PageTest):
            pages = tuple(self.machine.page_index[p] for p in c.pages)
            return f"(s[0] {'not in' if c.negated else 'in'} {pages!r})"
        if isinstance(c, Leaf):
            page = None if c.page is None else self.machine.page_index[c.page]
            return f"bool({self.machine.compile_expr(c.expr, self.machine.scope(page))[0]})"
        if isinstance(c, Not):
            return f"(not {self.source(c.operand)})"
        assert isinstance(c, Junction)
        return "(" + f" {c.op} ".join(self.source(p) for p in c.parts) + ")"


# ---------------------------------------------------------------- the transition graph


@dataclass(frozen=True)
class Graph:
    """Every transition between explored states, self-loops included: successors of state i at offsets[i]:offsets[i+1]."""

    offsets: np.ndarray
    targets: np.ndarray
    moves: np.ndarray

    @classmethod
    def of(cls, machine: Machine, space: StateSpace) -> Graph:
        offsets, targets, moves = array("q", [0]), array("i"), array("i")
        index = space.index
        for s in space.states:
            for mv, nxt in machine.successors(s):
                targets.append(index[nxt])
                moves.append(mv.index)
            offsets.append(len(targets))
        return cls(np.array(offsets), np.array(targets, dtype=np.int64), np.array(moves, dtype=np.int64))

    def out(self, i: int) -> Iterable[tuple[int, int]]:
        """(move index, successor) of state i, in the order of the moves."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return zip(self.moves[lo:hi].tolist(), self.targets[lo:hi].tolist(), strict=True)

    def dead(self) -> np.ndarray:
        return np.diff(self.offsets) == 0


def avoiding_forever(graph: Graph, allowed: np.ndarray) -> np.ndarray:
    """The allowed states from which some path stays in allowed states for ever (a cycle or a dead end).

    The greatest set in which every state is a dead end or has a successor in the set: states whose
    every successor has left it leave it too, counted down along the reversed edges.
    """
    n = len(allowed)
    sources = np.repeat(np.arange(n), np.diff(graph.offsets))
    keep = allowed[sources] & allowed[graph.targets]
    src, dst = sources[keep], graph.targets[keep]
    count = np.bincount(src, minlength=n)
    dead = graph.dead()
    order = np.argsort(dst, kind="stable")
    preds, starts = src[order].tolist(), np.searchsorted(dst[order], np.arange(n + 1)).tolist()
    alive = allowed.copy()
    queue = np.nonzero(allowed & (count == 0) & ~dead)[0].tolist()
    counts = count.tolist()
    while queue:
        u = queue.pop()
        alive[u] = False
        for p in preds[starts[u]:starts[u + 1]]:
            if alive[p]:
                counts[p] -= 1
                if counts[p] == 0 and not dead[p]:
                    queue.append(p)
    return alive


def lasso(graph: Graph, alive: np.ndarray, start: int) -> tuple[list[int], int | None]:
    """Moves from `start` that stay in `alive` for ever: into a dead end, or to a cycle and once around it.

    Returns the move indices and, for a cycle, how many of them lead to where it starts: a shortest path
    to the nearest dead end or state on a cycle, then a shortest cycle through that state.
    """
    dead = graph.dead()
    targets = on_cycles(graph, alive, start)
    end, stem = _shortest(graph, alive, start, lambda u: u in targets or bool(dead[u]))
    if dead[end]:
        return stem, None
    return stem + _shortest_around(graph, alive, end), len(stem)


def _shortest_around(graph: Graph, alive: np.ndarray, end: int) -> list[int]:
    """The moves of a shortest cycle from `end` back to it: breadth-first until a move leads back."""
    parent: dict[int, tuple[int, int]] = {end: (-1, -1)}
    queue = deque([end])
    while queue:
        u = queue.popleft()
        for mv, v in graph.out(u):
            if v == end:
                return _walk_back(parent, u) + [mv]
            if alive[v] and v not in parent:
                parent[v] = (u, mv)
                queue.append(v)
    raise ValueError("the state lies on no cycle")


def _walk_back(parent: dict[int, tuple[int, int]], u: int) -> list[int]:
    """The moves from the root of a breadth-first search to u."""
    moves = []
    while parent[u][0] >= 0:
        moves.append(parent[u][1])
        u = parent[u][0]
    return moves[::-1]


def _shortest(graph: Graph, alive: np.ndarray, start: int, is_target: Callable[[int], bool]) -> tuple[int, list[int]]:
    """The first target breadth-first from start along alive states, and the moves of a shortest path there."""
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        if is_target(u):
            return u, _walk_back(parent, u)
        for mv, v in graph.out(u):
            if alive[v] and v not in parent:
                parent[v] = (u, mv)
                queue.append(v)
    raise ValueError("no target is reachable from start")


def on_cycles(graph: Graph, alive: np.ndarray, start: int) -> set[int]:
    """The states reachable from start along alive states that lie on a cycle of alive states (Tarjan, iteratively)."""
    succ: dict[int, list[int]] = {}

    def successors(v: int) -> list[int]:
        if v not in succ:
            succ[v] = [w for _, w in graph.out(v) if alive[w]]
        return succ[v]

    index: dict[int, int] = {start: 0}
    low = {start: 0}
    stack, on_stack, found = [start], {start}, set()
    work = [(start, iter(successors(start)))]
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on_stack.add(w)
                work.append((w, iter(successors(w))))
                break
            if w in on_stack:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in successors(v):
                    found.update(component)
    return found


# ---------------------------------------------------------------- the properties


class Decider:
    """Decides the properties of one machine over one explored space; the transition graph is built once, when needed."""

    def __init__(self, machine: Machine, space: StateSpace):
        self.machine, self.space = machine, space
        self.predicates = Predicates(machine)
        self._graph: Graph | None = None

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = Graph.of(self.machine, self.space)
        return self._graph

    def first(self, pred: Predicate) -> int | None:
        """The first state in breadth-first order that satisfies pred: one of fewest moves."""
        return next((i for i, s in enumerate(self.space.states) if pred(s)), None)

    def path(self, i: int) -> tuple[Move, ...]:
        return tuple(self.space.path(i))

    def decide(self, prop: ir.Property) -> Verdict:
        """The verdict on one property; undecided, saying why, when a condition cannot be evaluated in some state."""
        try:
            if prop.kind == "leads_to":
                return self.leads_to(prop)
            if prop.kind == "reachable":
                return self.reachable(prop)
            return self.safety(prop)
        except Exception as err:  # noqa: BLE001 - e.g. `x < 3` where x is none: reported, not a traceback
            return Verdict(prop, None, note=f"undecided: evaluating it failed: {type(err).__name__}: {err}")

    def safety(self, prop: ir.Property) -> Verdict:
        """`invariant` and `never`: the first state that breaks it ends a shortest counterexample."""
        pred = self.predicates.of(prop.cond)
        bad = self.first(pred if prop.kind == "never" else lambda s: not pred(s))
        if bad is not None:
            return Verdict(prop, False, self.path(bad))
        return self._unless_capped(prop, True)

    def reachable(self, prop: ir.Property) -> Verdict:
        found = self.first(self.predicates.of(prop.cond))
        if found is None:
            return self._unless_capped(prop, False, "no reachable state satisfies it")
        depth = self.space.depth[found]
        return Verdict(prop, True, note=f"first reached in {depth} move{'s' if depth != 1 else ''}")

    def _unless_capped(self, prop: ir.Property, holds: bool, note: str = "") -> Verdict:
        if self.space.complete:
            return Verdict(prop, holds, note=note)
        return Verdict(prop, None, note=f"undecided: only {len(self.space):,} states were explored (the cap)")

    def leads_to(self, prop: ir.Property) -> Verdict:
        if not self.space.complete:
            return self._unless_capped(prop, True)
        assert prop.then is not None
        a, b = self.predicates.of(prop.cond), self.predicates.of(prop.then)
        states = self.space.states
        alive = avoiding_forever(self.graph, np.fromiter((not b(s) for s in states), bool, len(states)))
        start = next((i for i in np.nonzero(alive)[0].tolist() if a(states[i])), None)
        if start is None:
            return Verdict(prop, True)
        moves, loop = lasso(self.graph, alive, start)
        prefix = self.path(start)
        all_moves = prefix + tuple(self.machine.all_moves[m] for m in moves)
        return Verdict(prop, False, all_moves, None if loop is None else len(prefix) + loop)


def decide(machine: Machine, space: StateSpace, properties: Iterable[ir.Property]) -> list[Verdict]:
    """The verdict on each property, in order."""
    decider = Decider(machine, space)
    return [decider.decide(p) for p in properties]
