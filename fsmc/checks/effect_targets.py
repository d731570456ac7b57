"""Every effect changes a declared variable that its action may change: a session variable or a variable of its own page."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._index import SpecIndex, did_you_mean, effect_var, index_of, page_scope
from fsmc.checks._where import target_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def _owner_page(idx: SpecIndex, name: str) -> str | None:
    return next((p for p, pi in idx.pages.items() if name in pi.vars), None)


def _problem(idx: SpecIndex, page: ir.Page, action: ir.Action, eff: ir.Effect) -> Diagnostic | None:
    pi = idx.pages.get(page.name)
    if effect_var(idx, pi, eff) is not None:
        return None
    span = target_span(eff)
    other = _owner_page(idx, eff.var)
    if other is not None:
        return Diagnostic("E302", f"action '{action.name}' of page '{page.name}' changes '{eff.var}', a variable of "
                          f"page '{other}'", span, hint=f"an action changes only session variables and its own page's; "
                          f"to pass a value on, declare '{eff.var}' here too and `goto {other} carry {eff.var}`")
    binding = page_scope(idx, page).with_params(action.params).resolve(eff.var)
    if binding is not None:
        return Diagnostic("E301", f"'{eff.var}' is a {'parameter' if binding.kind == 'param' else 'view'}, "
                          "not a variable, so effects cannot change it", span,
                          hint="effects change page or session variables")
    names = [*(pi.vars if pi else ()), *idx.session]
    return Diagnostic("E301", f"effect on undeclared variable '{eff.var}'", span,
                      hint=did_you_mean(eff.var, names) or f"declare `var {eff.var}: TYPE = DEFAULT` on the page "
                      "or in the session")


def effect_targets_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    for page in ctx.spec.pages:
        for action in page.actions:
            for eff in action.effects:
                d = _problem(idx, page, action, eff)
                if d is not None:
                    yield d
