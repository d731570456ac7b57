"""Breadth-first exploration of the reachable states, shared by the checks and the enumerator.

A StateSpace keeps parent pointers and move indices in flat arrays, so a path is recovered by
walking parents instead of storing paths; engines other than this reference one (a native
explorer) fill the same interface: `len`, `state(i)`, `parent`, `move`, `depth`, `index_of`,
`path(i)`, `complete`, `enabled_moves`.

The reference engine keeps each state once, as the machine's canonical tuple, in a list (BFS
order) and a dict (tuple -> index). Values inside the tuples (sets, maps) are interned, so a cart
that thousands of states share is stored once. The inner loop calls the machine's compiled
precondition and step functions directly, with one view memo per expanded state.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from fsmc import ir
from fsmc.semantics import Machine, Move, State

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


_Entry = tuple[int, Any, tuple[Any, ...]]  # (move index, step function, args)
CACHE_LIMIT = 4096  # distinct inputs per action beyond which its enabled moves are no longer cached




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


class _Action:
    """One action's moves, with its enabled moves cached by the state slots its preconditions read."""

    __slots__ = ("req", "moves", "key", "cache")

    def __init__(self, req: Any, moves: list[_Entry], slots: list[int]):
        self.req, self.moves = req, moves
        self.key = itemgetter(*slots)
        self.cache: dict[Any, list[_Entry]] | None = {} if req is not None else None

    def enabled(self, s: State, memo: dict[str, Any]) -> list[_Entry]:
        cache = self.cache
        if cache is None:
            return self.moves if self.req is None else [e for e in self.moves if self.req(s, e[2], memo)]
        k = self.key(s)
        hit = cache.get(k)
        if hit is None:
            req = self.req
            hit = cache[k] = [e for e in self.moves if req(s, e[2], memo)]
            if len(cache) > CACHE_LIMIT:
                self.cache = None
        return hit


def _move_table(machine: Machine) -> list[list[_Action]]:
    """Per page, its actions in canonical order."""
    table: list[list[_Action]] = [[] for _ in machine.pages]
    for ca in machine.actions:
        if not ca.moves:
            continue
        pi = machine.page_index[ca.page]
        slots = reads(machine, machine.pages[pi], ca.action.requires, ca.action.params)
        table[pi].append(_Action(ca.req, [(mv.index, mv.fn, mv.args) for mv in ca.moves], slots))
    return table


def _container_slots(machine: Machine) -> list[list[int]]:
    """Per page, the state slots that hold sets or maps (tuples worth sharing between states)."""
    session = list(machine.spec.session)
    out = []
    for page in machine.pages:
        decls = [*session, *page.vars]
        kinds = [v.type.inner if isinstance(v.type, ir.OptionalType) else v.type for v in decls]
        out.append([1 + j for j, t in enumerate(kinds) if isinstance(t, (ir.SetType, ir.MapType))])
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
    containers = _container_slots(machine)
    s0 = machine.initial()
    for k in containers[s0[0]]:
        pool[s0[k]] = s0[k]
    states, index, parent, moves, depth = sp.states, sp.index, sp.parent, sp.move, sp.depth
    states.append(s0)
    index[s0] = 0
    parent.append(-1)
    moves.append(-1)
    depth.append(0)
    per_page = [0] * len(machine.pages)
    per_page[s0[0]] = 1
    page_cap = max_per_page if max_per_page is not None else max_states
    table = _move_table(machine)
    fired = bytearray(len(machine.all_moves))
    head, n = 0, 1
    while head < n:
        s = states[head]
        d = depth[head]
        if max_depth is not None and d >= max_depth:
            if sp.complete and any(nxt not in index for _, nxt in machine.successors(s)):
                sp.complete = False  # a state beyond the cap exists
            head += 1
            continue
        memo: dict[str, Any] = {}
        for act in table[s[0]]:
            for mi, fn, args in act.enabled(s, memo):
                fired[mi] = 1
                nxt = fn(s, args)
                if nxt in index:
                    continue
                pi = nxt[0]
                if n >= max_states or per_page[pi] >= page_cap:
                    sp.complete = False
                    continue
                for k in containers[pi]:
                    v = nxt[k]
                    w = pool.setdefault(v, v)
                    if w is not v:
                        nxt = (*nxt[:k], w, *nxt[k + 1:])
                if d >= 65534 and depth.typecode == "H":
                    sp.depth = depth = array("I", depth)
                index[nxt] = n
                states.append(nxt)
                parent.append(head)
                moves.append(mi)
                depth.append(d + 1)
                per_page[pi] += 1
                n += 1
        head += 1
        if on_progress is not None and head % PROGRESS_EVERY == 0:
            on_progress(head, n, d)
    sp.enabled_moves = {i for i, f in enumerate(fired) if f}
    if on_progress is not None:
        on_progress(head, n, depth[n - 1])
    return sp
