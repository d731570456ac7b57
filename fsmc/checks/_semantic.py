"""Shared by the semantic checks: the explored states grouped by page, computed once per context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any
from weakref import WeakKeyDictionary

from fsmc import ir
from fsmc.checks.context import CheckContext
from fsmc.engines import StateSpace
from fsmc.engines.python import slots_read as engine_slots_read
from fsmc.semantics import Machine, State, template_names

Evaluator = Callable[[State, tuple[Any, ...]], Any]


@dataclass
class Explored:
    """The reachable states of one context: the space, its machine and the state indices per page."""

    space: StateSpace
    machine: Machine
    states: list[State] = field(default_factory=list)  # in BFS order, through the engine's interface
    by_page: dict[str, list[int]] = field(default_factory=dict)
    _distinct: dict[tuple[str | None, tuple[int, ...]], list[State]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.space.complete

    def states_on(self, page: str) -> list[State]:
        return [self.states[i] for i in self.by_page.get(page, ())]

    def reached(self, page: str) -> bool:
        return bool(self.by_page.get(page))

    def distinct(self, page: str | None, slots: list[int]) -> list[State]:
        """One state (the first in BFS order) per combination of the slots, on a page or anywhere."""
        key = (page, tuple(slots))
        if key not in self._distinct:
            self._distinct[key] = representatives(self.states if page is None else self.states_on(page), slots)
        return self._distinct[key]

    def index_of(self, state: State) -> int:
        i = self.space.index_of(state)
        assert i is not None, "a state taken from the space is in it"
        return i


_CACHE: WeakKeyDictionary[CheckContext, Explored | None] = WeakKeyDictionary()
_FAILURES: WeakKeyDictionary[CheckContext, str] = WeakKeyDictionary()


def explored(ctx: CheckContext) -> Explored | None:
    """The explored state space of ctx, or None when the spec cannot be executed or explored."""
    if ctx in _CACHE:
        return _CACHE[ctx]
    result: Explored | None = None
    try:
        space, machine = ctx.state_space, ctx.machine
    except Exception as err:  # noqa: BLE001 - a runtime error in the spec is reported by exploration_check
        space, machine = None, None
        _FAILURES[ctx] = f"{type(err).__name__}: {err}"
    if space is not None and machine is not None:
        states = getattr(space, "states", None)  # the reference engine's list; other engines via state(i)
        if not isinstance(states, list):
            states = [space.state(i) for i in range(len(space))]
        result = Explored(space, machine, states)
        names = [p.name for p in machine.pages]
        for i, s in enumerate(result.states):
            result.by_page.setdefault(names[s[0]], []).append(i)
    _CACHE[ctx] = result
    return result


def failure(ctx: CheckContext) -> str | None:
    """Why the machine could not be built or explored, or None when it could."""
    if explored(ctx) is not None:
        return None
    if ctx in _FAILURES:
        return _FAILURES[ctx]
    try:
        Machine(ctx.spec)
    except Exception as err:  # noqa: BLE001 - we only want the reason
        return f"{type(err).__name__}: {err}"
    return "the semantics could not be compiled"


def evaluator(machine: Machine, expr: ir.Expr, page: str | None, params: tuple[ir.Param, ...] = ()) -> Evaluator:
    """A callable (state, args) -> value for an expression in the scope of a page and parameters."""
    scope = machine.scope(machine.page_index.get(page) if page is not None else None, params)
    code = machine.compile_expr(expr, scope)[0]
    fn: Evaluator = eval(f"lambda s, a: (lambda m: {code})({{}})", machine.namespace)  # noqa: S307 - our own generated code
    return fn


def capped(ctx: CheckContext) -> str:
    return f"within the first {ctx.state_cap:,} states (the search was capped)"


def show(value: Any) -> str:
    """A value as the spec would write it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):  # a set, or a map as (key, value) pairs
        items = [f"{show(x[0])}: {show(x[1])}" if isinstance(x, tuple) and len(x) == 2 else show(x) for x in value]
        return "{" + ", ".join(items[:4]) + (", ..." if len(items) > 4 else "") + "}"
    return str(value)


def show_args(params: tuple[ir.Param, ...], args: tuple[Any, ...]) -> str:
    return "(" + ", ".join(f"{p.name}={show(v)}" for p, v in zip(params, args, strict=True)) + ")"


def a_few(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"






def _template_names(text: str | None, out: set[str]) -> None:
    if text:
        out.update(n.split(".")[0] for n in template_names(text))


def names_read(spec: ir.Spec) -> set[str]:
    """Every name an expression, view or template of the spec reads (a superset: scopes are ignored)."""
    out: set[str] = set()
    for task in spec.tasks:
        for e in (task.goal, task.answer):
            ir.expr_names(e, out)
        _template_names(task.instruction, out)
    for page in spec.pages:
        _template_names(page.title, out)
        for view in page.views:
            out.update(n for n in (view.source, view.page_var) if n)
            ir.expr_names(view.where, out)
            for key in view.order:
                ir.expr_names(key.expr, out)
                ir.expr_names(key.when, out)
        for action in page.actions:
            out.update(action.carry)
            _template_names(action.label, out)
            for e in action.requires:
                ir.expr_names(e, out)
            for eff in action.effects:
                ir.expr_names(eff.key, out)
                ir.expr_names(eff.value, out)
            for op in action.gui:
                for text in (op.selector, op.text, op.until):
                    _template_names(text, out)
    return out


def slots_read(spec: ir.Spec, page: ir.Page | None, expr: ir.Expr, params: tuple[ir.Param, ...]) -> list[int]:
    """The state slots an expression can read (page index included), following the views it uses."""
    return engine_slots_read(spec, page, (expr,), params)


def representatives(states: list[State], slots: list[int]) -> list[State]:
    """One state per distinct combination of the given slots, in the original (BFS) order."""
    key = itemgetter(*slots) if slots else (lambda s: ())
    seen: dict[Any, State] = {}
    for s in states:
        seen.setdefault(key(s), s)
    return list(seen.values())
