"""Every view draws from a table through an acyclic chain of views of its page, and paginates by a 1-based int variable of its page."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._index import PageIndex, did_you_mean, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def _cycle(page: PageIndex, view: ir.View, tables: dict[str, ir.Table]) -> list[str] | None:
    """The chain of view names from `view` back to itself, if its sources loop."""
    chain = [view.name]
    current = view
    while current.source not in tables and current.source in page.views:
        if current.source == view.name:
            return chain + [view.name]
        if current.source in chain:
            return None  # a loop further up the chain: reported at its own views
        chain.append(current.source)
        current = page.views[current.source]
    return None


def _cycles(page: PageIndex, tables: dict[str, ir.Table]) -> Iterator[Diagnostic]:
    for view in page.page.views:
        if page.views.get(view.name) is not view:
            continue  # a duplicate; the unique-names check reports it
        chain = _cycle(page, view, tables)
        if chain is not None:
            yield Diagnostic("E230", f"view '{view.name}' depends on itself: {' -> '.join(chain)}",
                             _span.word(view.span, view.source, after="="),
                             hint="a view reads a table or an earlier view; break the loop")


def _pagination(page: PageIndex, view: ir.View) -> Iterator[Diagnostic]:
    if view.page_var is None:
        return
    span = _span.word(view.span, view.page_var, after="page")
    if view.page_size is not None and view.page_size < 1:
        yield Diagnostic("E232", f"view '{view.name}' has page size {view.page_size}",
                         _span.find(view.span, r"\bsize\s+(\d+)"), hint="a page shows at least one row")
    var = page.vars.get(view.page_var)
    if var is None:
        yield Diagnostic("E231", f"view '{view.name}' paginates by '{view.page_var}', which is not a variable of "
                         f"page '{page.page.name}'", span, hint=did_you_mean(view.page_var, page.vars) or
                         f"declare `var {view.page_var}: int[1..N] = 1` on the page")
    elif not isinstance(var.type, ir.IntType):
        yield Diagnostic("E231", f"view '{view.name}' paginates by '{var.name}', which is not an int", span,
                         hint=f"declare it as `var {var.name}: int[1..N] = 1`", notes=((var.span, "declared here"),))
    elif var.type.lo < 1:
        yield Diagnostic("E231", f"page numbers start at 1, but '{var.name}' can be {var.type.lo}", span,
                         hint=f"declare it as `var {var.name}: int[1..{max(var.type.hi, 1)}]`",
                         notes=((var.span, "declared here"),))


def views_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    for page in ctx.spec.pages:
        pi = idx.pages.get(page.name)
        if pi is None or pi.page is not page:
            continue
        yield from _cycles(pi, idx.tables)
        for view in page.views:
            yield from _pagination(pi, view)
