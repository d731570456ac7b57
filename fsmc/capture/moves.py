"""The moves a capture shows, grouped into candidate actions: links followed, and forms submitted in its flows.

A `Candidate` is one action of the draft: its GUI procedure (selectors by attributes, never positions), its
parameters, and every move it makes, each from a captured location with parameter values to a captured location.
A link is a candidate where it is shown and unique, leading to a captured location; a family of links to one
template's instances (`a[href="/zoo/animals/{id}"]`) is one candidate with a parameter. A GET form is a candidate
when a flow submitted it (`fsmc capture --flows`): the fields the flows changed are filled in (`type`, `select`),
as parameters over the values submitted where they vary, as literals where they do not, and its submit button is
clicked (Enter is pressed in its one text input where it has none); a move is kept only where a flow went from that
location to where the archive answers the query the form then sends, so replay never asks the capture for a page it
lacks. A POST form is a candidate the same way, its move from where a flow posted it (its Referer) to where that post
landed (after the site's redirect: the record it created, or the page it was posted from), with the post's epoch
(`Posted.epoch`); its hidden fields and buttons are the page's own (a CSRF token), never filled in, and since each
post moves the archive on to its own recording, a form posted more than once is one action per post, its values
literals. What cannot be imported is noted, naming the page and the form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from fsmc import ir
from fsmc.capture.dom import Field, Form, Link, PageHtml
from fsmc.capture.sitemap import Capture, Instance, Template, canonical, identifier, location

PARAM = "id"


@dataclass(eq=False)
class Move:
    """From a captured location, with the candidate's parameter values, to a captured location."""

    source: Instance
    args: tuple[str, ...]  # the candidate's parameter values
    target: Instance
    epoch: int | None = None  # a post's (`Posted.epoch`): the changes recorded before it; None for a GET


@dataclass(eq=False)
class Candidate:
    """An action of the draft, before the importer states its effects and where it is enabled."""

    source: Template
    target: Template
    name: str  # before it is made unique on its page
    label: str | None
    params: tuple[str, ...]
    gui: tuple[ir.GuiOp, ...]
    moves: list[Move] = field(default_factory=list)
    split: list[Candidate] = field(default_factory=list)  # in its place where one action cannot state its effects
    fields: tuple[str, ...] = ()  # a form's: what a person reads each field it fills in as, in its procedure's order
    button: str = ""  # a form's: the text of the button that submits it
    href: str = ""  # a link's: the href it clicks (`/ticket/{id}` over a family of items)


