"""Every task's goal holds in some reachable state, for every value of its parameters."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fsmc import ir
from fsmc.checks._semantic import (
    Explored,
    a_few,
    capped,
    explored,
    show_args,
    slots_read,
)
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.printer import expr_to_fsm


def unmet_args(ex: Explored, index: int, task: ir.Task) -> list[tuple[Any, ...]]:
    """The parameter tuples for which the task's goal holds in no explored state, in domain order."""
    goal = ex.machine.goal(index)
    pending = list(ex.machine.task_args(task))
    page = next((p for p in ex.machine.spec.pages if p.name == task.page), None)
    states = ex.distinct(task.page, slots_read(ex.machine.spec, page, task.goal, task.params))
    for s in states:
        if not pending:
            break
        met = [args for args in pending if goal(s, args)]
        if met:
            pending = [args for args in pending if args not in met]
    return pending


def _never(ctx: CheckContext, ex: Explored, task: ir.Task) -> Diagnostic:
    if task.page is not None and not ex.reached(task.page):
        why = f"page '{task.page}' is never reached"
    else:
        why = f"`{expr_to_fsm(task.goal)}` holds in no reachable state"
        why += f" on page '{task.page}'" if task.page is not None else ""
        why += " for any parameter value" if task.params else ""
    if not ex.complete:
        return Diagnostic("W407", f"task '{task.name}' did not succeed {capped(ctx)}: {why}", task.span,
                          severity="warning", hint="the goal may hold deeper; narrow the domains to explore everything")
    return Diagnostic("E407", f"task '{task.name}' can never succeed: {why}", task.span,
                      hint="fix the goal (or the page it is on), or the actions that should lead there")


def _sometimes(ctx: CheckContext, ex: Explored, task: ir.Task, unmet: list[tuple[Any, ...]], total: int) -> Diagnostic:
    shown = a_few([show_args(task.params, args) for args in unmet])
    where = "" if ex.complete else f" {capped(ctx)}"
    return Diagnostic(
        "W408", f"task '{task.name}' can never succeed for {len(unmet)} of its {total} parameter values{where}: "
                f"{shown}", task.span, severity="warning",
        hint="narrow the parameter's domain to the values that can succeed, or fix the goal")


def unsatisfiable_tasks_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E407 for tasks that never succeed (W407 if the search was capped); W408 for parameter values that never do."""
    ex = explored(ctx)
    if ex is None:
        return
    for index, task in enumerate(ctx.spec.tasks):
        total = len(ex.machine.task_args(task))
        try:
            unmet = unmet_args(ex, index, task)
        except Exception:  # noqa: BLE001, S112 - a goal that cannot be evaluated is reported elsewhere
            continue
        if total and len(unmet) == total:
            yield _never(ctx, ex, task)
        elif unmet:
            yield _sometimes(ctx, ex, task, unmet, total)
