"""Requires that can never all hold, found without exploring: shared by the impossible-requires and dead-action checks.

A cheap analysis independent of exploration: constants are folded, and each conjunct that constrains a
single variable or parameter (`x == 1`, `x < 1`, `not flag`, `x in {"a", "b"}`, `x == 1 or x == 2`) is turned
into a predicate on that name's finite domain; if no value passes every predicate, the action is dead.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fsmc import ir
from fsmc.checks._semantic import show
from fsmc.ir.visit import conjuncts
from fsmc.printer import expr_to_fsm
from fsmc.types.domains import domain_size, domain_values

Pred = Callable[[Any], bool]
Constraint = tuple[str, Pred]
"""A name and the predicate its value must pass."""
MAX_DOMAIN = 100_000
_UNKNOWN = object()
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_ARITH: dict[str, Callable[[Any, Any], Any]] = {"+": operator.add, "-": operator.sub, "*": operator.mul}


@dataclass(frozen=True)
class Atom:
    """A conjunct that constrains one name: `pred(value of name)` must hold."""

    name: str
    pred: Pred
    source: ir.Expr  # the require it came from


def fold(e: ir.Expr) -> Any:
    """The value of an expression made of literals only, or _UNKNOWN."""
    try:
        return _Fold().visit(e)
    except (TypeError, ValueError, ArithmeticError):
        return _UNKNOWN


class _Fold(ir.ExprVisitor[Any]):
    """Folds literals, `not`, `-`, `and`, `or`, comparisons and arithmetic; anything else is _UNKNOWN."""

    def visit_lit(self, e: ir.Lit) -> Any:
        return e.value

    def visit_unary(self, e: ir.Unary) -> Any:
        v = self.visit(e.operand)
        return _UNKNOWN if v is _UNKNOWN else (not v) if e.op == "not" else -v

    def visit_binary(self, e: ir.Binary) -> Any:
        if e.op in ("and", "or"):
            return self._logic(e)
        if e.op in _COMPARE or e.op in _ARITH:
            left, right = self.visit(e.left), self.visit(e.right)
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            return {**_COMPARE, **_ARITH}[e.op](left, right)
        return _UNKNOWN

    def _logic(self, e: ir.Binary) -> Any:
        left, right = self.visit(e.left), self.visit(e.right)
        absorbing = e.op == "or"  # `true or x` and `x or true` are true; `false and x`, `x and false` false
        for side in (left, right):
            if side is not _UNKNOWN and bool(side) == absorbing:
                return absorbing
        return _UNKNOWN if _UNKNOWN in (left, right) else bool(right)

    def _unknown(self, e: ir.Expr) -> Any:
        return _UNKNOWN

    visit_name = visit_field = visit_index = visit_call = visit_set = _unknown


def _safe(pred: Pred) -> Pred:
    """A predicate that counts a value it cannot compare (none < 1) as possible: we only claim what is sure."""

    def run(v: Any) -> bool:
        try:
            return bool(pred(v))
        except TypeError:
            return True

    return run


def single(e: ir.Expr, names: dict[str, ir.Type]) -> Constraint | None:
    """(name, predicate) when e constrains exactly one name of a finite domain in a form we understand."""
    return _Single(names).visit(e)


class _Single(ir.ExprVisitor["Constraint | None"]):
    """The constraint an expression puts on one of `names`: a bool name, `not`, a comparison, `in`, `and`, `or`."""

    def __init__(self, names: dict[str, ir.Type]):
        self.names = names

    def visit_name(self, e: ir.Name) -> Constraint | None:
        return (e.id, lambda v: v is True) if isinstance(self.names.get(e.id), ir.BoolType) else None

    def visit_unary(self, e: ir.Unary) -> Constraint | None:
        inner = self.visit(e.operand) if e.op == "not" else None
        if inner is None:
            return None
        p = inner[1]
        return inner[0], lambda v: not p(v)

    def visit_binary(self, e: ir.Binary) -> Constraint | None:
        if e.op in _COMPARE:
            return _compare_atom(e, self.names)
        if e.op in ("in", "not in"):
            return _member_atom(e, self.names)
        if e.op in ("and", "or"):
            return _combine(e, self.names)
        return None

    def _none(self, e: ir.Expr) -> Constraint | None:
        return None

    visit_lit = visit_field = visit_index = visit_call = visit_set = _none


def _compare_atom(e: ir.Binary, names: dict[str, ir.Type]) -> Constraint | None:
    op: str = e.op
    left, right = e.left, e.right
    if not isinstance(left, ir.Name):
        left, right, op = right, left, _MIRROR[op]
    if not isinstance(left, ir.Name) or left.id not in names:
        return None
    c = fold(right)
    if c is _UNKNOWN:
        return None
    compare = _COMPARE[op]
    return left.id, _safe(lambda v: compare(v, c))


def _member_atom(e: ir.Binary, names: dict[str, ir.Type]) -> Constraint | None:
    if not isinstance(e.left, ir.Name) or e.left.id not in names or not isinstance(e.right, ir.SetLit):
        return None
    items = [fold(i) for i in e.right.items]
    if _UNKNOWN in items:
        return None
    inside = e.op == "in"
    return e.left.id, lambda v: (v in items) == inside


def _combine(e: ir.Binary, names: dict[str, ir.Type]) -> Constraint | None:
    for side, other in ((e.left, e.right), (e.right, e.left)):
        value = fold(side)
        if value is not _UNKNOWN and bool(value) != (e.op == "or"):
            return single(other, names)  # `a or false`, `a and true`: just a
    left, right = single(e.left, names), single(e.right, names)
    if left is None or right is None or left[0] != right[0]:
        return None
    lp, rp = left[1], right[1]
    if e.op == "and":
        return left[0], lambda v: lp(v) and rp(v)
    return left[0], lambda v: lp(v) or rp(v)


def finite_names(spec: ir.Spec, page: ir.Page, action: ir.Action) -> dict[str, ir.Type]:
    """Names an action's requires may use, innermost scope first, with an enumerable domain of modest size."""
    out: dict[str, ir.Type] = {v.name: v.type for v in spec.session}
    for view in page.views:
        out.pop(view.name, None)  # a view shadows a session variable of the same name
    out.update({v.name: v.type for v in page.vars})  # page variables shadow views
    out.update({p.name: p.type for p in action.params})  # parameters shadow everything
    return {n: t for n, t in out.items() if _enumerable(t, spec)}


