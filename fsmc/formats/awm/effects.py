"""Their effects in the forms the importer takes: `clear` by the current value, `value_expr` evaluated, data set aside.

Runs after the fields are declared and before their values are gathered; each action's effects are
rewritten into `set` (with `value` or `value_ref`), `inc`, `clear` on an array, or `append_unique`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fsmc.formats.awm.importer import SAMPLE_ROWS, Act, Field, Importer, fsmc_name
from fsmc.formats.awm.samples import Samples

__all__ = ["normalise_effects"]

JSON = Any
_CALL = re.compile(r"([A-Za-z_]\w*)\(\s*\)")
_PARAM = re.compile(r"\{\s*(\w+)\s*\}")
_TEST = re.compile(r"[\s()!]*\$\.\w+[\s)]*((&&|\|\|)[\s()!]*\$\.\w+[\s)]*)+")  # $.a && !($.b || $.c)
_SUM = re.compile(r"sum\(\s*\$\.(\w+)\[\*\]\.(\w+)\s*\)")
_MERGE = re.compile(r"merge\((.*)\)", re.S)
_APPEND = re.compile(r"append\(\s*\$\.(\w+)\s*,(.*)\)", re.S)
_ZERO = {"boolean": False, "integer": 0, "number": 0}
_NON_NULL_CONDS = ("neq", "not_null", "gt", "gte", "lt", "lte", "length_gt")

DATA = ("effects on array<object> fields change data, which is fixed in fsmc: the effect is left out (a condition "
        "on such a field is decided against the fixed rows, so no move changes)")
CLEAR = ("clear follows bfs_action.py (bfs.py would write []): by the current value, a string or null becomes null, "
         "a boolean false, a number 0, an array []")
EXPR_PARAM = ("value_expr \"{p}\" sets the parameter's value, as value_ref does (both their BFS tools ignore "
              "value_expr and write null)")
EXPR_UNFILLED = ("value_expr \"{p}\" naming no parameter sets a value a person would type in that field, chosen by "
                 "the field's name (email, password, name, title, message, date...), and the GUI types that same value "
                 "for the placeholder (both their BFS tools ignore value_expr and write null)")
_SAMPLES = (  # (words in a field's name, what a person would type there), the first match wins
    (("email",), "alex.morgan@example.com"), (("draft_to", "forward_to", "reply_to", "mail_to"), "jamie.lee@example.com"),
    (("recipient",), "Jamie Lee"), (("reason",), "No longer needed"), (("condition",), "Opened an email this month"),
    (("call_to_action", "cta"), "Sign up now"),
    (("password",), "Str0ng-pass!"), (("username", "handle"), "alexmorgan"),
    (("phone", "mobile"), "+1 555 0100"), (("card_number", "cardnumber"), "4242 4242 4242 4242"),
    (("cvc", "cvv"), "123"), (("expiry", "expiration"), "12/30"), (("zip", "postal"), "94107"),
    (("city",), "San Francisco"), (("address", "street"), "500 Market Street"), (("country",), "United States"),
    (("url", "website", "link"), "https://example.com"), (("date",), "2025-10-15"), (("time",), "10:30"),
    (("amount", "price", "budget"), "25"), (("query", "search", "keyword"), "weekly report"),
    (("subject", "title", "headline"), "Quarterly planning"), (("body", "message", "description", "comment", "bio",
     "content", "note", "text", "post", "reply", "caption"), "Looking forward to it, see you there."),
    (("first_name", "full_name", "billing_name", "display_name", "cardholder"), "Alex Morgan"),
)
VALUE_UNFILLED = ("a set whose value holds a placeholder \"{p}\" naming no parameter (\"{input_text}\", \"Campaign "
                  "{input_text}\"), or that sets a parameter whose value is such a placeholder ({\"input_text\": "
                  "\"{input_text}\"}), fills it with the value a person would type in that field, chosen by the "
                  "field's name as for value_expr \"{p}\", and the GUI types that same value for the placeholder "
                  "(their BFS records the placeholder's name)")
EXPR_LIT = "value_expr holding a JSON literal sets that literal (both their BFS tools ignore value_expr and write null)"
EXPR_TEST = ("value_expr combining boolean fields with &&, || and ! sets their value as JavaScript would compute it, "
             "null counting as false (both their BFS tools ignore value_expr and write null)")
EXPR_SUM = (f"value_expr sum($.x[*].c) over an array<object> field x sets the sum of column c over x's {SAMPLE_ROWS} "
            "fixed sample rows (samples.py: c as a row of x's kind has it, else 10, 20, 30), or over the app's own "
            "rows (data.py), rounded to a whole number (both their BFS tools ignore value_expr and write null)")
EXPR_MERGE = ("value_expr merge({...}, ...) of JSON objects whose result has one member sets that member's value "
              "(merge({}, {\"date\": \"2000-1-1\"}) sets \"2000-1-1\"), as an fsmc field holds no object (both "
              "their BFS tools ignore value_expr and write null)")
EXPR_APPEND = ("value_expr append($.x, v) written to x itself adds v to x, as append_unique does (fsmc arrays are sets); "
               "an object of one member stands for that member's value, \"{p}\" for parameter p or else the symbolic "
               "value \"p\" (both their BFS tools ignore value_expr and write null)")
EXPR_CALL = ("value_expr \"f()\" (gen_id(), now()) sets the symbolic value \"F\", as \"{ITEM_ANY}\" stands for any "
             "item (both their BFS tools ignore value_expr and write null)")


def _path_field(imp: Importer, path: JSON) -> str | None:
    return fsmc_name(path[2:]) if isinstance(path, str) and path.startswith("$.") and "." not in path[2:] else None


def _expr_value(imp: Importer, e: dict[str, JSON], act: Act, where: str) -> dict[str, JSON] | None:
    """`value_expr` as a plain set (or an append_unique): its meaning, as docs/semantics.md gives it; None (reported) otherwise."""
    text = e["value_expr"]
    base = {k: v for k, v in e.items() if k != "value_expr"}
    if not isinstance(text, str):
        imp.report(f"{where}.value_expr", f"value_expr must be a string, not {text!r}", "E005")
        return None
    if (p := _PARAM.fullmatch(text.strip())) is not None:
        if fsmc_name(p.group(1)) not in {*act.consts, *act.ranges}:
            imp.decide(EXPR_UNFILLED, where)
            typed = act.samples.setdefault(p.group(1), sample_text(str(base.get("path", ""))[2:]))
            return {**base, "value": typed}
        imp.decide(EXPR_PARAM, where)
        return {**base, "value_ref": text.strip()}
    if _TEST.fullmatch(text.strip()):
        imp.decide(EXPR_TEST, where)
        return {**base, "value_test": text.strip()}
    if (m := _SUM.fullmatch(text.strip())) is not None and fsmc_name(m.group(1)) in imp.data_fields:
        data, column = imp.data_fields[fsmc_name(m.group(1))], fsmc_name(m.group(2))
        imp.decide(EXPR_SUM, where)
        if data.rows is not None:  # the app's rows (data.py): their column, a whole number (fsmc has no fractions)
            k = data.columns.index(column) if column in data.columns else None
            numbers = [r[k] for r in data.rows if k is not None and isinstance(r[k], (int, float))
                       and not isinstance(r[k], bool)]
            return {**base, "value": round(sum(numbers))}
        return {**base, "value": Samples(imp).summed(data, column)}
    if (built := _merge(imp, base, text.strip(), where) or _append(imp, base, text.strip(), act, where)) is not None:
        return built
    if (m := _CALL.fullmatch(text.strip())) is not None:
        imp.decide(EXPR_CALL, where)
        return {**base, "value": m.group(1).upper()}
    try:
        value = json.loads(text)
    except ValueError:
        value = ...
    if value is ... or isinstance(value, (dict, list)):
        imp.report(f"{where}.value_expr", f"value_expr {text!r} has no meaning in fsmc: it takes a parameter "
                   "\"{p}\", a JSON literal, a call without arguments such as gen_id(), boolean fields joined by && "
                   "|| ! or sum($.x[*].c) over an array<object> field, merge() of objects giving one member, or "
                   "append($.x, v) to x itself",
                   hint="write the value as 'value' or 'value_ref'")
        return None
    imp.decide(EXPR_LIT, where)
    return {**base, "value": value}


def _json_args(text: str) -> list[JSON] | None:
    """A call's comma-separated arguments when each is JSON, else None."""
    try:
        args = json.loads(f"[{text}]")
    except ValueError:
        return None
    return args if isinstance(args, list) else None


