"""The tasks an imported AutoWebWorld world offers: every reachable page as a goal, each in words a person would use.

Their fsm.json names no tasks; their generator's goals are the terminal pages. fsmc gives the imported spec
one task per page that a state reaches (the entry page aside): "on P: true". A terminal page's instruction
says what the form that leads there asks for, with the values the world types ("On the new pull request
page, set title to 'Add new feature' and base branch to 'main', then click Submit."); another page's says
where to go ("Go to the repository detail page."). Instructions are derived from the world's own ids and
values, deterministically, and no two tasks share one. The derived terminal goals of the enumeration give
way to these tasks (fsmc.enumerate.goals), so each page is asked for once.
"""

from __future__ import annotations

import re
from typing import Any

from fsmc import ir
from fsmc.formats.awm.importer import Importer, fsmc_name
from fsmc.ir.names import site_name

__all__ = ["add_tasks", "words"]

JSON = Any
_VERBS = {"SUBMIT", "SAVE", "CREATE", "CONFIRM", "SEND", "PLACE", "PAY", "APPLY", "POST", "FINISH", "BORROW", "BOOK",
          "ORDER", "CHECKOUT", "UPDATE", "DELETE", "ADD", "REGISTER", "SIGNUP", "LOGIN", "JOIN", "RESERVE", "PUBLISH",
          "UPLOAD", "TRANSFER", "COMPLETE", "DONE", "NEXT", "CONTINUE", "PURCHASE", "BUY", "FOLLOW", "SHARE"}


# The symbolic values the import writes for what the world leaves open ("{ITEM_ANY}", gen_id(), now()): never said.
_SYMBOL = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+|[A-Z]{3,}")


def words(raw: str) -> str:
    """An id as words: `NEW_PULL_REQUEST` → `new pull request`; two-letter and digit tokens stay (`PR`, `2FA`)."""
    tokens = [t for t in re.split(r"[_\W]+", raw) if t]
    return " ".join(t if t.isupper() and (len(t) <= 2 or any(c.isdigit() for c in t)) else t.lower() for t in tokens)


def _var_words(page: ir.Page) -> dict[str, str]:
    """Each page variable in words, without the prefix all the page's variables share (`new_pr_title` → `title`)."""
    names = [v.name for v in page.vars]
    prefix = ""
    if len(names) > 1:
        common = names[0]
        for n in names[1:]:
            while not n.startswith(common):
                common = common[:-1]
        prefix = common[:common.rfind("_") + 1]
    return {n: words(n[len(prefix):] or n) for n in names}


def _field(t: ir.Type, what: str) -> str:
    """What to do with a form field the submit needs: type its one value, tick a box, or choose."""
    inner = t.inner if isinstance(t, ir.OptionalType) else t
    if isinstance(inner, ir.ChoiceType) and len(inner.values) == 1:
        symbol = _SYMBOL.fullmatch(str(inner.values[0]))
        return f"fill in {what}" if symbol else f"set {what} to '{inner.values[0]}'"
    if isinstance(inner, ir.IntType) and inner.lo == inner.hi:
        return f"set {what} to {inner.lo}"
    if isinstance(inner, ir.BoolType):
        return f"tick {what}"
    return f"choose {what}"


def _read(imp: Importer, page: str, action: str) -> set[str]:
    """The fields the world's own preconditions of an action read (not the requires the import added)."""
    raw = next((a.raw for a in imp.acts if a.page == page and fsmc_name(a.raw.get("id")) == action), {})
    pres: list[JSON] = raw["preconditions"] if isinstance(raw.get("preconditions"), list) else []
    return {fsmc_name(c["path"][2:]) for c in pres if isinstance(c, dict) and str(c.get("path", "")).startswith("$.")}


def _form(imp: Importer, source: ir.Page, action: ir.Action) -> str:
    """What the action's preconditions ask of the source page's fields: `set title to 'x' and tick terms accepted`."""
    names = _read(imp, source.name, action.name)
    said = _var_words(source)
    parts = [_field(v.type, said[v.name]) for v in source.vars if v.name in names]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _closing(action: ir.Action) -> str:
    """The button the action clicks: the last verb of its id (`ACT_SUBMIT_TICKET` → `Submit`), else its last word."""
    tokens = [t for t in action.name.upper().split("_") if t and t != "ACT"]
    verb = next((t for t in reversed(tokens) if t in _VERBS), tokens[-1] if tokens else "continue")
    return verb.capitalize()


def _leading_in(spec: ir.Spec, page: str) -> tuple[ir.Page, ir.Action] | None:
    """The action that leads into `page` from another page and asks most of its form (the first such)."""
    best: tuple[ir.Page, ir.Action] | None = None
    for p in spec.pages:
        for a in p.actions:
            if a.goto == page and p.name != page and (best is None or len(a.requires) > len(best[1].requires)):
                best = (p, a)
    return best


