"""No reachable state on a non-terminal page is stuck: some action is enabled in each of them."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._semantic import Explored, explored, representatives, show_args, slots_read
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def never_stuck(page: ir.Page) -> bool:
    """A page with an action that has no requires always has an enabled move."""
    return any(not a.requires for a in page.actions)


def first_stuck(ex: Explored, page: ir.Page, expanded: set[int]) -> int | None:
    """The nearest reachable state on the page with no enabled move, if any.

    Only states without a successor of their own can be stuck, and whether a move is enabled depends
    only on the slots the page's requires read, so one state per combination of those is enough.
    """
    spec, states = ex.machine.spec, ex.states
    read = {k for a in page.actions for r in a.requires for k in slots_read(spec, page, r, a.params)}
    leaves = [states[i] for i in ex.by_page.get(page.name, ()) if i not in expanded]
    for s in representatives(leaves, sorted(read)):
        if not ex.machine.enabled(s):
            return ex.index_of(s)
    return None


def _diagnostic(ex: Explored, page: ir.Page, i: int) -> Diagnostic:
    path = ex.space.path(i)
    steps = ", ".join(m.name + show_args(m.action.params, m.args) for m in path)
    note = f"reached by {steps}" if len(path) <= 8 else f"a state {len(path)} steps from the start"
    return Diagnostic(
        "W411", f"page '{page.name}' can get stuck: no action is enabled in a reachable state {len(path)} step(s) "
                "from the start", page.span, severity="warning", notes=((page.span, note),),
        hint="add an action that is always enabled there (a way back, a reset), or make the page terminal")


def deadlocks_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """W411 for each non-terminal page with a reachable state where no move is enabled."""
    ex = explored(ctx)
    if ex is None:
        return
    expanded: set[int] | None = None  # states with a successor of their own are not stuck
    for page in ctx.spec.pages:
        if page.name in ctx.spec.site.terminals or never_stuck(page) or not ex.reached(page.name):
            continue
        if expanded is None:
            expanded = set(ex.space.parent)
        try:
            i = first_stuck(ex, page, expanded)
        except Exception:  # noqa: BLE001, S112 - an expression that fails to evaluate is reported by E400
            continue
        if i is not None:
            yield _diagnostic(ex, page, i)
