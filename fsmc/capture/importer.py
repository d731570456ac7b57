"""A draft spec from a capture (`fsmc import`): pages from URL templates, actions from the links and forms seen,
extractors of the state.

    from fsmc.capture.importer import import_capture
    draft = import_capture("captures/zoo", "specs/zoo.fsm")   # writes specs/zoo.fsm and captures/zoo/extract.toml

The captured locations are clustered into URL templates (`fsmc.capture.sitemap`): a numeric or id-like path
segment becomes a slot (`/zoo/animals/{id}`), one page of the spec per template. Its state: the slot, a variable
whose domain is the values captured, read off the URL (`url:path/2`), and each query parameter whose values differ
across the template's captured locations (a query page such as `/zoo/animals?_sort=name`), an optional variable
over the values seen (`none`: absent), read by `url:param/_sort`; never one of volatile value (a time in the query,
a nonce: `Rules.volatile`). Every captured location is one state. A page's title is what its locations' titles
share; the task to reach one of them names it by its own title (`#2 (Screen flickers) – Tracker`).

Actions come from the moves the capture shows (`fsmc.capture.moves`): a link shown on a location, to another
captured location, is a navigation action clicking `a[href="..."]` (an attribute of the link, never its position;
of several links with one href, as a row that links to its item by number and by title, the first one that the
nearest class around it tells apart: `td.ticket a[href="..."]`); the links to one template's instances make one
action with a parameter over the values seen. Links on nearly every page (a menu, a breadcrumb's root: shared
navigation) are an action of one page alone, the nearest to the entry that shows them, and noted. Bundled
documentation (`sitemap.documentation`, as the crawl tells it) is where the application's links lead, not a site of
its own: the links on its pages are no actions, as the crawl does not follow them. A GET form
that a flow submitted (`fsmc capture --flows`) is an action that types and selects the fields the flows changed
(parameters over the values submitted, literals where they never vary) and clicks its submit button (or presses
Enter in its one text input); one per set of fields its submissions change where one action cannot state where they
lead (a search box and a filter in one form). A POST form a flow submitted is an action per post, its values
literals; offline the archive answers posts in the order recorded (`fsmc.archive.routes.Recording`), so the draft's
state holds how far along them an episode is: a session variable `posts` (read by the extractor `changes`), which
each post's action requires to be at most the post's epoch and sets to just after it, and each post is a task. An
action is enabled (`require`) only in the states, and with the parameter values,
where the capture shows its move, and sets the state of the location reached: the page's own variables for a move
within a page, a carry slot of the page it leaves (read as its `default` there) for a move to another page. Replay
therefore asks the capture only for pages it holds. Locations no move from the start page reaches are left out (no
task asks for them); forms that cannot be imported (one never submitted in a flow, a field no agent can fill in) are listed in comments at the top of the draft. The spec is built as IR and printed by `fsmc.printer`, so it is
always well-formed; both files are written only once the draft passes the checks.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import tempfile
from collections import Counter, deque
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from fsmc import ir
from fsmc.archive.folder import CaptureError
from fsmc.atomic import write_atomic
from fsmc.backends.extractors import EXTRACT_FILE
from fsmc.capture.moves import Candidate, Move, declare_once, form_candidates, link_candidates, shared_navigation
from fsmc.capture.sitemap import Capture, Instance, Template, documentation, identifier, read_capture, templates

Value = str | None
POSTS = "posts"  # a draft's variable where the flows posted forms: the capture's recorded changes an episode reached


def _choice(values: tuple[str, ...]) -> ir.ChoiceType:
    return ir.ChoiceType(values=values)


def _type(t: Template, var: str) -> ir.Type:
    """A slot's choice of the values seen; a query parameter's the same, or none where it is absent."""
    return _choice(t.values(var)) if var == t.var else ir.OptionalType(inner=_choice(t.values(var)))


def _default(t: Template, var: str) -> Value:
    """The start page's own state on the entry page (a start with a query: a report, a ticket query); elsewhere the
    first slot value, and no query."""
    if t.start is not None:
        return t.start.state()[var]
    return t.values(var)[0] if var == t.var else None


def _declare(t: Template, var: str) -> ir.Var:
    return ir.Var(name=var, type=_type(t, var), default=ir.Lit(value=_default(t, var)))


def _key(v: Value) -> tuple[bool, bool, int, str]:
    """None first, then numbers in numeric order, then the other strings."""
    text = v or ""
    return v is not None, not text.isdigit(), int(text) if text.isdigit() else 0, text


def _sorted(values: set[Value]) -> list[Value]:
    return sorted(values, key=_key)


def _all(op: Literal["and", "or"], terms: list[ir.Expr]) -> ir.Expr:
    """The terms joined by `and` or `or` (one term alone as it is)."""
    return terms[0] if len(terms) == 1 else ir.Binary(op=op, left=_all(op, terms[:-1]), right=terms[-1])


def _is(name: str, value: Value | int, op: Literal["==", "!=", "<="] = "==") -> ir.Expr:
    return ir.Binary(op=op, left=ir.Name(id=name), right=ir.Lit(value=value))


State = tuple[tuple[str, Value], ...]


def _states_cond(chosen: list[State], others: list[State]) -> ir.Expr | None:
    """A condition that holds in the `chosen` states and in none of the `others` (None: no other state): one variable
    whose values tell them apart where there is one, else each chosen state by the fewest variables that set it apart."""
    if not others:
        return None
    names = [n for n, _ in chosen[0]]
    apart = []
    for i, name in enumerate(names):
        mine, theirs = {s[i][1] for s in chosen}, {s[i][1] for s in others}
        if not mine & theirs:
            apart.append(_all("or", [_is(name, v) for v in _sorted(mine)]) if len(mine) <= len(theirs)
                         else _all("and", [_is(name, v, "!=") for v in _sorted(theirs)]))
    if apart:
        return min(apart, key=lambda e: len(repr(e)))
    terms = [_set_apart(s, others) for s in chosen]
    return _all("or", [t for i, t in enumerate(terms) if t not in terms[:i]])


def _set_apart(state: State, others: list[State]) -> ir.Expr:
    """`state`'s values of the variables that set it apart from the `others`, picked greedily (the one that sets
    it apart from the most others first)."""
    rest, picked = others, []
    while rest:  # the states differ, so each round sets at least one more apart
        i = max(range(len(state)), key=lambda i: (sum(o[i][1] != state[i][1] for o in rest), -i))
        picked.append(i)
        rest = [o for o in rest if o[i][1] == state[i][1]]
    return _all("and", [_is(state[i][0], state[i][1]) for i in sorted(picked)])


def _args_cond(params: tuple[str, ...], chosen: set[tuple[str, ...]], domains: list[list[str]]) -> ir.Expr | None:
    """A condition on the parameters that holds for the `chosen` values alone (None: for every value)."""
    if chosen == set(itertools.product(*domains)):
        return None
    rows = sorted(chosen)
    if len(params) == 1:
        return _all("or", [_is(params[0], r[0]) for r in rows])
    return _all("or", [_all("and", [_is(p, v) for p, v in zip(params, r, strict=True)]) for r in rows])


def _requires(c: Candidate, moves: list[Move], domains: list[list[str]]) -> ir.Expr | None:
    """Where the capture shows the action's moves: the states of its page, and the parameter values in each."""
    shown: dict[State, set[tuple[str, ...]]] = {}
    for instance in c.source.instances.values():
        here = {m.args for m in moves if m.source is instance}
        key = tuple(instance.state().items())
        shown[key] = shown[key] & here if key in shown else here  # two locations, one state: what both show
    groups: dict[frozenset[tuple[str, ...]], list[State]] = {}
    for state, here in sorted(shown.items(), key=lambda kv: [_key(v) for _, v in kv[0]]):
        if here:
            groups.setdefault(frozenset(here), []).append(state)
    terms = []
    for args, states in groups.items():
        others = [s for s in shown if s not in states]
        parts = [p for p in (_states_cond(states, others), _args_cond(c.params, set(args), domains)) if p is not None]
        if not parts:
            return None
        terms.append(_all("and", parts))
    return _all("or", terms) if terms else None


