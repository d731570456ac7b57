"""Every action has a GUI procedure with an operation that fires it (not only waits and scrolls)."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc.checks import _span
from fsmc.checks._gui import live_ops
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def gui_presence_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in ctx.spec.pages:
        for action in page.actions:
            if not action.gui:
                span = _span.word(action.span, action.name, after="action")
                yield Diagnostic("W301", f"action '{action.name}' of page '{page.name}' has no GUI procedure",
                                 span, severity="warning",
                                 hint='add `gui { click "..." }`: without one no trajectory can perform it')
            elif not live_ops(action):
                span = _span.word(action.span, action.name, after="action")
                yield Diagnostic("W302", f"the GUI procedure of action '{action.name}' only waits and scrolls",
                                 span, severity="warning",
                                 hint="end it with the operation that performs the action, e.g. a click")
