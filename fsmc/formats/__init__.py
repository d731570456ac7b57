"""The spec in other shapes: fsmc IR JSON, AutoWebWorld fsm.json, Promela; a registry of writers by format name.

Adding a format is one line in WRITERS; `fsmc convert --to NAME` offers every name listed here.
Heavy writers are registered with `_lazy` so that importing this package stays cheap.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable

from fsmc import ir
from fsmc.diagnostics import SpecError
from fsmc.formats.awm import from_fsm_json, to_fsm_json
from fsmc.formats.ir_json import from_ir_json, to_ir_json
from fsmc.printer import to_fsm

Writer = Callable[[ir.Spec], str]


def _lazy(module: str, name: str) -> Writer:
    """A writer imported on first use (`module.name(spec) -> str`)."""

    def run(spec: ir.Spec) -> str:
        fn: Writer = getattr(importlib.import_module(module), name)
        return fn(spec)

    run.__name__ = name
    return run


def fsm_json_text(spec: ir.Spec) -> str:
    """The AutoWebWorld fsm.json, indented, keys in their order (meta, pages, nav_skeleton)."""
    return json.dumps(to_fsm_json(spec), indent=2, ensure_ascii=False) + "\n"


WRITERS: dict[str, Writer] = {
    "fsm": to_fsm,
    "ir": to_ir_json,
    "fsm-json": fsm_json_text,
    "promela": _lazy("fsmc.engines.promela", "to_promela"),
}

# What a writer raises for a spec it cannot express; the CLI reports these instead of a traceback.
WRITER_ERRORS: tuple[type[Exception], ...] = (SpecError, ValueError)

__all__ = ["WRITERS", "WRITER_ERRORS", "Writer", "from_fsm_json", "from_ir_json", "fsm_json_text", "to_fsm_json",
           "to_ir_json"]