def _effects(c: Candidate, moves: list[Move]) -> tuple[list[ir.Effect], list[str]] | None:
    """Each variable of the page reached set to its value there: a literal, a parameter, or (within the page) left
    as it is; and for a post, `posts` set to just after its recording. None where the capture shows values no such
    effect gives, or posts of more than one recording (each moves the archive on to its own: one action each)."""
    within = c.source is c.target
    effects, carry = [], []
    for var in c.target.vars():
        got = [m.target.state()[var] for m in moves]
        if within and all(g == m.source.state()[var] for g, m in zip(got, moves, strict=True)):
            continue
        if len(set(got)) == 1:
            if not within and got[0] == _default(c.target, var):
                continue
            value: ir.Expr = ir.Lit(value=got[0])
        else:
            i = next((i for i in range(len(c.params)) if all(g == m.args[i] for g, m in zip(got, moves, strict=True))),
                     None)
            if i is None:
                return None
            value = ir.Name(id=c.params[i])
        effects.append(ir.Effect(op="assign", var=var, value=value))
        carry += [] if within else [var]
    epochs = sorted({m.epoch for m in moves if m.epoch is not None})
    if len(epochs) > 1:
        return None
    effects += [ir.Effect(op="assign", var=POSTS, value=ir.Lit(value=e + 1)) for e in epochs]
    return effects, carry


