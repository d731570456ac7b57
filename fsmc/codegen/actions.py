"""What an action is, as far as choosing its widget goes: the facts layout.py builds pages from.

An action that assigns its parameter to a variable is an option picker, a pair of increment and decrement
actions a stepper, a toggle a checkbox, an add/remove pair on a set a checklist, an opener followed by a day a
date picker, an opener followed by one confirming click a modal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fsmc import ir
from fsmc.ir.visit import conjuncts, params_in, placeholders_in
from fsmc.types import domains as T

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Words that begin a label but do not name what is being chosen ("Only NordAir", "Add Maya").
_VERBS = {"only", "add", "remove", "drop", "filter", "select", "open", "choose", "pick", "set", "show", "go", "view",
          "toggle", "use", "unseat", "seat", "browse", "save", "book", "search", "sign"}


def requirements(action: ir.Action) -> list[ir.Expr]:
    """The action's preconditions as one flat list of conjuncts (the runtime compiles each one alone too)."""
    return conjuncts(*action.requires)




def is_membership(e: ir.Expr, op: str, param: str, var: str) -> bool:
    return (isinstance(e, ir.Binary) and e.op == op and isinstance(e.left, ir.Name) and e.left.id == param
            and isinstance(e.right, ir.Name) and e.right.id == var)


def label_prefix(action: ir.Action) -> str:
    """The words of the label before its first placeholder, if they name a thing ("Brand: {b}" -> "Brand")."""
    if not action.label or "{" not in action.label:
        return ""
    prefix = action.label.split("{", 1)[0].strip().rstrip(":").strip()
    if not prefix or prefix.split()[0].lower() in _VERBS or len(prefix) > 24:
        return ""
    return prefix


@dataclass
class Facts:
    """What one action does, as far as choosing a widget for it goes."""

    role: str = ""
    var: str | None = None
    value_param: int = -1


def main_effects(page: ir.Page, action: ir.Action) -> list[ir.Effect]:
    """The effects that are the point of the action: pagination resets (`page_no := 1`) are not."""
    pagers = {v.page_var for v in page.views if v.page_var}
    return [e for e in action.effects
            if not (e.var in pagers and (e.op == "clear" or (e.op == "assign" and isinstance(e.value, ir.Lit))))]


def action_facts(page: ir.Page, action: ir.Action) -> Facts:
    effects = main_effects(page, action)
    names = [p.name for p in action.params]
    pagers = {v.page_var for v in page.views if v.page_var}
    if action.goto is not None or len(effects) != 1 or effects[0].var in pagers:
        return Facts()
    e = effects[0]
    one_param = len(names) == 1
    if e.op == "toggle" and not names:
        return Facts("toggle", e.var)
    if e.op == "assign" and not names and isinstance(e.value, ir.Lit) and e.value.value is True and _checkbox(action):
        return Facts("toggle", e.var)  # a checkbox that only ticks (`filter-private-checkbox` sets a flag)
    if e.op in ("inc", "dec"):
        if e.key is None and not names:
            return Facts(e.op, e.var)
        if isinstance(e.key, ir.Name) and e.key.id in names and one_param:
            return Facts(e.op, e.var, 0)
    if e.op == "assign" and e.key is None and isinstance(e.value, ir.Name) and e.value.id in names and one_param:
        return Facts("choice", e.var, 0)
    if e.op in ("add", "remove") and e.key is None and isinstance(e.value, ir.Name) and e.value.id in names and one_param:
        return Facts(e.op, e.var, 0)
    if e.op == "clear" and not names:
        return Facts("clear", e.var)
    return Facts()


def pair_checklists(page: ir.Page, facts: list[Facts]) -> None:
    """An add and a remove action on one set form a checklist only if each is enabled exactly when the other is
    not (`p not in S` / `p in S`): the checklist shows one of the two elements per value. Otherwise a remove is a
    plain button, and an add a button that shows whether its value is in the set."""
    def guarded(j: int, op: str) -> bool:
        a, f = page.actions[j], facts[j]
        return f.var is not None and any(is_membership(c, op, a.params[0].name, f.var) for c in requirements(a))

    adds = {f.var: j for j, f in enumerate(facts) if f.role == "add" and guarded(j, "not in")}
    removes = {f.var: j for j, f in enumerate(facts) if f.role == "remove" and guarded(j, "in")}
    for j, f in enumerate(facts):
        paired = f.var in adds and f.var in removes and page.actions[adds[f.var]].params[0].type == \
            page.actions[removes[f.var]].params[0].type
        if f.role == "remove" and not paired:
            facts[j] = Facts()
        elif f.role == "add" and paired:
            f.role = "check-add"
        elif f.role == "remove":
            f.role = "check-remove"


def row_label(action: ir.Action, param: str) -> str:
    """A row's button says what it does, not again which row: "Open {m.subject}" -> "Open"."""
    label = action.label or ""
    at = label.find("{" + param)
    prefix = label[:at].strip().rstrip(":").strip() if at > 0 else ""
    return prefix if 0 < len(prefix) <= 20 else ""


def last_live(action: ir.Action) -> int:
    """Index of the operation that completes the action (waits and scrolls complete nothing), or -1."""
    live = [k for k, op in enumerate(action.gui) if op.op not in ("wait", "scroll_until_visible")]
    return live[-1] if live else -1


def first_param(template: str | None, names: list[str]) -> int:
    for name in placeholders_in(template):
        if name in names:
            return names.index(name)
    return -1


def is_combobox(action: ir.Action, k: int) -> bool:
    """`type X "..."` followed by a click on a parameterised option: the options drop down from the field."""
    ops = action.gui
    if ops[k].op != "type" or k + 1 >= len(ops) or ops[k + 1].op != "click":
        return False
    return bool(params_in(ops[k + 1].selector) & {p.name for p in action.params})