def _member(value: JSON) -> JSON:
    """A scalar as it is, an object of one scalar member as that member's value; `...` for anything else."""
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
    return ... if isinstance(value, (dict, list)) else value


def _merge(imp: Importer, base: dict[str, JSON], text: str, where: str) -> dict[str, JSON] | None:
    """`merge({}, {"date": "2000-1-1"})`: JSON objects merged into one member, whose value is set; else None."""
    m = _MERGE.fullmatch(text)
    args = _json_args(m.group(1)) if m is not None else None
    if not args or not all(isinstance(a, dict) for a in args):
        return None
    merged = {k: v for a in args for k, v in a.items()}
    if len(merged) != 1 or (value := _member(merged)) is ...:
        return None
    imp.decide(EXPR_MERGE, where)
    return {**base, "value": value}


def _append(imp: Importer, base: dict[str, JSON], text: str, act: Act, where: str) -> dict[str, JSON] | None:
    """`append($.x, {"id": "{ITEM_ANY}"})` written to x: an append_unique of the one value; else None."""
    m = _APPEND.fullmatch(text)
    if m is None or _path_field(imp, base.get("path")) != fsmc_name(m.group(1)):
        return None
    args = _json_args(m.group(2))
    if args is None or len(args) != 1 or (value := _member(args[0])) is ...:
        return None
    imp.decide(EXPR_APPEND, where)
    added = {**base, "op": "append_unique"}
    p = _PARAM.fullmatch(value) if isinstance(value, str) else None
    if p is None:
        return {**added, "value": value}
    if fsmc_name(p.group(1)) in {*act.consts, *act.ranges}:
        return {**added, "value_ref": value}
    return {**added, "value": p.group(1)}