def _terminal_instruction(imp: Importer, spec: ir.Spec, page: ir.Page, site: str) -> str:
    found = _leading_in(spec, page.name)
    if found is None:
        return f"Reach the {words(page.name)} page on {site}."
    source, action = found
    form = _form(imp, source, action)
    click = f"click {_closing(action)}"
    return f"On {site}'s {words(source.name)} page, {form + ', then ' if form else ''}{click}."


def _navigation_instruction(page: ir.Page, site: str) -> str:
    return f"Go to the {words(page.name)} page on {site}."


def _unique(instructions: list[str], pages: list[ir.Page]) -> list[str]:
    """Instructions told apart where two would read the same: the later ones name the page they lead to."""
    seen: set[str] = set()
    out = []
    for text, page in zip(instructions, pages, strict=True):
        if text in seen:
            text = f"{text[:-1]} (to reach the {words(page.name)} page)."
        seen.add(text)
        out.append(text)
    return out


def _opened_items(imp: Importer, spec: ir.Spec, reached: dict[str, set[Any]]) -> list[tuple[str, str, str]]:
    """(page, field, table) where a navigation records the row an "{ITEM_ANY}" parameter picks, in file order."""
    out: list[tuple[str, str, str]] = []
    for act in imp.acts:
        target = fsmc_name(act.raw.get("to", act.raw.get("to_page_id")))
        if not act.raw.get("is_navigation") or target not in reached:
            continue
        names = {v.name for v in spec.page(target).vars}
        for _, e in act.effects:
            p = str(e.get("value_ref", "")).strip("{} ") if isinstance(e, dict) else ""
            f = fsmc_name(str(e.get("path", ""))[2:]) if isinstance(e, dict) else ""
            if p in act.items and f in names and (target, f, act.items[p]) not in out:
                out.append((target, f, act.items[p]))
    return out


def _row_label(table: ir.Table, row: tuple[Any, ...]) -> str:
    columns = [c.name for c in table.columns]
    for name in ("name", "title", "label", *columns):
        if name in columns and isinstance(row[columns.index(name)], str):
            return str(row[columns.index(name)])
    return str(row[0])


def _item_tasks(imp: Importer, spec: ir.Spec, reached: dict[str, set[Any]],
                site: str) -> list[tuple[str, str, ir.Expr, str]]:
    """(name, page, goal, instruction): each row a world lets the user open (a reachable state holds it), a task."""
    out: list[tuple[str, str, ir.Expr, str]] = []
    for page, f, table_name in _opened_items(imp, spec, reached):
        table = spec.table(table_name)
        key = [c.name for c in table.columns].index(table.key)
        noun = words(imp.data_fields[table_name].noun())
        slot = 1 + len(spec.session) + [v.name for v in spec.page(page).vars].index(f)
        held = {s[slot] for s in reached[page]}
        for row in table.rows:
            name = fsmc_name(f"open_{page.lower()}_{f}_{row[key]}")
            goal = ir.Binary(op="==", left=ir.Name(id=f), right=ir.Lit(value=row[key]))
            if row[key] in held and name not in {n for n, *_ in out}:  # two lists may offer the same row
                out.append((name, page, goal, f"Open the {noun} '{_row_label(table, row)}' on {site}."))
    return out


def add_tasks(imp: Importer, spec: ir.Spec, reached: dict[str, set[Any]]) -> ir.Spec:
    """The spec with a task for each page a state reaches but the entry, in page order, then one for each row the
    world lets the user open (none if it has tasks)."""
    if spec.tasks:
        return spec
    site = site_name(spec.site.title or spec.site.name)  # tasks of many worlds in one data set stay apart
    pages = [p for p in spec.pages if p.name in reached and p.name != spec.site.entry]
    texts = [_terminal_instruction(imp, spec, p, site) if p.name in spec.site.terminals
             else _navigation_instruction(p, site) for p in pages]
    found: list[tuple[str, str, ir.Expr, str]] = [(f"open_{p.name.lower()}", p.name, ir.Lit(value=True), t) for p, t in zip(pages, texts, strict=True)]
    found += _item_tasks(imp, spec, reached, site)
    texts = _unique([t for *_, t in found], [spec.page(page) for _, page, _, _ in found])
    tasks = tuple(ir.Task(name=name, page=page, goal=goal, instruction=text.replace("{", "").replace("}", ""))
                  for (name, page, goal, _), text in zip(found, texts, strict=True))  # no template placeholders
    return spec.model_copy(update={"tasks": tasks})
