"""fsmc: compile a formal website spec into verifiable web environments for visual web agents.

    from fsmc import Compilation
    c = Compilation("specs/shop.fsm")
    c.diagnostics, c.machine.initial(), c.graph

The names below are imported when first used, so `import fsmc.export` (or any one stage) loads only that
stage and what it needs, not the parser and the checks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_WHERE = {
    "Compilation": "fsmc.compilation", "Diagnostic": "fsmc.diagnostics", "SpecError": "fsmc.diagnostics",
    "load": "fsmc.formats", "load_text": "fsmc.formats", "Machine": "fsmc.semantics", "Move": "fsmc.semantics",
    "State": "fsmc.semantics", "Source": "fsmc.source", "load_source": "fsmc.formats", "read_source": "fsmc.source",
}

if TYPE_CHECKING:
    from fsmc.compilation import Compilation
    from fsmc.diagnostics import Diagnostic, SpecError
    from fsmc.formats import load, load_source, load_text
    from fsmc.semantics import Machine, Move, State
    from fsmc.source import Source, read_source


def __getattr__(name: str) -> Any:
    """The public names, each imported from its stage on first use (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'fsmc' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


__all__ = ["Compilation", "Diagnostic", "Machine", "Move", "Source", "SpecError", "State", "__version__", "load",
           "load_source", "load_text", "read_source"]
