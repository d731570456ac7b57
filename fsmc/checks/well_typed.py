"""Every expression is well typed in its scope: conditions are bool, operators and built-ins get what they accept, values fit their targets.

The type checker (fsmc/types/infer.py) infers a type for every expression bottom-up; a name that does not
resolve has type `any` (the names check reports it), so one mistake gives one diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import ExprSite, expr_sites, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.infer import Typer, accepts
from fsmc.types.static import INT, Ty, describe, from_ir

# ---------------------------------------------------------------- the sites


def _want(typer: Typer, site: ExprSite, t: Ty) -> None:
    if site.role in ("where", "when", "require", "goal") and t.kind not in ("bool", "any"):
        typer.error("E201", f"a {site.role} condition must be a bool, not {describe(t)}", site.expr,
                    hint="compare it, e.g. `x == ...`, or test membership with `in`")
    elif site.role == "order" and t.kind in ("set", "map", "view"):
        typer.error("E202", f"cannot sort rows by {describe(t)}", site.expr, hint="order by a column, e.g. `p.price`")
    elif site.role == "default" and isinstance(site.owner, ir.Var):
        _fits(typer, site.expr, t, from_ir(site.owner.type), f"the default of '{site.owner.name}'")
    elif site.role == "answer":
        _answer(typer, site.expr, t)


def _fits(typer: Typer, e: ir.Expr, t: Ty, target: Ty, what: str) -> None:
    if not accepts(target.base(), e, t.base()):
        typer.error("E208", f"{what} is {describe(t)}, but must be {describe(target)}", e)


def _answer(typer: Typer, e: ir.Expr, t: Ty) -> None:
    if t.kind in ("set", "map", "view"):
        typer.error("E210", f"an answer is one value, not {describe(t)}", e,
                    hint="answer with one row's column, e.g. `first(v).title`, or a count, e.g. `count(v)`")
    elif t.kind == "ref":
        typer.problems.append(Diagnostic(
            "W201", f"the answer is a row key of table '{t.table}', which the page may not show", e.span,
            severity="warning", hint="answer with a column the page shows, e.g. `(...).title`"))


def _effect(typer: Typer, site: ExprSite, t: Ty) -> None:
    eff = site.owner
    assert isinstance(eff, ir.Effect)
    b = typer.scope.resolve(eff.var)
    if b is None or not isinstance(b.node, ir.Var):
        return
    var = from_ir(b.node.type).base()
    target = _effect_target(eff, site.role, var)
    if target is not None:
        _fits(typer, site.expr, t, target, _effect_what(eff, site.role))


def _effect_target(eff: ir.Effect, role: str, var: Ty) -> Ty | None:
    if role == "key":
        return var.elem if var.kind == "map" else None
    if eff.op in ("inc", "dec"):
        return INT
    if eff.op in ("add", "remove") and var.kind in ("set", "map"):
        return var.elem
    if eff.op == "assign":
        return (var.val if var.kind == "map" else None) if eff.key is not None else var
    return None


def _effect_what(eff: ir.Effect, role: str) -> str:
    if role == "key":
        return f"the key of '{eff.var}'"
    return {"inc": "the increment", "dec": "the decrement", "add": "the added value",
            "remove": "the removed value"}.get(eff.op, f"the value assigned to '{eff.var}'")


def types_of(site: ExprSite) -> tuple[Ty, list[Diagnostic]]:
    """The type of a site's expression and the type errors in it."""
    typer = Typer(site.scope)
    t = typer.infer(site.expr)
    if site.role in ("value", "key"):
        _effect(typer, site, t)
    else:
        _want(typer, site, t)
    return t, typer.problems


def typing_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    index_of(ctx)
    for site in expr_sites(ctx):
        yield from types_of(site)[1]
