"""Every page, terminal pages above all, is reachable from the entry page: by navigation and by some state."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.analysis import linked_pages
from fsmc.checks._semantic import capped, explored
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def graph_reachable(ctx: CheckContext) -> set[str]:
    """Pages with a navigation path from the entry page (the entry page included)."""
    return linked_pages(ctx.spec, ctx.spec.site.entry)


def _entry_note(spec: ir.Spec) -> tuple[ir.Span, str]:
    entry = next((p for p in spec.pages if p.name == spec.site.entry), None)
    return (entry.span if entry else spec.site.span, f"the entry page is '{spec.site.entry}'")


def _inbound_notes(spec: ir.Spec, page: str) -> list[tuple[ir.Span, str]]:
    return [(a.span, f"'{p.name}.{a.name}' leads here but is never enabled")
            for p in spec.pages for a in p.actions if a.goto == page][:3]


def _diagnostic(spec: ir.Spec, page: ir.Page, why: str, notes: list[tuple[ir.Span, str]]) -> Diagnostic:
    terminal = page.name in spec.site.terminals
    kind = "terminal page" if terminal else "page"
    return Diagnostic("E401" if terminal else "W401", f"{kind} '{page.name}' is unreachable: {why}", page.span,
                      severity="error" if terminal else "warning", notes=(_entry_note(spec), *notes),
                      hint=f"add an enabled action with `goto {page.name}` on a reachable page, or remove the page")


def unreachable_pages_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E401/W401 for pages no path or no reachable state leads to; W402 when only the capped search says so."""
    spec, linked, ex = ctx.spec, graph_reachable(ctx), explored(ctx)
    for page in spec.pages:
        if page.name not in linked:
            yield _diagnostic(spec, page, f"no navigation leads to it from '{spec.site.entry}'", [])
        elif ex is None or ex.reached(page.name):
            continue
        elif ex.complete:
            yield _diagnostic(spec, page, "no reachable state is on it (the actions that lead to it are never "
                              "enabled)", _inbound_notes(spec, page.name))
        else:
            yield Diagnostic("W402", f"page '{page.name}' was not reached {capped(ctx)}", page.span,
                             severity="warning", notes=(_entry_note(spec),),
                             hint="the page may still be reachable deeper; narrow the domains to explore everything")
