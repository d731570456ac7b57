"""Every name in an expression is a parameter, row alias, variable or view in scope, and every call is a built-in."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import NameUse, did_you_mean, expr_sites, name_uses, unknown_name_hint
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.builtins import BUILTINS


def _unknown(use: NameUse) -> Diagnostic:
    scope, node = use.site.scope, use.node
    where = f" in page '{scope.page_name}'" if scope.page is not None else ""
    return Diagnostic("E104", f"unknown name '{node.id}'{where}", node.span, hint=unknown_name_hint(node.id, scope))


def _unknown_function(node: ir.Call) -> Diagnostic:
    return Diagnostic("E105", f"unknown function '{node.func}'", node.span,
                      hint=did_you_mean(node.func, BUILTINS) or "built-ins: " + ", ".join(BUILTINS))


def names_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for use in name_uses(ctx):
        if use.binding is None:
            yield _unknown(use)
    for site in expr_sites(ctx):
        for node in ir.walk(site.expr):
            if type(node) is ir.Call and node.func not in BUILTINS:
                yield _unknown_function(node)