def _moves(c: Candidate) -> list[Move]:
    """The candidate's moves that change the state (a link to another location of the same state does not; a post
    does, wherever it lands)."""
    return [m for m in c.moves
            if m.epoch is not None or not (c.source is c.target and m.target.state() == m.source.state())]


def _action(c: Candidate, name: str) -> ir.Action | None:
    """The action of a candidate; None where its effects cannot be stated."""
    moves = _moves(c)
    made = _effects(c, moves)
    if made is None:
        return None
    effects, carry = made
    domains = [sorted({m.args[i] for m in moves}, key=_key) for i in range(len(c.params))]
    params = tuple(ir.Param(name=p, type=_choice(tuple(d))) for p, d in zip(c.params, domains, strict=True))
    epoch = next((m.epoch for m in moves if m.epoch is not None), None)  # a post's: answered as recorded up to it
    terms = [t for t in (_requires(c, moves, domains), None if epoch is None else _is(POSTS, epoch, "<="))
             if t is not None]
    return ir.Action(name=name, params=params, label=c.label, requires=(_all("and", terms),) if terms else (),
                     effects=tuple(effects), goto=None if c.source is c.target else c.target.name, carry=tuple(carry),
                     gui=c.gui)


def _query(instance: Instance) -> list[tuple[str, str]]:
    """The instance's varying query parameters that are present: its own part of the state."""
    return [(k, instance.query[k]) for k in instance.template.params if k in instance.query]


def _tasks(t: Template, entry: bool, reached: Collection[Instance], ways: Ways, shared: set[str],
           taken: set[str]) -> list[ir.Task]:
    """Reach the page; for a slotted page, each of its slot values reached; for a query page, each query reached.
    A location only a form leads to is reached by filling the form in, and its instruction says so; a page whose
    title another page of the draft has too is named by its path as well (Trac's /wiki and /wiki/WikiStart)."""
    title = _quoted(t.title or t.name) + (f" at {_path(t)}" if t.title in shared else "")
    tasks = []
    mine = [i for i in t.instances.values() if i in reached]
    if t.var is None and not entry:
        forms = [ways[i] for i in mine if i in ways and ways[i][0].button]
        only = forms[0] if forms and len(forms) == len(mine) else None
        tasks.append(ir.Task(name=identifier(["reach", t.name], taken), page=t.name, goal=ir.Lit(value=True),
                             instruction=_fill(*only) if only else f"Open the page {title}."))
    var = t.var
    if var is not None:
        own = {i.slot: i for i in sorted(mine, key=lambda i: _query(i) != [], reverse=True)}  # without a query last
        tasks += [ir.Task(name=identifier(["reach", t.name, v], taken), page=t.name, goal=_is(var, v),
                          instruction=_open(own[v], f" of {v}", ways)) for v in t.values(var) if v in own]
    return tasks + [_query_task(i, ways, taken) for i in mine if _query(i) and i is not t.start]  # the start: none


def _open(instance: Instance, which: str, ways: Ways) -> str:
    """Open a page by its own title where no other state of its page has that title, else by the title and `which`
    state it is; fill in the form that alone leads there."""
    how = ways.get(instance)
    if how is not None and how[0].button:
        return _fill(*how)
    t, title = instance.template, instance.title
    states = {tuple(i.state().items()) for i in t.instances.values() if i.title == title}
    if title and len(states) == 1:
        return f"Open the page {_quoted(title)}."
    if how is not None and (text := _link_text(*how)):  # a query or an item its title does not tell apart: the link
        return f"On the page {_quoted(_title(how[1].source))}, follow the link {_quoted(text)}."
    return f"Open the page {_quoted(title or t.title or t.name)}{which}."


def _quoted(title: str) -> str:
    return json.dumps(title, ensure_ascii=False)


