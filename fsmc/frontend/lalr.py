"""The reference parse: lark's LALR parser, then its tree handed rule by rule to the IR builder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.frontend.builder import LOCATED_RULES, PLAIN_RULES, IRBuilder
from fsmc.frontend.grammar import lark_parser
from fsmc.frontend.limits import too_deep
from fsmc.frontend.syntax_errors import syntax_diagnostic


def _span(meta: Any, file: str) -> ir.Span:
    if getattr(meta, "empty", True):
        return ir.Span.trusted(file=file)
    return ir.Span.trusted(file=file, line=meta.line, col=meta.column, end_line=meta.end_line, end_col=meta.end_column)


class ToIR(Transformer[Token, Any]):
    """lark's tree → IR: each rule's method (one per rule of the builder, added below) calls the builder's."""

    def __init__(self, builder: IRBuilder):
        super().__init__()
        self.builder = builder


def _located(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @v_args(meta=True)
    def rule(self: ToIR, meta: Any, children: list[Any]) -> Any:
        return fn(self.builder, _span(meta, self.builder.file), children)

    rule.__name__ = name
    return rule


def _plain(name: str) -> Callable[..., Any]:
    def rule(self: ToIR, children: list[Any]) -> Any:
        return getattr(self.builder, name)(children)

    rule.__name__ = name
    return rule


for _name, _fn in LOCATED_RULES.items():
    setattr(ToIR, _name, _located(_name, _fn))
for _name in PLAIN_RULES:
    setattr(ToIR, _name, _plain(_name))


def _literal_error(err: VisitError, file: str) -> SpecError:
    """E001 at a literal the builder could not read, e.g. an integer of more than 4300 digits."""
    span = _span(getattr(err.obj, "meta", None), file)
    return SpecError([Diagnostic("E001", f"cannot read this literal: {err.orig_exc}", span, hint="use a shorter number")])


def parse_lark(text: str, file: str, base_dir: Path) -> ir.Spec:
    """The reference parse of .fsm text: every syntax error becomes a located E001 diagnostic."""
    try:
        tree = lark_parser().parse(text)
    except UnexpectedInput as err:
        raise SpecError([syntax_diagnostic(err, file, text)]) from None
    except RecursionError:
        raise too_deep(file) from None
    builder = IRBuilder(file, base_dir)
    try:
        spec: ir.Spec = ToIR(builder).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, RecursionError):
            raise too_deep(file) from None
        if isinstance(err.orig_exc, ValueError):
            raise _literal_error(err, file) from None
        raise
    except RecursionError:
        raise too_deep(file) from None
    if builder.problems:
        raise SpecError(builder.problems)
    return spec
