"""The semantic decisions, made once from the IR: where each name lives, canonical orders, and what every effect, navigation and view does.

The Python reference semantics (`machine.py`), the site's JS runtime (`codegen/js.py`) and the small-int
lowering for the native engine and Promela (`engines/native`) only render what is decided here: which slot
an effect writes, the bounds `inc`/`dec` clamp to, the order a set or map is kept in, which variables a
`goto` resets and which it carries, the order a view's keys are applied in (docs/semantics.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from fsmc import ir
from fsmc.errors import FsmcError
from fsmc.types import domains as T


class CompileError(FsmcError):
    """The spec is not well formed enough to execute (the checks report why)."""


# ---------------------------------------------------------------- names


@dataclass(frozen=True)
class Slot:
    """A variable's place in a state tuple `(page, session values..., page values...)`, and its declared type."""

    index: int
    type: ir.Type


@dataclass(frozen=True)
class ArgRef:
    """A parameter of the action or task: argument number `index`."""

    index: int
    type: ir.Type


@dataclass(frozen=True)
class RowRef:
    """The row alias inside a view: a key of `table`."""

    table: str


@dataclass(frozen=True)
class VarRef:
    """A variable of the current page or of the session, at state slot `slot.index`."""

    slot: Slot
    session: bool


@dataclass(frozen=True)
class ViewRef:
    """A view of the current page."""

    view: ir.View
    page: str


NameRef = ArgRef | RowRef | VarRef | ViewRef


@dataclass
class Scope:
    """What names mean where an expression is evaluated: parameters, the row alias, page variables, views, session."""

    session: dict[str, Slot]
    page: ir.Page | None = None
    page_slots: dict[str, Slot] = field(default_factory=dict)
    params: dict[str, ArgRef] = field(default_factory=dict)
    alias: tuple[str, str] | None = None  # (name, table)

    def with_params(self, params: tuple[ir.Param, ...]) -> Scope:
        bound = {p.name: ArgRef(i, p.type) for i, p in enumerate(params)}
        return Scope(self.session, self.page, self.page_slots, {**self.params, **bound}, self.alias)

    def with_alias(self, name: str, table: str) -> Scope:
        return Scope(self.session, self.page, self.page_slots, self.params, (name, table))

    def view(self, name: str) -> ir.View | None:
        if self.page is None:
            return None
        return next((v for v in self.page.views if v.name == name), None)

    def resolve(self, name: str) -> NameRef | None:
        """What `name` means here, innermost first (docs/semantics.md, Expressions); None if nothing."""
        if name in self.params:
            return self.params[name]
        if self.alias and name == self.alias[0]:
            return RowRef(self.alias[1])
        if name in self.page_slots:
            return VarRef(self.page_slots[name], False)
        view = self.view(name)
        if view is not None and self.page is not None:
            return ViewRef(view, self.page.name)
        if name in self.session:
            return VarRef(self.session[name], True)
        return None

    def slot(self, name: str) -> Slot:
        """The slot of a variable an effect or a pagination names: the page's first, then the session's."""
        slot = self.page_slots.get(name) or self.session.get(name)
        if slot is None:
            raise CompileError(f"effect on unknown variable '{name}'")
        return slot


def count_view(node: ir.Call, scope: Scope) -> ir.View:
    """The view `count(v)` / `pages(v)` counts: one view of the current page, named directly."""
    arg = node.args[0] if len(node.args) == 1 else None
    view = scope.view(arg.id) if isinstance(arg, ir.Name) else None
    if view is None or scope.page is None:
        raise CompileError(f"{node.func}() takes one view of the current page")
    return view


def collection_kind(t: ir.Type) -> Literal["map", "set", "text"]:
    """How `in` and `contains` read a value of type `t`: a map's keys, a set's or view's elements, or text."""
    base = T.strip_optional(t)
    if isinstance(base, ir.MapType):
        return "map"
    return "set" if isinstance(base, ir.SetType) else "text"


# ---------------------------------------------------------------- orders


