"""The checks: one invariant per module, run in the order of CHECKS; `check()` returns every problem.

Static checks look at the IR alone. Semantic checks (SEMANTIC_CHECKS) need the compiled machine and
the explored state space, so they run only when the static checks found no error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fsmc import ir
from fsmc.checks.backends import backends_check
from fsmc.checks.clamped_effects import clamped_effects_check
from fsmc.checks.constant_vars import constant_vars_check
from fsmc.checks.context import CheckContext
from fsmc.checks.dead_actions import dead_actions_check
from fsmc.checks.deadlocks import deadlocks_check
from fsmc.checks.domains import domains_check
from fsmc.checks.effect_conflicts import effect_conflicts_check
from fsmc.checks.effect_kinds import effect_kinds_check
from fsmc.checks.effect_targets import effect_targets_check
from fsmc.checks.exploration import exploration_check
from fsmc.checks.gui_presence import gui_presence_check
from fsmc.checks.gui_selectors import gui_selectors_check
from fsmc.checks.impossible_requires import impossible_requires_check
from fsmc.checks.keyword_names import keyword_names_check
from fsmc.checks.names import names_check
from fsmc.checks.navigation import navigation_check
from fsmc.checks.pagination import pagination_check
from fsmc.checks.properties import properties_check
from fsmc.checks.references import references_check
from fsmc.checks.table_data import table_data_check
from fsmc.checks.templates import templates_check
from fsmc.checks.terminal_exits import terminal_exits_check
from fsmc.checks.unique_names import unique_names_check
from fsmc.checks.unreachable_pages import unreachable_pages_check
from fsmc.checks.unsatisfiable_tasks import unsatisfiable_tasks_check
from fsmc.checks.unused import unused_check
from fsmc.checks.views import views_check
from fsmc.checks.well_typed import typing_check
from fsmc.diagnostics import Diagnostic

Check = Callable[[CheckContext], Iterable[Diagnostic]]

CHECKS: tuple[Check, ...] = (
    references_check,
    unique_names_check,
    keyword_names_check,
    table_data_check,
    names_check,
    templates_check,
    typing_check,
    properties_check,
    domains_check,
    views_check,
    effect_targets_check,
    effect_kinds_check,
    effect_conflicts_check,
    pagination_check,
    navigation_check,
    gui_selectors_check,
    gui_presence_check,
    unused_check,
    backends_check,
)
SEMANTIC_CHECKS: tuple[Check, ...] = (
    exploration_check,
    unreachable_pages_check,
    impossible_requires_check,
    dead_actions_check,
    clamped_effects_check,
    unsatisfiable_tasks_check,
    constant_vars_check,
    terminal_exits_check,
    deadlocks_check,
)


def check(spec: ir.Spec, state_cap: int | None = None, *, context: CheckContext | None = None) -> list[Diagnostic]:
    """Every diagnostic for the spec, sorted by position.

    Pass the `context` of a compilation to share its machine and explored states with what runs after
    the checks (fsmc.Compilation does); without one, a fresh context explores up to `state_cap` states.
    """
    if context is not None and (context.spec is not spec or state_cap is not None):
        raise ValueError("check(spec, context=...) takes the context of that spec, and its state cap")
    ctx = context or (CheckContext(spec) if state_cap is None else CheckContext(spec, state_cap))
    found: list[Diagnostic] = []
    for c in CHECKS:
        found.extend(c(ctx))
    ctx.static_errors = sum(d.severity == "error" for d in found)
    if ctx.static_errors == 0:
        for c in SEMANTIC_CHECKS:
            found.extend(c(ctx))
    return sorted(set(found), key=Diagnostic.sort_key)


__all__ = ["CHECKS", "SEMANTIC_CHECKS", "Check", "CheckContext", "check"]
