"""Breadth-first exploration of the reachable states, shared by the checks and the enumerator.

A StateSpace keeps parent pointers and move indices in flat arrays, so a path is recovered by
walking parents instead of storing paths; engines other than this reference one (a native
explorer) fill the same interface: `len`, `state(i)`, `parent`, `move`, `depth`, `index_of`,
`path(i)`, `complete`, `enabled_moves`.

The reference engine keeps each state once, as the machine's canonical tuple, in a list (BFS
order) and a dict (tuple -> index). Values inside the tuples (sets, maps) are interned, so a cart
that thousands of states share is stored once. The inner loop makes one call per state, to its
page's expander (semantics/expand.py): generated code that tries every move and reports each
successor not seen yet to `found`, which keeps it.
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.semantics import Machine, Move, State
from fsmc.semantics.expand import Expander, compile_expanders

Progress = Callable[[int, int, int], None]
PROGRESS_EVERY = 10_000


@dataclass
class StateSpace:
    """States in BFS order: index 0 is the initial state; parent[i] and move[i] say how i was first reached."""

    machine: Machine
    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    parent: array[int] = field(default_factory=lambda: array("i"))
    move: array[int] = field(default_factory=lambda: array("i"))  # index into machine.all_moves, -1 at the root
    depth: array[int] = field(default_factory=lambda: array("H"))
    enabled_moves: set[int] = field(default_factory=set)  # indices of moves enabled in some expanded state
    complete: bool = True  # False when a cap stopped the search early

    def __len__(self) -> int:
        return len(self.states)

    def state(self, i: int) -> State:
        return self.states[i]

    def index_of(self, state: State) -> int | None:
        return self.index.get(state)

    def via(self, i: int) -> Move | None:
        return None if self.move[i] < 0 else self.machine.all_moves[self.move[i]]

    def path(self, i: int) -> list[Move]:
        """The moves of the shortest path from the initial state to state i."""
        out: list[Move] = []
        while self.parent[i] >= 0:
            out.append(self.machine.all_moves[self.move[i]])
            i = self.parent[i]
        return out[::-1]


def _view_reads(page: ir.Page, name: str, out: set[str], seen: set[str]) -> None:
    view = next((v for v in page.views if v.name == name), None)
    if view is None or name in seen:
        return
    seen.add(name)
    found: set[str] = set()
    for e in (view.where, *(k.expr for k in view.order), *(k.when for k in view.order)):
        ir.expr_names(e, found)
    found.discard(view.alias)
    found.update(n for n in (view.page_var, view.source) if n)
    out.update(found)
    for n in found:
        _view_reads(page, n, out, seen)


def slots_read(spec: ir.Spec, page: ir.Page | None, exprs: Iterable[ir.Expr], params: tuple[ir.Param, ...]) -> list[int]:
    """The state slots (page index included) that expressions on a page (or none) can read, following views."""
    names: set[str] = set()
    for e in exprs:
        ir.expr_names(e, names)
    names -= {p.name for p in params}
    if page is not None:
        for n in list(names):
            _view_reads(page, n, names, set())
    page_vars = {v.name: 1 + len(spec.session) + j for j, v in enumerate(page.vars)} if page else {}
    session = {v.name: 1 + i for i, v in enumerate(spec.session)}
    return sorted({0} | {page_vars.get(n, session.get(n, 0)) for n in names})


def reads(machine: Machine, page: ir.Page, exprs: Iterable[ir.Expr], params: tuple[ir.Param, ...]) -> list[int]:
    """The state slots (page index included) that expressions on a page can read, following views."""
    return slots_read(machine.spec, page, exprs, params)


def _container_slots(machine: Machine) -> list[list[int]]:
    """Per page, the state slots that hold sets or maps (tuples worth sharing between states)."""
    session = list(machine.spec.session)
    out = []
    for page in machine.pages:
        decls = [*session, *page.vars]
        kinds = [v.type.inner if isinstance(v.type, ir.OptionalType) else v.type for v in decls]
        out.append([1 + j for j, t in enumerate(kinds) if isinstance(t, (ir.SetType, ir.MapType))])
    return out


@contextmanager
def _cycles_uncollected() -> Iterator[None]:
    """Pause the cycle collector: a search allocates millions of tuples and no reference cycles, so the
    collector would only scan them again and again (about 5 % of the search's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _fresh_containers(machine: Machine) -> list[list[int]]:
    """Per move, the slots of its successors that may hold a set or map their parent does not: those its
    effects write, or every one of the page it goes to. The others are the parent's, interned already."""
    containers = _container_slots(machine)
    out: list[list[int]] = []
    for ca in machine.actions:  # in the order of the move indices
        pi = machine.page_index[ca.page]
        goto = machine.lowered.goto(ca.action, pi)
        written = {eff.slot.index for eff in machine.lowered.effects(ca.action, pi)}
        out += [containers[goto.page] if goto else [k for k in containers[pi] if k in written]] * len(ca.moves)
    return out


def explore(
    machine: Machine,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    on_progress: Progress | None = None,
    max_per_page: int | None = None,
) -> StateSpace:
    """BFS from the initial state, deduplicating by canonical key, within the caps.

    `max_per_page` caps the states kept per page. on_progress(expanded, discovered, depth) is
    called every 10,000 expanded states.
    """
    sp = StateSpace(machine)
    if len(machine.all_moves) < 2**15:
        sp.move = array("h")
    pool: dict[Any, Any] = {}  # interned set and map values: states share equal ones
    fresh = _fresh_containers(machine)
    per_page = [0] * len(machine.pages)
    states, index, parent, moves, depth = sp.states, sp.index, sp.parent, sp.move, sp.depth
    head, below = -1, 0  # the state being expanded, the depth of the states it finds
    add_state, add_parent, add_move, add_depth = states.append, parent.append, moves.append, depth.append

    def found(nxt: State, mi: int) -> None:
        """Keep a state not seen before, within the caps, with the move that reached it."""
        if len(states) >= max_states:
            sp.complete = False
            return
        if max_per_page is not None:
            if per_page[nxt[0]] >= max_per_page:
                sp.complete = False
                return
            per_page[nxt[0]] += 1
        for k in fresh[mi]:
            v = nxt[k]
            w = pool.setdefault(v, v)
            if w is not v:
                nxt = (*nxt[:k], w, *nxt[k + 1:])
        index[nxt] = len(states)
        add_state(nxt)
        add_parent(head)
        add_move(mi)
        add_depth(below)

    s0 = machine.initial()  # kept whatever the caps
    for k in _container_slots(machine)[s0[0]]:
        pool[s0[k]] = s0[k]
    index[s0] = 0
    states.append(s0)
    parent.append(-1)
    moves.append(-1)
    depth.append(0)
    per_page[s0[0]] = 1
    expand = compile_expanders(machine)
    fired = bytearray(len(machine.all_moves))
    level_end = 0  # the first state one depth below the one expanded: BFS keeps each depth together
    with _cycles_uncollected():
        for head, s in enumerate(states):  # `found` appends to `states` as the loop goes
            if head == level_end:
                below, level_end = below + 1, len(states)
                if below == 65535:
                    sp.depth = depth = array("I", depth)
                    add_depth = depth.append
            if max_depth is not None and below > max_depth:
                if sp.complete and _has_unseen(expand[s[0]], s, index, len(fired)):
                    sp.complete = False  # a state beyond the cap exists
                continue
            expand[s[0]](s, index, found, fired)
            if on_progress is not None and (head + 1) % PROGRESS_EVERY == 0:
                on_progress(head + 1, len(states), below - 1)
    sp.enabled_moves = {i for i, f in enumerate(fired) if f}
    if on_progress is not None:
        on_progress(len(states), len(states), depth[-1])
    return sp


def _has_unseen(expand: Expander, s: State, seen: dict[State, int], nmoves: int) -> bool:
    """Whether some successor of `s` is not in `seen` (its moves are not marked as enabled)."""
    unseen: list[State] = []
    expand(s, seen, lambda nxt, mi: unseen.append(nxt), bytearray(nmoves))
    return bool(unseen)
