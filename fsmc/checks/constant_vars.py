"""Every variable that the spec reads takes at least two values over the reachable states."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from fsmc import ir
from fsmc.checks._semantic import explored, names_read, show
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.semantics import State


def _constant(states: Sequence[State], slot: int) -> bool:
    first = states[0][slot]
    return all(s[slot] == first for s in states)


def carry_slots(page: ir.Page) -> set[str]:
    """Variables an action of the page sets and carries away in the same step: transient by design."""
    return {e.var for a in page.actions if a.goto is not None for e in a.effects if e.var in a.carry}


def _diagnostic(ctx: CheckContext, var: ir.Var, value: object, where: str, complete: bool) -> Diagnostic:
    shown = show(value)
    suffix = "" if complete else f" explored (the search was capped at {ctx.state_cap:,} states)"
    return Diagnostic("W409", f"variable '{var.name}' is {shown} in every reachable state{where}{suffix}: it could "
                              "be a constant", var.span, severity="warning",
                      hint="drop it from the state (use the value directly), or add the action that should change it")


def constant_vars_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """W409 for each variable read somewhere whose value never changes in the reachable states."""
    ex = explored(ctx)
    if ex is None or not ex.states:
        return
    spec, read = ctx.spec, names_read(ctx.spec)
    for i, var in enumerate(spec.session):
        if var.name in read and _constant(ex.states, 1 + i):
            yield _diagnostic(ctx, var, ex.states[0][1 + i], "", ex.complete)
    for page in spec.pages:
        states = ex.states_on(page.name)
        slots = carry_slots(page)
        for j, var in enumerate(page.vars):
            slot = 1 + len(spec.session) + j
            if states and var.name in read and var.name not in slots and _constant(states, slot):
                yield _diagnostic(ctx, var, states[0][slot], f" of page '{page.name}'", ex.complete)
