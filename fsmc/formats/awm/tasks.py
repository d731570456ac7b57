"""The tasks an imported AutoWebWorld world offers: every reachable page as a goal, each in words a person would use.

Their fsm.json names no tasks; their generator's goals are the terminal pages. fsmc gives the imported spec
one task per page that a state reaches (the entry page aside): "on P: true". A terminal page's instruction
says what the form that leads there asks for, with the values the world types ("On GitHub's new pull request
page, set the base branch to 'main' and the title to 'Add new feature', then click Submit."); another page's
says where to go ("Go to the repository detail page on GitHub."); a row's names it by its title, or by its
place where it has only an invented one ("Open the second book on Library."). Instructions are derived from
the world's own ids and values with the generated site's words (fsmc.codegen.words), deterministically, and
no two tasks share one. The derived terminal goals of the enumeration give
way to these tasks (fsmc.enumerate.goals), so each page is asked for once.
"""

from __future__ import annotations

import re
from typing import Any

from fsmc import ir
from fsmc.codegen.words import (
    ABBREVIATIONS,
    SPELLED,
    VERBS,
    action_phrase,
    content_words,
    looks_like_identifier,
    split,
    value_words,
)
from fsmc.formats.awm.importer import Importer, fsmc_name
from fsmc.ir.names import site_name

__all__ = ["add_tasks", "words"]

JSON = Any

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


# The last word of a boolean field that records what the user did there, and the verb for doing it.
_DONE = {"entered": "fill in", "filled": "fill in", "typed": "fill in", "provided": "fill in", "written": "fill in",
         "selected": "choose", "chosen": "choose", "picked": "choose", "set": "adjust", "checked": "tick", "ticked": "tick",
         "enabled": "turn on", "accepted": "accept", "agreed": "accept", "confirmed": "confirm", "passed": "pass",
         "solved": "solve", "verified": "verify"}
# Words of a boolean field that the page computes from the others ("review ready", "form valid"): the click says it.
_COMPUTED = {"ready", "valid", "validated", "complete", "completed", "can", "ok", "done", "success", "allowed"}
# A value that a world writes for "something typed" ("typed", "has_subject", "reason-entered"): never quoted.
_PLACEHOLDER = re.compile(r"(?i)(typed|placeholder|input|text|value|sample|filled|entered|dummy|test)|(has|is)[_-].*"
                          r"|.*[_-](entered|typed|input|filled|text|value|set)|.*input_text.*")
_PREPOSITIONS = {"to", "from", "cc", "bcc", "by", "for", "at", "in", "on", "with"}
_KINDS = {"input", "field", "box", "checkbox", "check", "select", "selector", "dropdown", "option", "value", "entered"}
# Verbs that end an action's id besides those a generated site knows (fsmc.codegen.words): the button's word.
_CLICKS = VERBS | {"place", "post", "publish", "activate", "schedule", "upvote", "authorize", "complete", "finish",
                   "register", "borrow", "enroll", "assign", "move", "authorise", "launch"}
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_GENERIC = re.compile(r"(?i)[a-z_]+[-_ ]?\d+")  # an invented row's key or title: `record-3`, `ord_1002`, `Name 2`


def _object(ws: list[str]) -> str:
    """A field's words as the thing an instruction names: `the subject`, `the To field` (never "set to to"),
    the kind of control left out (`title input` → the title), abbreviations spelled out (`cvv` → CVV)."""
    said = list(ws)
    while len(said) > 1 and said[-1] in _KINDS:
        said.pop()
    if said[-1] in _PREPOSITIONS:
        return f"the {said[-1].capitalize()} field"
    return "the " + " ".join(ABBREVIATIONS.get(w) or w for w in said).replace(" id", " ID")


def _label(ws: list[str]) -> str:
    """A checkbox's words as its label: `'Launch immediately'` (`launch immediately checkbox`)."""
    said = ws[:-1] if len(ws) > 1 and ws[-1] in _KINDS else ws
    return "'" + " ".join(said).capitalize() + "'"


