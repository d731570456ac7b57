"""Every action of a reachable page is enabled in some reachable state, for at least one parameter value."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._requires import contradiction
from fsmc.checks._semantic import Explored, a_few, capped, evaluator, explored, show_args
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.printer import expr_to_fsm
from fsmc.semantics import Move


def moves_by_action(ex: Explored, page: ir.Page) -> dict[str, list[Move]]:
    out: dict[str, list[Move]] = {a.name: [] for a in page.actions}
    for mv in ex.machine.moves(page.name):
        out.setdefault(mv.action.name, []).append(mv)
    return out


def never_true(ex: Explored, page: ir.Page, action: ir.Action, moves: list[Move]) -> ir.Expr | None:
    """The first require that is false in every reachable state of the page for every argument, if any."""
    states = ex.states_on(page.name)
    for req in action.requires:
        try:
            holds = evaluator(ex.machine, req, page.name, action.params)
            if not any(holds(s, mv.args) for s in states for mv in moves):
                return req
        except Exception:  # noqa: BLE001, S112 - only a hint; a require that fails to evaluate is skipped
            continue
    return None


def _dead(ctx: CheckContext, ex: Explored, page: ir.Page, action: ir.Action, moves: list[Move]) -> Diagnostic:
    name = f"{page.name}.{action.name}"
    if not ex.complete:
        return Diagnostic("W404", f"action '{name}' was never enabled {capped(ctx)}", action.span,
                          severity="warning", hint="it may be enabled deeper; narrow the domains to explore everything")
    culprit = never_true(ex, page, action, moves)
    n = len(ex.by_page.get(page.name, ()))
    hint = (f"`{expr_to_fsm(culprit)}` is false in all {n:,} reachable states on '{page.name}'" if culprit is not None
            else "each require holds somewhere, but never all at once") + "; fix the requires or remove the action"
    return Diagnostic("E404", f"action '{name}' is never enabled in any reachable state", action.span, hint=hint)


def _partly_dead(ctx: CheckContext, ex: Explored, page: ir.Page, action: ir.Action, dead: list[Move],
                 total: int) -> Diagnostic:
    shown = a_few([show_args(action.params, mv.args) for mv in dead])
    where = "" if ex.complete else f" {capped(ctx)}"
    return Diagnostic(
        "W405", f"action '{page.name}.{action.name}' is never enabled for {len(dead)} of its {total} parameter "
                f"values{where}: {shown}", action.span, severity="warning",
        hint="narrow the parameter's domain, or check that the requires allow these values")


def dead_actions_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E404 for actions never enabled (W404 if the search was capped); W405 for parameter values never enabled."""
    ex = explored(ctx)
    if ex is None:
        return
    enabled = ex.space.enabled_moves
    for page in ctx.spec.pages:
        if not ex.reached(page.name):
            continue  # reported as an unreachable page
        for action_name, moves in moves_by_action(ex, page).items():
            action = next(a for a in page.actions if a.name == action_name)
            dead = [mv for mv in moves if mv.index not in enabled]
            if not dead or contradiction(ctx.spec, page, action) is not None:
                continue
            if len(dead) == len(moves):
                yield _dead(ctx, ex, page, action, moves)
            else:
                yield _partly_dead(ctx, ex, page, action, dead, len(moves))