def is_calendar(action: ir.Action, spec: ir.Spec) -> bool:
    """An opener, maybe a `repeat click` to page months, then a click on a day: a date picker."""
    ops = [op for op in action.gui if op.op not in ("wait", "scroll_until_visible")]
    if len(ops) < 2 or ops[0].op != "click" or ops[-1].op != "click" or len(action.params) != 1:
        return False
    if any(op.op != "repeat_click" for op in ops[1:-1]) or params_in(ops[0].selector):
        return False
    param = action.params[0]
    if action.params[0].name not in params_in(ops[-1].selector):
        return False
    base = T.strip_optional(param.type)
    values = T.domain_values(base, spec) if isinstance(base, (ir.ChoiceType, ir.IntType)) else ()
    dates = bool(values) and all(isinstance(v, str) and _ISO_DATE.match(v) for v in values)
    days = bool(values) and all(isinstance(v, int) and 1 <= v <= 31 for v in values)
    return dates or days


_CHECKBOX = re.compile(r"(?i)checkbox|check-box|toggle|switch")
_MENU = re.compile(r"(?i)dropdown|drop-down|menu|select|sort|picker|toggle|more|options")


def _checkbox(action: ir.Action) -> bool:
    return any(_CHECKBOX.search(op.selector or "") for op in action.gui if op.op == "click")


def is_menu(action: ir.Action) -> bool:
    """An opener named as a drop-down (`repos-sort-dropdown`) followed by one click: a menu of options."""
    ops = [op for op in action.gui if op.op not in ("wait", "scroll_until_visible")]
    return len(ops) == 2 and all(op.op == "click" for op in ops) and bool(_MENU.search(ops[0].selector or ""))


def is_modal(action: ir.Action) -> bool:
    """An opener followed only by the click that confirms: a confirmation dialog (a drop-down is a menu)."""
    ops = [op for op in action.gui if op.op not in ("wait", "scroll_until_visible")]
    return (len(ops) == 2 and all(op.op == "click" for op in ops) and not action.params
            and not params_in(ops[1].selector) and not is_menu(action))


def sets_page_var(page: ir.Page, action: ir.Action) -> bool:
    """The action changes a variable of the page and stays: a filter or option, not a link."""
    if action.goto is not None:
        return False
    names = {v.name for v in page.vars}
    return any(e.op == "assign" and e.var in names and e.key is None for e in action.effects)


def common_affix(names: list[str]) -> list[str]:
    """Field names without what all of them share ("login-email", "login-password" -> "email", "password")."""
    if len(names) < 2:
        return [re.sub(r"[-_](input|field|box)$", "", n) for n in names]
    parts = [re.split(r"[-_]", n) for n in names]
    head = 0
    while all(len(p) > head + 1 for p in parts) and len({p[head] for p in parts}) == 1:
        head += 1
    return ["-".join(p[head:]) for p in parts]


def map_assign(action: ir.Action) -> tuple[str, int] | None:
    """(map, key parameter index) of a `m[p] := ...` effect keyed by a parameter: the map a drag fills."""
    names = [p.name for p in action.params]
    for e in action.effects:
        if e.op == "assign" and isinstance(e.key, ir.Name) and e.key.id in names:
            return e.var, names.index(e.key.id)
    return None


def assigned_from_param(action: ir.Action, var: str) -> bool:
    """`var := p` or `var := p.col` for a parameter p: the row was picked by the move that arrived."""
    params = {p.name for p in action.params}
    for e in action.effects:
        if e.var == var and e.op == "assign":
            v = e.value
            if isinstance(v, ir.GetField):
                v = v.obj
            if isinstance(v, ir.Name) and v.id in params:
                return True
    return False


def unset_checks(e: ir.Expr) -> set[str]:
    """Variables an expression requires to be set (`x != none`), anywhere inside it."""
    if isinstance(e, ir.Binary):
        if e.op == "!=" and isinstance(e.left, ir.Name) and isinstance(e.right, ir.Lit) and e.right.value is None:
            return {e.left.id}
        return unset_checks(e.left) | unset_checks(e.right)
    return set()


def typed_var(action: ir.Action, op: ir.GuiOp) -> tuple[str, str] | None:
    """The variable a `type` operation's text becomes, and the text the field shows when the variable says so once
    the move is done, so that what was typed stays visible: `x := "text"` (or the number `x := 1` for text "1") and
    `x := p` for text "{p}" show x itself (""); a flag the move sets (`email_entered := true`) shows the text typed."""
    for e in action.effects:
        if e.op != "assign" or e.key is not None:
            continue
        if isinstance(e.value, ir.Lit) and not isinstance(e.value.value, bool) and e.value.value is not None and \
                str(e.value.value) == op.text:
            return e.var, ""
        if isinstance(e.value, ir.Name) and op.text == "{" + e.value.id + "}":
            return e.var, ""
    flags = [e.var for e in action.effects if e.op == "assign" and e.key is None and e.value == ir.Lit(value=True)]
    typing = [o for o in action.gui if o.op == "type"]
    if len(flags) == 1 and typing == [op] and op.text and not params_in(op.text):
        return flags[0], op.text
    return None


def expr_names(e: ir.Expr | None) -> set[str]:
    """Every name an expression mentions."""
    return ir.expr_names(e, set())


__all__ = ["Facts", "action_facts", "assigned_from_param", "common_affix", "expr_names", "first_param", "is_calendar",
           "is_combobox", "is_menu", "is_modal", "label_prefix", "last_live", "map_assign", "pair_checklists", "params_in",
           "requirements", "row_label", "sets_page_var", "typed_var", "unset_checks"]
