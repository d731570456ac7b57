"""Reads the data a JavaScript module declares (`const users = ref([...])`, `export default {...}`), never running it.

AutoWebWorld keeps each app's rows in `web/src/stores/initial_data.js`, a Pinia store whose constants hold
them (`const users = ref([...])`, inside `defineStore(...)`): object and array literals, strings,
numbers, booleans and null, with unquoted keys, trailing commas, comments, shorthand properties (`{ users }`)
and references to constants declared earlier. A declaration whose value is anything else (a function, a
call) is skipped, and so is an expression inside a literal (`new Date()`, `a + b`), read as null; a literal
that does not parse (unterminated, unbalanced, a missing `:` or `,`) is a located error (JsDataError).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fsmc.errors import FsmcError

__all__ = ["JsDataError", "read_js_data"]

JSON = Any
_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)
  | (?P<number>-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<spread>\.\.\.)
  | (?P<punct>[{}\[\]():,;=])
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_WORDS = {"true": True, "false": False, "null": None, "undefined": None}
_WRAPPERS = ("ref", "reactive", "shallowRef", "shallowReactive", "readonly")  # Vue's: their argument is the data


class JsDataError(FsmcError, ValueError):
    """A literal that does not parse, at a 1-based line and column."""

    def __init__(self, line: int, col: int, message: str):
        super().__init__(f"{line}:{col}: {message}")
        self.line, self.col, self.message = line, col, message


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    at: int


def _unquote(text: str) -> str:
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) == 5
                  else _ESCAPES.get(m.group(1), m.group(1)), text[1:-1], flags=re.DOTALL)


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.toks = [_Tok(m.lastgroup or "other", m.group(), m.start()) for m in _TOKEN.finditer(text)
                     if m.lastgroup != "space"]
        self.pos = 0
        self.consts: dict[str, JSON] = {}

    def fail(self, message: str, at: int | None = None) -> JsDataError:
        at = (self.toks[self.pos].at if self.pos < len(self.toks) else len(self.text)) if at is None else at
        line = self.text.count("\n", 0, at) + 1
        return JsDataError(line, at - (self.text.rfind("\n", 0, at) + 1) + 1, message)

    def peek(self, offset: int = 0) -> _Tok | None:
        k = self.pos + offset
        return self.toks[k] if k < len(self.toks) else None

    def take(self, text: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise self.fail(f"expected {text!r}" + (f", found {tok.text!r}" if tok else " before the end of the file"))
        self.pos += 1
        return tok

    # ---------------------------------------------------------------- literals

    def value(self) -> JSON:
        """A literal; an expression that is not data (a call, `new Date()`, `a + b`, a template with ${...}) is null."""
        start = self.pos
        value = self.literal()
        nxt = self.peek()
        if nxt is not None and nxt.text not in (",", "]", "}", ";", ")") and nxt.kind != "name":
            self.pos = start
            self.skip_expression()
            return None
        return value

    def skip_expression(self) -> None:
        """Past one expression inside a literal: to the `,` or closing bracket at depth 0 (not taken)."""
        depth = 0
        while (tok := self.peek()) is not None:
            if depth == 0 and tok.text in (",", "]", "}", ")"):
                return
            depth += {"{": 1, "[": 1, "(": 1, "}": -1, "]": -1, ")": -1}.get(tok.text, 0)
            self.pos += 1
        raise self.fail("an expression runs to the end of the file")

    def literal(self) -> JSON:
        tok = self.peek()
        if tok is not None and (tok.kind == "name" and tok.text not in _WORDS and tok.text not in self.consts
                                or tok.kind in ("other", "punct") and tok.text == "("
                                or tok.kind == "string" and tok.text.startswith("`") and "${" in tok.text):
            self.skip_expression()  # a call, `new ...`, a reference to code: not data
            return None
        tok = self.take()
        if tok.kind == "string":
            return _unquote(tok.text)
        if tok.kind == "number":
            return float(tok.text) if re.search(r"[.eE]", tok.text) else int(tok.text)
        if tok.text == "{":
            return self.members()
        if tok.text == "[":
            return self.items()
        if tok.kind == "name" and tok.text in _WORDS:
            return _WORDS[tok.text]
        if tok.kind == "name" and tok.text in self.consts:
            return self.consts[tok.text]
        raise self.fail(f"{tok.text!r} is not a literal (object, array, string, number, true, false or null)", tok.at)

    def members(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {}
        while self.peek() is not None and self.peek().text != "}":  # type: ignore[union-attr]
            if self.peek().kind == "spread":  # type: ignore[union-attr]
                self.take()
                spread = self.value()
                out.update(spread if isinstance(spread, dict) else {})
            else:
                key = self.take()
                if key.kind not in ("name", "string", "number"):
                    raise self.fail(f"expected a property name, found {key.text!r}", key.at)
                name = _unquote(key.text) if key.kind == "string" else key.text
                if self.peek() is not None and self.peek().text in (",", "}") and key.kind == "name":  # type: ignore[union-attr]
                    out[name] = self.consts.get(name)  # shorthand: { users }
                else:
                    self.take(":")
                    out[name] = self.value()
            if self.peek() is None or self.peek().text != ",":  # type: ignore[union-attr]
                break
            self.take(",")
        self.take("}")
        return out

    def items(self) -> list[JSON]:
        out: list[JSON] = []
        while self.peek() is not None and self.peek().text != "]":  # type: ignore[union-attr]
            if self.peek().kind == "spread":  # type: ignore[union-attr]
                self.take()
                spread = self.value()
                out.extend(spread if isinstance(spread, list) else [])
            else:
                out.append(self.value())
            if self.peek() is None or self.peek().text != ",":  # type: ignore[union-attr]
                break
            self.take(",")
        self.take("]")
        return out

    # ---------------------------------------------------------------- statements

    def literal_starts(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        return tok.text in ("{", "[") or tok.kind in ("string", "number") or (
            tok.kind == "name" and (tok.text in _WORDS or tok.text in self.consts))

    def declaration(self, name: str) -> None:
        """`= literal`, or `= ref(literal)` as a Vue or Pinia store wraps its data; anything else is walked past."""
        tok, after = self.peek(), self.peek(1)
        if tok is not None and tok.text in _WRAPPERS and after is not None and after.text == "(":
            self.pos += 2
        if self.literal_starts():
            self.consts[name] = self.value()

    def module(self) -> dict[str, JSON]:
        """Every constant the module declares with a literal value, at any depth (a Pinia store declares its data
        inside `defineStore(...)`), and the default export as `default`."""
        while (tok := self.peek()) is not None:
            name, eq = self.peek(1), self.peek(2)
            if tok.text in ("const", "let", "var") and name is not None and name.kind == "name" and \
                    eq is not None and eq.text == "=":
                self.pos += 3
                self.declaration(name.text)
            elif tok.text == "default" and self.pos and self.toks[self.pos - 1].text == "export":
                self.pos += 1
                self.declaration("default")
            else:
                self.pos += 1
        return self.consts


def read_js_data(text: str) -> dict[str, JSON]:
    """The constants a JavaScript module declares with literal values (and `default`); JsDataError where a literal
    is malformed (unterminated, unbalanced, or a value that is not data inside one)."""
    reader = _Reader(text)
    bad = next((t for t in reader.toks if t.kind == "other" and t.text in "\"'`"), None)
    if bad is not None:
        raise reader.fail("unterminated string", bad.at)
    return reader.module()