def _query_task(instance: Instance, ways: Ways, taken: set[str]) -> ir.Task:
    """Reach a query page: its slot and its query's values (the parameters that vary), named by its own title where
    that differs from its page's."""
    t, query, var = instance.template, _query(instance), instance.template.var
    at = [(var, instance.slot)] if var is not None and instance.slot is not None else []
    goal = _all("and", [_is(name, v) for name, v in at] + [_is(t.params[k], v) for k, v in query])
    words = [t.name, *(v for _, v in at), *(w for kv in query for w in kv)]
    return ir.Task(name=identifier(["reach", *words], taken), page=t.name, goal=goal,
                   instruction=_open(instance, " with " + ", ".join(f"{k} = {v}" for k, v in query), ways))


def _post_tasks(pages: tuple[ir.Page, ...], candidates: dict[str, list[Candidate]], taken: set[str],
                said: set[str]) -> list[ir.Task]:
    """Make each post: its page reached with `posts` just after the post's recording (another post shows another
    state of the archive), its instruction what to fill in and which button; none where a task already says that
    (the item a post created, which only it leads to)."""
    tasks = []
    for page in pages:
        for a, c in zip(page.actions, candidates[page.name], strict=True):
            for e in a.effects:
                if e.var == POSTS and isinstance(e.value, ir.Lit) and isinstance(e.value.value, int) \
                        and (said_so := _fill(c, c.moves[0])) not in said:
                    tasks.append(ir.Task(name=identifier([a.name], taken), page=a.goto or page.name,
                                         goal=_is(POSTS, e.value.value), instruction=said_so))
    return tasks


