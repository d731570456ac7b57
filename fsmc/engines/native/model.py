"""The native engine's model of a machine: every move (effects.py) lowered over the expression lowering (lower.py)."""

from __future__ import annotations

from fsmc.engines.native.effects import lower_move
from fsmc.engines.native.encoding import LoweringError
from fsmc.engines.native.lower import LModel, ModelBuilder
from fsmc.semantics import Machine


def lower(machine: Machine) -> LModel:
    """The small-int model of a machine; raises LoweringError naming what it cannot express."""
    try:
        builder = ModelBuilder(machine)
        moves = [lower_move(builder, mv) for mv in machine.all_moves]
    except RecursionError as e:
        raise LoweringError("an expression is nested too deeply to lower") from e
    return LModel(builder.layout, moves, builder.tables, machine.page_index[machine.spec.site.entry])
