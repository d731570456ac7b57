"""Reads spec files of every supported format, refusing unreadable input with a diagnostic."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.frontend.parser import parse
from fsmc.frontend.resolve import resolve

MAX_BYTES = 16 * 1024 * 1024


def _unreadable(file: str, message: str, hint: str | None = None) -> SpecError:
    return SpecError([Diagnostic("E002", message, ir.Span(file=file, line=1, col=1), hint=hint)])


def read_source(path: str | Path) -> str:
    """The text of a spec file, or SpecError(E002) if it is missing, huge, binary or not UTF-8."""
    p = Path(path)
    file = str(path)
    try:
        if p.is_dir():
            raise _unreadable(file, "is a directory, not a spec file")
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise _unreadable(file, f"file is {size} bytes; specs are limited to {MAX_BYTES} bytes")
        data = p.read_bytes()
    except FileNotFoundError:
        raise _unreadable(file, "no such file") from None
    except OSError as err:
        raise _unreadable(file, f"cannot read file: {err.strerror}") from None
    if b"\x00" in data:
        raise _unreadable(file, "file is binary, not a spec", hint="pass a .fsm or .json spec")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise SpecError([Diagnostic("E002", f"file is not valid UTF-8 (byte {err.start})",
                                    ir.Span(file=file, line=line, col=1), hint="save the spec as UTF-8")]) from None
    if not text.strip():
        raise _unreadable(file, "file is empty", hint="a spec starts with `site NAME { entry PAGE }`")
    return text.removeprefix("\ufeff")


def _load_json(text: str, file: str) -> ir.Spec:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise SpecError([Diagnostic("E001", f"invalid JSON: {err.msg}",
                                    ir.Span(file=file, line=err.lineno, col=err.colno))]) from None
    except RecursionError:
        raise _unreadable(file, "JSON is nested too deeply") from None
    if isinstance(data, dict) and "site" in data:
        try:
            return ir.Spec.model_validate(data)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise SpecError([Diagnostic("E005", f"not a valid fsmc IR: {where}: {first['msg']}",
                                        ir.Span(file=file, line=1, col=1),
                                        hint=f"{err.error_count()} problem(s) in all")]) from None
        except RecursionError:
            raise _unreadable(file, "JSON is nested too deeply") from None
    if isinstance(data, dict) and "pages" in data and "meta" in data:
        from fsmc.interop.autowebworld import from_fsm_json

        return from_fsm_json(data, file)
    raise _unreadable(file, "JSON is neither an fsmc IR (with 'site') nor an AutoWebWorld fsm.json (with 'meta' and 'pages')")


def load_text(text: str, file: str = "<spec>", base_dir: Path | None = None) -> ir.Spec:
    """Parse and resolve spec text of either format (JSON if it starts with '{')."""
    if text.lstrip().startswith("{"):
        return resolve(_load_json(text, file))
    return resolve(parse(text, file, base_dir))


def load(path: str | Path) -> ir.Spec:
    """Read, parse and resolve a spec file; raises SpecError with diagnostics on failure."""
    text = read_source(path)
    return load_text(text, str(path), Path(path).resolve().parent)
