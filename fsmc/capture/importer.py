"""A draft spec from a capture (`fsmc import`): pages from URL templates, actions from the links seen, extractors.

    from fsmc.capture.importer import import_capture
    draft = import_capture("captures/zoo", "specs/zoo.fsm")   # writes specs/zoo.fsm and captures/zoo/extract.toml

The captured pages (those without a query string; sorts, searches and flows are left for the user to add) are
clustered into URL templates: a numeric or id-like path segment becomes a slot (`/zoo/animals/{id}`), one page of
the spec per template, its slot a variable whose domain is the values captured and whose extractor reads it off
the URL (`url:path/2`). A link seen on every captured instance of a page, exactly once and not hidden in a closed
menu, to a captured page of another template becomes a navigation action clicking `a[href="..."]` (an attribute
of the link, never its position); the links to one template's instances make one action with a parameter over the
values seen, stored in a carry slot of the page it leaves (read as its `default` there: the page shows it only
once it has left). Pages the entry cannot reach are left out. The spec is built as IR and printed by
`fsmc.printer`, so it is always well-formed; both files are written only once the draft passes the checks.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from fsmc import ir
from fsmc.atomic import write_atomic
from fsmc.backends.extractors import EXTRACT_FILE
from fsmc.capture.folder import CaptureError, CaptureFolder
from fsmc.frontend.keywords import RESERVED

_ID = re.compile(r"^(\d+|[0-9a-fA-F]{8,}|[0-9a-fA-F-]{36})$")
_WORDS = frozenset().union(*RESERVED.values())
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"))


@dataclass
class Link:
    href: str  # as written in the page
    text: str = ""
    hidden: bool = False  # in a closed <details> (outside its <summary>), a `hidden` or `display:none` element
    path: str = ""  # the captured page it leads to, within the origin ("" for any other)


class _Html(HTMLParser):
    """A page's title and its links, each marked hidden or not."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[Link] = []
        self.title = ""
        self._stack: list[tuple[str, bool]] = []  # open elements: tag, hides its content
        self._open: Link | None = None
        self._in_title = False

    def _hidden(self) -> bool:
        shown_details = False  # the <details> right around a <summary> shows that summary
        for tag, hides in reversed(self._stack):
            if tag == "summary":
                shown_details = True
            elif hides and not (tag == "details" and shown_details):
                return True
            elif tag == "details":
                shown_details = False
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        style = (a.get("style") or "").replace(" ", "")
        hides = "hidden" in a or "display:none" in style or tag == "template" or (tag == "details" and "open" not in a)
        if tag not in _VOID:
            self._stack.append((tag, hides))
        self._in_title = self._in_title or tag == "title"
        if tag == "a" and a.get("href"):
            self._open = Link(a["href"] or "", hidden=self._hidden())

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"
        if tag == "a" and self._open is not None:
            self._open.text = " ".join(self._open.text.split())
            self.links.append(self._open)
            self._open = None
        names = [t for t, _ in self._stack]
        if tag in names:
            del self._stack[len(names) - 1 - names[::-1].index(tag):]

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._open is not None:
            self._open.text += data


@dataclass(eq=False)
class Template:
    """Captured pages that differ only in their id-like path segments."""

    pattern: tuple[str | None, ...]  # a literal segment, or None for a slot
    name: str = ""
    title: str = ""
    instances: dict[str, tuple[str, ...]] = field(default_factory=dict)  # path → its slot values

    @property
    def var(self) -> str | None:
        return f"{self.name}_id" if None in self.pattern else None

    @property
    def slot(self) -> int:
        return self.pattern.index(None)

    @property
    def regex(self) -> str:
        return "^/" + "/".join("[^/]+" if s is None else re.escape(s) for s in self.pattern) + "$"

    def values(self) -> tuple[str, ...]:
        found = {v[0] for v in self.instances.values()}
        return tuple(sorted(found, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v)))


def _shape(path: str) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    segments = [s for s in path.split("/") if s]
    pattern = tuple(None if _ID.match(s) else s for s in segments)
    if pattern.count(None) > 1:  # one slot per page: the last id-like segment; the others stay literal
        last = max(i for i, p in enumerate(pattern) if p is None)
        pattern = tuple(segments[i] if p is None and i != last else p for i, p in enumerate(pattern))
    return pattern, tuple(s for s, p in zip(segments, pattern, strict=True) if p is None)


def _identifier(words: list[str], taken: set[str]) -> str:
    name = re.sub(r"\W+", "_", "_".join(words)).strip("_").lower() or "home"
    if name[0].isdigit():
        name = "p_" + name
    if name in _WORDS:
        name += "_page"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


