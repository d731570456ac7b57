"""Imports a foreign fsm.json: once the importer (importer.py) has fixed every field's domain, builds the IR."""

from __future__ import annotations

import re
from typing import Any

from fsmc import ir
from fsmc.diagnostics import Diagnostic
from fsmc.formats.awm.access import ACCESS, mark_access_methods
from fsmc.formats.awm.conventions import add_conventions
from fsmc.formats.awm.data import take_rows
from fsmc.formats.awm.effects import normalise_effects, sample_text
from fsmc.formats.awm.importer import SAMPLE_ROWS, Act, DataField, Field, Importer, fsmc_name
from fsmc.formats.awm.reach import settle_reach
from fsmc.formats.awm.samples import Samples
from fsmc.formats.awm.tasks import add_tasks, words
from fsmc.ir.visit import params_in

__all__ = ["build_spec", "import_fsm_json"]

JSON = Any
_CMP = {"eq": "==", "neq": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_GUI_OPS = {"click": "click", "type_text": "type", "key_press": "press", "hover": "hover", "drag": "drag",
            "scroll_until_visible": "scroll_until_visible", "select": "select", "wait": "wait",
            "repeat_click_until_visible": "repeat_click"}
NONE = ir.Lit(value=None)
_CLEARING_KEYS = ("Control+A", "Meta+A", "Control+a", "Meta+a", "Delete", "Backspace")
_KEYS = {"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "win": "Meta", "esc": "Escape",
         "del": "Delete", "return": "Enter", "alt": "Alt", "option": "Alt", "shift": "Shift", "space": "Space"}
UNFILLED = ("a GUI placeholder that names no parameter or field is typed as its name, without braces (their "
            "gui_mapping.py leaves it unfilled)")
TYPED = ("a typing step whose text is a placeholder naming no parameter (\"{input_text}\") types what the action "
         "records, so that what is typed is what the state holds: the text it sets in the field named most like the "
         "typed-into element, else the number it sets; where it records only that something was typed (a flag such "
         "as login_email_entered) or nothing, what a person would type in that element, chosen by its name (their "
         "gui_mapping.py types the placeholder's name)")


# ---------------------------------------------------------------- preconditions


def _is_optional(imp: Importer, f: Field) -> bool:
    return isinstance(imp.types[f.name], ir.OptionalType)


def _length_gt(imp: Importer, f: Field, n: int) -> ir.Expr | None:
    x = ir.Name(id=f.name)
    t = imp.types[f.name]
    if isinstance(t, ir.SetType):
        return ir.Binary(op=">", left=ir.Call(func="len", args=(x,)), right=ir.Lit(value=n))
    inner = t.inner if isinstance(t, ir.OptionalType) else t
    values = inner.values if isinstance(inner, ir.ChoiceType) else ()
    longer = tuple(v for v in values if len(v) > n)
    if not longer:
        return ir.Lit(value=False)
    if len(longer) < len(values):
        return ir.Binary(op="in", left=x, right=ir.SetLit(items=tuple(ir.Lit(value=v) for v in longer)))
    return ir.Binary(op="!=", left=x, right=NONE) if isinstance(t, ir.OptionalType) else None


def _condition(imp: Importer, c: dict[str, JSON], act: Act, where: str) -> ir.Expr | None:
    """One of their preconditions as an expression; None when it always holds (exists on a non-null field)."""
    data = imp.data_name(c.get("path"))
    if data is not None:
        return _data_condition(imp, c, data, where)
    f = imp.field_of(c["path"], act, where)
    if f is None:
        return None
    cond, x = c["cond"], ir.Name(id=f.name)
    if cond in ("exists", "not_null"):
        return ir.Binary(op="!=", left=x, right=NONE) if _is_optional(imp, f) else None
    if cond == "length_gt":
        return _length_gt(imp, f, c["value"])
    rhs = imp.operand(c.get("value"), f, act, where)
    if rhs is None:
        return None
    if cond in ("in", "oneof"):
        return ir.Binary(op="in", left=x, right=rhs)
    test = ir.Binary(op=_CMP[cond], left=x, right=rhs)  # type: ignore[arg-type]
    if cond in ("eq", "neq") or not _is_optional(imp, f):
        return test
    return ir.Binary(op="and", left=ir.Binary(op="!=", left=x, right=NONE), right=test)  # null never compares


DATA_COND = (f"a condition on an array<object> field that some action fills (append_unique, or set to a value or "
             f"a parameter) is decided against the {SAMPLE_ROWS} fixed rows of its table (length_gt n holds when "
             f"n < {SAMPLE_ROWS}; exists and not_null hold), as the page always shows them")
EMPTY_DATA = ("a condition on an array<object> field that no action fills is decided as bfs_action.py decides it: the "
              "field keeps its default (null, or [] where not nullable), so length_gt never holds, nor exists or "
              "not_null on a nullable field; the action is never enabled (its table's rows are shown, not counted)")


def _filled(imp: Importer, data: str) -> bool:
    """Whether some action writes a non-empty value into data field `data` as bfs_action.py applies effects
    (append_unique, or set with a `value` or `value_ref`; a `value_expr` writes null there)."""
    for act in imp.acts:
        for e in act.raw.get("effects") or []:
            if not isinstance(e, dict) or imp.data_name(e.get("path")) != data:
                continue
            if e.get("op") == "append_unique" or (e.get("op") == "set" and (
                    "value_ref" in e or e.get("value") not in (None, [], ""))):
                return True
    return False


def _data_condition(imp: Importer, c: dict[str, JSON], data: str, where: str) -> ir.Expr | None:
    """A precondition on data the page shows: decided now, against the table's fixed rows, or against the
    field's default where no action fills it (as bfs_action.py)."""
    cond, value = c.get("cond"), c.get("value")
    known = cond in ("exists", "not_null") or (
        cond == "length_gt" and isinstance(value, int) and not isinstance(value, bool))
    if not known:
        imp.report(where, f"cond {cond!r} on array<object> field '{data}': only length_gt, exists and not_null can "
                          "be decided against its rows", hint="test a scalar field instead")
        return None
    if not _filled(imp, data):
        imp.decide(EMPTY_DATA, where)
        nullable = imp.data_fields[data].nullable
        return None if cond != "length_gt" and not nullable else ir.Lit(value=False)
    imp.decide(DATA_COND, where)
    if not isinstance(value, int) or cond in ("exists", "not_null"):
        return None
    return None if value < SAMPLE_ROWS else ir.Lit(value=False)


# ---------------------------------------------------------------- effects


def _test(imp: Importer, text: str, act: Act, where: str) -> ir.Expr | None:
    """`$.a && !($.b || $.c)` over boolean fields as an expression (null is false, as in JavaScript)."""
    tokens = re.findall(r"\$\.\w+|&&|\|\||!|\(|\)", text)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def binary(op: str, sub: Any) -> ir.Expr | None:
        left = sub()
        while left is not None and peek() == op:
            take()
            right = sub()
            left = None if right is None else ir.Binary(op="and" if op == "&&" else "or", left=left, right=right)
        return left

    def unary() -> ir.Expr | None:
        tok = take() if peek() is not None else ")"
        if tok == "!":
            inner = unary()
            return None if inner is None else ir.Unary(op="not", operand=inner)
        if tok == "(":
            inner = binary("||", lambda: binary("&&", unary))
            return inner if take() == ")" else None
        f = imp.field_of(tok, act, where) if tok.startswith("$.") else None
        if f is None or f.base != "boolean":
            return None
        return ir.Binary(op="==", left=ir.Name(id=f.name), right=ir.Lit(value=True))

    expr = binary("||", lambda: binary("&&", unary))
    return expr if expr is not None and pos == len(tokens) else None




def _effect(imp: Importer, e: dict[str, JSON], act: Act, where: str) -> ir.Effect | None:
    f = imp.field_of(e["path"], act, where, write=True)
    if f is None:
        return None
    op = e["op"]
    if op == "inc":
        by = e.get("by", 1)
        return None if by == 0 else ir.Effect(op="inc" if by > 0 else "dec", var=f.name, value=ir.Lit(value=abs(by)))
    if op == "clear":
        return ir.Effect(op="clear", var=f.name)
    if "value_test" in e:
        value = _test(imp, e["value_test"], act, where)
        if value is None:
            imp.report(f"{where}.value_expr", f"value_expr {e['value_test']!r} is not boolean fields of the page "
                                             "joined by && || ! and parentheses")
            return None
    else:
        value = imp.operand(e["value_ref"], f, act, where) if "value_ref" in e else imp.lit(e.get("value"))
    return ir.Effect(op="assign" if op == "set" else "add", var=f.name, value=value)


# ---------------------------------------------------------------- GUI


def testid(selector: JSON) -> str:
    """Our selectors are data-testid values: `[data-testid="x"]` and `#x` become `x`, other CSS stays as written."""
    text = str(selector or "")
    m = re.fullmatch(r'\[data-testid="((?:[^"\\]|\\.)*)"\]', text)
    if m:
        return re.sub(r"\\(.)", r"\1", m.group(1))
    return text[1:] if re.fullmatch(r"#[A-Za-z][\w-]*", text) else text


def _fill(imp: Importer, text: str, act: Act, where: str) -> str:
    """Put the constant parameters into a template, as their pipeline does; ranged parameters and fields stay `{p}`.

    A placeholder that names neither is left unfilled by their gui_mapping.py: it is typed as its name.
    """
    for raw, value in act.consts.items():
        text = text.replace("{" + raw + "}", "" if value is None else str(value))
    known = {*act.ranges, *imp.page_fields.get(act.page, ()), *imp.global_names}

    def unknown(m: re.Match[str]) -> str:
        if m.group(1) in known:
            return m.group(0)
        if m.group(1) in act.samples:
            return act.samples[m.group(1)]  # what the action's value_expr records: one value for both
        imp.decide(UNFILLED, where)
        return m.group(1)

    return re.sub(r"\{(\w+)\}", unknown, text)


def _words(name: str) -> set[str]:
    return {w for w in re.split(r"[_\W]+", name.lower()) if w}


def _recorded(act: Act, e: dict[str, JSON]) -> JSON:
    """The value a set records where it is fixed: its literal, or the constant parameter it names."""
    ref = str(e.get("value_ref", "")).strip("{} ")
    return act.consts.get(fsmc_name(ref)) if ref else e.get("value")


def _typed(imp: Importer, act: Act, text: JSON, selector: str) -> str | None:
    """What a typing step whose text is a lone placeholder naming nothing types: what the action records (TYPED)."""
    m = re.fullmatch(r"\{\s*(\w+)\s*\}", text) if isinstance(text, str) else None
    if m is None or m.group(1).isupper() or fsmc_name(m.group(1)) in {
            *act.consts, *act.ranges, *imp.page_fields.get(act.page, ()), *imp.global_names}:
        return None
    sets = [(e["path"][2:], _recorded(act, e)) for _, e in act.effects if isinstance(e, dict) and e.get("op") == "set"
            and isinstance(e.get("path"), str) and e["path"].startswith("$.")]
    texts = [(len(_words(f) & _words(selector)), -k, v) for k, (f, v) in enumerate(sets) if isinstance(v, str)]
    if texts:
        return str(max(texts)[2])
    numbers = [v for _, v in sets if isinstance(v, int) and not isinstance(v, bool)]
    return str(numbers[0]) if numbers else sample_text(selector)


def _key(key: JSON) -> JSON:
    """Their key names as the browser's (Playwright's): `Ctrl+A` → `Control+A`, `Esc` → `Escape`."""
    if not isinstance(key, str):
        return key
    return "+".join(_KEYS.get(k.strip().lower(), k.strip()) for k in key.split("+")) if key != "+" else key


def _gui_op(imp: Importer, g: JSON, act: Act, where: str, last: str) -> ir.GuiOp | None:
    op = _GUI_OPS.get(str(g.get("op"))) if isinstance(g, dict) else None
    if op is None:
        imp.report(where, f"GUI operation {g.get('op') if isinstance(g, dict) else g!r} is not supported",
                   hint="use click, type_text, key_press, hover, drag, scroll_until_visible, select or wait")
        return None
    if op == "wait":
        return ir.GuiOp(op="wait", limit=int(g.get("ms", g.get("duration", 0)) or 0))
    sel = _fill(imp, testid(g.get("selector")), act, where) or last
    if op == "type" and (typed := _typed(imp, act, g.get("text"), sel)) is not None:
        imp.decide(TYPED, where)
        return ir.GuiOp(op=op, selector=sel, text=typed)
    text = {"type": g.get("text"), "press": _key(g.get("key")), "select": g.get("value", g.get("text")),
            "drag": testid(g.get("to_value"))}.get(op)
    if op == "repeat_click":
        return ir.GuiOp(op=op, selector=sel, until=_fill(imp, testid(g.get("until")), act, where),
                        limit=int(g.get("max") or 1))
    return ir.GuiOp(op=op, selector=sel, text=None if text is None else _fill(imp, str(text), act, where))  # type: ignore[arg-type]


def _named_item(act: Act, ops: list[ir.GuiOp]) -> list[ir.GuiOp]:
    """The GUI of an action on one of a table's rows names the row (their GUI does not: one abstract item).

    A search types the row's key where the action records it; otherwise the last click or hover ends on the
    row's own element (`<selector>-{p}`), and a drag (their scroll) becomes a scroll to that element and a click.
    """
    p = next(iter(act.items), None)
    if p is None or not ops or any(p in params_in(op.selector) | params_in(op.text) for op in ops):
        return ops
    mark = "{" + p + "}"
    records = any(isinstance(e, dict) and str(e.get("value_ref", "")).strip("{} ") == p for _, e in act.effects)
    typed = [k for k, op in enumerate(ops) if op.op == "type"]
    if typed and records:
        ops[typed[-1]] = ops[typed[-1]].model_copy(update={"text": mark})
        return ops
    last = ops[-1]
    row = f"{last.selector}-{mark}"
    if last.op in ("click", "hover"):
        ops[-1] = last.model_copy(update={"selector": row})
    else:
        ops += [ir.GuiOp(op="scroll_until_visible", selector=row), ir.GuiOp(op="click", selector=row)]
        if last.op == "drag":
            ops.remove(last)
    return ops


def _gui(imp: Importer, act: Act) -> tuple[ir.GuiOp, ...]:
    ops: list[ir.GuiOp] = []
    for k, g in enumerate(imp._list(act.raw, "gui_procedure", act.where)):
        op = _gui_op(imp, g, act, f"{act.where}.gui_procedure[{k}]", (ops[-1].selector or "body") if ops else "body")
        if op is None:
            continue
        if op.op == "drag" and ops and ops[-1].op == "click" and ops[-1].selector == op.selector:
            ops.pop()  # their "click the slider, then drag it": a drag presses on it itself
        while op.op == "type" and ops and ops[-1].selector == op.selector and (
                ops[-1].op == "click" or (ops[-1].op == "press" and ops[-1].text in _CLEARING_KEYS)):
            ops.pop()  # their "click the field, select all, delete, type": fsmc's `type` focuses and replaces
        ops.append(op)
    return tuple(_named_item(act, ops))


# ---------------------------------------------------------------- actions and pages


def _param_type(imp: Importer, name: str, values: list[JSON], where: str) -> ir.Type | None:
    present = [v for v in values if v is not None]
    inner: ir.Type | None = None
    if all(isinstance(v, bool) for v in present) and len(set(present)) == 2:
        inner = ir.BoolType()
    elif all(isinstance(v, str) for v in present):
        inner = ir.ChoiceType(values=tuple(present))
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in present) and \
            sorted(present) == list(range(min(present), max(present) + 1)):
        inner = ir.IntType(lo=min(present), hi=max(present))
    if inner is None:
        imp.report(where, f"parameter '{name}' ranges over {values!r}: not all strings, both booleans or consecutive "
                          "integers")
        return None
    return ir.OptionalType(inner=inner) if None in values else inner