def _verb_of(participle: str) -> str | None:
    """The verb a participle comes from, if it is one a site offers (`liked` → like, `starred` → star)."""
    return next((participle[:-k] for k in (1, 2, 3) if participle.endswith("ed") and participle[:-k] in VERBS), None)


def _field(t: ir.Type, ws: list[str], typed: bool) -> tuple[str, str] | None:
    """(verb, what) for a form field the submit needs: type its one value, tick a box, choose; None where the
    field is the item chosen before (`selected pr id`) or a flag the page computes (`review ready`)."""
    inner = t.inner if isinstance(t, ir.OptionalType) else t
    if isinstance(inner, ir.BoolType):
        if len(ws) == 2 and ws[0] == "is" and (verb := _verb_of(ws[1])):
            return verb, "it"  # `is_liked`: like it
        if any(w in _COMPUTED for w in ws) or ws[0] in ("is", "has"):
            return None
        if len(ws) > 1 and ws[-1] in _DONE:
            verb = _DONE[ws[-1]]
            return (verb, _label(ws[:-1])) if verb == "tick" else (verb, _object(ws[:-1]))
        return "tick", _label(ws)
    if ws[-1] in ("id", "ids") and not (isinstance(inner, ir.ChoiceType) and len(inner.values) == 1
                                          and not _SYMBOL.fullmatch(str(inner.values[0]))):
        return None  # the row picked on the way: the item, not a field of the form
    what = _object([w for w in ws if w not in _DONE] or ws)
    if isinstance(inner, ir.ChoiceType) and len(inner.values) == 1:
        value = str(inner.values[0])
        if _SYMBOL.fullmatch(value) or _PLACEHOLDER.fullmatch(value):
            return "fill in", what
        chosen = not typed and looks_like_identifier(value) and re.search("[A-Za-z]", value)
        shown = value_words(value) if chosen else value  # an option reads as the site shows it
        return "set", f"{what} to '{shown}'"
    if isinstance(inner, ir.IntType) and inner.lo == inner.hi:
        return "set", f"{what} to {inner.lo}"
    return "choose", what


def _read(imp: Importer, page: str, action: str) -> set[str]:
    """The fields the world's own preconditions of an action read (not the requires the import added)."""
    raw = next((a.raw for a in imp.acts if a.page == page and fsmc_name(a.raw.get("id")) == action), {})
    pres: list[JSON] = raw["preconditions"] if isinstance(raw.get("preconditions"), list) else []
    return {fsmc_name(c["path"][2:]) for c in pres if isinstance(c, dict) and str(c.get("path", "")).startswith("$.")}


def _typed(page: ir.Page) -> set[str]:
    """The page's variables that a typing step sets (its value is typed as it is, not chosen by its words)."""
    out: set[str] = set()
    for a in page.actions:
        if any(g.op == "type" for g in a.gui):
            out.update(e.var for e in a.effects)
    return out


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _form(imp: Importer, source: ir.Page, action: ir.Action) -> str:
    """What the action's preconditions ask of the source page's fields, one verb for a run of fields it applies to:
    `set the title to 'x' and the base to 'main', tick 'Terms'`."""
    names, typed = _read(imp, source.name, action.name), _typed(source)
    said = _var_words(source)
    parts = [f for v in source.vars if v.name in names
             if (f := _field(v.type, split(said[v.name]) or [said[v.name]], v.name in typed)) is not None]
    clauses: list[tuple[str, list[str]]] = []
    for verb, what in parts:
        if clauses and clauses[-1][0] == verb:
            clauses[-1][1].append(what)
        else:
            clauses.append((verb, [what]))
    return ", ".join(f"{verb} {_listed(whats)}" for verb, whats in clauses)


