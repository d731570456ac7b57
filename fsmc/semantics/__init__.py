"""The reference semantics in pure Python, compiled once from the IR (see docs/semantics.md)."""

from fsmc.semantics.compile import CompileError
from fsmc.semantics.lowered import Lowered
from fsmc.semantics.machine import (
    Machine,
    Move,
    State,
    format_value,
    render_template,
    state_difference,
    template_names,
)

__all__ = [
    "CompileError", "Lowered", "Machine", "Move", "State", "format_value",
    "render_template", "state_difference", "template_names",
]
