"""No effect of an action is undone by a later effect of the same action (an assignment overwritten, a toggle toggled back)."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks._where import target_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def _target(eff: ir.Effect) -> str:
    return eff.var if eff.key is None else f"{eff.var}[...]"


def _undoes(later: ir.Effect, earlier: ir.Effect) -> str | None:
    """How `later` wipes out `earlier`, if it does."""
    if later.var != earlier.var:
        return None
    if later.op == "toggle" and earlier.op == "toggle":
        return "toggles it back"
    if later.op in ("assign", "clear") and (later.key is None or later.key == earlier.key):
        return "overwrites it"
    return None


def _conflicts(action: ir.Action) -> Iterator[Diagnostic]:
    for j, later in enumerate(action.effects):
        for earlier in action.effects[:j]:
            how = _undoes(later, earlier)
            if how is not None:
                yield Diagnostic("E305", f"action '{action.name}' changes '{_target(later)}' twice: this effect {how}",
                                 target_span(later), hint="keep one effect per variable (effects apply in order)",
                                 notes=((earlier.span, "the earlier effect"),))
                break


def effect_conflicts_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for page in ctx.spec.pages:
        for action in page.actions:
            yield from _conflicts(action)