def _closing(action: ir.Action, page: ir.Page) -> str:
    """The button the action clicks: the last verb of its id (`ACT_CHECKOUT_CART_SUBMIT` → Submit), else its words
    as the generated site says them (`ACT_JOIN_QUEUE` → 'Join queue')."""
    verb = next((w for w in reversed(split(action.name)) if w in _CLICKS), None)
    if verb is None:
        return f"'{action_phrase(action.name, page=page.name)}'"
    return SPELLED.get(verb, verb.capitalize())


def _leading_in(spec: ir.Spec, page: str) -> tuple[ir.Page, ir.Action] | None:
    """The action that leads into `page` from another page and asks most of its form (the first such)."""
    best: tuple[ir.Page, ir.Action] | None = None
    for p in spec.pages:
        for a in p.actions:
            if a.goto == page and p.name != page and (best is None or len(a.requires) > len(best[1].requires)):
                best = (p, a)
    return best


def _page_words(page: ir.Page) -> str:
    """A page's name in words, abbreviations spelled out as the generated site does (`CREATE_PR` → create pull request)."""
    said = content_words(page.name, keep_control=True)
    return " ".join(said[:-1] if len(said) > 1 and said[-1] == "page" else said) or words(page.name)  # not "cart page page"


def _terminal_instruction(imp: Importer, spec: ir.Spec, page: ir.Page, site: str) -> str:
    found = _leading_in(spec, page.name)
    if found is None:
        return f"Reach the {_page_words(page)} page on {site}."
    source, action = found
    form = _form(imp, source, action)
    click = f"click {_closing(action, source)}"
    return f"On {_owned(site)} {_page_words(source)} page, {form + ', then ' if form else ''}{click}."


def _owned(site: str) -> str:
    return f"{site}'" if site.endswith("s") else f"{site}'s"  # Microsoft Teams' meeting page


def _navigation_instruction(page: ir.Page, site: str) -> str:
    return f"Go to the {_page_words(page)} page on {site}."


def _unique(instructions: list[str], pages: list[ir.Page]) -> list[str]:
    """Instructions told apart where two would read the same: the later ones name the page they lead to."""
    seen: set[str] = set()
    out = []
    for text, page in zip(instructions, pages, strict=True):
        if text in seen:
            text = f"{text[:-1]} (to reach the {_page_words(page)} page)."
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


def _item(table: ir.Table, row: tuple[Any, ...], noun: str) -> str:
    """A row as a person names it: by its title (`the repository 'git'`), or where it has only an invented key
    or title (`record-3`, `Name 2`), by its place in the list (`the third record`)."""
    label, k = _row_label(table, row), table.rows.index(row)
    if _GENERIC.fullmatch(label) and k < len(_ORDINALS):
        return f"the {_ORDINALS[k]} {noun}"
    return f"the {noun} '{label}'"


def _item_tasks(imp: Importer, spec: ir.Spec, reached: dict[str, set[Any]],
                site: str) -> list[tuple[str, str, ir.Expr, str]]:
    """(name, page, goal, instruction): each row a world lets the user open (a reachable state holds it), a task."""
    out: list[tuple[str, str, ir.Expr, str]] = []
    for page, f, table_name in _opened_items(imp, spec, reached):
        table = spec.table(table_name)
        key = [c.name for c in table.columns].index(table.key)
        noun = " ".join(ABBREVIATIONS.get(w) or w for w in split(imp.data_fields[table_name].noun()))
        noun = "pull request" if noun == "pull" else noun  # github's `pulls`
        slot = 1 + len(spec.session) + [v.name for v in spec.page(page).vars].index(f)
        held = {s[slot] for s in reached[page]}
        for row in table.rows:
            name = fsmc_name(f"open_{page.lower()}_{f}_{row[key]}")
            goal = ir.Binary(op="==", left=ir.Name(id=f), right=ir.Lit(value=row[key]))
            if row[key] in held and name not in {n for n, *_ in out}:  # two lists may offer the same row
                out.append((name, page, goal, f"Open {_item(table, row, noun)} on {site}."))
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
