"""The input limits of the .fsm language: how long a text and how deep its brackets and nodes may be (E002, E004)."""

from __future__ import annotations

import re

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError

MAX_FSM_CHARS = 4 * 1024 * 1024
"""The largest .fsm text read (four times the 1,000-page benchmark spec). Text with a syntax error goes to lark,
which reads about a megabyte in several seconds; IR JSON, four to fifteen times bigger for the same spec, and
table files may use all of fsmc.source.MAX_BYTES."""

MAX_NESTING = 100
"""How deep IR nodes may nest (an expression inside an action inside a page counts 4 levels): far beyond
what anyone writes, and within what the recursive passes downstream and Python's own compiler handle."""

MAX_BRACKETS = 1000
"""How deep brackets may nest in .fsm text before lark is asked to parse it."""

_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[(\[{]|[)\]}]')


def refuse_long_text(text: str, file: str) -> None:
    """SpecError(E002) for .fsm text of more than MAX_FSM_CHARS characters."""
    if len(text) > MAX_FSM_CHARS:
        raise SpecError([Diagnostic(
            "E002", f"a .fsm spec of {len(text):,} characters; fsmc reads at most {MAX_FSM_CHARS:,}",
            ir.Span.trusted(file=file, line=1, col=1),
            hint='keep large data in table files: `table T(...) key id = load "rows.json"`')])


def check_nesting(spec: ir.Spec, file: str) -> ir.Spec:
    """The spec itself, or SpecError(E004) pointing at a node nested more than MAX_NESTING levels deep."""
    stack: list[tuple[ir.Node, int]] = [(spec, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            span = node.span if node.span.line else ir.Span.trusted(file=file, line=1, col=1)
            raise SpecError([Diagnostic("E004", f"an expression or type is nested more than {MAX_NESTING} levels deep",
                                        span, hint="split it, e.g. into several `require` lines or a view")])
        for value in node.__dict__.values():
            if isinstance(value, ir.Node):
                stack.append((value, depth + 1))
            elif isinstance(value, tuple):
                stack.extend((v, depth + 1) for v in value if isinstance(v, ir.Node))
    return spec


def refuse_deep_brackets(text: str, file: str) -> None:
    """SpecError(E004) at brackets nested more than MAX_BRACKETS deep, before lark spends minutes on megabytes of them."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in _OPEN:
            depth += 1
            if depth > MAX_BRACKETS:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start() - text.rfind("\n", 0, m.start())
                span = ir.Span.trusted(file=file, line=line, col=col, end_line=line, end_col=col + 1)
                raise SpecError([Diagnostic("E004", f"brackets are nested more than {MAX_BRACKETS} levels deep", span,
                                            hint="split the expression")])
        elif c in _CLOSE:
            depth = max(0, depth - 1)


def too_deep(file: str) -> SpecError:
    """E004 for a text that Python's recursion limit stopped while parsing or building it."""
    return SpecError([Diagnostic("E004", "the spec is nested too deeply to parse", ir.Span.trusted(file=file, line=1, col=1),
                                 hint="split deeply nested expressions")])