@dataclass(frozen=True)
class Order:
    """The canonical order of one type's values: by position in `values` (choices, rows), else natural, none first."""

    type: ir.Type
    values: tuple[Any, ...] | None = None

    def key(self) -> Callable[[Any], Any]:
        """A Python sort key for this order."""
        if self.values is None:
            return natural_key
        index = {v: i for i, v in enumerate(self.values)}
        return lambda v: -1 if v is None else index.get(v, len(index))


def natural_key(v: Any) -> tuple[bool, Any]:
    """The natural order: none first, then values ascending (ints, numbers, strings, false < true)."""
    return (v is not None, v)


def order_of(t: ir.Type, spec: ir.Spec) -> Order:
    """The canonical order of the values of `t` (an optional orders as its inner type, none first)."""
    t = T.strip_optional(t)
    if isinstance(t, (ir.ChoiceType, ir.RefType)):
        return Order(t, T.domain_values(t, spec))
    return Order(t)


@dataclass(frozen=True)
class Canonical:
    """How a stored value is made canonical: a set sorted by its elements' order, a map by its keys' order."""

    kind: Literal["set", "map"]
    order: Order


def canonical_form(t: ir.Type, spec: ir.Spec) -> Canonical | None:
    """The normalisation a value of type `t` needs before it is stored; None for scalars."""
    base = T.strip_optional(t)
    if isinstance(base, ir.SetType):
        return Canonical("set", order_of(base.elem, spec))
    if isinstance(base, ir.MapType):
        return Canonical("map", order_of(base.key, spec))
    return None


# ---------------------------------------------------------------- effects

EffectKind = Literal[
    "assign", "assign_set", "assign_map", "put_entry", "add_clamped", "add_entry", "toggle", "insert", "discard",
    "discard_key", "empty", "none", "default",
]


@dataclass(frozen=True)
class LEffect:
    """One effect with every decision made; its value and key are evaluated in the state before the action.

    kinds: `assign` stores the value; `assign_set`/`assign_map` store it made canonical by `order`;
    `put_entry` sets map entry `key` (none removes it); `add_clamped` adds `sign * value` and clamps to
    `bounds`; `add_entry` does so on map entry `key` (absent counts 0, below lo removes, above hi clamps);
    `toggle` negates; `insert`/`discard` put in or take out a set element (kept in `order`); `discard_key`
    removes a map key; `empty`, `none` and `default` clear to the empty set or map, none, or the declared
    default at `default` (page index, or None for the session; position among its variables).
    """

    kind: EffectKind
    slot: Slot
    source: ir.Effect
    value: ir.Expr | None = None
    key: ir.Expr | None = None
    sign: int = 1
    bounds: tuple[int, int] | None = None  # None: not an int domain, the target's own int range applies
    order: Order | None = None
    default: tuple[int | None, int] | None = None


def _int_bounds(t: ir.Type) -> tuple[int, int] | None:
    base = T.strip_optional(t)
    return (base.lo, base.hi) if isinstance(base, ir.IntType) else None