@dataclass
class Capture:
    """What the importer reads from a capture: each query-less page's HTML, by path."""

    name: str
    origin: str
    start: str
    html: dict[str, str]


def read_capture(path: Path) -> Capture:
    folder = CaptureFolder(path)
    recording = folder.recording
    html: dict[str, str] = {}
    for page in folder.pages:
        parts = urlsplit(page.url)
        if page.status != 200 or parts.query or f"{parts.scheme}://{parts.netloc}" != folder.origin.rstrip("/"):
            continue
        exchange = recording.answer(recording.key("GET", page.url, None), 0)
        if exchange is None or "html" not in exchange.content_type:
            continue
        html[parts.path or "/"] = exchange.body.decode("utf-8", errors="replace")
    start = urlsplit(folder.manifest["start"]).path or "/"
    if start not in html:
        raise CaptureError(f"{path}: its start page {folder.manifest['start']} is not a captured HTML page "
                           "without a query string: nothing to start the draft from", unreadable=True)
    return Capture(path.resolve().name, folder.origin, start, html)


def _templates(capture: Capture) -> dict[str, Template]:
    """Each captured path's template, by path."""
    by_pattern: dict[tuple[str | None, ...], Template] = {}
    of: dict[str, Template] = {}
    taken: set[str] = set()
    for path in sorted(capture.html, key=lambda p: (p != capture.start, p)):
        pattern, values = _shape(path)
        t = by_pattern.get(pattern)
        if t is None:
            words = [s if s is not None else "item" for s in pattern]
            t = by_pattern[pattern] = Template(pattern, _identifier(words, taken))
        t.instances[path] = values
        of[path] = t
    return of


def _links(capture: Capture, path: str) -> tuple[str, list[Link]]:
    """A captured page's title and links, each link's `path` set where it leads to another captured page."""
    parser = _Html()
    parser.feed(capture.html[path])
    page_url = capture.origin.rstrip("/") + path
    for link in parser.links:
        target = urlsplit(urljoin(page_url, link.href))
        same = f"{target.scheme}://{target.netloc}" == capture.origin.rstrip("/")
        if same and not target.query and (target.path or "/") in capture.html:
            link.path = target.path or "/"
    return " ".join(parser.title.split()), parser.links


def _selector(href: str) -> str:
    return 'a[href="' + href.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def _unique(links: list[Link], href: str) -> bool:
    """The page has one link with this href (hidden ones count: the selector would match them too), and it shows."""
    same = [link for link in links if link.href == href]
    return len(same) == 1 and not same[0].hidden


def _href_template(link: Link, value: str, param: str) -> str | None:
    """The href with the slot's value as `{param}`, where the value is one segment of it, once."""
    pattern = re.compile(r"(?<=/)" + re.escape(value) + r"(?=$|[/?#])")
    found = pattern.findall(link.href)
    return pattern.sub("{" + param + "}", link.href) if len(found) == 1 else None


@dataclass(eq=False)
class Edge:
    """A navigation action found: from a template to another, by a link (a family of links for a slotted target)."""

    source: Template
    target: Template
    href: str  # a template with `{id}` for a family
    text: str
    values: tuple[str, ...] = ()


PARAM = "id"


def _edges_from(source: Template, target: Template, pages: dict[str, list[Link]]) -> Edge | None:
    """The action from `source` to `target`, if a link to it is seen, shown and unique on every instance of `source`."""
    shared: dict[str, set[str]] | None = None  # href template → the values seen on every instance
    texts: dict[str, str] = {}
    for path in source.instances:
        links = pages[path]
        here: dict[str, set[str]] = defaultdict(set)
        for link in links:
            if link.path not in target.instances or not _unique(links, link.href):
                continue
            value = target.instances[link.path][0] if target.var else ""
            href = _href_template(link, value, PARAM) if target.var else link.href
            if href is not None:
                here[href].add(value)
                texts.setdefault(href, link.text)
        shared = dict(here) if shared is None else {h: v & here[h] for h, v in shared.items() if h in here}
    found = sorted(((h, v) for h, v in (shared or {}).items() if v), key=lambda hv: (-len(hv[1]), hv[0]))
    if not found:
        return None
    href, values = found[0]
    ordered = tuple(v for v in target.values() if v in values) if target.var else ()
    return Edge(source, target, href, texts[href], ordered)


def _choice(values: tuple[str, ...]) -> ir.ChoiceType:
    return ir.ChoiceType(values=values)