def _params(imp: Importer, act: Act) -> tuple[ir.Param, ...]:
    out = []
    for name, values in act.ranges.items():
        t = _param_type(imp, name, values, f"{act.where}.parameters")
        if t is not None:
            out.append(ir.Param(name=name, type=t))
    return tuple(out)


def _goto(imp: Importer, act: Act) -> tuple[str | None, tuple[str, ...]]:
    if not act.raw.get("is_navigation"):
        return None, ()
    target = act.raw.get("to", act.raw.get("to_page_id"))
    page = imp_page(target)
    if not isinstance(target, str) or page not in imp.page_fields:
        imp.report(f"{act.where}.to", f"navigation target {target!r} is not a page", "E005")
        return None, ()
    carried = tuple(n for n in imp.page_fields[page] if n in imp.page_fields[act.page])
    return page, carried


def imp_page(raw: JSON) -> str:
    return fsmc_name(raw) if isinstance(raw, str) else ""


def _item_fields(imp: Importer) -> set[str]:
    """The fields some action records an "{ITEM_ANY}" parameter in (a search's match, a scroll's anchor)."""
    return {fsmc_name(str(e.get("path", ""))[2:]) for act in imp.acts for _, e in act.effects
            if isinstance(e, dict) and str(e.get("value_ref", "")).strip("{} ") in act.items}


