"""The way a world's item was found (filter, search or scroll), recorded on the page it opens, as a field of the world.

bfs_action.py names three access methods and searches once per method, the other methods' entry actions
disabled, so that the trajectories of one goal include one per method, each labelled. fsmc searches once;
it tells the methods apart by the state they end in. Before the import, each navigation that
bfs_action.py counts as an access method's entry (by its preconditions' fields `*filters_applied*`,
`*has_searched*`, `*viewport_anchor_id*`, else by its id: `FILTERED`, `SEARCH`, `SCROLL_` or `_ANY_`) sets
the field `access_method` of its target page to the method's name, where two or more methods lead to that
page. Each method then ends in a state of its own: the enumeration's alternatives give one trajectory per
method, and the trajectory's last state names it.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["FIELD", "access_method", "mark_access_methods"]

JSON = Any
FIELD = "access_method"
_BY_FIELD = {"filter": ("filters_applied",), "search": ("has_searched",), "scroll": ("viewport_anchor_id",)}
_BY_ID = {"filter": ("FILTERED",), "search": ("SEARCH",), "scroll": ("SCROLL_", "_ANY_")}
ACCESS = (f"access methods (bfs_action.py, by name): a navigation that enters by a filter, a search or a scroll sets "
          f"the field '{FIELD}' of the page it opens to 'filter', 'search' or 'scroll', where two or more methods "
          "lead there, so that each method ends in a state of its own and gets a trajectory of its own, its last "
          "state naming the method")


def access_method(action: dict[str, JSON]) -> str | None:
    """The access method bfs_action.py counts a navigation as the entry of, or None."""
    if not action.get("is_navigation"):
        return None
    pres = action.get("preconditions") if isinstance(action.get("preconditions"), list) else []
    for c in pres or []:
        path = str(c.get("path", "")).lower() if isinstance(c, dict) else ""
        for method, words in _BY_FIELD.items():
            if any(w in path for w in words):
                return method
    upper = str(action.get("id", "")).upper()
    return next((m for m, words in _BY_ID.items() if any(w in upper for w in words)), None)


def _actions(page: JSON) -> list[JSON]:
    actions = page.get("actions") if isinstance(page, dict) else None
    return actions if isinstance(actions, list) else []


def _entries(pages: list[JSON]) -> dict[str, list[tuple[dict[str, JSON], str]]]:
    """Per target page, the navigations into it that are an access method's entry, and their method."""
    out: dict[str, list[tuple[dict[str, JSON], str]]] = {}
    for p in pages:
        for a in _actions(p):
            method = access_method(a) if isinstance(a, dict) else None
            if method is not None and isinstance(a.get("to"), str):
                out.setdefault(a["to"], []).append((a, method))
    return out


def mark_access_methods(data: dict[str, JSON]) -> tuple[dict[str, JSON], list[str]]:
    """A copy of the world where each access method's entry records its method on the page it opens; and the
    JSON paths of the schemas that gained the field (one decision each)."""
    pages = data.get("pages")
    if not isinstance(pages, list):
        return data, []
    entries = {t: e for t, e in _entries(pages).items() if len({m for _, m in e}) > 1}
    if not entries:
        return data, []
    data = copy.deepcopy(data)
    places, marked = [], set()
    for i, p in enumerate(data["pages"]):
        schema = p.get("signature_schema") if isinstance(p, dict) else None
        if p.get("id") in entries and isinstance(schema, dict) and FIELD not in schema:
            schema[FIELD] = "string|null"
            places.append(f"pages[{i}].signature_schema")
            marked.add(p["id"])
    for p in data["pages"]:
        for a in _actions(p):
            method = access_method(a) if isinstance(a, dict) else None
            if method is not None and a.get("to") in marked and isinstance(a.get("effects", []), list):
                a["effects"] = [*a.get("effects", []), {"op": "set", "path": f"$.{FIELD}", "value": method}]
    return data, places
