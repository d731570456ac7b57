"""Every effect fits its variable's type (toggle a bool, count an int, add to a set) and stores only values of its domain."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import Scope, SpecIndex, effect_var, index_of, page_scope
from fsmc.checks._where import target_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.domains import domain_values
from fsmc.types.literals import literal_problem

_NEEDS = {"toggle": "a bool", "inc": "an int", "dec": "an int", "add": "a set", "remove": "a set or a map"}


def _kind_ok(eff: ir.Effect, t: ir.Type) -> bool:
    value = t.value if isinstance(t, ir.MapType) else None
    if eff.key is not None:
        return isinstance(t, ir.MapType) and (eff.op == "assign" or isinstance(value, ir.IntType))
    if eff.op == "toggle":
        return isinstance(t, ir.BoolType)
    if eff.op in ("inc", "dec"):
        return isinstance(t, ir.IntType)
    if eff.op == "add":
        return isinstance(t, ir.SetType)
    if eff.op == "remove":
        return isinstance(t, (ir.SetType, ir.MapType))
    return True


def _kind(eff: ir.Effect, var: ir.Var) -> Diagnostic | None:
    if _kind_ok(eff, var.type):
        return None
    need = _NEEDS[eff.op] if eff.key is None else "a map" if eff.op == "assign" else "a map with int values"
    hint = {"toggle": f"assign it instead: `{var.name} := ...`", "add": "`add` inserts into a set<T>"}.get(eff.op)
    if eff.op in ("inc", "dec") and isinstance(var.type, ir.MapType) and eff.key is None:
        hint = f"count one entry: `{var.name}[KEY] {'+=' if eff.op == 'inc' else '-='} ...`"
    return Diagnostic("E303", f"'{var.name}' is {_type_name(var.type)}, but this effect needs {need}",
                      target_span(eff), hint=hint, notes=((var.span, f"'{var.name}' declared here"),))


def _type_name(t: ir.Type) -> str:
    return {"bool": "a bool", "int": "an int", "choice": "a choice", "ref": "a row reference", "set": "a set",
            "map": "a map", "optional": "an optional value"}.get(t.kind, t.kind)


def _target_type(eff: ir.Effect, t: ir.Type, key: bool = False) -> ir.Type | None:
    """The domain the effect's value (or key) must lie in."""
    if key:
        return t.key if isinstance(t, ir.MapType) else None
    if eff.op == "assign":
        if eff.key is None:
            return t
        return ir.OptionalType.trusted(inner=t.value) if isinstance(t, ir.MapType) else None
    if eff.op in ("add", "remove"):
        return t.elem if isinstance(t, ir.SetType) else t.key if isinstance(t, ir.MapType) else None
    return None


def _param_problem(target: ir.Type, e: ir.Expr, scope: Scope, idx: SpecIndex) -> str | None:
    b = scope.resolve(e.id) if isinstance(e, ir.Name) else None
    if b is None or b.kind != "param" or not isinstance(b.node, ir.Param):
        return None
    try:
        wanted = set(domain_values(target, idx.spec))
        outside = [v for v in domain_values(b.node.type, idx.spec) if v not in wanted]
    except (KeyError, ValueError):
        return None
    if not outside:
        return None
    shown = ", ".join("none" if v is None else repr(v) for v in outside[:4]) + (", ..." if len(outside) > 4 else "")
    return f"parameter '{b.node.name}' can be {shown}, outside the variable's domain"


def _domain(eff: ir.Effect, var: ir.Var, scope: Scope, idx: SpecIndex) -> Iterator[Diagnostic]:
    for expr, is_key in ((eff.key, True), (eff.value, False)):
        target = _target_type(eff, var.type, is_key) if expr is not None else None
        if expr is None or target is None:
            continue
        problem = literal_problem(target, expr, idx.tables) or _param_problem(target, expr, scope, idx)
        if problem:
            yield Diagnostic("E304", f"effect on '{var.name}': {problem}", expr.span,
                             hint="only values of the variable's domain can be stored; "
                             "narrow the parameter or widen the variable's type")


def effect_kinds_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    for page in ctx.spec.pages:
        pi = idx.pages.get(page.name)
        scope = page_scope(idx, page)
        for action in page.actions:
            inner = scope.with_params(action.params)
            for eff in action.effects:
                var = effect_var(idx, pi, eff)
                if var is None:
                    continue
                d = _kind(eff, var)
                if d is not None:
                    yield d
                else:
                    yield from _domain(eff, var, inner, idx)
