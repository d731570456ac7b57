"""Syntax errors: lark's UnexpectedInput turned into one located E001 diagnostic that says what was expected."""

from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from fsmc import ir
from fsmc.diagnostics import Diagnostic
from fsmc.frontend.grammar import keywords, terminal_names
from fsmc.frontend.keywords import keyword_use, reserved_message

_DECLARATIONS = (  # where a reserved word may have been declared as a name (group 1), by kind
    ("variable", r"\bvar\s+({})\s*:"),
    ("parameter", r"\b(?:action|task)\s+\w+\s*\([^)]*?(?<![\w.])({})\s*:"),
    ("view", r"\bview\s+({})\s*="),
    ("row", r"\bas\s+({})\b"),
    ("enum", r"\benum\s+({})\s*\{{"),
)
_EFFECT_OPS = frozenset((":=", "+=", "-="))


def token_span(tok: Token, file: str) -> ir.Span:
    """The span of one lark token."""
    return ir.Span.trusted(
        file=file, line=tok.line or 0, col=tok.column or 0, end_line=tok.end_line or 0, end_col=tok.end_column or 0
    )


def _describe(expected: set[str]) -> str:
    names = sorted({terminal_names().get(t, t) for t in expected}, key=lambda n: (n.startswith("'"), n))
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _declaration(word: str, text: str, file: str) -> tuple[str, ir.Span] | None:
    """The first declaration that names something `word` cannot name, with the span of the word."""
    found: list[tuple[int, str]] = []
    for kind, pattern in _DECLARATIONS:
        m = re.search(pattern.format(re.escape(word)), text) if keyword_use(word, kind) else None
        if m:
            found.append((m.start(1), kind))
    if not found:
        return None
    start, kind = min(found)
    line = text.count("\n", 0, start) + 1
    col = start - text.rfind("\n", 0, start)
    return kind, ir.Span.trusted(file=file, line=line, col=col, end_line=line, end_col=col + len(word))


def _keyword_as_name(err: UnexpectedToken, text: str, file: str) -> tuple[str, tuple[tuple[ir.Span, str], ...]] | None:
    """A hint and notes when the error comes from a keyword standing where the spec meant a name: the
    unexpected token itself where a name could stand (`to := c`), or the word before it (`goto := c`,
    or `require not }` with a variable `not`)."""
    tok = str(err.token)
    unexpected = err.token.type != "NAME" and tok in keywords() and "NAME" in err.expected
    if unexpected:
        word = tok
    else:
        before = re.search(r"([A-Za-z_]\w*)\s*$", text[max(0, err.token.start_pos - 100):err.token.start_pos])
        if before is None or before.group(1) not in keywords():
            return None
        word = before.group(1)
    declared = _declaration(word, text, file)
    if declared is not None:
        kind, span = declared
        return reserved_message(word, kind), ((span, f"`{word}` declared here"),)
    if tok in _EFFECT_OPS and "NAME" in err.expected:  # `goto := c`: the keyword took the variable's place
        return reserved_message(word, "variable"), ()
    if unexpected:
        return f"`{word}` is a keyword of the language, not a name; expected {_describe(err.expected)}", ()
    return None


def _unexpected_token(err: UnexpectedToken, span: ir.Span, file: str, text: str) -> Diagnostic:
    if err.token.type == "$END":
        return Diagnostic("E001", "unexpected end of file", span, hint=f"expected {_describe(err.expected)}")
    span = token_span(err.token, file)
    message = f"unexpected '{str(err.token)[:40]}'"
    keyword = _keyword_as_name(err, text, file)
    if keyword is not None:
        return Diagnostic("E001", message, span, hint=keyword[0], notes=keyword[1])
    return Diagnostic("E001", message, span, hint=f"expected {_describe(err.expected)}")


def syntax_diagnostic(err: UnexpectedInput, file: str, text: str = "") -> Diagnostic:
    """The E001 diagnostic of a syntax error lark found in `text`, at the offending token or character."""
    line, col = max(err.line, 1), max(err.column, 1)
    span = ir.Span.trusted(file=file, line=line, col=col, end_line=line, end_col=col + 1)
    if isinstance(err, UnexpectedToken):
        return _unexpected_token(err, span, file, text)
    if isinstance(err, UnexpectedCharacters):
        ch = err.char if err.char.isprintable() else repr(err.char)
        return Diagnostic("E001", f"unexpected character {ch}", span, hint="check for a stray symbol or an unclosed string")
    if isinstance(err, UnexpectedEOF):
        return Diagnostic("E001", "unexpected end of file", span, hint="a block is not closed")
    return Diagnostic("E001", "syntax error", span)