def _item_links(imp: Importer, act: Act) -> list[ir.Expr | None]:
    """`p == f` for an item parameter p of an action whose preconditions read a field f that records an item:
    in their BFS every "{ITEM_ANY}" is the same item, so the action opens the one the search matched."""
    if not act.items:
        return []
    read = [fsmc_name(c["path"][2:]) for c in imp._list(act.raw, "preconditions", act.where)
            if isinstance(c, dict) and str(c.get("path", "")).startswith("$.")]
    fields = _item_fields(imp)
    return [ir.Binary(op="==", left=ir.Name(id=p), right=ir.Name(id=f)) for p in act.items for f in read if f in fields]


def _action(imp: Importer, act: Act) -> ir.Action:
    src = act.raw.get("from")
    if src is not None and imp_page(src) != act.page:
        imp.report(f"{act.where}.from", f"the action is listed on page '{act.page}' but its 'from' is {src!r} "
                                         "(bfs.py never runs it, bfs_action.py does)")
    requires = [_condition(imp, c, act, f"{act.where}.preconditions[{k}]")
                for k, c in enumerate(imp._list(act.raw, "preconditions", act.where))]
    effects = [_effect(imp, e, act, where) for where, e in act.effects]
    requires += _item_links(imp, act)
    goto, carry = _goto(imp, act)
    return ir.Action(
        name=imp_page(act.raw["id"]), params=_params(imp, act),
        requires=tuple(r for r in requires if r is not None), effects=tuple(e for e in effects if e is not None),
        goto=goto, carry=carry, gui=_gui(imp, act), span=imp.span(act.where),
    )