def _known(act: Act, name: str, before: list[dict[str, JSON]]) -> str | None:
    """'set' or 'null' when the action fixes whether field `name` holds a value where an effect runs, else None."""
    for e in reversed(before):
        if e.get("path") == "$." + name and e.get("op") == "set" and "value" in e:
            return "null" if e["value"] is None else "set"
    for c in act.raw.get("preconditions") or []:
        if not isinstance(c, dict) or c.get("path") != "$." + name:
            continue
        value = c.get("value")
        if c.get("cond") == "eq" and not (isinstance(value, str) and value.startswith(("{", "$."))):
            return "null" if value is None else "set"
        if c.get("cond") in _NON_NULL_CONDS and not (c.get("cond") == "neq" and value is not None):
            return "set"
    return None


def _clear(imp: Importer, f: Field, e: dict[str, JSON], act: Act, before: list[dict[str, JSON]],
           where: str) -> dict[str, JSON] | None:
    """`clear` by the current value, as bfs_action.py does; None (reported) where that value cannot be known."""
    if f.base == "array":
        return e
    imp.decide(CLEAR, where)
    if f.base == "string":
        return {"op": "set", "path": e["path"], "value": None}
    known = _known(act, f.name, before)
    if known is None and f.nullable:
        imp.report(where, f"clear on '{f.name}' gives null when it is null and {json.dumps(_ZERO[f.base])} otherwise "
                          "(bfs_action.py), and nothing here says which it is",
                   hint=f"add a precondition on $.{f.name} (eq, neq null, not_null) or write a set")
        return None
    return {"op": "set", "path": e["path"], "value": None if known == "null" else _ZERO[f.base]}


def sample_text(field: str) -> str:
    """What a person would type in a field named `field` (`signup_email` → an email address), deterministically."""
    lower = field.lower()
    for keys, value in _SAMPLES:
        if any(k in lower for k in keys):
            return value
    said = [w for w in re.split(r"[_\W]+", lower) if w and w not in ("new", "input", "value", "text")]
    if said and said[-1] == "name" and len(said) > 1:
        return f"My {said[-2]}"  # team_name → My team
    return (" ".join(said) or "sample").capitalize() + " one"