class EffectLowerer:
    """Decides what each effect of an action does; the decisions of docs/semantics.md, Actions, step 2."""

    def __init__(self, spec: ir.Spec, page_index: dict[str, int], nsess: int):
        self.spec, self.page_index, self.nsess = spec, page_index, nsess

    def lower(self, eff: ir.Effect, scope: Scope) -> LEffect:
        slot = scope.slot(eff.var)
        base = T.strip_optional(slot.type)
        sign = -1 if eff.op == "dec" else 1

        def made(kind: EffectKind, **kw: Any) -> LEffect:
            return LEffect(kind, slot, eff, eff.value, eff.key, **kw)

        if eff.op == "assign":
            if eff.key is not None and isinstance(base, ir.MapType):
                return made("put_entry", order=order_of(base.key, self.spec))
            form = canonical_form(base, self.spec)
            if form is None:
                return made("assign")
            return made("assign_set" if form.kind == "set" else "assign_map", order=form.order)
        if eff.op in ("inc", "dec"):
            if eff.key is not None and isinstance(base, ir.MapType):
                return made("add_entry", sign=sign, bounds=_int_bounds(base.value), order=order_of(base.key, self.spec))
            return made("add_clamped", sign=sign, bounds=_int_bounds(base))
        if eff.op == "toggle":
            return made("toggle")
        if eff.op == "add":
            return made("insert", order=order_of(base.elem if isinstance(base, ir.SetType) else base, self.spec))
        if eff.op == "remove":
            return made("discard_key" if isinstance(base, ir.MapType) else "discard")
        if eff.op == "clear":
            return self._clear(eff, slot, scope)
        raise CompileError(f"unknown effect '{eff.op}'")

    def _clear(self, eff: ir.Effect, slot: Slot, scope: Scope) -> LEffect:
        if isinstance(T.strip_optional(slot.type), (ir.SetType, ir.MapType)):
            return LEffect("empty", slot, eff)
        if isinstance(slot.type, ir.OptionalType):
            return LEffect("none", slot, eff)
        if eff.var in scope.page_slots and scope.page is not None:
            at = (self.page_index[scope.page.name], slot.index - 1 - self.nsess)
            return LEffect("default", slot, eff, default=at)
        return LEffect("default", slot, eff, default=(None, slot.index - 1))


# ---------------------------------------------------------------- navigation


@dataclass(frozen=True)
class LGoto:
    """A `goto`: the target page, the session slots kept (1 to `keep`), and for each of the target's variables the
    slot of the updated old state it carries, or None where it starts from its default (docs/semantics.md, step 3)."""

    page: int
    keep: int
    fresh: tuple[int | None, ...]


def lower_goto(action: ir.Action, scope: Scope, spec: ir.Spec, page_index: dict[str, int]) -> LGoto | None:
    """The navigation of an action seen from its page's scope; None when it stays."""
    if action.goto is None:
        return None
    if action.goto not in page_index:
        raise CompileError(f"action '{action.name}' goes to unknown page '{action.goto}'")
    target = page_index[action.goto]
    fresh = tuple(
        scope.page_slots[var.name].index if var.name in action.carry and var.name in scope.page_slots else None
        for var in spec.pages[target].vars)
    return LGoto(target, len(scope.session), fresh)


# ---------------------------------------------------------------- views


@dataclass(frozen=True)
class LSort:
    """One stable sort of a view's rows by `key` (over the row alias), applied only when `when` holds."""

    key: ir.Expr
    desc: bool
    when: ir.Expr | None


@dataclass
class LView:
    """A view with its decisions made: where its rows come from, the sorts in the order they run, its pagination."""

    page: str
    view: ir.View
    table: str  # the table whose keys the rows are
    from_table: bool  # start from the table's rows in file order, else from the full rows of view `view.source`
    scope: Scope  # the page's names: `when` and the pagination read these
    row_scope: Scope  # the page's names and the row alias: `where` and the sort keys read these
    sorts: tuple[LSort, ...]  # stable sorts, last order key first, so the first key decides most
    page_slot: int | None  # the slot of the 1-based page number, when paginated
    page_size: int | None
    reads: tuple[int, ...]  # the state slots its rows depend on (view_slots), pagination aside


def view_table(view: ir.View, scope: Scope, tables: set[str], seen: frozenset[str] = frozenset()) -> str:
    """The table whose rows a view holds, through the views it reads."""
    if view.name in seen:
        raise CompileError(f"view '{view.name}' depends on itself")
    if view.source in tables:
        return view.source
    source = scope.view(view.source)
    if source is None:
        raise CompileError(f"view '{view.name}' reads unknown source '{view.source}'")
    return view_table(source, scope, tables, seen | {view.name})


