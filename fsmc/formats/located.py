"""Spans for an IR read from JSON: each node where its JSON path starts, else where its nearest located parent is.

An IR JSON written without spans, and the IR an AutoWebWorld import builds (whose nodes do not mirror the file's
paths), would otherwise give diagnostics at `:0:0:`; every node leaves here with a file, a line and a column.
"""

from __future__ import annotations

from typing import Any

from fsmc import ir
from fsmc.source import Source

JsonPath = tuple[str | int, ...]


class Where:
    """Spans of `source` from JSON paths, by the offsets where each path starts (fsmc.formats.awm.where)."""

    def __init__(self, source: Source | None, offsets: dict[JsonPath, int] | None = None):
        self.source, self.offsets = source, offsets or {}
        self.file = source.name if source is not None else ""

    def at(self, offset: int) -> ir.Span:
        line, col = self.source.position(offset) if self.source is not None else (1, 1)
        return ir.Span(file=self.file, line=line, col=col, end_line=line, end_col=col + 1)

    def span(self, path: JsonPath) -> ir.Span:
        """The span of the value at `path` or of the deepest part of it known; the file's start when none is."""
        for n in range(len(path), -1, -1):
            if path[:n] in self.offsets:
                return self.at(self.offsets[path[:n]])
        return self.at(0)

    def located(self, node: Any, path: JsonPath = (), parent: ir.Span | None = None) -> Any:
        """`node` with a span on it and on every node below it that has none: where its JSON path starts when that
        is known, else its parent's span (the file's start for the root)."""
        span = getattr(node, "span", None)
        changed: dict[str, Any] = {}
        if isinstance(span, ir.Span) and not span.file:
            span = changed["span"] = self.at(self.offsets[path]) if path in self.offsets else parent or self.at(0)
        for name in type(node).model_fields:
            value = getattr(node, name)
            if name != "span" and isinstance(value, ir.Node | tuple):
                located = self._value(value, (*path, name), span if isinstance(span, ir.Span) else parent)
                if located is not value:
                    changed[name] = located
        return node.model_copy(update=changed) if changed else node

    def _value(self, value: Any, path: JsonPath, parent: ir.Span | None) -> Any:
        if isinstance(value, ir.Node):
            return self.located(value, path, parent)
        if isinstance(value, tuple):
            items = tuple(self._value(v, (*path, i), parent) for i, v in enumerate(value))
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        return value
