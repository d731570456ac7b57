"""The spec's formats (.fsm, IR JSON, AutoWebWorld fsm.json; Promela written only): one `load`, writers by name.

`load` reads a file once into a Source, picks the reader from the content (JSON with "site": IR; JSON
with "meta" and "pages": AutoWebWorld; anything else: .fsm) and resolves the IR. Adding a writer is one
line in WRITERS; `fsmc convert --to NAME` offers every name listed here. Heavy writers are registered
with `_lazy` so that importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats.fsm import from_fsm, to_fsm
from fsmc.formats.ir_json import from_ir_data, from_ir_json, is_ir_data, to_ir_json
from fsmc.formats.json_text import json_data, looks_like_json
from fsmc.formats.located import Where
from fsmc.frontend import resolve
from fsmc.source import Source, read_source, remember

Writer = Callable[[ir.Spec], str]


def _lazy(module: str, name: str) -> Writer:
    """A writer imported on first use (`module.name(spec) -> str`)."""

    def run(spec: ir.Spec) -> str:
        fn: Writer = getattr(importlib.import_module(module), name)
        return fn(spec)

    run.__name__ = name
    return run


WRITERS: dict[str, Writer] = {
    "fsm": to_fsm,
    "ir": to_ir_json,
    "fsm-json": _lazy("fsmc.formats.awm", "fsm_json_text"),
    "promela": _lazy("fsmc.engines.promela", "to_promela"),
}

# What a writer raises for a spec it cannot express; the CLI reports these instead of a traceback.
WRITER_ERRORS: tuple[type[Exception], ...] = (SpecError, ValueError)


@dataclass(frozen=True)
class Loaded:
    """A spec as read: the resolved IR, and the warnings its reader gave (an AutoWebWorld import's decisions)."""

    spec: ir.Spec
    warnings: tuple[Diagnostic, ...] = ()


def read_spec(source: Source, base_dir: Path | None = None) -> tuple[ir.Spec, list[Diagnostic]]:
    """The spec of a source in whichever format its content is (unresolved) and the reader's warnings;
    SpecError with diagnostics when it cannot be read."""
    if not looks_like_json(source.text, source.name):
        return from_fsm(source.text, source.name, base_dir), []
    data = json_data(source.text, source.name)
    if is_ir_data(data):
        return from_ir_data(data, source.name), []
    from fsmc.formats.awm import is_fsm_json, read_fsm_json  # the AutoWebWorld reader, imported where one is read

    if is_fsm_json(data):
        spec, warnings = read_fsm_json(data, source.name)
        return Where(source).located(spec), warnings  # nodes the import made without a span: their parent's
    raise SpecError([Diagnostic(
        "E002", "JSON is neither an fsmc IR (with 'site') nor an AutoWebWorld fsm.json (with 'meta' and 'pages')",
        ir.Span(file=source.name, line=1, col=1))])


def read(source: Source, base_dir: Path | None = None) -> Loaded:
    """Read and resolve a spec's source, remembering it (fsmc.source.recall) for diagnostics and digests."""
    spec, warnings = read_spec(remember(source), base_dir)
    return Loaded(resolve(spec), tuple(warnings))


def load_source(source: Source, base_dir: Path | None = None) -> ir.Spec:
    """The resolved IR of a spec's source (`read` gives the reader's warnings too)."""
    return read(source, base_dir).spec


def load_text(text: str, file: str = "<spec>", base_dir: Path | None = None) -> ir.Spec:
    """Parse and resolve spec text of any format (JSON if it starts with '{' or '[', or the file is .json)."""
    return load_source(Source(file, text), base_dir)


def load(path: str | Path) -> ir.Spec:
    """Read, parse and resolve a spec file; raises SpecError with diagnostics on failure."""
    return load_source(read_source(path), Path(path).resolve().parent)


def __getattr__(name: str) -> object:
    """The AutoWebWorld reader's and writer's names, imported on first use (`fsmc check` of a .fsm needs neither)."""
    if name in ("from_fsm_json", "fsm_json_text", "to_fsm_json"):
        return getattr(importlib.import_module("fsmc.formats.awm"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["WRITERS", "WRITER_ERRORS", "Loaded", "Writer", "from_fsm", "from_fsm_json", "from_ir_json", "fsm_json_text",
           "load", "load_source", "load_text", "read", "read_spec", "to_fsm", "to_fsm_json", "to_ir_json"]
