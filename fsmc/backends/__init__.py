"""Output formats: a registry from a format name to a function that renders a spec as text.

Adding a format is one line in BACKENDS; `fsmc convert --to NAME` offers every name listed here.
Heavy backends are registered with `_lazy` so that importing this package stays cheap.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable

from fsmc import ir
from fsmc.diagnostics import SpecError
from fsmc.interop.autowebworld import to_fsm_json
from fsmc.interop.ir_json import to_ir_json
from fsmc.printer import to_fsm

Backend = Callable[[ir.Spec], str]


def _lazy(module: str, name: str) -> Backend:
    """A backend imported on first use (`module.name(spec) -> str`)."""

    def run(spec: ir.Spec) -> str:
        fn: Backend = getattr(importlib.import_module(module), name)
        return fn(spec)

    run.__name__ = name
    return run


def fsm_json_text(spec: ir.Spec) -> str:
    """The AutoWebWorld fsm.json, indented, keys in their order (meta, pages, nav_skeleton)."""
    return json.dumps(to_fsm_json(spec), indent=2, ensure_ascii=False) + "\n"


BACKENDS: dict[str, Backend] = {
    "fsm": to_fsm,
    "ir": to_ir_json,
    "fsm-json": fsm_json_text,
    "promela": _lazy("fsmc.backends.promela", "to_promela"),
}

# What a backend raises for a spec it cannot express; the CLI reports these instead of a traceback.
BACKEND_ERRORS: tuple[type[Exception], ...] = (SpecError, ValueError)

__all__ = ["BACKENDS", "BACKEND_ERRORS", "Backend", "fsm_json_text"]
