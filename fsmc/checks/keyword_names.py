"""No variable, parameter, view, row or enum is named by a word the parser reads as a keyword where the name is used."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._where import name_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.frontend.keywords import keyword_use, reserved_message


def _reserved(word: str, kind: str, span: ir.Span) -> Iterator[Diagnostic]:
    reason = keyword_use(word, kind)
    if reason is not None:
        yield Diagnostic("E113", reserved_message(word, kind), span,
                         hint=f"{reason}; docs/language.md lists the reserved words")


def _params(params: tuple[ir.Param, ...]) -> Iterator[Diagnostic]:
    for p in params:
        yield from _reserved(p.name, "parameter", name_span(p))


def keyword_names_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """E113 at each declaration named by a keyword that the parser would not read as that name."""
    spec = ctx.spec
    for enum in spec.enums:
        yield from _reserved(enum.name, "enum", name_span(enum))
    for var in spec.session:
        yield from _reserved(var.name, "variable", name_span(var))
    for page in spec.pages:
        for var in page.vars:
            yield from _reserved(var.name, "variable", name_span(var))
        for view in page.views:
            yield from _reserved(view.name, "view", name_span(view))
            yield from _reserved(view.alias, "row", _span.word(view.span, view.alias, after="as"))
        for action in page.actions:
            yield from _params(action.params)
    for task in spec.tasks:
        yield from _params(task.params)
