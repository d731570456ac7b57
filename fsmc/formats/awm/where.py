"""Where a JSON path such as `pages[2].actions[0].effects[1]` starts in a JSON text: line and column for diagnostics."""

from __future__ import annotations

import re
from functools import lru_cache

from fsmc.source import Source

__all__ = ["json_offsets", "parse_where", "position_of"]

Path = tuple[str | int, ...]
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"[^,\]}\s]+")
_STEP = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")


class _Scanner:
    """Reads valid JSON text once, recording the offset of every member's key and every element's value."""

    def __init__(self, text: str):
        self.text = text
        self.out: dict[Path, int] = {}

    def space(self, i: int) -> int:
        m = _SPACE.match(self.text, i)
        return m.end() if m else i

    def value(self, i: int, path: Path) -> int:
        """Scans the value at `i`; returns the offset after it."""
        c = self.text[i:i + 1]
        if c == "{":
            return self.members(self.space(i + 1), path)
        if c == "[":
            return self.elements(self.space(i + 1), path)
        m = (_STRING if c == '"' else _SCALAR).match(self.text, i)
        return m.end() if m else i + 1

    def members(self, i: int, path: Path) -> int:
        while self.text[i:i + 1] == '"':
            key = _STRING.match(self.text, i)
            if key is None:
                break
            name = key.group(0)[1:-1].encode("utf-8", "surrogatepass").decode("unicode_escape", "replace")
            self.out.setdefault((*path, name), i)
            i = self.space(self.space(key.end()) + 1)  # past the ':'
            i = self.space(self.value(i, (*path, name)))
            if self.text[i:i + 1] != ",":
                break
            i = self.space(i + 1)
        return i + 1

    def elements(self, i: int, path: Path) -> int:
        k = 0
        while i < len(self.text) and self.text[i] != "]":
            self.out.setdefault((*path, k), i)
            i = self.space(self.value(i, (*path, k)))
            if self.text[i:i + 1] != ",":
                break
            i, k = self.space(i + 1), k + 1
        return i + 1


def json_offsets(text: str) -> dict[Path, int]:
    """The offset of each path's key (object members) or value (array elements) in valid JSON text."""
    scanner = _Scanner(text)
    try:
        scanner.value(scanner.space(0), ())
    except RecursionError:
        return {}
    return scanner.out


def parse_where(where: str) -> Path:
    """`pages[2].signature_schema.x` → ('pages', 2, 'signature_schema', 'x')."""
    return tuple(int(m.group(1)) if m.group(1) is not None else m.group(2) for m in _STEP.finditer(where))


@lru_cache(maxsize=8)
def _offsets(source: Source) -> dict[Path, int]:
    return json_offsets(source.text)


def position_of(source: Source, where: str) -> tuple[int, int] | None:
    """(line, column) of the deepest known prefix of the JSON path `where`, or None if none is known."""
    offsets, path = _offsets(source), parse_where(where)
    for n in range(len(path), 0, -1):
        if path[:n] in offsets:
            return source.position(offsets[path[:n]])
    return None
