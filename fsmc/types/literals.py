"""Whether a literal is a value of a declared domain: shared by the checks of defaults and of effects."""

from __future__ import annotations

from collections.abc import Mapping

from fsmc import ir
from fsmc.diagnostics import did_you_mean
from fsmc.types.domains import key_values


def literal_problem(t: ir.Type, e: ir.Expr, tables: Mapping[str, ir.Table]) -> str | None:
    """Why a literal is not a value of the domain (None if it is, or if its kind does not match at all)."""
    if isinstance(e, ir.Lit) and e.value is None:
        return None if isinstance(t, ir.OptionalType) else f"none is not a value of {_show(t)}"
    if isinstance(t, ir.OptionalType):
        return literal_problem(t.inner, e, tables)
    if isinstance(e, ir.SetLit):
        return _set_problem(t, e, tables)
    if not isinstance(e, ir.Lit) or isinstance(e.value, bool):
        return None
    v = e.value
    if isinstance(t, ir.IntType) and isinstance(v, int) and not t.lo <= v <= t.hi:
        return f"{v} is outside int[{t.lo}..{t.hi}]"
    if isinstance(t, ir.ChoiceType) and isinstance(v, str) and v not in t.values:
        return f"{v!r} is not one of {_show(t)}" + _close(v, t.values)
    if isinstance(t, ir.RefType) and t.table in tables:
        keys = key_values(tables[t.table])
        if v not in keys:
            return f"{v!r} is not a key of table '{t.table}'" + _close(str(v), [str(k) for k in keys])
    return None


def _set_problem(t: ir.Type, e: ir.SetLit, tables: Mapping[str, ir.Table]) -> str | None:
    if isinstance(t, ir.MapType):
        return "a map literal can only be the empty `{}`" if e.items else None
    if not isinstance(t, ir.SetType):
        return None
    for item in e.items:
        problem = literal_problem(t.elem, item, tables)
        if problem:
            return problem
    return None


def _close(v: str, values: tuple[str, ...] | list[str]) -> str:
    hint = did_you_mean(v, values)
    return f" ({hint})" if hint else ""


def _show(t: ir.Type) -> str:
    if isinstance(t, ir.ChoiceType):
        return t.name or "{" + ", ".join(f'"{v}"' for v in t.values) + "}"
    if isinstance(t, ir.IntType):
        return f"int[{t.lo}..{t.hi}]"
    if isinstance(t, ir.RefType):
        return f"ref {t.table}"
    return t.kind
