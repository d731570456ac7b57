"""A terminal page ends an episode, so none of its actions navigates away."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def terminal_exits_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """W410 for each navigating action of a terminal page."""
    spec = ctx.spec
    for page in spec.pages:
        if page.name not in spec.site.terminals:
            continue
        for action in page.actions:
            if action.goto is not None:
                yield Diagnostic(
                    "W410", f"terminal page '{page.name}' has outgoing navigation: '{action.name}' goes to "
                            f"'{action.goto}'", action.span, severity="warning", notes=((page.span, "declared here"),),
                    hint="a terminal page ends an episode: remove the `goto`, or take the page out of `terminal`")
