"""The checks: one invariant per module, run in the order of CHECKS; `check()` returns every problem.

Static checks look at the IR alone. Semantic checks (SEMANTIC_CHECKS) need the compiled machine and
the explored state space, so they run only when the static checks found no error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fsmc import ir
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic

Check = Callable[[CheckContext], Iterable[Diagnostic]]

CHECKS: tuple[Check, ...] = ()
SEMANTIC_CHECKS: tuple[Check, ...] = ()


def check(spec: ir.Spec, state_cap: int | None = None) -> list[Diagnostic]:
    """Every diagnostic for the spec, sorted by position."""
    ctx = CheckContext(spec) if state_cap is None else CheckContext(spec, state_cap)
    found: list[Diagnostic] = []
    for c in CHECKS:
        found.extend(c(ctx))
    ctx.static_errors = sum(d.severity == "error" for d in found)
    if ctx.static_errors == 0:
        for c in SEMANTIC_CHECKS:
            found.extend(c(ctx))
    return sorted(set(found), key=Diagnostic.sort_key)


__all__ = ["CHECKS", "SEMANTIC_CHECKS", "Check", "CheckContext", "check"]
