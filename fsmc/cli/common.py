"""Shared pieces of the command line: loading a spec with rendered diagnostics, exit codes.

Exit codes: 0 success; 1 errors in the spec or the command's work (`fsmc check` finds an error, a
build fails, memory runs out); 2 unreadable input (E002 for a spec: missing, empty, binary, not UTF-8, no spec; for
other commands a missing or unreadable folder); 3 an internal error of fsmc (a bug: please report
it); 130 interrupted (Ctrl-C); 141 the output pipe was closed (`fsmc schema | head`).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError, has_errors, render_json, render_text
from fsmc.frontend import load
from fsmc.frontend.files import read_limited

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # 128 + SIGINT, 128 + SIGPIPE, as a shell reports them


def print_diagnostics(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], fmt: str = "text") -> None:
    if fmt == "json":
        print(render_json(diagnostics))
        return
    sources: dict[str, str] = {}
    for d in diagnostics:
        if d.span.file and d.span.file not in sources:
            with contextlib.suppress(OSError, ValueError):  # a file fsmc refused to read is not read to show it
                sources[d.span.file] = read_limited(Path(d.span.file)).decode("utf-8", errors="replace")
    if diagnostics:
        print(render_text(diagnostics, sources), file=sys.stderr)


def exit_code(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> int:
    """2 when the input could not be read as a spec at all (E002), else 1 if any diagnostic is an error, else 0."""
    if any(d.code == "E002" for d in diagnostics):
        return EXIT_UNREADABLE
    return EXIT_ERRORS if has_errors(diagnostics) else EXIT_OK


def load_or_report(path: str, fmt: str = "text") -> ir.Spec | int:
    """The spec's IR, or the exit code after printing why it could not be loaded: 2 when the input is no
    readable spec (E002), 1 when it is a spec with errors (syntax, table files, ...), as `fsmc check` exits."""
    try:
        return load(path)
    except SpecError as err:
        print_diagnostics(err.diagnostics, fmt)
        return exit_code(err.diagnostics)
