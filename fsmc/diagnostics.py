"""Diagnostics are data: a code, a severity, a message, spans and a hint; rendering happens at the edge."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from fsmc.errors import EXIT_ERRORS, EXIT_UNREADABLE, FsmcError
from fsmc.ir.nodes import Span

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    hint: str | None = None
    severity: Severity = "error"
    notes: tuple[tuple[Span, str], ...] = field(default=())

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
            "end_line": self.span.end_line,
            "end_col": self.span.end_col,
            "hint": self.hint,
            "notes": [{"file": s.file, "line": s.line, "col": s.col, "message": m} for s, m in self.notes],
        }


class SpecError(FsmcError):
    """Raised when a spec cannot be turned into IR at all: exit 2 when it is no readable spec (E002), else 1
    (a syntax error, a table file missing)."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        unreadable = any(d.code == "E002" for d in self.diagnostics)
        super().__init__("\n".join(d.message for d in self.diagnostics),
                         exit_code=EXIT_UNREADABLE if unreadable else EXIT_ERRORS)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


EXCERPT_WIDTH = 120
"""The most characters of a source line an excerpt shows: a window around the caret on longer lines."""


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in text)


def _source_excerpt(span: Span, sources: dict[str, list[str]]) -> list[str]:
    lines = sources.get(span.file)
    if lines is None or not 1 <= span.line <= len(lines):
        return []
    line = lines[span.line - 1].rstrip("\r")
    start = max(span.col - 1, 0)
    width = span.end_col - span.col if span.end_line == span.line and span.end_col > span.col else 1
    left = max(0, min(start - EXCERPT_WIDTH // 2, len(line) - EXCERPT_WIDTH))
    shown = ("…" if left else "") + line[left:left + EXCERPT_WIDTH] + ("…" if len(line) > left + EXCERPT_WIDTH else "")
    caret = start - left + (1 if left else 0)
    width = max(1, min(width, EXCERPT_WIDTH - (start - left)))
    gutter = " " * len(str(span.line))
    return [f"{gutter} |", f"{span.line} | {_printable(shown)}", f"{gutter} | {' ' * caret}{'^' * width}"]


def render_text(diagnostics: Iterable[Diagnostic], sources: dict[str, str] | None = None) -> str:
    """`file:line:col: error[CODE]: message`, the source line with a caret, notes and a hint."""
    lines = {file: text.split("\n") for file, text in (sources or {}).items()}  # lines as lark counts them
    out: list[str] = []
    for d in diagnostics:
        out.append(f"{d.span}: {d.severity}[{d.code}]: {d.message}")
        out.extend(_source_excerpt(d.span, lines))
        for span, note in d.notes:
            out.append(f"  note: {span}: {note}")
        if d.hint:
            out.append(f"  hint: {d.hint}")
    return "\n".join(out)


def render_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean 'x'?" hint for the closest candidate, if one is close enough."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
