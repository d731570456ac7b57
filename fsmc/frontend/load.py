"""Reads spec files of every supported format, refusing unreadable input with a diagnostic."""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import ValidationError

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.frontend.files import FileRefused, read_limited
from fsmc.frontend.parser import check_nesting, parse
from fsmc.frontend.resolve import resolve

MAX_FSM_CHARS = 4 * 1024 * 1024
"""The largest .fsm text read (four times the 1,000-page benchmark spec). Text with a syntax error goes to lark,
which reads about a megabyte in several seconds; IR JSON, four to fifteen times bigger for the same spec, and
table files may use all of MAX_BYTES."""


def _unreadable(file: str, message: str, hint: str | None = None) -> SpecError:
    return SpecError([Diagnostic("E002", message, ir.Span(file=file, line=1, col=1), hint=hint)])


def _not_utf8(data: bytes, err: UnicodeDecodeError, file: str) -> SpecError:
    line_start = data.rfind(b"\n", 0, err.start) + 1
    line = data.count(b"\n", 0, err.start) + 1
    col = len(data[line_start:err.start].decode("utf-8", errors="replace")) + 1
    latin = " (it looks like Latin-1 or Windows-1252)" if data[err.start] >= 0xA0 and "end" not in err.reason else ""
    return SpecError([Diagnostic("E002", f"file is not valid UTF-8: byte 0x{data[err.start]:02x} at offset {err.start}{latin}",
                                 ir.Span(file=file, line=line, col=col, end_line=line, end_col=col + 1),
                                 hint="save the spec as UTF-8")])


def read_source(path: str | Path) -> str:
    """The text of a spec file, or SpecError(E002) if it is missing, huge, binary, not UTF-8 or not a regular file."""
    file = str(path)
    try:
        data = read_limited(Path(path))
    except FileNotFoundError:
        raise _unreadable(file, "no such file") from None
    except FileRefused as err:
        raise _unreadable(file, str(err), hint="pass a .fsm, fsmc IR .json or AutoWebWorld fsm.json file") from None
    except OSError as err:
        raise _unreadable(file, f"cannot read file: {err.strerror or err}") from None
    if b"\x00" in data:
        raise _unreadable(file, "file is binary, not a spec", hint="pass a .fsm, fsmc IR .json or AutoWebWorld fsm.json file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _not_utf8(data, err, file) from None
    if not text.strip():
        raise _unreadable(file, "file is empty", hint="a spec starts with `site NAME { entry PAGE }`")
    return text.removeprefix("\ufeff")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is not a finite number")
    return value


def _load_json(text: str, file: str) -> ir.Spec:
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_finite)
    except json.JSONDecodeError as err:
        raise SpecError([Diagnostic("E001", f"invalid JSON: {err.msg}",
                                    ir.Span(file=file, line=err.lineno, col=err.colno))]) from None
    except ValueError as err:  # a number out of range (Python reads 1e999 as inf and accepts NaN)
        raise SpecError([Diagnostic("E001", f"invalid JSON: {err}", ir.Span(file=file, line=1, col=1))]) from None
    except RecursionError:
        raise _too_deep(file) from None
    if isinstance(data, dict) and "site" in data:
        try:
            return check_nesting(ir.Spec.model_validate(data), file)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise SpecError([Diagnostic("E005", f"not a valid fsmc IR: {where}: {first['msg']}",
                                        ir.Span(file=file, line=1, col=1),
                                        hint=f"{err.error_count()} problem(s) in all")]) from None
        except RecursionError:
            raise _too_deep(file) from None
    if isinstance(data, dict) and "pages" in data and "meta" in data:
        from fsmc.formats.awm import from_fsm_json

        return from_fsm_json(data, file)
    raise _unreadable(file, "JSON is neither an fsmc IR (with 'site') nor an AutoWebWorld fsm.json (with 'meta' and 'pages')")


def _too_deep(file: str) -> SpecError:
    return SpecError([Diagnostic("E004", "the JSON is nested too deeply to read", ir.Span(file=file, line=1, col=1))])


def load_text(text: str, file: str = "<spec>", base_dir: Path | None = None) -> ir.Spec:
    """Parse and resolve spec text of either format (JSON if it starts with '{' or '[', or the file is .json)."""
    if text.lstrip()[:1] in ("{", "[") or file.lower().endswith(".json"):
        return resolve(_load_json(text, file))
    if len(text) > MAX_FSM_CHARS:
        raise _unreadable(file, f"a .fsm spec of {len(text):,} characters; fsmc reads at most {MAX_FSM_CHARS:,}",
                          hint='keep large data in table files: `table T(...) key id = load "rows.json"`')
    return resolve(parse(text, file, base_dir))


def load(path: str | Path) -> ir.Spec:
    """Read, parse and resolve a spec file; raises SpecError with diagnostics on failure."""
    text = read_source(path)
    return load_text(text, str(path), Path(path).resolve().parent)