def _enumerable(t: ir.Type, spec: ir.Spec) -> bool:
    try:
        return domain_size(t, spec) <= MAX_DOMAIN and bool(domain_values(t, spec))
    except (ValueError, KeyError):
        return False


@dataclass(frozen=True)
class Contradiction:
    """Why an action's requires never hold: a constant-false require, or a name no value of which fits."""

    require: ir.Expr
    message: str
    others: tuple[ir.Expr, ...] = ()


def contradiction(spec: ir.Spec, page: ir.Page, action: ir.Action) -> Contradiction | None:
    """The first reason the requires of an action can never all hold, or None if none is found."""
    names = finite_names(spec, page, action)
    atoms: dict[str, list[Atom]] = {}
    for req in action.requires:
        for c in conjuncts(req):
            value = fold(c)
            if value is not _UNKNOWN and not value:
                return Contradiction(req, f"`{expr_to_fsm(c)}` is always false")
            found = single(c, names)
            if found is not None:
                atoms.setdefault(found[0], []).append(Atom(found[0], found[1], req))
    for name, group in atoms.items():
        if not any(all(a.pred(v) for a in group) for v in domain_values(names[name], spec)):
            return _no_value(name, names[name], group, spec)
    return None


def _no_value(name: str, t: ir.Type, group: list[Atom], spec: ir.Spec) -> Contradiction:
    reqs = list(dict.fromkeys(a.source for a in group))
    shown = " and ".join(f"`{expr_to_fsm(r)}`" for r in reqs)
    return Contradiction(reqs[-1], f"no value of '{name}' ({describe_domain(t, spec)}) satisfies {shown}",
                         tuple(reqs[:-1]))


def describe_domain(t: ir.Type, spec: ir.Spec) -> str:
    """A domain as a hint shows it: `lo..hi` for an int, else its first values."""
    if isinstance(t, ir.IntType):
        return f"{t.lo}..{t.hi}"
    values = [show(v) for v in domain_values(t, spec)]
    return "one of " + ", ".join(values[:6]) + (", ..." if len(values) > 6 else "")
