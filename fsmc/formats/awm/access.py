"""The way a world's item was found (filter, search or scroll), recorded for the whole trajectory as a field of the session.

bfs_action.py names three access methods and searches once per method, the other methods' entry actions
disabled, so that the trajectories of one goal include one per method, each labelled, and no path of theirs
enters by two methods (a search whose results open only by a scroll is no path of theirs). fsmc searches once:
where a world has entries of two or more methods, each navigation that bfs_action.py counts as an access
method's entry (by its preconditions' fields `*filters_applied*`, `*has_searched*`, `*viewport_anchor_id*`,
else by its id: `FILTERED`, `SEARCH`, `SCROLL_` or `_ANY_`) sets the session field `access_method` to its
method's name and requires that no other method set it. A path then uses one method's entries only, as one of
their searches does; each method ends in a state of its own, the enumeration's alternatives give one trajectory
per method, and every state after the entry names it.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["FIELD", "access_method", "mark_access_methods"]

JSON = Any
FIELD = "access_method"
_BY_FIELD = {"filter": ("filters_applied",), "search": ("has_searched",), "scroll": ("viewport_anchor_id",)}
_BY_ID = {"filter": ("FILTERED",), "search": ("SEARCH",), "scroll": ("SCROLL_", "_ANY_")}
ACCESS = (f"access methods (bfs_action.py, by name): where a world enters items by two or more of filter, search "
          f"and scroll, each method's entry sets the session field '{FIELD}' to its name and requires that no other "
          "method set it, since their search runs once per method with the other methods' entries disabled: a path "
          "uses one method only, and each method's path ends in a state of its own, which names it")


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


def mark_access_methods(data: dict[str, JSON]) -> tuple[dict[str, JSON], list[str]]:
    """A copy of the world where each access method's entry records its method in the session and requires that
    no other method did; and the JSON paths that gained the field (one decision each). A world with entries of
    one method or none is returned as it is: their search disables nothing there."""
    pages, meta = data.get("pages"), data.get("meta")
    if not isinstance(pages, list) or not isinstance(meta, dict):
        return data, []
    methods = sorted({m for p in pages for a in _actions(p) if isinstance(a, dict) and (m := access_method(a))})
    if len(methods) < 2:
        return data, []
    data = copy.deepcopy(data)
    schema = data["meta"].setdefault("global_signature_schema", {})
    if not isinstance(schema, dict) or FIELD in schema:
        return data, []
    schema[FIELD] = "string|null"
    for p in data["pages"]:
        for a in _actions(p):
            method = access_method(a) if isinstance(a, dict) else None
            if method is None or not isinstance(a.get("effects", []), list) or \
                    not isinstance(a.get("preconditions", []), list):
                continue
            others = [{"path": f"$.{FIELD}", "cond": "neq", "value": m} for m in methods if m != method]
            a["preconditions"] = [*a.get("preconditions", []), *others]
            a["effects"] = [*a.get("effects", []), {"op": "set", "path": f"$.{FIELD}", "value": method}]
    return data, ["meta.global_signature_schema"]
