"""The checks: one invariant per module, run in the order of CHECKS; `check()` returns every problem."""

from __future__ import annotations

from fsmc import ir
from fsmc.diagnostics import Diagnostic


def check(spec: ir.Spec) -> list[Diagnostic]:
    """Every diagnostic for the spec, sorted by position (placeholder until the checks land)."""
    return []
