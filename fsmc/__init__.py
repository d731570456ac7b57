"""fsmc: compile a formal website spec into verifiable web environments for visual web agents.

    from fsmc import Compilation
    c = Compilation("specs/shop.fsm")
    c.diagnostics, c.machine.initial(), c.graph
"""

from fsmc.compilation import Compilation
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.frontend import load, load_text
from fsmc.semantics import Machine, Move, State

__version__ = "0.1.0"

__all__ = ["Compilation", "Diagnostic", "Machine", "Move", "SpecError", "State", "__version__", "load", "load_text"]