def _views(imp: Importer, page: str) -> tuple[ir.View, ...]:
    """A view of each array<object> field the page declares: its table's rows, shown on the page."""
    return tuple(ir.View(name=d.name, source=d.name, alias="row")
                 for d in imp.data_fields.values() if page in d.pages)


def _column_type(values: list[JSON]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "bool"
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "num"
    return "str"


def _given_table(d: DataField, rows: list[tuple[JSON, ...]]) -> ir.Table:
    """The app's own rows; a column of mixed kinds is text."""
    types = [_column_type([r[k] for r in rows]) if k else "str" for k in range(len(d.columns))]
    fixed = tuple(tuple(str(v) if t == "str" and v is not None and not isinstance(v, str) else v
                        for v, t in zip(r, types, strict=True)) for r in rows)
    return ir.Table(name=d.name, key=d.columns[0], columns=tuple(ir.Column(name=c, type=t) for c, t in
                                                                 zip(d.columns, types, strict=True)), rows=fixed)


def _table(d: DataField, samples: Samples) -> ir.Table:
    """An array<object> field's rows: the app's (data.py), else invented ones of its kind (samples.py; their BFS
    starts the field at null)."""
    return _given_table(d, d.rows) if d.rows is not None else samples.table(d)


def _page(imp: Importer, raw: dict[str, JSON], acts: list[Act], where: str) -> ir.Page:
    name = imp_page(raw["id"])
    actions = tuple(_action(imp, a) for a in acts if a.page == name)
    seen: set[str] = set()
    for a in actions:
        if a.name in seen:
            imp.report(where, f"two actions of page '{name}' are named '{a.name}'", "E005")
        seen.add(a.name)
    title = raw.get("title")
    if not isinstance(title, str):  # a title in words, so that no instruction or heading shows the page's id
        said = words(name)
        title = said[:1].upper() + said[1:]
    span = imp.span(where)
    return ir.Page(name=name, title=title, actions=actions, span=span,
                   views=_views(imp, name), vars=tuple(imp.var(name, n).model_copy(update={"span": span}) for n in imp.page_fields[name]))


def _site(imp: Importer, meta: dict[str, JSON]) -> ir.Site:
    app = meta.get("app")
    entry = imp_page(meta.get("initial_page_id"))
    terminals = tuple(imp_page(t) for t in meta.get("terminal_pages") or ())
    for where, page in [("meta.initial_page_id", entry), *(("meta.terminal_pages", t) for t in terminals)]:
        if page not in imp.page_fields:
            imp.report(where, f"'{page}' is not the id of a page", "E005")
    return ir.Site(name=imp_page(app) if isinstance(app, str) and app else "site",
                   title=app if isinstance(app, str) else None, entry=entry, terminals=terminals)


def build_spec(imp: Importer, meta: dict[str, JSON], pages: list[dict[str, JSON]]) -> ir.Spec:
    """The spec: session from the global schema, one page per page, their actions in file order."""
    names = [imp_page(p["id"]) for p in pages]
    for i, n in enumerate(names):
        if n in names[:i]:
            imp.report(f"pages[{i}].id", f"page id '{n}' is used twice", "E005")
    return ir.Spec(
        site=_site(imp, meta),
        tables=tuple(_table(d, Samples(imp)) for d in imp.data_fields.values()),
        session=tuple(imp.var("", n) for n in imp.global_names),
        pages=tuple(_page(imp, p, imp.acts, f"pages[{i}]") for i, p in enumerate(pages)),
    )


def import_fsm_json(data: dict[str, JSON], file: str) -> tuple[ir.Spec, list[Diagnostic]]:
    """The IR of a foreign fsm.json and the W009 warnings on the decisions taken; SpecError lists every construct
    it cannot take, each with its JSON path and line."""
    data, marked = mark_access_methods(data)
    imp = Importer(data, file)
    for where in marked:
        imp.decide(ACCESS, where)
    meta, pages = imp.check_shape()
    imp.read_fields(meta, pages)
    take_rows(imp, file)
    imp.read_actions(pages)
    normalise_effects(imp)
    imp.gather()
    imp.infer_types()
    imp.stop_if_problems()
    spec = build_spec(imp, meta, pages)
    imp.stop_if_problems()
    spec = add_conventions(imp, spec, pages)
    spec = settle_reach(imp, spec)
    if imp.reached is not None:
        spec = add_tasks(imp, spec, imp.reached)
    return spec, imp.warnings()
