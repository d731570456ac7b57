"""Narrower spans for names the IR keeps as plain strings (a goto target, a carried name, a table row).

The IR locates nodes, not every name inside them; to point the caret at the offending word the
checks look for it in the spec's source (the text that was parsed, fsmc.source.recall) inside the
node's span. For a spec without a remembered source (built in memory, an IR loaded from JSON) the
node's own span is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from fsmc import ir
from fsmc.source import Source, recall


def _region(span: ir.Span) -> tuple[Source, int, int] | None:
    """The source of `span` and the offsets where the span begins and ends in its text."""
    source = recall(span.file) if span.file and span.line >= 1 else None
    if source is None:
        return None
    begin = source.offset(span.line, span.col)
    end = source.offset(span.end_line, span.end_col) if span.end_line >= span.line else len(source.text)
    return source, begin, max(begin, min(end, len(source.text)))


def _make(span: ir.Span, source: Source, start: int, end: int) -> ir.Span:
    line, col = source.position(start)
    end_line, end_col = source.position(end)
    return ir.Span.trusted(file=span.file, line=line, col=col, end_line=end_line, end_col=end_col)


def find(span: ir.Span, pattern: str, nth: int = 0) -> ir.Span:
    """The span of group 1 (or the whole match) of the nth match of `pattern` inside `span`, else `span`."""
    region = _region(span)
    if region is None:
        return span
    source, begin, end = region
    rx = re.compile(pattern)
    for i, m in enumerate(rx.finditer(source.text, begin, end)):
        if i == nth:
            g = 1 if rx.groups else 0
            return _make(span, source, m.start(g), m.end(g))
    return span


def word(span: ir.Span, name: str, after: str = "", nth: int = 0) -> ir.Span:
    """The span of the identifier `name` inside `span`, optionally right after the words `after`."""
    boundary = r"\b" if after[:1].isalnum() else ""
    lead = rf"{boundary}{re.escape(after)}\s+(?:[\w ,]*?)?" if after else ""
    return find(span, rf"{lead}(?<![\w.])({re.escape(name)})(?!\w)", nth)


def string(span: ir.Span, value: str, nth: int = 0) -> ir.Span:
    """The span of the string literal whose text is `value` inside `span`."""
    quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return find(span, re.escape(quoted), nth)


_ROW_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[(){}]')


def rows(span: ir.Span) -> list[ir.Span]:
    """The spans of the `( ... )` rows of an inline table, in order (empty when not found)."""
    region = _region(span)
    if region is None:
        return []
    source, begin, end = region
    return [_make(span, source, a, b) for a, b in _row_ranges(source.text, begin, end)]


def _row_ranges(text: str, begin: int, end: int) -> Iterator[tuple[int, int]]:
    in_body, depth, start = False, 0, 0
    for m in _ROW_TOKEN.finditer(text, begin, end):
        tok = m.group()
        if tok == "{" and depth == 0:
            in_body = True
        elif tok == "(":
            depth, start = depth + 1, (m.start() if depth == 0 else start)
        elif tok == ")" and depth > 0:
            depth -= 1
            if depth == 0 and in_body:
                yield start, m.end()
