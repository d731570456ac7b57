"""A tiny C-like expression tree over small-int state variables, rendered to C or Promela."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class K:
    """An integer constant."""

    value: int


@dataclass(frozen=True)
class V:
    """The stored value of a variable (a scalar, a set's bitmask, or one slot of a map).

    `running` reads the value as updated by the effects so far; otherwise the pre-state value.
    """

    var: int
    slot: int | None = None
    running: bool = False


@dataclass(frozen=True)
class VD:
    """A map slot chosen at run time by `idx` (the key's index in the key domain)."""

    var: int
    idx: LExpr
    running: bool = False


@dataclass(frozen=True)
class B:
    """A binary operator with C precedence rules made explicit by parentheses."""

    op: str  # + - * == != < <= > >= && || & | << >>
    left: LExpr
    right: LExpr


@dataclass(frozen=True)
class U:
    op: str  # ! - ~
    operand: LExpr


@dataclass(frozen=True)
class Cond:
    test: LExpr
    then: LExpr
    other: LExpr


@dataclass(frozen=True)
class Tab:
    """values[idx] of a precomputed table; `checked` tables hold -1 where the semantics cannot go."""

    table: int
    idx: LExpr
    checked: bool = False


@dataclass(frozen=True)
class Pop:
    """The number of set bits of an n-bit mask."""

    mask: LExpr
    bits: int


@dataclass(frozen=True)
class Pre:
    """The i-th right-hand side of a move, evaluated in the state before the move."""

    index: int


LExpr = K | V | VD | B | U | Cond | Tab | Pop | Pre

TRUE = K(1)
FALSE = K(0)


def conj(a: LExpr, b: LExpr) -> LExpr:
    if a == FALSE or b == FALSE:
        return FALSE
    if a == TRUE:
        return b
    if b == TRUE:
        return a
    return B("&&", a, b)


def disj(a: LExpr, b: LExpr) -> LExpr:
    if a == TRUE or b == TRUE:
        return TRUE
    if a == FALSE:
        return b
    if b == FALSE:
        return a
    return B("||", a, b)


def neg(a: LExpr) -> LExpr:
    if isinstance(a, K):
        return K(int(not a.value))
    return U("!", a)


def add(a: LExpr, b: LExpr) -> LExpr:
    if isinstance(a, K) and isinstance(b, K):
        return K(a.value + b.value)
    if isinstance(b, K) and b.value == 0:
        return a
    if isinstance(a, K) and a.value == 0:
        return b
    return B("+", a, b)


def mul(a: LExpr, k: int) -> LExpr:
    if k == 1:
        return a
    if isinstance(a, K):
        return K(a.value * k)
    return B("*", a, K(k))


def reads(e: LExpr) -> set[tuple[int, bool]]:
    """The (variable, running) pairs an expression reads."""
    if isinstance(e, V):
        return {(e.var, e.running)}
    if isinstance(e, VD):
        return {(e.var, e.running)} | reads(e.idx)
    if isinstance(e, B):
        return reads(e.left) | reads(e.right)
    if isinstance(e, U):
        return reads(e.operand)
    if isinstance(e, Cond):
        return reads(e.test) | reads(e.then) | reads(e.other)
    if isinstance(e, (Tab, Pop)):
        return reads(e.idx if isinstance(e, Tab) else e.mask)
    return set()


def has_checked_table(e: LExpr) -> bool:
    if isinstance(e, Tab):
        return e.checked or has_checked_table(e.idx)
    if isinstance(e, VD):
        return has_checked_table(e.idx)
    if isinstance(e, B):
        return has_checked_table(e.left) or has_checked_table(e.right)
    if isinstance(e, U):
        return has_checked_table(e.operand)
    if isinstance(e, Cond):
        return any(has_checked_table(x) for x in (e.test, e.then, e.other))
    if isinstance(e, Pop):
        return has_checked_table(e.mask)
    return False
