"""An AutoWebWorld app folder beside a world: the rows of its `initial_data.js` become the tables of array<object> fields.

AutoWebWorld publishes, beside each `fsm.json`, the app it generated: `web/src/stores/initial_data.js` holds
its rows (repositories, products, channels). Where a world has such a folder (`web/` beside the file, or
`<name>/web/` beside `<name>.json`), each array<object> field takes the first DATA_ROWS rows of the list
of the same name in that module (or the list whose name ends the field's: `new_issue_labels` ← `labels`),
so that its items are the app's own; a field with no such list, or a folder without the module, keeps
invented rows, with a note. A module that does not parse is an error located in it. The pictures the rows name
(`web/public/images/...`) are the generated site's business (fsmc.codegen.app_images); a folder without
`public/` gets a note here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats.awm.importer import DataField, Importer
from fsmc.formats.js_data import JsDataError, read_js_data
from fsmc.ir.beside import app_folder

__all__ = ["APP_DATA", "DATA_ROWS", "take_rows"]

JSON = Any
APP_DATA = Path("src") / "stores" / "initial_data.js"
DATA_ROWS = 5  # rows a table takes from the app's data: every item is an edge, so the domains stay small
TAKEN = (f"array<object> fields take their rows from the app's initial_data.js (the list of the same name, its first "
         f"{DATA_ROWS} rows, scalar members as columns, the key as text), so the items a world offers are the app's own")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _lists(module: dict[str, JSON]) -> dict[str, list[dict[str, JSON]]]:
    """Every list of objects the module declares, by name: top-level constants and the members of objects."""
    out: dict[str, list[dict[str, JSON]]] = {}
    for name, value in module.items():
        for key, v in ([(name, value)] + (list(value.items()) if isinstance(value, dict) else [])):
            if isinstance(v, list) and v and all(isinstance(r, dict) for r in v):
                out.setdefault(_norm(key), v)
    return out


def _match(d: DataField, lists: dict[str, list[dict[str, JSON]]]) -> list[dict[str, JSON]] | None:
    field = _norm(d.name)
    if field in lists:
        return lists[field]
    ends = [k for k in lists if len(k) >= 4 and field.endswith(k)]
    return lists[max(ends, key=len)] if ends else None


def _scalar(v: JSON) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _rows(d: DataField, found: list[dict[str, JSON]]) -> tuple[list[str], list[tuple[JSON, ...]]]:
    """Columns (the key first) and rows: the first DATA_ROWS rows with a distinct scalar key."""
    keys = [k for k in dict.fromkeys(k for r in found for k in r) if all(_scalar(r.get(k)) for r in found)]
    key = "id" if "id" in keys else keys[0]
    columns = [key, *(k for k in keys if k != key), *(c for c in d.columns if c not in keys and c != "id")]
    rows: list[tuple[JSON, ...]] = []
    seen: set[str] = set()
    for r in found:
        if r.get(key) is None or str(r[key]) in seen or len(rows) == DATA_ROWS:
            continue
        seen.add(str(r[key]))
        rows.append((str(r[key]), *(r.get(c, 0 if c in d.numbers else None) for c in columns[1:])))
    return columns, rows


def _module(imp: Importer, path: Path) -> dict[str, JSON]:
    try:
        return read_js_data(path.read_text(encoding="utf-8"))
    except JsDataError as err:
        span = ir.Span(file=str(path), line=err.line, col=err.col, end_line=err.line, end_col=err.col + 1)
        raise SpecError([Diagnostic("E005", f"{APP_DATA.as_posix()}: {err.message}", span,
                                    hint="the app's data must be JavaScript literals: objects, arrays, strings, "
                                         "numbers, true, false and null")]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise SpecError([Diagnostic("E005", f"{APP_DATA.as_posix()} cannot be read: {err}",
                                    ir.Span(file=str(path), line=1, col=1))]) from None


def take_rows(imp: Importer, file: str) -> None:
    """Give each array<object> field the app's rows where the world has an app folder; notes where it falls back."""
    folder = app_folder(file)
    if folder is None or not imp.data_fields:
        return
    if not (folder / "public").is_dir():
        imp.note("meta", f"the app folder {folder} has no public/ folder of images: rows show generated pictures")
    if not (folder / APP_DATA).is_file():
        imp.note("meta", f"the app folder {folder} has no {APP_DATA.as_posix()}: the array<object> fields keep "
                         "invented rows")
        return
    lists = _lists(_module(imp, folder / APP_DATA))
    for d in imp.data_fields.values():
        found = _match(d, lists)
        if found is None or not any(_scalar(v) for r in found for v in r.values()):
            imp.note(d.where, f"{APP_DATA.as_posix()} has no list of rows named like '{d.name}': it keeps invented "
                              "rows")
            continue
        d.columns, d.rows = _rows(d, found)
        imp.decide(TAKEN, d.where)