def view_slots(view: ir.View, scope: Scope, seen: frozenset[str] = frozenset()) -> tuple[int, ...]:
    """The state slots a view's rows (all pages of them) depend on: what its filter and sort keys read, the
    slots of the views it reads (a view named in an expression is paginated, so its page number too)."""
    names: set[str] = set()
    for e in (view.where, *(k.expr for k in view.order), *(k.when for k in view.order)):
        ir.expr_names(e, names)
    names.discard(view.alias)
    out: set[int] = set()
    for name in (*sorted(names), view.source):
        ref = scope.resolve(name)
        if isinstance(ref, VarRef):
            out.add(ref.slot.index)
        elif isinstance(ref, ViewRef) and name not in seen:
            out.update(view_slots(ref.view, scope, seen | {view.name}))
            if name != view.source and ref.view.page_var:
                out.add(scope.slot(ref.view.page_var).index)
    return tuple(sorted(out))


def expr_slots(e: ir.Expr, scope: Scope) -> tuple[int, ...]:
    """The state slots an expression can read: its variables' and those of the views it reads, page numbers too."""
    out: set[int] = set()
    for name in sorted(ir.expr_names(e, set())):
        ref = scope.resolve(name)
        if isinstance(ref, VarRef):
            out.add(ref.slot.index)
        elif isinstance(ref, ViewRef):
            out.update(view_slots(ref.view, scope))
            if ref.view.page_var:
                out.add(scope.slot(ref.view.page_var).index)
    return tuple(sorted(out))


def lower_view(view: ir.View, scope: Scope, tables: set[str]) -> LView:
    assert scope.page is not None
    table = view_table(view, scope, tables)
    sorts = tuple(LSort(k.expr, k.desc, k.when) for k in reversed(view.order))
    page_slot = None
    if view.page_var and view.page_size:
        slot = scope.page_slots.get(view.page_var) or scope.session.get(view.page_var)
        if slot is None:
            raise CompileError(f"view '{view.name}' paginates by unknown variable '{view.page_var}'")
        page_slot = slot.index
    return LView(scope.page.name, view, table, view.source in tables, scope, scope.with_alias(view.alias, table),
                 sorts, page_slot, view.page_size if page_slot is not None else None, view_slots(view, scope))


# ---------------------------------------------------------------- the whole spec


class Lowered:
    """Every decision for one spec, made once: slots, scopes, defaults' places, effects, navigation and views."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.page_index = {p.name: i for i, p in enumerate(spec.pages)}
        self.tables = {t.name for t in spec.tables}
        self.nsess = len(spec.session)
        self.session_slots = {v.name: Slot(1 + i, v.type) for i, v in enumerate(spec.session)}
        base = 1 + self.nsess
        self.scopes = [Scope(self.session_slots, p, {v.name: Slot(base + i, v.type) for i, v in enumerate(p.vars)})
                       for p in spec.pages]
        self._effects = EffectLowerer(spec, self.page_index, self.nsess)
        self._orders: dict[ir.Type, Order] = {}

    def scope(self, page: int | None, params: tuple[ir.Param, ...] = ()) -> Scope:
        """The names visible on page number `page` (None: the session only) with these parameters bound."""
        base = Scope(self.session_slots) if page is None else self.scopes[page]
        return base.with_params(params) if params else base

    def order(self, t: ir.Type) -> Order:
        t = T.strip_optional(t)
        if t not in self._orders:
            self._orders[t] = order_of(t, self.spec)
        return self._orders[t]

    def canonical(self, t: ir.Type) -> Canonical | None:
        return canonical_form(t, self.spec)

    def effects(self, action: ir.Action, page: int) -> list[LEffect]:
        scope = self.scope(page, action.params)
        return [self._effects.lower(eff, scope) for eff in action.effects]

    def goto(self, action: ir.Action, page: int) -> LGoto | None:
        return lower_goto(action, self.scopes[page], self.spec, self.page_index)

    def views(self, page: int) -> list[LView]:
        return [lower_view(v, self.scopes[page], self.tables) for v in self.spec.pages[page].views]


__all__ = [
    "ArgRef", "Canonical", "CompileError", "EffectKind", "LEffect", "LGoto", "LSort", "LView", "Lowered", "NameRef",
    "Order", "RowRef", "Scope", "Slot", "VarRef", "ViewRef", "canonical_form", "collection_kind", "count_view", "lower_goto",
    "expr_slots", "lower_view", "natural_key", "order_of", "view_slots", "view_table",
]
