"""Every domain is non-empty and of a sane size, every parameter domain is enumerable, and every default is a constant of its domain."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import SpecIndex, declared_types, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.domains import domain_size
from fsmc.types.literals import literal_problem

MAX_INT_VALUES = 1_000_000
MAX_ELEMENTS = 64  # sets and maps over more elements than this have astronomically many values


def resolvable(t: ir.Type, idx: SpecIndex) -> bool:
    """Whether every table and enum the type names exists (so its domain can be computed)."""
    if isinstance(t, ir.RefType):
        return t.table in idx.tables
    if isinstance(t, ir.NamedType):
        return False
    if isinstance(t, ir.SetType):
        return resolvable(t.elem, idx)
    if isinstance(t, ir.MapType):
        return resolvable(t.key, idx) and resolvable(t.value, idx)
    if isinstance(t, ir.OptionalType):
        return resolvable(t.inner, idx)
    return True


HUGE = 2**64  # sizes are counted up to here: a nested set<set<set<...>>> would take forever to count exactly


def _bounded_size(t: ir.Type, spec: ir.Spec) -> int:
    """domain_size(t), or HUGE if it is at least that."""
    if isinstance(t, ir.SetType):
        n = _bounded_size(t.elem, spec)
        return HUGE if n >= 64 else 2**n
    if isinstance(t, ir.MapType):
        keys, values = _bounded_size(t.key, spec), _bounded_size(t.value, spec)
        return HUGE if keys >= 64 and values >= 1 else min(HUGE, (values + 1) ** keys)
    if isinstance(t, ir.OptionalType):
        return min(HUGE, 1 + _bounded_size(t.inner, spec))
    return min(HUGE, domain_size(t, spec))


def size_of(t: ir.Type, idx: SpecIndex) -> int | None:
    """The number of values of a domain (HUGE at most), or None when it names something unknown or repeats a key."""
    if not resolvable(t, idx):
        return None
    try:
        return _bounded_size(t, idx.spec)
    except (KeyError, ValueError, OverflowError):
        return None


def _shape(t: ir.Type, idx: SpecIndex) -> Iterator[Diagnostic]:
    if isinstance(t, ir.IntType) and t.lo > t.hi:
        yield Diagnostic("E220", f"int[{t.lo}..{t.hi}] is empty", t.span, hint=f"write int[{t.hi}..{t.lo}]")
    elif isinstance(t, ir.IntType) and t.hi - t.lo + 1 > MAX_INT_VALUES:
        yield Diagnostic("E221", f"int[{t.lo}..{t.hi}] has {t.hi - t.lo + 1:,} values", t.span,
                         hint=f"states hold finite, small domains: keep ranges under {MAX_INT_VALUES:,} values")
    elif isinstance(t, ir.RefType) and t.table in idx.tables and not idx.tables[t.table].rows:
        yield Diagnostic("E220", f"table '{t.table}' has no rows, so `ref {t.table}` has no values", t.span,
                         hint="add rows to the table")
    elif isinstance(t, (ir.SetType, ir.MapType)):
        yield from _collection(t, idx)
    elif isinstance(t, ir.OptionalType):
        yield from _shape(t.inner, idx)


def _collection(t: ir.SetType | ir.MapType, idx: SpecIndex) -> Iterator[Diagnostic]:
    inner = t.elem if isinstance(t, ir.SetType) else t.key
    n = size_of(inner, idx)
    if n is not None and n > MAX_ELEMENTS:
        what = "a set" if isinstance(t, ir.SetType) else "a map"
        size = f"over {n:,} possible elements has about 2^{n}" if n < HUGE else "over 2^64 or more elements has astronomically many"
        yield Diagnostic("E221", f"{what} {size} values", t.span,
                         hint=f"keep the element domain under {MAX_ELEMENTS} values (e.g. a smaller table or range)")
    yield from _shape(inner, idx)
    if isinstance(t, ir.MapType):
        yield from _shape(t.value, idx)


def _params(spec: ir.Spec) -> Iterator[tuple[ir.Param, str]]:
    for page in spec.pages:
        for a in page.actions:
            yield from ((p, f"action '{a.name}'") for p in a.params)
    for task in spec.tasks:
        yield from ((p, f"task '{task.name}'") for p in task.params)


def _enumerable(spec: ir.Spec) -> Iterator[Diagnostic]:
    for p, owner in _params(spec):
        base = p.type.inner if isinstance(p.type, ir.OptionalType) else p.type
        if isinstance(base, (ir.SetType, ir.MapType)):
            yield Diagnostic("E222", f"parameter '{p.name}' of {owner} is a {base.kind}, which cannot be enumerated",
                             p.span, hint="one move per parameter value: use bool, int[..], a choice, an enum or a ref")


# ---------------------------------------------------------------- defaults


def _constant(e: ir.Expr) -> bool:
    if isinstance(e, ir.SetLit):
        return all(_constant(i) for i in e.items)
    return isinstance(e, ir.Lit) or (isinstance(e, ir.Unary) and e.op == "-" and isinstance(e.operand, ir.Lit))


def _default(var: ir.Var, idx: SpecIndex) -> Iterator[Diagnostic]:
    if not _constant(var.default):
        yield Diagnostic("E224", f"the default of '{var.name}' must be a constant", var.default.span,
                         hint="write a literal: defaults are fixed before any state exists")
        return
    problem = literal_problem(var.type, var.default, idx.tables)
    if problem:
        yield Diagnostic("E223", f"the default of '{var.name}': {problem}", var.default.span,
                         hint="make the type optional (`T?`)" if "none is not" in problem else
                         "the default must be a value of the variable's domain")


def domains_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    for t in declared_types(ctx.spec):
        yield from _shape(t, idx)
    yield from _enumerable(ctx.spec)
    for var in (*ctx.spec.session, *(v for p in ctx.spec.pages for v in p.vars)):
        yield from _default(var, idx)
