"""Narrower spans for names the IR keeps as plain strings (a goto target, a carried name, a table row).

The IR locates nodes, not every name inside them; to point the caret at the offending word the
checks look for it in the source text inside the node's span. When the source cannot be read (a
spec built in memory, an IR loaded from JSON) the node's own span is used.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator

from fsmc import ir


@functools.lru_cache(maxsize=32)
def _read(file: str, mtime_ns: int) -> tuple[str, list[int]] | None:
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            text = fh.read().removeprefix("\ufeff")
    except OSError:
        return None
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return text, starts


def _source(file: str) -> tuple[str, list[int]] | None:
    try:
        mtime = os.stat(file).st_mtime_ns
    except OSError:
        return None
    return _read(file, mtime)


def _offset(starts: list[int], line: int, col: int) -> int:
    return starts[min(max(line, 1), len(starts)) - 1] + max(col, 1) - 1


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    lo, hi = 0, len(starts) - 1
    while lo < hi:  # the last line start <= offset
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1, offset - starts[lo] + 1


def _region(span: ir.Span) -> tuple[str, list[int], int, int] | None:
    if not span.file or span.line < 1:
        return None
    src = _source(span.file)
    if src is None:
        return None
    text, starts = src
    begin = _offset(starts, span.line, span.col)
    end = _offset(starts, span.end_line, span.end_col) if span.end_line >= span.line else len(text)
    return text, starts, begin, max(begin, min(end, len(text)))


def _make(span: ir.Span, starts: list[int], start: int, end: int) -> ir.Span:
    line, col = _position(starts, start)
    end_line, end_col = _position(starts, end)
    return ir.Span(file=span.file, line=line, col=col, end_line=end_line, end_col=end_col)


def find(span: ir.Span, pattern: str, nth: int = 0) -> ir.Span:
    """The span of group 1 (or the whole match) of the nth match of `pattern` inside `span`, else `span`."""
    region = _region(span)
    if region is None:
        return span
    text, starts, begin, end = region
    rx = re.compile(pattern)
    for i, m in enumerate(rx.finditer(text, begin, end)):
        if i == nth:
            g = 1 if rx.groups else 0
            return _make(span, starts, m.start(g), m.end(g))
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
    text, starts, begin, end = region
    return [_make(span, starts, a, b) for a, b in _row_ranges(text, begin, end)]


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