def quoted(text: str) -> str:
    """A CSS string: `"..."` with backslashes and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _plain(text: str) -> bool:
    """Usable in a GUI template as it is: `{` and `}` would be read as a placeholder."""
    return "{" not in text and "}" not in text


# --- links ---------------------------------------------------------------------------------------------------------

def _scope(page: PageHtml, link: Link) -> str | None:
    """What selects this link alone among the page's links with its href (hidden ones count: the selector would match
    them too): nothing where it is the only one, else the nearest class or tag around it that no other has
    (`td.ticket`, of a row that links to its item twice; `th`, of Django's model name beside its Change link); None
    where it is hidden or nothing tells it apart."""
    same = [other for other in page.links if other.href == link.href]
    if link.hidden:
        return None
    if len(same) == 1:
        return ""
    return next((f"{scope} " for scope in link.scopes if [o for o in same if scope in o.scopes] == [link]), None)


def _family(href: str, value: str) -> str | None:
    """The href with the slot's value as `{id}`, where the value is one segment of it, once."""
    pattern = re.compile(r"(?<=/)" + re.escape(value) + r"(?=$|[/?#])")
    return pattern.sub("{" + PARAM + "}", href) if len(pattern.findall(href)) == 1 else None


def _family_label(target: Template, text: str, value: str | None) -> str:
    """A family's label: its page's title where every item shares it, else the first link's text naming its item by
    the parameter (`#1` → `#{id}`), else the page's name."""
    if target.title and "…" not in target.title:
        return f"{target.title} {{{PARAM}}}"
    word = re.compile(r"(?<!\w)" + re.escape(value or "") + r"(?!\w)")
    if value and _plain(text) and len(word.findall(text)) == 1:
        return word.sub("{" + PARAM + "}", text)
    return " ".join([*target.name.split("_"), f"{{{PARAM}}}"])


def _lands(capture: Capture, instance: Instance, href: str) -> str:
    """Where a link of the instance's page leads within the origin, redirects followed ("" for anywhere else)."""
    origin = capture.origin.rstrip("/")
    absolute = urljoin(origin + instance.loc, href)
    loc = location(absolute) if absolute.startswith(origin + "/") else ""
    return capture.served.get(canonical(loc), loc) if loc else ""


def link_candidates(source: Template, of: dict[str, Template], capture: Capture) -> list[Candidate]:
    """The links of `source`'s instances to other captured locations, one candidate per selector (or selector family
    over a template's instances); of several links with one href (a row that links to its item by number and by
    title), the first one a selector tells apart."""
    found: dict[tuple[str, bool], Candidate] = {}
    for instance in source.instances.values():
        followed = set()
        for link in instance.page.links:
            loc = _lands(capture, instance, link.href)
            target = of.get(loc)
            scope = _scope(instance.page, link)
            if target is None or loc == instance.loc or link.href in followed or scope is None or not _plain(link.href):
                continue
            followed.add(link.href)
            reached = target.instances[loc]
            href, args = link.href, tuple[str, ...]()
            if reached.slot is not None and (family := _family(link.href, reached.slot)) is not None:
                href, args = family, (reached.slot,)
            selector = f"{scope}a[href={quoted(href)}]"
            if (selector, bool(args)) not in found:
                query = [w for k in target.params if k in reached.query for w in (k, reached.query[k])]
                label = _family_label(target, link.text, reached.slot) if args else link.text or None
                found[selector, bool(args)] = Candidate(source, target, "_".join(["open", target.name, *query]), label,
                                                        (PARAM,) if args else (), (ir.GuiOp(op="click", selector=selector),),
                                                        href=href)
            found[selector, bool(args)].moves.append(Move(instance, args, reached))
    return _best_per_target(list(found.values()))


NEARLY = 0.8  # the share of the other pages that show a link to a location for it to be shared navigation


def shared_navigation(of: dict[str, Template], capture: Capture) -> set[str]:
    """The locations that a shown link on nearly every other page leads to (a header's menu, a breadcrumb's root):
    at least `NEARLY` of the pages besides the one it leads to, in a draft of three pages or more."""
    pages = list(dict.fromkeys(of.values()))
    showing: dict[str, set[str]] = defaultdict(set)  # location → the pages (templates) that show a link to it
    for t in pages:
        for instance in t.instances.values():
            for link in instance.page.links:
                if not link.hidden and (loc := _lands(capture, instance, link.href)) in of:
                    showing[loc].add(t.name)
    return {loc for loc, names in showing.items()
            if len(pages) >= 3 and len(names - {of[loc].name}) >= NEARLY * (len(pages) - 1)}


def declare_once(links: dict[str, list[Candidate]], entry: str, shared: set[str], notes: list[str]) -> None:
    """Keep each link to shared navigation on one page only (in `links`, each page's link candidates, in place): the
    page nearest to `entry` (by links, then by name) that has it; the rest of the site shows it too, but a draft that
    repeats it on every page multiplies its actions without adding a place to go. Noted, naming each page kept."""
    distance, todo = {entry: 0}, [entry]
    for here in todo:  # breadth first: `todo` grows as it is read
        for c in links[here]:
            if c.target.name not in distance:
                distance[c.target.name] = distance[here] + 1
                todo.append(c.target.name)
    kept = []
    for loc in sorted(shared):
        holders = [page for page, cs in links.items() if any(_leads_to(c, loc) for c in cs)]
        if not holders:
            continue
        holder = min(holders, key=lambda page: (distance.get(page, len(links)), page))
        for page in holders:
            links[page] = [c for c in links[page] if page == holder or not _leads_to(c, loc)]
        kept.append(f"{loc} on {holder}")
    if kept:
        notes.append("links on nearly every page (shared navigation), each an action of one page alone: " +
                     ", ".join(kept))


def _leads_to(c: Candidate, loc: str) -> bool:
    return not c.params and {m.target.loc for m in c.moves} == {loc}


def _best_per_target(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per target template and query state reached: the one with the most moves (an href family over
    single links to its instances)."""
    best: dict[tuple[str, tuple[tuple[str, str | None], ...]], Candidate] = {}
    for c in sorted(candidates, key=lambda c: (-len(c.moves), c.gui[0].selector or "")):
        queries = {tuple((v, s) for v, s in m.target.state().items() if v != c.target.var) for m in c.moves}
        if len(queries) == 1:
            best.setdefault((c.target.name, queries.pop()), c)
    return sorted(best.values(), key=lambda c: (c.target.name, c.gui[0].selector or ""))


# --- forms ---------------------------------------------------------------------------------------------------------

def _count(page: PageHtml, tag: str, attrs: dict[str, str], form: int | None = None) -> list[Field]:
    return [f for f in page.fields if f.tag == tag and all(f.attrs.get(k) == v for k, v in attrs.items())
            and (form is None or f.form == form)]


def _css(tag: str, attrs: dict[str, str]) -> str:
    return tag + "".join(f"[{k}={quoted(v)}]" for k, v in attrs.items())


def field_selector(page: PageHtml, form: int, control: Field) -> str | None:
    """A selector that matches this one control and nothing else on the page: by its attributes (name, or a submit
    button's type and value), within its form (by the form's action) where the page has others like it."""
    if control.name and not control.submits:
        attrs = {"name": control.name}
    elif control.tag == "input" and "value" in control.attrs:
        attrs = {"type": control.attrs.get("type", ""), "value": control.attrs["value"]}
    elif control.name:
        attrs = {"name": control.name}
    else:
        attrs = {"type": control.attrs["type"]} if "type" in control.attrs else {}
    if not all(_plain(v) for v in attrs.values()):
        return None
    if _count(page, control.tag, attrs) == [control]:
        return _css(control.tag, attrs)
    action = page.forms[form].attrs.get("action")
    same_action = [f for f in page.forms if f.attrs.get("action") == action]
    if action is None or len(same_action) != 1 or _count(page, control.tag, attrs, form) != [control] or not _plain(action):
        return None
    return f"form[action={quoted(action)}] " + _css(control.tag, attrs)


@dataclass
class Submission:
    """A form submitted from a location in a flow: the fields it changed, and where it landed."""

    source: Instance
    index: int  # the form's, among the source page's forms
    sent: dict[str, str]  # the query or the fields it sent
    changed: list[str]  # the fields whose values differ from the ones the page shows
    target: Instance


def _submissions(instance: Instance, index: int, capture: Capture, of: dict[str, Template]) -> list[Submission]:
    """The flows' submissions of this form: the requests to its action, shaped as it sends them, that land where a
    flow went from this location."""
    form = instance.page.forms[index]
    action = _form_key(instance, form, capture)
    defaults = dict(form.data())
    sent = {f.name for f in form.fields if f.name}
    own = _own(form)
    found = []
    for path, pairs, landing in _requests(form, capture):
        if path != action or (instance.loc, landing) not in capture.navigations or landing not in of:
            continue
        if set(defaults) <= set(pairs) <= sent:
            changed = [k for k, v in pairs.items() if defaults.get(k) != v and k not in own]
            found.append(Submission(instance, index, pairs, changed, of[landing].instances[landing]))
    return found


def _requests(form: Form, capture: Capture) -> list[tuple[str, dict[str, str], str]]:
    """What a form of this method could have sent (the path, the fields) and where it landed: the GETs the archive
    answers, or the forms the flows posted."""
    if form.method == "GET":
        return [(r.partition("?")[0], dict(parse_qsl(r.partition("?")[2], keep_blank_values=True)), landing)
                for r, landing in capture.served.items()]
    return [(p.path, dict(p.fields), p.landing) for p in capture.posted]


def _own(form: Form) -> set[str]:
    """The fields of a posted form whose values are the page's own, never an agent's: its hidden inputs (a CSRF
    token, the record's id) and its buttons (the one clicked sends its name)."""
    if form.method == "GET":
        return set()
    return {f.name for f in form.fields if f.name and (f.kind == "hidden" or f.submits or f.tag == "button")}


def _landing(capture: Capture, key: str, form: Form, filled: dict[str, str], source: str) -> tuple[str, int | None] | None:
    """Where the form lands filled in with these values: the page the archive answers its query with (GET), or where
    the first post of the same values from `source` landed, and its epoch (POST: the fields compared but the page's
    own; a post the page's script sent, as Trac's preview of a ticket while it is typed, led nowhere and is no
    submission)."""
    if form.method == "GET":
        query = urlencode(form.data(filled))
        landing = capture.served.get(canonical(f"{key}?{query}" if query else key))
        return (landing, None) if landing is not None else None
    own = _own(form)
    want = {k: v for k, v in form.data(filled) if k not in own}
    return next(((p.landing, p.epoch) for p in capture.posted if p.path == key and (source, p.landing) in capture.navigations
                 and {k: v for k, v in p.fields if k not in own} == want), None)


def _form_key(instance: Instance, form: Form, capture: Capture) -> str:
    """The path a form is sent to: what tells a page's forms apart, and one page's form from another's."""
    return urlsplit(urljoin(capture.origin.rstrip("/") + instance.loc, form.action or instance.loc)).path


def _form_of(instance: Instance, key: str, capture: Capture, method: str) -> int | None:
    """The index of the page's first form sent to `key` with `method`, if it has one."""
    return next((i for i, f in enumerate(instance.page.forms)
                 if f.method == method and _form_key(instance, f, capture) == key), None)


def form_candidates(source: Template, of: dict[str, Template], capture: Capture, notes: list[str]) -> list[Candidate]:
    """The GET and POST forms of `source` that the flows submitted, one candidate per form action and method."""
    seen: dict[tuple[str, str], tuple[Instance, int]] = {}  # form action, method → where it is first seen
    submitted: dict[tuple[str, str], list[Submission]] = defaultdict(list)
    for instance in source.instances.values():
        for index, form in enumerate(instance.page.forms):
            at = (_form_key(instance, form, capture), form.method)
            if form.method not in ("GET", "POST"):
                _note(notes, f"page {source.name} ({instance.loc}): {form.describe()}: only GET and POST forms are "
                      "imported (a browser sends no other): left out")
                continue
            seen.setdefault(at, (instance, index))
            submitted[at] += _submissions(instance, index, capture, of)
    candidates = []
    for at, (instance, index) in sorted(seen.items()):
        where = f"page {source.name} ({instance.loc}): {instance.page.forms[index].describe()}"
        if not submitted[at]:
            _note(notes, f"{where}: no submission of it was captured (submit it in a flow, "
                  "`fsmc capture --flows`): left out")
            continue
        candidates += _form_candidates(source, at[0], submitted[at], capture, of, where, notes)
    return candidates


def _note(notes: list[str], text: str) -> None:
    if text not in notes:
        notes.append(text)


def _form_candidates(source: Template, key: str, submissions: list[Submission], capture: Capture,
                     of: dict[str, Template], where: str, notes: list[str]) -> list[Candidate]:
    """The actions filling in the fields the submissions changed and clicking submit, with every move the archive
    answers, from every instance of `source` that shows the form: one action, split into one per set of fields a
    submission changes where one action cannot state its effects (a search and a filter in one form), each filling
    in every such field so that no two of them do the same."""
    first, index = submissions[0].source, submissions[0].index
    form = first.page.forms[index]
    nameless = [f for f in form.fields if not f.name and not f.submits and f.tag != "button"]
    if nameless:
        _note(notes, f"{where}: {len(nameless)} field(s) without a name (a browser does not submit them): ignored")
    files = [f.name or "without a name" for f in form.fields if f.kind == "file"]
    if files:
        _note(notes, f"{where}: its file input(s) {', '.join(files)}: fsmc cannot upload a file (no GUI operation "
              "chooses one), so the action leaves them empty")
    controls = {f.name: f for f in form.fields if f.name}
    changed = sorted({n for s in submissions for n in s.changed}, key=list(controls).index)
    blocked = [n for n in changed if not controls[n].typed or not _plain(n)]
    if blocked or any(not _plain(v) for s in submissions for v in s.sent.values()):
        _note(notes, f"{where}: its submissions change {', '.join(blocked)}, which no agent can fill in (hidden, a "
              "checkbox or a radio button): left out" if blocked else f"{where}: a value submitted holds {{ or }}: "
              "left out")
        return []
    whole = _form_candidate(source, key, (first, index), Fill.of(changed, submissions), capture, of, where, notes)
    groups: dict[tuple[str, ...], list[Submission]] = defaultdict(list)
    for submission in submissions:  # a GET by the fields it changes; a POST by its values (each its own record)
        values = tuple(submission.sent.get(n, "") for n in changed)
        groups[values if form.method == "POST" else tuple(n for n in changed if n in submission.changed)] \
            .append(submission)
    if whole is not None and len(groups) > 1:
        for words, group in sorted(groups.items()):
            part = _form_candidate(source, key, (first, index), Fill.of(changed, group), capture, of, where, notes)
            if part is not None:
                part.name += "_" + "_".join(words)
                whole.split.append(part)
    return [whole] if whole is not None else []


def _form_candidate(source: Template, key: str, at: tuple[Instance, int], fill: Fill, capture: Capture,
                    of: dict[str, Template], where: str, notes: list[str]) -> Candidate | None:
    """The action of one fill of the form (its procedure as on the page `at`, where a flow submitted it)."""
    form = at[0].page.forms[at[1]]
    gui = fill.gui(at[0].page, at[1])
    moves = _form_moves(source, key, form.method, fill, gui, capture, of) if gui is not None else []
    if not moves:
        _note(notes, f"{where}: no button submits it, or a field has no selector that holds: left out"
              if gui is None else f"{where}: none of its submissions is in the archive: left out")
        return None
    target = max({m.target.template for m in moves}, key=lambda t: (sum(m.target.template is t for m in moves), t.name))
    submit = _button(form, fill.sent)
    submit = submit if submit is not None and not submit.hidden else None
    label = (submit.attrs.get("value") or " ".join(submit.text.split()) or "Submit") if submit else "Submit"
    name = "submit_" + identifier([form.attrs.get("id") or form.attrs.get("name") or
                                   (form.attrs.get("class") or "").split(" ")[0] or key], set())
    params = tuple(fill.params.values())
    controls = {f.name: f for f in form.fields if f.name}
    words = [v for n, v in zip(fill.changed, fill.tuples[0], strict=True) if controls[n].kind != "password"] \
        if form.method == "POST" and len(fill.tuples) == 1 else []  # what one post sent, but a password
    return Candidate(source, target, name, " ".join([label, *(f"{{{p}}}" for p in params), *words]), params,
                     gui or (), [m for m in moves if m.target.template is target],
                     fields=tuple(controls[n].shown_name for n in fill.changed), button=label)


@dataclass
class Fill:
    """How a form action fills its form in: the fields changed, the values submitted, the parameters among them."""

    changed: list[str]
    tuples: list[tuple[str, ...]]  # each submission's values of the changed fields
    params: dict[int, str]  # the changed fields whose values vary → their parameters
    sent: frozenset[tuple[str, str]] = frozenset()  # what every submission sent (the button clicked sends its name)

    def gui(self, page: PageHtml, index: int) -> tuple[ir.GuiOp, ...] | None:
        """Fill in the changed fields (a parameter's placeholder where it varies) and submit: click the first submit
        button, or press Enter in the form's one text input where it has none; None where a field or the button has
        no selector that holds on this page."""
        form = page.forms[index]
        controls = {f.name: f for f in form.fields if f.name}
        ops = []
        for i, name in enumerate(self.changed):
            selector = field_selector(page, index, controls[name])
            if selector is None:
                return None
            text = f"{{{self.params[i]}}}" if i in self.params else self.tuples[0][i]
            ops.append(ir.GuiOp(op="select" if controls[name].tag == "select" else "type", selector=selector, text=text))
        submit = _submit(page, index, self.sent)
        return (*ops, submit) if submit is not None else None

    def args(self, values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(values[i] for i in self.params)

    @classmethod
    def of(cls, changed: list[str], submissions: list[Submission]) -> Fill:
        """The fill of these submissions' values: a parameter for each field whose values vary, named after it."""
        tuples = sorted({tuple(s.sent.get(n, "") for n in changed) for s in submissions})
        taken: set[str] = set()
        varying = [i for i, n in enumerate(changed) if len({t[i] for t in tuples}) > 1]
        sent = frozenset.intersection(*(frozenset(s.sent.items()) for s in submissions))
        return cls(changed, tuples, {i: identifier([changed[i]], taken) for i in varying}, sent)


def _button(form: Form, sent: frozenset[tuple[str, str]]) -> Field | None:
    """The submit button the submissions sent, else the form's first."""
    buttons = [f for f in form.fields if f.submits]
    return next((f for f in buttons if f.name and (f.name, f.attrs.get("value", "")) in sent), None) \
        or next(iter(buttons), None)


def _submit(page: PageHtml, index: int, sent: frozenset[tuple[str, str]]) -> ir.GuiOp | None:
    """How the form is submitted: the submit button the submissions sent (a named button sends its name and value:
    Trac's ticket form has Preview before Create ticket), else its first one clicked, or Enter in its one single-line
    text input."""
    form = page.forms[index]
    button = _button(form, sent)
    if button is not None:
        selector = field_selector(page, index, button) if not button.hidden else None
        return ir.GuiOp(op="click", selector=selector) if selector else None
    lines = [f for f in form.fields if f.blocks_enter]
    selector = field_selector(page, index, lines[0]) if len(lines) == 1 and not lines[0].hidden else None
    return ir.GuiOp(op="press", selector=selector, text="Enter") if selector else None


def _form_moves(source: Template, key: str, method: str, fill: Fill, gui: tuple[ir.GuiOp, ...], capture: Capture,
                of: dict[str, Template]) -> list[Move]:
    """Every instance of `source` whose form the same procedure fills in, with every tuple submitted: a move where
    the flows went from that instance to where the form then lands (`_landing`)."""
    moves = []
    for instance in source.instances.values():
        index = _form_of(instance, key, capture, method)
        if index is None or fill.gui(instance.page, index) != gui:
            continue
        form = instance.page.forms[index]
        for values in fill.tuples:
            landed = _landing(capture, key, form, dict(zip(fill.changed, values, strict=True)), instance.loc)
            if landed is not None and landed[0] in of and (instance.loc, landed[0]) in capture.navigations:
                moves.append(Move(instance, fill.args(values), of[landed[0]].instances[landed[0]], landed[1]))
    return moves


__all__ = ["NEARLY", "PARAM", "Candidate", "Move", "declare_once", "field_selector", "form_candidates", "link_candidates",
           "quoted", "shared_navigation"]