def _action(e: Edge) -> ir.Action:
    click = ir.GuiOp(op="click", selector=_selector(e.href))
    if e.target.var is None:
        return ir.Action(name=f"open_{e.target.name}", label=e.text or e.target.title or None, goto=e.target.name,
                         gui=(click,))
    return ir.Action(name=f"open_{e.target.name}", params=(ir.Param(name=PARAM, type=_choice(e.values)),),
                     label=f"{e.target.title or e.target.name} {{{PARAM}}}",
                     effects=(ir.Effect(op="assign", var=e.target.var, value=ir.Name(id=PARAM)),),
                     goto=e.target.name, carry=(e.target.var,), gui=(click,))


def _var(t: Template) -> ir.Var:
    assert t.var is not None
    values = t.values()
    return ir.Var(name=t.var, type=_choice(values), default=ir.Lit(value=values[0]))


def _tasks(t: Template) -> list[ir.Task]:
    """Reach the page; for a slotted page, reach each of its captured instances."""
    title = json.dumps(t.title or t.name)
    if t.var is None:
        return [ir.Task(name=f"reach_{t.name}", page=t.name, goal=ir.Lit(value=True), instruction=f"Open the page {title}.")]
    taken: set[str] = set()
    return [ir.Task(name=_identifier(["reach", t.name, v], taken), page=t.name,
                    goal=ir.Binary(op="==", left=ir.Name(id=t.var), right=ir.Lit(value=v)),
                    instruction=f"Open the page {title} of {v}.") for v in t.values()]


def _reachable(entry: Template, edges: list[Edge]) -> set[str]:
    seen, todo = {entry.name}, [entry]
    while todo:
        here = todo.pop()
        for e in edges:
            if e.source is here and e.target.name not in seen:
                seen.add(e.target.name)
                todo.append(e.target)
    return seen


@dataclass
class Draft:
    """A draft spec and the extractors that read its state off the capture."""

    spec: ir.Spec
    templates: list[Template]
    edges: list[Edge]
    left_out: list[str]  # captured paths no page of the draft shows (the entry reaches no link to them)

    def extract_toml(self) -> str:
        lines = ["# How fsmc reads the state of the draft spec off this capture (written by `fsmc import`; refine it).",
                 "# [pages]: the page a location shows, the first regular expression that matches its path.",
                 "# [state.PAGE]: each variable of the page and its extractor: url:path/N, url:param/NAME, text:CSS,",
                 "# value:CSS, or default (a carry slot, set by the action that leaves the page).", "", "[pages]"]
        ordered = sorted(self.templates, key=lambda t: (t.var is not None, t.name))
        lines += [f"{t.name} = {json.dumps(t.regex)}" for t in ordered]
        for page in self.spec.pages:
            if page.vars:
                lines += ["", f"[state.{page.name}]"]
                own = {t.var: t.slot for t in self.templates if t.name == page.name and t.var}
                lines += [f"{v.name} = " + json.dumps(f"url:path/{own[v.name]}" if v.name in own else "default")
                          for v in page.vars]
        return "\n".join(lines) + "\n"


def draft(capture: Capture, backend: str) -> Draft:
    """The draft spec of a capture, declaring `backend capture "BACKEND"` (the capture, relative to the spec)."""
    of = _templates(capture)
    templates = list(dict.fromkeys(of.values()))
    pages: dict[str, list[Link]] = {}
    for path, t in of.items():
        title, pages[path] = _links(capture, path)
        t.title = t.title or title
    edges = [e for s in templates for t in templates if s is not t and (e := _edges_from(s, t, pages)) is not None]
    entry = of[capture.start]
    keep = _reachable(entry, edges)
    templates = [t for t in templates if t.name in keep]
    edges = [e for e in edges if e.source.name in keep]
    ir_pages = []
    for t in templates:
        slots = [_var(e.target) for e in edges if e.source is t and e.target.var is not None]
        ir_pages.append(ir.Page(name=t.name, title=t.title or None, vars=(*([_var(t)] if t.var else []), *slots),
                                actions=tuple(_action(e) for e in edges if e.source is t)))
    tasks = tuple(task for t in templates if t is not entry for task in _tasks(t))
    site = ir.Site(name=_identifier([capture.name], set()), title=entry.title or None, entry=entry.name)
    spec = ir.Spec(site=site, backends=(ir.Backend(kind="capture", source=backend),), pages=tuple(ir_pages), tasks=tasks)
    return Draft(spec, templates, edges, sorted(p for p, t in of.items() if t.name not in keep))


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
    text = to_fsm(made.spec)
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


__all__ = ["Capture", "Draft", "Edge", "Link", "Template", "draft", "import_capture", "read_capture"]
