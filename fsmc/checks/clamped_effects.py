"""No `+=` or `-=` is clamped to its domain in a reachable state where its action is enabled.

The semantics clamps (docs/semantics.md), so nothing breaks, but a clamp that can happen usually means a
missing guard: the button stays enabled and silently does nothing. On a map entry only clamping above the
value domain counts; falling below it removes the entry, which is the documented way to drop an item.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fsmc import ir
from fsmc.checks._semantic import (
    Evaluator,
    Explored,
    evaluator,
    explored,
    show_args,
    slots_read,
)
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.printer import expr_to_fsm
from fsmc.semantics import Move, State
from fsmc.types.domains import strip_optional


@dataclass(frozen=True)
class Counter:
    """One checkable `+=`/`-=`: where its current value lives and how to compute the update."""

    effect: ir.Effect
    slot: int
    lo: int
    hi: int
    by: Evaluator
    key: Evaluator | None  # set for a map entry


@dataclass(frozen=True)
class Clamp:
    state: int
    move: Move
    value: int


def _slot_and_type(spec: ir.Spec, page: ir.Page, name: str) -> tuple[int, ir.Type] | None:
    for j, var in enumerate(page.vars):
        if var.name == name:
            return 1 + len(spec.session) + j, var.type
    for i, var in enumerate(spec.session):
        if var.name == name:
            return 1 + i, var.type
    return None


def _bounds(t: ir.Type, keyed: bool) -> tuple[int, int] | None:
    t = strip_optional(t)
    if keyed and isinstance(t, ir.MapType):
        t = strip_optional(t.value)
    elif keyed:
        return None
    return (t.lo, t.hi) if isinstance(t, ir.IntType) else None


def counters(ex: Explored, page: ir.Page, action: ir.Action) -> list[Counter]:
    """The `+=`/`-=` effects of an action whose variable no earlier effect of the action writes."""
    out: list[Counter] = []
    written: set[str] = set()
    for eff in action.effects:
        found = _slot_and_type(ex.machine.spec, page, eff.var)
        bounds = _bounds(found[1], eff.key is not None) if found else None
        if eff.op in ("inc", "dec") and eff.var not in written and found and bounds and eff.value is not None:
            by = evaluator(ex.machine, eff.value, page.name, action.params)
            key = evaluator(ex.machine, eff.key, page.name, action.params) if eff.key is not None else None
            out.append(Counter(eff, found[0], bounds[0], bounds[1], by, key))
        written.add(eff.var)
    return out


def _unclamped(c: Counter, s: State, args: tuple[Any, ...]) -> int | None:
    """The value the update would give without clamping, when it falls outside the domain."""
    current = s[c.slot]
    if c.key is not None:
        k = c.key(s, args)
        current = next((v for kk, v in current if kk == k), 0)
    if current is None:
        return None
    step = c.by(s, args)
    new = current + step if c.effect.op == "inc" else current - step
    below_is_removal = c.key is not None
    return new if new > c.hi or (new < c.lo and not below_is_removal) else None


def first_clamp(ex: Explored, page: ir.Page, moves: list[Move], c: Counter) -> Clamp | None:
    """The first state in BFS order (so the nearest) where an enabled move clamps this counter."""
    spec = ex.machine.spec
    action = moves[0].action
    read = {c.slot} | {k for e in (*action.requires, c.effect.value, c.effect.key) if e is not None
                       for k in slots_read(spec, page, e, action.params)}
    for s in ex.distinct(page.name, sorted(read)):
        for mv in moves:
            if ex.machine.is_enabled(s, mv):
                value = _unclamped(c, s, mv.args)
                if value is not None:
                    return Clamp(ex.index_of(s), mv, value)
    return None


def _guard(c: Counter, target: str) -> str:
    eff = c.effect
    by = expr_to_fsm(eff.value) if eff.value is not None else "1"
    if eff.op == "inc":
        cond = f"{target} < {c.hi}" if by == "1" else f"{target} + {by} <= {c.hi}"
    else:
        cond = f"{target} > {c.lo}" if by == "1" else f"{target} - {by} >= {c.lo}"
    if eff.key is not None:  # an absent entry reads as none
        cond = f"{expr_to_fsm(eff.key)} not in {eff.var} or {cond}"
    return f"require {cond}"


def _diagnostic(ex: Explored, c: Counter, clamp: Clamp) -> Diagnostic:
    eff = c.effect
    op = "+=" if eff.op == "inc" else "-="
    target = eff.var if eff.key is None else f"{eff.var}[{expr_to_fsm(eff.key)}]"
    text = f"{target} {op} {expr_to_fsm(eff.value) if eff.value is not None else '?'}"
    bound = c.hi if clamp.value > c.hi else c.lo
    path = ex.space.path(clamp.state)
    move = f"{clamp.move.name}{show_args(clamp.move.action.params, clamp.move.args)}"
    steps = ", ".join(m.name + show_args(m.action.params, m.args) for m in path)
    shown = f"reached by {steps}" if len(path) <= 8 else f"a state {len(path)} steps from the start"
    return Diagnostic(
        "W406", f"`{text}` is clamped to {bound} (it would give {clamp.value}, outside {c.lo}..{c.hi}) when "
                f"{move} runs in a reachable state {len(path)} step(s) from the start", eff.span,
        severity="warning", notes=((clamp.move.action.span, shown),),
        hint=f"add a guard such as `{_guard(c, target)}` so the action is disabled instead of silently "
             "doing nothing")


def _clamps(ex: Explored, page: ir.Page, action: ir.Action) -> Iterator[Diagnostic]:
    moves = [mv for mv in ex.machine.moves(page.name) if mv.action.name == action.name]
    try:
        found = [(c, first_clamp(ex, page, moves, c)) for c in counters(ex, page, action)]
    except Exception:  # noqa: BLE001 - an update that cannot be evaluated is reported by other checks
        return
    for c, clamp in found:
        if clamp is not None:
            yield _diagnostic(ex, c, clamp)


def clamped_effects_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """W406 for each `+=`/`-=` that some enabled move clamps in some reachable state."""
    ex = explored(ctx)
    if ex is None:
        return
    for page in ctx.spec.pages:
        if not ex.reached(page.name):
            continue
        for action in page.actions:
            yield from _clamps(ex, page, action)
