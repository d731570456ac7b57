"""Every action that changes what a paginated view filters or sorts by also resets the view's page variable to its default."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import PageIndex, Scope, SpecIndex, index_of
from fsmc.checks._where import target_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def view_reads(scope: Scope, view: ir.View, seen: frozenset[str] = frozenset()) -> set[str]:
    """The variables a view's rows depend on: its where, order and `when`, its source view and views it names."""
    if view.name in seen or scope.page is None:
        return set()
    seen = seen | {view.name}
    inner = scope.with_alias(view)
    exprs = [e for k in view.order for e in (k.expr, k.when) if e is not None]
    if view.where is not None:
        exprs.append(view.where)
    out: set[str] = set()
    for e in exprs:
        for node in ir.walk(e):
            b = inner.resolve(node.id) if isinstance(node, ir.Name) else None
            if b is not None and b.kind in ("var", "session"):
                out.add(b.node.name)
            elif b is not None and b.kind == "view" and isinstance(b.node, ir.View):
                out |= view_reads(scope, b.node, seen)
    source = scope.page.views.get(view.source)
    if source is not None:
        out |= view_reads(scope, source, seen)
    return out


def _resets(action: ir.Action, var: ir.Var) -> bool:
    for eff in action.effects:
        if eff.var == var.name and eff.key is None:
            return eff.op == "clear" or (eff.op == "assign" and eff.value == var.default)
    return False


def _navigates_away(action: ir.Action, page: str, var: str) -> bool:
    """Leaving the page (or coming back to it) starts its variables from their defaults, unless carried."""
    return action.goto is not None and not (action.goto == page and var in action.carry)


def _missing(action: ir.Action, view: ir.View, var: ir.Var, reads: set[str], page: str) -> Diagnostic | None:
    changed = [e for e in action.effects if e.var in reads and e.var != var.name]
    if not changed or _resets(action, var) or _navigates_away(action, page, var.name):
        return None
    default = var.default.value if isinstance(var.default, ir.Lit) else "its default"
    return Diagnostic("E310", f"action '{action.name}' changes '{changed[0].var}', which view '{view.name}' filters "
                      f"or sorts by, but does not reset the view's page variable '{var.name}'",
                      target_span(changed[0]), hint=f"add `{var.name} := {default}` to the action, "
                      "or the user may land on a page past the new end of the results",
                      notes=((view.span, f"view '{view.name}' declared here"),))


def _page(idx: SpecIndex, pi: PageIndex) -> Iterator[Diagnostic]:
    scope = Scope(idx, pi)
    for view in pi.page.views:
        var = pi.vars.get(view.page_var) if view.page_var else None
        if var is None:
            continue
        reads = view_reads(scope, view)
        for action in pi.page.actions:
            d = _missing(action, view, var, reads, pi.page.name)
            if d is not None:
                yield d


def pagination_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    for pi in idx.pages.values():
        yield from _page(idx, pi)
