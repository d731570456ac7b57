"""Loads the rows of a data table from a JSON or CSV file beside the spec, remembering the file as a Source."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import Diagnostic
from fsmc.source import Source, read_limited, remember

MAX_ROWS = 100_000


def _coerce(value: object, coltype: str) -> ir.Value:
    if value is None:
        return None
    if coltype == "int":
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError(f"expected an integer, got {value!r}")
        return int(value)  # type: ignore[call-overload]
    if coltype == "num":
        if isinstance(value, bool):
            raise ValueError(f"expected a number, got {value!r}")
        number = float(value)  # type: ignore[arg-type]
        if not math.isfinite(number):
            raise ValueError(f"expected a finite number, got {value!r}")
        return number
    if coltype == "bool":
        if isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"expected true or false, got {value!r}")
            return value.lower() in ("true", "1")
        return bool(value)
    if isinstance(value, (dict, list)):
        raise ValueError(f"expected a scalar, got {type(value).__name__}")
    return value if isinstance(value, (str, int)) and coltype.startswith("ref:") else str(value)


def _records(path: Path) -> list[dict[str, object]]:
    text = remember(Source.from_bytes(str(path), read_limited(path))).text
    if path.suffix.lower() == ".csv":
        return list(csv.DictReader(io.StringIO(text)))
    data = json.loads(text)
    if isinstance(data, dict) and len(data) == 1:
        data = next(iter(data.values()))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError("expected a JSON list of objects, one per row")
    return data


def load_table_rows(
    path: Path, columns: tuple[ir.Column, ...], span: ir.Span
) -> tuple[tuple[tuple[ir.Value, ...], ...], list[Diagnostic]]:
    """Rows in column order, or diagnostics that say which file, row and column is wrong."""
    try:
        records = _records(path)
    except FileNotFoundError:
        return (), [Diagnostic("E003", f"table file '{path.name}' not found", span, hint=f"looked for {path}")]
    except OSError as err:
        return (), [Diagnostic("E003", f"cannot read table file '{path.name}': {err.strerror or err}", span)]
    except (ValueError, csv.Error, RecursionError) as err:  # FileRefused, UnicodeDecodeError and JSONDecodeError are ValueErrors
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        return (), [Diagnostic("E003", f"cannot read table file '{path.name}': {reason}", span)]
    if len(records) > MAX_ROWS:
        return (), [Diagnostic("E003", f"table file '{path.name}' has {len(records)} rows; at most {MAX_ROWS}", span)]
    rows: list[tuple[ir.Value, ...]] = []
    problems: list[Diagnostic] = []
    for i, rec in enumerate(records, start=1):
        row: list[ir.Value] = []
        for col in columns:
            try:
                if col.name not in rec:
                    raise ValueError("missing")
                row.append(_coerce(rec[col.name], col.type))
            except (TypeError, ValueError, OverflowError) as err:
                problems.append(Diagnostic("E003", f"{path.name}: row {i}, column '{col.name}': {err}", span))
                row.append(None)
        rows.append(tuple(row))
        if len(problems) > 20:
            break
    return tuple(rows), problems
