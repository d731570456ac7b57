"""What their trajectory generator decides by names, made explicit preconditions: interceptors first, captcha last.

bfs_action.py (AutoWebWorld's trajectory generator) lets no other action run on a page while one of its
nullable fields named like `*accepted*`, `*permission*` or `*granted*` (not `*captcha*`) is null, except
the actions that set such a field; and it lets an action whose id names `captcha` run only when no form
action is pending (an enabled action, not a submit, back or nav one, one of whose set fields is still empty,
where the first set field is one the page's first submit action requires). Both become requires here, so
the site fsmc builds behaves as their generator assumed.
"""

from __future__ import annotations

from typing import Any

from fsmc import ir
from fsmc.formats.awm.importer import Act, Importer, fsmc_name

__all__ = ["add_conventions"]

JSON = Any
INTERCEPTOR_WORDS = ("accepted", "permission", "granted")
NONE = ir.Lit(value=None)
INTERCEPTOR = ("interceptor (bfs_action.py, by name): while a nullable field named *accepted*, *permission* or "
               "*granted* is null, only the actions that set such a field run; the page's other actions now require "
               "it to be set")
CAPTCHA = ("captcha last (bfs_action.py, by name): an action whose id names captcha runs only when no form action "
           "the page's submit needs is pending; that is now its require (bfs_action.py's disabled access actions "
           "are not considered)")


def _sets(raw: dict[str, JSON]) -> list[str]:
    """The top-level fields the action's `set` effects write, in order."""
    effects: list[JSON] = raw["effects"] if isinstance(raw.get("effects"), list) else []
    return [e["path"][2:].split(".")[0] for e in effects
            if isinstance(e, dict) and e.get("op") == "set" and isinstance(e.get("path"), str)
            and e["path"].startswith("$.")]


def _is_interceptor_field(raw_name: str, text: JSON) -> bool:
    lower = raw_name.lower()
    return "captcha" not in lower and any(w in lower for w in INTERCEPTOR_WORDS) and "null" in str(text).lower()


def _is_interceptor_action(raw: dict[str, JSON]) -> bool:
    return any("captcha" not in f.lower() and any(w in f.lower() for w in INTERCEPTOR_WORDS) for f in _sets(raw))


def _interceptors(imp: Importer, raw_page: dict[str, JSON], i: int, page: ir.Page) -> list[str]:
    optional = {v.name for v in page.vars if isinstance(v.type, ir.OptionalType)}
    schema: dict[str, JSON] = raw_page["signature_schema"] if isinstance(raw_page.get("signature_schema"), dict) else {}
    raws = [k for k, t in schema.items() if _is_interceptor_field(k, t) and fsmc_name(k) in optional]
    for k in raws:
        imp.decide(INTERCEPTOR, f"pages[{i}].signature_schema.{k}")
    return [fsmc_name(k) for k in raws]


def _empty(page: ir.Page, name: str) -> ir.Expr | None:
    """`name` still empty, as bfs_action.py's action_still_needed reads it: null, "" or []."""
    var = next((v for v in page.vars if v.name == name), None)
    if var is None:
        return None
    x, t = ir.Name(id=name), var.type
    if isinstance(t, ir.SetType):
        return ir.Binary(op="==", left=ir.Call(func="len", args=(x,)), right=ir.Lit(value=0))
    tests: list[ir.Expr] = [ir.Binary(op="==", left=x, right=NONE)] if isinstance(t, ir.OptionalType) else []
    inner = t.inner if isinstance(t, ir.OptionalType) else t
    if isinstance(inner, ir.ChoiceType) and "" in inner.values:
        tests.append(ir.Binary(op="==", left=x, right=ir.Lit(value="")))
    return _join("or", tests)


def _join(op: str, items: list[ir.Expr]) -> ir.Expr | None:
    if not items:
        return None
    out = items[0]
    for e in items[1:]:
        out = ir.Binary(op=op, left=out, right=e)  # type: ignore[arg-type]
    return out


def _negate(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Binary) and e.op in ("==", "!="):
        return e.model_copy(update={"op": "!=" if e.op == "==" else "=="})
    return ir.Unary(op="not", operand=e)


def _pending(page: ir.Page, raw: dict[str, JSON], action: ir.Action, required: set[str]) -> ir.Expr | None:
    """When form action `raw` is still pending (None if it never is)."""
    upper = str(raw.get("id", "")).upper()
    if "CAPTCHA" in upper or "SUBMIT" in upper or "BACK" in upper or "NAV" in upper:
        return None
    fields = _sets(raw)
    if not fields or fields[0] not in required:
        return None
    empty = _join("or", [e for e in (_empty(page, fsmc_name(f)) for f in fields) if e is not None])
    return None if empty is None else _join("and", [*action.requires, empty])


def _required(acts: list[Act]) -> set[str]:
    """The fields the page's first submit action's preconditions read."""
    for act in acts:
        if "submit" in str(act.raw.get("id", "")).lower():
            pres: list[JSON] = act.raw["preconditions"] if isinstance(act.raw.get("preconditions"), list) else []
            return {c["path"][2:].split(".")[0] for c in pres
                    if isinstance(c, dict) and isinstance(c.get("path"), str) and c["path"].startswith("$.")}
    return set()


def _page(imp: Importer, raw_page: dict[str, JSON], i: int, page: ir.Page) -> ir.Page:
    acts = [a for a in imp.acts if a.page == page.name]
    if len(acts) != len(page.actions):
        return page
    fields = _interceptors(imp, raw_page, i, page)
    required = _required(acts)
    pending = [p for a, b in zip(acts, page.actions, strict=True) if (p := _pending(page, a.raw, b, required))]
    actions = []
    for act, action in zip(acts, page.actions, strict=True):
        extra: list[ir.Expr] = []
        if fields and not _is_interceptor_action(act.raw):
            extra += [ir.Binary(op="!=", left=ir.Name(id=f), right=NONE) for f in fields]
        if "captcha" in str(act.raw.get("id", "")).lower() and pending:
            imp.decide(CAPTCHA, act.where)
            extra += [_negate(p) for p in pending]
        actions.append(action.model_copy(update={"requires": (*extra, *action.requires)}) if extra else action)
    return page.model_copy(update={"actions": tuple(actions)})


def add_conventions(imp: Importer, spec: ir.Spec, pages: list[dict[str, JSON]]) -> ir.Spec:
    """The spec with their name-based rules (interceptors, captcha) as explicit requires."""
    return spec.model_copy(update={"pages": tuple(_page(imp, raw, i, p) for i, (raw, p)
                                                  in enumerate(zip(pages, spec.pages, strict=True)))})