def _reachable(start: Instance, found: dict[str, list[Candidate]]) -> dict[Instance, tuple[Candidate, Move] | None]:
    """The captured locations the start's moves lead to, move after move (breadth first), each with the move that
    first led there."""
    via: dict[Instance, tuple[Candidate, Move] | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        for c in found[here.template.name]:
            for m in c.moves:
                if m.source is here and m.target not in via:
                    via[m.target] = (c, m)
                    todo.append(m.target)
    return via


PLACEHOLDER = re.compile(r"{(\w+)}")
TYPED = ("type", "select")  # the operations that fill a form's field in
Ways = dict[Instance, tuple[Candidate, Move]]  # how a task says to reach a location: a link's move there, or a form's


def _ways(via: dict[Instance, tuple[Candidate, Move] | None], found: dict[str, list[Candidate]]) -> Ways:
    """How each location reached but the start is reached: the first link there from a location reached, else the
    first form (only a form leads there)."""
    links: Ways = {}
    for c in (c for cs in found.values() for c in cs if not c.button):
        for m in c.moves:
            if m.source in via:
                links.setdefault(m.target, (c, m))
    return {i: links.get(i, how) if how[0].button else how for i, how in via.items() if how is not None}


def _fill(c: Candidate, m: Move) -> str:
    """The instruction to reach a location only a form leads to: on the form's page, each field it fills in set to
    its value there, then its button (or Enter)."""
    typed = [_placed(op.text or "", (c, m)) for op in c.gui if op.op in TYPED]
    sets = [f"{_quoted(name)} to {_quoted(text)}" for name, text in zip(c.fields, typed, strict=True)]
    submit = "press Enter" if c.gui and c.gui[-1].op == "press" else f"click {_quoted(c.button)}"
    filled = ", then ".join([f"set {', '.join(sets[:-1]) + ' and ' if len(sets) > 1 else ''}{sets[-1]}", submit]) \
        if sets else submit
    return f"On the page {_quoted(_title(m.source))}, {filled}."


def _placed(text: str, how: tuple[Candidate, Move]) -> str:
    """A text of the candidate's (a label, a value typed) with the move's values in place of its parameters."""
    values = dict(zip(how[0].params, how[1].args, strict=True))
    return PLACEHOLDER.sub(lambda p: values.get(p[1], p[0]), text)


def _link_text(c: Candidate, m: Move) -> str | None:
    """The text of the link a move followed, as its page shows it (`1`, `Title`); None for no link or no text."""
    href = _placed(c.href, (c, m))
    return next((link.text for link in m.source.page.links if link.href == href and link.text), None) if href else None


def _title(instance: Instance) -> str:
    return instance.title or instance.template.title or instance.template.name


def _from(found: list[Candidate], reached: Collection[Instance], keep: set[str]) -> list[Candidate]:
    """The candidates as the draft's states see them: only their moves from a location the start leads to (a move
    from one it does not, as a query page only a flow's page links to, would state where the action is enabled by
    states the draft never reaches), and only those that still change the state, to a page the draft keeps."""
    moved = [replace(c, moves=[m for m in c.moves if m.source in reached]) for c in found if c.target.name in keep]
    return [c for c in moved if _moves(c)]


@dataclass
class Draft:
    """A draft spec, the extractors that read its state off the capture, and what was left out."""

    spec: ir.Spec
    templates: list[Template]
    candidates: list[Candidate]
    left_out: list[str]  # captured locations no move from the start leads to
    notes: list[str]  # what the importer could not import (forms, pages), for the user to refine

    def extract_toml(self) -> str:
        lines = ["# How fsmc reads the state of the draft spec off this capture (written by `fsmc import`; refine it).",
                 "# [pages]: the page a location shows, the first regular expression that matches its path.",
                 "# [state.PAGE]: each variable of the page and its extractor: url:path/N, url:param/NAME, text:CSS,",
                 "# value:CSS, default (a carry slot, set by the action that leaves the page), or changes (the",
                 "# capture's recorded posts an episode has reached).", "", "[pages]"]
        ordered = sorted(self.templates, key=lambda t: (t.var is not None, t.name))
        lines += [f"{t.name} = {json.dumps(t.regex)}" for t in ordered]
        if self.spec.session:
            lines += ["", "[state]", f'{POSTS} = "changes"']
        by_name = {t.name: t for t in self.templates}
        for page in self.spec.pages:
            if page.vars:
                lines += ["", f"[state.{page.name}]"]
                t = by_name[page.name]
                read = {t.var: f"url:path/{t.slot}"} if t.var else {}
                read |= {var: f"url:param/{param}" for param, var in t.params.items()}
                lines += [f"{v.name} = " + json.dumps(read.get(v.name, "default")) for v in page.vars]
        return "\n".join(lines) + "\n"

    def comments(self) -> str:
        """The notes as the comments the draft starts with (empty when there are none)."""
        if not self.notes:
            return ""
        return "".join(["# Notes from fsmc import (refine the draft by hand):\n",
                        *(f"#   {note}\n" for note in self.notes), "\n"])


def _statable(t: Template, candidates: list[Candidate], notes: list[str]) -> list[Candidate]:
    """The candidates that change the state and whose effects one action can state (in place of a form's that cannot,
    its split; the others noted)."""
    kept = []
    for c in candidates:
        if not _moves(c):
            continue
        if _action(c, c.name) is not None:
            kept.append(c)
        elif c.split:  # a form: one action per set of fields its submissions change
            kept += _statable(t, c.split, notes)
        else:
            notes.append(f"page {t.name}: {c.name} ({c.gui[-1].op} {c.gui[-1].selector}) leads to states that one "
                         "action's effects cannot state (they depend on more than one of its fields): left out")
    return kept


def _page(t: Template, candidates: list[Candidate]) -> ir.Page:
    """The page of a template: its own variables, the carry slots its actions set, its actions."""
    taken: set[str] = set(t.vars())
    actions = [a for c in candidates if (a := _action(c, identifier([c.name], taken))) is not None]
    slots: dict[str, ir.Var] = {}
    for action, c in zip(actions, candidates, strict=True):
        slots |= {var: _declare(c.target, var) for var in action.carry if var not in slots}
    own = [_declare(t, var) for var in t.vars()]
    return ir.Page(name=t.name, title=t.title or None, vars=(*own, *slots.values()), actions=tuple(actions))


def _posts(pages: tuple[ir.Page, ...]) -> tuple[ir.Var, ...]:
    """`posts`, where the draft's actions post forms: from 0 (the capture's start) to the last recording they reach."""
    reached = [e.value.value for p in pages for a in p.actions for e in a.effects
               if e.var == POSTS and isinstance(e.value, ir.Lit) and isinstance(e.value.value, int)]
    if not reached:
        return ()
    return (ir.Var(name=POSTS, type=ir.IntType(lo=0, hi=max(reached)), default=ir.Lit(value=0)),)


def _path(t: Template) -> str:
    return "/" + "/".join(s or "" for s in t.pattern)


def draft(capture: Capture, backend: str) -> Draft:
    """The draft spec of a capture, declaring `backend capture "BACKEND"` (the capture, relative to the spec)."""
    notes: list[str] = []
    of = templates(capture, notes)
    if capture.start not in of:
        raise CaptureError(f"{capture.start}: the start page gives a query parameter twice: nothing to start the "
                           "draft from", unreadable=True)
    every = list(dict.fromkeys(of.values()))
    entry = of[capture.start]
    in_docs = documentation(capture.start.partition("?")[0])  # a capture of documentation: nothing set apart
    links = {t.name: [] if not in_docs and documentation(_path(t)) else link_candidates(t, of, capture) for t in every}
    declare_once(links, entry.name, shared_navigation(of, capture), notes)
    found = {t.name: _statable(t, links[t.name] + form_candidates(t, of, capture, notes), notes) for t in every}
    reached = _reachable(entry.instances[capture.start], found)
    ways = _ways(reached, found)
    keep = {i.template.name for i in reached}
    kept = [t for t in every if t.name in keep]
    candidates = {t.name: _from(found[t.name], reached, keep) for t in kept}
    taken: set[str] = set()
    titles = Counter(t.title for t in kept if t.var is None)
    shared = {title for title, n in titles.items() if n > 1}
    pages = tuple(_page(t, candidates[t.name]) for t in kept)
    reach = tuple(task for t in kept for task in _tasks(t, t is entry, reached, ways, shared, taken))
    tasks = (*reach, *_post_tasks(pages, candidates, taken, {t.instruction for t in reach}))
    site = ir.Site(name=identifier([capture.name], set()), title=entry.title or None, entry=entry.name)
    spec = ir.Spec(site=site, backends=(ir.Backend(kind="capture", source=backend),), session=_posts(pages),
                   pages=pages, tasks=tasks)
    return Draft(spec, kept, [c for t in kept for c in candidates[t.name]],
                 sorted(p for p, t in of.items() if t.instances[p] not in reached), _folded(notes))


ON_PAGE = re.compile(r"page (\S+) \([^)]*\): (.*)", re.DOTALL)


def _folded(notes: list[str]) -> list[str]:
    """The notes, one for what several pages share (a search form in every page's header: no submission captured),
    where it first stood, naming the first pages."""
    pages: dict[str, list[str]] = {}
    for note in notes:
        if (m := ON_PAGE.fullmatch(note)) is not None:
            pages.setdefault(m[2], []).append(m[1])
    folded, said = [], set()
    for note in notes:
        m = ON_PAGE.fullmatch(note)
        if m is None or len(pages[m[2]]) < 3:
            folded.append(note)
        elif m[2] not in said:
            said.add(m[2])
            names = list(dict.fromkeys(pages[m[2]]))
            shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
            folded.append(f"{len(names)} pages ({shown}): {m[2]}")
    return folded


def import_capture(capture_dir: str | Path, spec_path: str | Path, *, force: bool = False) -> Draft:
    """Write the draft spec of the capture at `capture_dir` to `spec_path`, and its extractors into the capture.

    Nothing is written unless the draft passes the checks; an existing spec or extract.toml is replaced only with
    `force` (it may hold the user's refinements)."""
    from fsmc.backends.extractors import read_extractors
    from fsmc.compilation import Compilation
    from fsmc.printer import to_fsm

    capture_dir, spec_path = Path(capture_dir), Path(spec_path)
    extract = capture_dir / EXTRACT_FILE
    for existing in (spec_path, extract):
        if existing.exists() and not force:
            raise CaptureError(f"{existing}: already exists (it may hold your refinements): choose another -o, or "
                               "pass --force to replace it", unreadable=True)
    capture = read_capture(capture_dir)
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    backend = os.path.relpath(capture_dir.resolve(), spec_path.parent.resolve()).replace(os.sep, "/")
    made = draft(capture, backend)
    text = made.comments() + to_fsm(made.spec)
    checked = Compilation(str(spec_path), text=text)
    errors = [d for d in checked.diagnostics if d.severity == "error" and d.code not in ("E603", "E604")]
    if errors:
        raise CaptureError(f"{spec_path}: the draft fails the checks (a bug of the importer; please report it): "
                           + "; ".join(f"{d.code} {d.message}" for d in errors[:5]))
    toml = made.extract_toml()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / EXTRACT_FILE).write_text(toml, encoding="utf-8")
        problems = read_extractors(Path(tmp) / EXTRACT_FILE, checked.ir)[1]
    if problems:
        raise CaptureError(f"{extract}: the draft's extractors do not fit it: " + "; ".join(problems))
    write_atomic(extract, toml)
    write_atomic(spec_path, text)
    return made


__all__ = ["Capture", "Draft", "draft", "import_capture", "read_capture"]
