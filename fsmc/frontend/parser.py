"""The one entry point from .fsm text to IR: the recursive-descent fast path, else lark, which reports syntax errors."""

from __future__ import annotations

from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import SpecError
from fsmc.frontend.builder import IRBuilder
from fsmc.frontend.descent import Bail, parse_fast
from fsmc.frontend.limits import check_nesting, refuse_deep_brackets

__all__ = ["parse", "parse_lark"]


def parse_lark(text: str, file: str, base_dir: Path) -> ir.Spec:
    """The reference parse, lark alone (fsmc.frontend.lalr); lark is imported only when it is needed."""
    from fsmc.frontend.lalr import parse_lark as reference

    return reference(text, file, base_dir)


def parse(text: str, file: str = "<spec>", base_dir: Path | None = None) -> ir.Spec:
    """Parse .fsm text into IR; raises SpecError with diagnostics on syntax or load problems.

    The recursive-descent fast path (fsmc.frontend.descent) builds the same IR several times faster;
    whatever it does not handle, syntax errors included, goes to lark.
    """
    base = base_dir or Path(file).resolve().parent
    builder = IRBuilder(file, base)
    try:
        spec = parse_fast(text, builder)
    except (Bail, ValueError):
        refuse_deep_brackets(text, file)
        spec = parse_lark(text, file, base)
    else:
        if builder.problems:
            raise SpecError(builder.problems)
    return check_nesting(spec, file)
