"""No action's preconditions contradict themselves: some value of each variable they constrain satisfies them all.

The analysis (constant folding, one-variable predicates over finite domains) is in `_requires`, which
the dead-actions check shares.
"""

from __future__ import annotations

from collections.abc import Iterator

from fsmc.checks._requires import contradiction
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def impossible_requires_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E403 for every action whose requires can never all hold, whatever the state."""
    for page in ctx.spec.pages:
        for action in page.actions:
            found = contradiction(ctx.spec, page, action)
            if found is None:
                continue
            notes = tuple((r.span, "constrained here too") for r in found.others)
            yield Diagnostic(
                "E403", f"the precondition of '{page.name}.{action.name}' can never hold: {found.message}",
                found.require.span, notes=notes,
                hint="fix the comparison or widen the domain; as written the action is dead")
