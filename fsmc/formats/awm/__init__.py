"""AutoWebWorld fsm.json: write a spec in their shape with a lossless `x_fsmc` copy; read ours back or import theirs.

Writing: `meta`, `pages` (signature_schema, signature defaults, actions) and the derived `nav_skeleton`.
Every action carries its native preconditions, effects and GUI procedure where our construct has an
exact native form, and the whole fsmc IR of the action under `x_fsmc` (the page's variables and views
under the page's `x_fsmc`, site, enums, tables, session, tasks, properties and backends under `meta.x_fsmc`).
Reading a file whose `meta.x_fsmc.format` is ours rebuilds the IR from those copies, so
`from_fsm_json(to_fsm_json(spec)) == spec`. A file without it is imported as a foreign fsm.json
(fsmc/formats/awm/importer.py), which infers finite domains or reports what it cannot bound.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats.awm.build import import_fsm_json
from fsmc.formats.awm.forms import (
    json_value,
    native_effects,
    native_gui,
    native_preconditions,
    param_values,
    schema_type,
)
from fsmc.formats.ir_json import ir_to_data
from fsmc.printer import effect_to_fsm, expr_to_fsm

__all__ = ["FORMAT", "X", "from_fsm_json", "fsm_json_text", "read_fsm_json", "is_fsm_json", "to_fsm_json"]

X = "x_fsmc"
FORMAT = "fsmc-ir/1"
VERSION = "1.0"
JSON = Any


# ---------------------------------------------------------------- writing


def _action_id(page: ir.Page, a: ir.Action) -> str:
    return f"{page.name}.{a.name}"


def _gui_kind(a: ir.Action) -> str:
    """Their action `name`: the kind of interaction (click, type, search, select)."""
    ops = [g.op for g in a.gui]
    if "type" in ops:
        return "search" if "press" in ops else "type"
    return "select" if "select" in ops else "click"


def _carry_note(spec: ir.Spec, page: ir.Page, a: ir.Action) -> str | None:
    """Their navigation carries every same-named field; say so where ours carries fewer."""
    if a.goto is None or a.goto not in {p.name for p in spec.pages}:
        return None
    target = {v.name for v in spec.page(a.goto).vars}
    shared = [v.name for v in page.vars if v.name in target]
    carried = [n for n in shared if n in a.carry]
    if carried == shared:
        return None
    return f"goto {a.goto} carry {', '.join(carried)}" if carried else f"goto {a.goto} (carries nothing)"


def _action_json(spec: ir.Spec, page: ir.Page, a: ir.Action) -> dict[str, JSON]:
    types = {v.name: v.type for v in (*spec.session, *page.vars)}
    defaults = {v.name: v.default for v in (*spec.session, *page.vars)}
    pre, pre_left = native_preconditions(a, set(types))
    eff, eff_left = native_effects(a, types, defaults)
    untranslated = [f"require {expr_to_fsm(r)}" for r in pre_left] + [effect_to_fsm(e) for e in eff_left]
    note = _carry_note(spec, page, a)
    if note:
        untranslated.append(note)
    return {
        "id": _action_id(page, a),
        "name": _gui_kind(a),
        "is_navigation": a.goto is not None,
        "from": page.name,
        "to": a.goto if a.goto is not None else page.name,
        "parameters": param_values(spec, a.params),
        "preconditions": pre,
        "effects": eff,
        "gui_procedure": native_gui(a.gui),
        X: {"action": ir_to_data(a), "untranslated": untranslated},
    }


def _page_json(spec: ir.Spec, page: ir.Page) -> dict[str, JSON]:
    head = ir_to_data(page.model_copy(update={"actions": ()}))
    del head["actions"]
    return {
        "id": page.name,
        "signature_schema": {v.name: schema_type(spec, v.type) for v in page.vars},
        "signature": {v.name: json_value(v.default) for v in page.vars},
        "actions": [_action_json(spec, page, a) for a in page.actions],
        X: head,
    }


_COPIED = ("enums", "tables", "session", "tasks", "properties", "backends")
"""The parts of the spec copied whole under `meta.x_fsmc`, beside the site."""


def _meta(spec: ir.Spec) -> dict[str, JSON]:
    site = spec.site
    return {
        "app": site.name,
        "version": VERSION,
        "initial_page_id": site.entry,
        "terminal_pages": list(site.terminals),
        "global_signature_schema": {v.name: schema_type(spec, v.type) for v in spec.session},
        "global_signature": {v.name: json_value(v.default) for v in spec.session},
        X: {
            "format": FORMAT,
            "site": ir_to_data(site),
            **{k: [ir_to_data(n) for n in getattr(spec, k)] for k in _COPIED},
        },
    }


def _nav_skeleton(spec: ir.Spec) -> list[dict[str, str]]:
    return [
        {"from": p.name, "to": a.goto, "via": _action_id(p, a)}
        for p in spec.pages for a in p.actions if a.goto is not None and a.goto != p.name
    ]


def to_fsm_json(spec: ir.Spec) -> dict[str, JSON]:
    """The spec as an AutoWebWorld fsm.json object (plain JSON data, deterministic)."""
    return {"meta": _meta(spec), "pages": [_page_json(spec, p) for p in spec.pages], "nav_skeleton": _nav_skeleton(spec)}


def fsm_json_text(spec: ir.Spec) -> str:
    """The AutoWebWorld fsm.json, indented, keys in their order (meta, pages, nav_skeleton)."""
    return json.dumps(to_fsm_json(spec), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- reading what we wrote


def _is_ours(data: dict[str, JSON]) -> bool:
    meta = data.get("meta")
    return isinstance(meta, dict) and isinstance(meta.get(X), dict) and meta[X].get("format") == FORMAT


def _invalid(file: str, where: str, message: str, hint: str | None = None) -> SpecError:
    return SpecError([Diagnostic("E005", f"{where}: {message}", ir.Span(file=file, line=1, col=1), hint=hint)])


def _copy(obj: JSON, where: str, file: str) -> dict[str, JSON]:
    if not isinstance(obj, dict) or not isinstance(obj.get(X), dict):
        raise _invalid(file, where, f"has no '{X}' although meta.{X} says fsmc wrote this file",
                       hint=f"remove meta.{X} to import the file as a foreign fsm.json")
    copy: dict[str, JSON] = obj[X]
    return copy


def _page_data(page: JSON, i: int, file: str) -> dict[str, JSON]:
    head = dict(_copy(page, f"pages[{i}]", file))
    actions = page.get("actions", [])
    if not isinstance(actions, list):
        raise _invalid(file, f"pages[{i}].actions", "is not a list")
    head["actions"] = [_copy(a, f"pages[{i}].actions[{j}]", file).get("action") for j, a in enumerate(actions)]
    return head


def _from_ours(data: dict[str, JSON], file: str) -> ir.Spec:
    meta = data["meta"][X]
    pages = data.get("pages")
    if not isinstance(pages, list):
        raise _invalid(file, "pages", "is not a list")
    spec = {k: meta.get(k, []) for k in _COPIED}
    spec["site"] = meta.get("site")
    spec["pages"] = [_page_data(p, i, file) for i, p in enumerate(pages)]
    try:
        return ir.Spec.model_validate(spec)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise _invalid(file, f"{X} copy", f"not a valid fsmc IR at {where}: {first['msg']}",
                       hint=f"{err.error_count()} problem(s) in all") from None
    except RecursionError:
        raise _invalid(file, f"{X} copy", "nested too deeply") from None


def is_fsm_json(data: JSON) -> bool:
    """Whether JSON data is meant as an AutoWebWorld fsm.json: an object with 'meta' and 'pages'."""
    return isinstance(data, dict) and "pages" in data and "meta" in data


def read_fsm_json(data: dict[str, JSON], file: str) -> tuple[ir.Spec, list[Diagnostic]]:
    """The IR of an fsm.json object and the warnings of its import: rebuilt exactly if fsmc wrote it (no
    warnings), else imported, with a W009 for each decision taken; SpecError on what it cannot take.

    Diagnostics of an import give the line of the construct when `file` was loaded as a Source.
    """
    if _is_ours(data):
        return _from_ours(data, file), []
    return import_fsm_json(data, file)


def from_fsm_json(data: dict[str, JSON], file: str) -> ir.Spec:
    """The IR of an fsm.json object (its import warnings dropped: `read_fsm_json` gives them too)."""
    return read_fsm_json(data, file)[0]
