"""Shared pieces of the command line: loading a spec with rendered diagnostics, exit codes."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError, render_json, render_text
from fsmc.frontend import load

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE = 0, 1, 2


def print_diagnostics(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], fmt: str = "text") -> None:
    if fmt == "json":
        print(render_json(diagnostics))
        return
    sources: dict[str, str] = {}
    for d in diagnostics:
        if d.span.file and d.span.file not in sources:
            with contextlib.suppress(OSError):
                sources[d.span.file] = Path(d.span.file).read_text(encoding="utf-8", errors="replace")
    if diagnostics:
        print(render_text(diagnostics, sources), file=sys.stderr)


def load_or_report(path: str, fmt: str = "text") -> ir.Spec | None:
    """The spec's IR, or None after printing why it could not be read (callers exit 2)."""
    try:
        return load(path)
    except SpecError as err:
        print_diagnostics(err.diagnostics, fmt)
        return None