def _filled_value(imp: Importer, e: dict[str, JSON], act: Act, name: str, where: str) -> dict[str, JSON]:
    """A set's value with its placeholders that name no parameter filled by what a person would type in the field
    (`"{input_text}"` → an email address in `signup_email`); the quotes some worlds write around it are dropped."""
    text = e["value"]
    quoted = re.fullmatch(r'"(\{\s*\w+\s*\})"', text.strip())
    text = quoted.group(1) if quoted else text

    def fill(m: re.Match[str]) -> str:  # "{ITEM_ANY}" and such stay symbolic values
        p = m.group(1)
        if fsmc_name(p) in {*act.consts, *act.ranges} or p.isupper():
            return m.group(0)
        return act.samples.setdefault(p, sample_text(name))

    filled = _PARAM.sub(fill, text)
    if filled == text:
        return e
    imp.decide(VALUE_UNFILLED, where)
    return {**e, "value": filled}


def _effect(imp: Importer, e: JSON, act: Act, before: list[dict[str, JSON]], where: str) -> dict[str, JSON] | None:
    if not isinstance(e, dict):
        return e  # reported by the gathering
    name = _path_field(imp, e.get("path"))
    if name is not None and name in imp.data_fields:
        imp.decide(DATA, where)
        if "value_expr" in e and isinstance(e["value_expr"], str):
            _columns(imp, name, e["value_expr"])
        return None
    if "value_expr" in e and "value" not in e and "value_ref" not in e:
        e = _expr_value(imp, e, act, where)
        if e is None:
            return None
    if e.get("op") == "set" and isinstance(e.get("value"), str) and name is not None:
        e = _filled_value(imp, e, act, name, where)
    f = imp.fields.get(name) if name is not None else None
    if e.get("op") == "clear" and f is not None:
        return _clear(imp, f, e, act, before, where)
    return e


def _columns(imp: Importer, name: str, text: str) -> None:
    """The keys of the objects an `append($.x, {...})` adds: the columns of field x's table."""
    for key in re.findall(r'"(\w+)"\s*:', text):
        column = fsmc_name(key)
        if column not in imp.data_fields[name].columns:
            imp.data_fields[name].columns.append(column)


def _fill_constants(imp: Importer, act: Act) -> None:
    """A constant parameter whose value is a placeholder naming no parameter (`{"value": "{input_text}"}`) takes what a
    person would type in the field the action sets it to, the value its GUI types for that placeholder too."""
    raw = {fsmc_name(k): v for k, v in (act.raw.get("parameters") or {}).items()} if isinstance(
        act.raw.get("parameters"), dict) else {}
    for name, value in raw.items():
        p = _PARAM.fullmatch(value.strip()) if isinstance(value, str) and name in act.consts else None
        other = fsmc_name(p.group(1)) if p is not None else name
        if p is None or p.group(1).isupper() or other in act.ranges or (other in act.consts and other != name):
            continue
        sets = [str(e["path"]) for _, e in act.effects if isinstance(e, dict) and _path_field(imp, e.get("path"))
                and str(e.get("value_ref", "")).strip("{} ") == name]
        typed = [str(g.get("selector", "")) for g in act.raw.get("gui_procedure") or [] if isinstance(g, dict)
                 and g.get("op") == "type_text" and fsmc_name(str(g.get("text", "")).strip("{} ")) == name]
        if sets or typed:  # the field it is recorded in names it best, else the element it is typed into
            imp.decide(VALUE_UNFILLED, f"{act.where}.parameters")
            act.consts[name] = act.samples.setdefault(p.group(1), sample_text((sets or typed)[0].lstrip("$.#")))


def normalise_effects(imp: Importer) -> None:
    """Rewrite every action's effects into the forms the importer takes (see the module's docstring)."""
    for act in imp.acts:
        _fill_constants(imp, act)
        out: list[tuple[str, JSON]] = []
        for where, e in act.effects:
            n = _effect(imp, e, act, [x for _, x in out if isinstance(x, dict)], where)
            if n is not None:
                out.append((where, n))
        act.effects = out
