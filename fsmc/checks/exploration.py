"""The spec's semantics must compile and run on every reachable state, and the search should be complete."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc.checks._semantic import explored, failure
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def exploration_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E400 when the machine cannot be built or explored; W400 when the state cap cut the search short."""
    site = ctx.spec.site
    ex = explored(ctx)
    if ex is None:
        yield Diagnostic(
            "E400", f"the spec cannot be executed: {failure(ctx)}", site.span,
            hint="the state-level checks were skipped; fix the expression named above (this may also be a "
                 "missing static check, worth reporting)")
        return
    if not ex.complete:
        yield Diagnostic(
            "W400", f"the state search stopped at {ctx.state_cap:,} states; claims that something never "
                    "happens are only checked that far", site.span, severity="warning",
            hint="narrow the variable domains, or raise the state cap: check(spec, state_cap=N)")
