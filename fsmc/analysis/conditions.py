"""A property's condition as the checks, the Python decision and the Promela claim all read it: page tests and scoped leaves.

A condition is a boolean expression over the state in which `page` names the current page:
`page == checkout`, `page != checkout`, `page in {cart, checkout}` (and `not in`) test it, and a page's
name alone stands for `page == NAME` (unless a variable or view in scope has that name). As a task's
`on PAGE` does, a page test opens the page's variables and views to the rest of its conjunction
(`page == review and gift`) or, negated, of its disjunction (`page != review or gift`); elsewhere only
session variables are in scope. Everything else is an ordinary expression of the language (a leaf),
typed and evaluated in that scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from fsmc import ir
from fsmc.printer import property_keyword, property_to_fsm

PAGE = "page"
"""The name that stands for the current page in a property's condition."""


@dataclass(frozen=True)
class PageTest:
    """The current page is one of `pages` (`negated`: is none of them); `node` is where it is written."""

    pages: tuple[str, ...]
    negated: bool
    node: ir.Expr


@dataclass(frozen=True)
class Leaf:
    """An expression of the language, evaluated with the variables and views of `page` (None: the session's)."""

    expr: ir.Expr
    page: str | None


@dataclass(frozen=True)
class Not:
    operand: Cond


@dataclass(frozen=True)
class Junction:
    """`and` or `or` of its parts, evaluated left to right (a scoping page test comes first)."""

    op: Literal["and", "or"]
    parts: tuple[Cond, ...]


Cond = PageTest | Leaf | Not | Junction


@dataclass(frozen=True)
class Names:
    """What the names of a spec are, for telling a page's name from a variable's: pages, and per scope the rest."""

    pages: frozenset[str]
    session: frozenset[str]
    page_names: dict[str, frozenset[str]]  # per page: its variables and views

    @classmethod
    def of(cls, spec: ir.Spec) -> Names:
        per_page = {p.name: frozenset([*(v.name for v in p.vars), *(v.name for v in p.views)]) for p in spec.pages}
        return cls(frozenset(per_page), frozenset(v.name for v in spec.session), per_page)

    def is_variable(self, name: str, page: str | None) -> bool:
        return name in self.session or (page is not None and name in self.page_names.get(page, frozenset()))


def condition(e: ir.Expr, names: Names, page: str | None = None) -> Cond:
    """The condition `e` means, its leaves scoped to `page` (None: the session) unless a page test opens another."""
    if isinstance(e, ir.Unary) and e.op == "not":
        return Not(condition(e.operand, names, page))
    if isinstance(e, ir.Binary) and e.op in ("and", "or"):
        return _junction(e.op, e, names, page)
    test = page_test(e, names, page)
    return test if test is not None else Leaf(e, page)


def _flatten(op: str, e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Binary) and e.op == op:
        return _flatten(op, e.left) + _flatten(op, e.right)
    return [e]


def _junction(op: Literal["and", "or"], e: ir.Expr, names: Names, page: str | None) -> Junction:
    """A conjunction (disjunction) whose first `page == P` (`page != P`) test scopes the other parts to P."""
    items = _flatten(op, e)
    tests = [page_test(x, names, page) for x in items]
    guard = next((i for i, t in enumerate(tests) if t is not None and len(t.pages) == 1
                  and t.negated == (op == "or")), None)
    if guard is None:
        return Junction(op, tuple(condition(x, names, page) for x in items))
    test = tests[guard]
    assert test is not None
    scoped = test.pages[0] if test.pages[0] in names.pages else page
    rest = [condition(x, names, scoped) for i, x in enumerate(items) if i != guard]
    return Junction(op, (test, *rest))


def page_test(e: ir.Expr, names: Names, page: str | None) -> PageTest | None:
    """The page test `e` is (`page == P`, `page != P`, `page in {P, Q}`, `page not in {...}`, or `P` alone), or None."""
    if isinstance(e, ir.Name) and e.id in names.pages and not names.is_variable(e.id, page):
        return PageTest((e.id,), False, e)
    if not isinstance(e, ir.Binary) or e.op not in ("==", "!=", "in", "not in"):
        return None
    if _is_page(e.right, names, page) and e.op in ("==", "!="):
        other = e.left
    elif _is_page(e.left, names, page):
        other = e.right
    else:
        return None
    items = other.items if e.op in ("in", "not in") and isinstance(other, ir.SetLit) else (other,)
    return PageTest(tuple(x.id if isinstance(x, ir.Name) else "" for x in items), e.op in ("!=", "not in"), e)


def _is_page(e: ir.Expr, names: Names, page: str | None) -> bool:
    return isinstance(e, ir.Name) and e.id == PAGE and not names.is_variable(PAGE, page)


def leaves(c: Cond) -> list[Leaf]:
    """The leaves of a condition, left to right."""
    if isinstance(c, Leaf):
        return [c]
    if isinstance(c, Not):
        return leaves(c.operand)
    if isinstance(c, Junction):
        return [leaf for part in c.parts for leaf in leaves(part)]
    return []


def page_tests(c: Cond) -> list[PageTest]:
    """The page tests of a condition, left to right."""
    if isinstance(c, PageTest):
        return [c]
    if isinstance(c, Not):
        return page_tests(c.operand)
    if isinstance(c, Junction):
        return [t for part in c.parts for t in page_tests(part)]
    return []


def conditions(prop: ir.Property, names: Names) -> tuple[Cond, ...]:
    """The property's conditions: its one condition, or for `always A eventually B` both A and B."""
    return tuple(condition(e, names) for e in (prop.cond, prop.then) if e is not None)


def constant(c: Cond) -> bool | None:
    """The value of a condition that reads nothing of the state (`true`, `1 > 2`, `x and false`), else None."""
    if isinstance(c, Leaf):
        value = _fold(c.expr)
        return value if isinstance(value, bool) else None
    if isinstance(c, Not):
        inner = constant(c.operand)
        return None if inner is None else not inner
    if isinstance(c, Junction):
        values = [constant(p) for p in c.parts]
        absorbing = c.op == "or"  # true absorbs `or`, false absorbs `and`
        if absorbing in values:
            return absorbing
        return (not absorbing) if all(v is not None for v in values) else None
    return None


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
            "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def _fold(e: ir.Expr) -> ir.Value | object:
    """The value of an expression of literals and operators alone; `_UNKNOWN` when it reads anything else."""
    if isinstance(e, ir.Lit):
        return e.value
    if isinstance(e, ir.Unary):
        v = _fold(e.operand)
        if v is _UNKNOWN:
            return _UNKNOWN
        return (not v) if e.op == "not" else (-v if isinstance(v, int | float) and not isinstance(v, bool) else _UNKNOWN)
    if isinstance(e, ir.Binary) and e.op in _COMPARE:
        left, right = _fold(e.left), _fold(e.right)
        if _UNKNOWN in (left, right):
            return _UNKNOWN
        try:
            return _COMPARE[e.op](left, right)
        except TypeError:
            return _UNKNOWN
    return _UNKNOWN


_UNKNOWN = object()


def describe(prop: ir.Property) -> str:
    """How the property is named in messages: its name, else its kind and text."""
    return f"{property_keyword(prop)} '{prop.name}'" if prop.name else f"`{property_to_fsm(prop)}`"
