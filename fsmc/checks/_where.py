"""The spans that several checks point their diagnostics at: a declaration's name and an effect's target."""

from __future__ import annotations

from fsmc import ir
from fsmc.checks import _span

Named = ir.Page | ir.Action | ir.Var | ir.View | ir.Table | ir.Enum | ir.Task | ir.Param | ir.Column

_KEYWORD = {ir.Page: "page", ir.Action: "action", ir.Var: "var", ir.View: "view", ir.Table: "table",
            ir.Enum: "enum", ir.Task: "task"}

_TARGET_AFTER = {"toggle": "toggle", "clear": "clear", "add": "to", "remove": "from"}


def name_span(node: Named) -> ir.Span:
    """The span of a declaration's name (the node's span when the source is not at hand)."""
    keyword = _KEYWORD.get(type(node))
    if keyword is None:  # params and columns start with their name
        return _span.word(node.span, node.name)
    return _span.word(node.span, node.name, after=keyword)


def target_span(eff: ir.Effect) -> ir.Span:
    """The span of the variable an effect changes."""
    return _span.word(eff.span, eff.var, after=_TARGET_AFTER.get(eff.op, ""))
