"""Every move of a page is fired by a GUI event of its own: no two moves end their procedures on the same element the same way.

Two moves collide when their procedures end with the same operation on the same rendered
data-testid (with the same text, for type/press/select/drag) and the inputs they fill first do not
tell them apart. The same element used in different ways (`type` into "search-input", then
`press` Enter on it) is not a duplicate. Collisions between actions that lead to different pages
are reported as ambiguous navigation (E322) instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from fsmc.checks._gui import Collision, collisions
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic

EXCLUSIVE = "make their preconditions exclusive (`require x` in one, `require not x` in the other)"
# on a real application's page (a declared backend) the elements are the page's own: two actions may well share a
# submit button, and what they fill before it is what tells them apart
REAL_PAGE = ("the page is a real application's, so its elements cannot be renamed: tell the two apart by what their "
             "procedures fill before this event (a field typed or an option selected with different text), merge "
             "them into one action whose parameter is typed or selected, or " + EXCLUSIVE)


def _between(c: Collision, real: bool) -> Diagnostic:
    a, b = c.first, c.second
    return Diagnostic("E330", f"duplicate selector on page '{c.page.name}': {b.event} fires both "
                      f"'{a.action.name}' and '{b.action.name}'", b.op.span,
                      hint=REAL_PAGE if real else "give each action its own data-testid, or " + EXCLUSIVE,
                      notes=((a.op.span, f"'{a.action.name}' is fired here"),))


def _within(c: Collision) -> Diagnostic:
    a, b = c.first, c.second
    unused = [p.name for p in a.action.params if "{" + p.name not in "".join(
        (o.selector or "") + (o.text or "") for o in a.action.gui)]
    hint = (f"use the parameter in the selector, e.g. \"{b.event.selector}-{{{unused[0]}}}\"" if unused
            else "make the rendered selectors of different parameter values differ")
    return Diagnostic("E331", f"action '{a.action.name}' on page '{c.page.name}': {b.event} fires the move with "
                      f"{a.shown_args()} and the one with {b.shown_args()}", b.op.span, hint=hint)


def gui_selectors_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for c in collisions(ctx):
        if c.first.action is c.second.action:
            yield _within(c)
        elif c.first.action.goto == c.second.action.goto:
            yield _between(c, real=bool(ctx.spec.backends))
