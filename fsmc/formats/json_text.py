"""JSON text → data for the JSON formats: strict numbers, and located diagnostics for broken or too deep JSON."""

from __future__ import annotations

import json
import math
from typing import Any

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError

__all__ = ["json_data", "looks_like_json", "too_deep"]


def looks_like_json(text: str, file: str) -> bool:
    """Whether a spec is read as JSON: its text starts with '{' or '[', or its file is .json."""
    return text.lstrip()[:1] in ("{", "[") or file.lower().endswith(".json")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is not a finite number")
    return value


def too_deep(file: str) -> SpecError:
    """E004 for JSON nested deeper than Python's recursion limit lets it be read."""
    return SpecError([Diagnostic("E004", "the JSON is nested too deeply to read", ir.Span(file=file, line=1, col=1))])


def json_data(text: str, file: str) -> Any:
    """The data of JSON text; SpecError E001 (invalid JSON, a number out of range) or E004 (too deep)."""
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_finite)
    except json.JSONDecodeError as err:
        raise SpecError([Diagnostic("E001", f"invalid JSON: {err.msg}",
                                    ir.Span(file=file, line=err.lineno, col=err.colno))]) from None
    except ValueError as err:  # a number out of range (Python reads 1e999 as inf and accepts NaN)
        raise SpecError([Diagnostic("E001", f"invalid JSON: {err}", ir.Span(file=file, line=1, col=1))]) from None
    except RecursionError:
        raise too_deep(file) from None
