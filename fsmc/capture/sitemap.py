"""What a capture shows `fsmc import`: its HTML pages by location, clustered into URL templates, each location a state.

A location is a path and its query (`/zoo/animals?_sort=name`), as the browser's address bar shows it within the
origin. Locations that differ only in id-like path segments share a template (`/zoo/animals/{id}`): one page of the
draft. A template's state is its slot (the id-like segment) and the query parameters whose values differ across its
locations (absent counts as a value), except those of volatile value (`Rules.volatile`: a time in the query, a
nonce), which change from run to run and name no state; every captured location is one state of its template.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from fsmc.archive.folder import CaptureError, CaptureFolder
from fsmc.archive.routes import Recording
from fsmc.archive.rules import Rules, load_rules, multipart
from fsmc.archive.warc import Exchange
from fsmc.capture.dom import PageHtml, read_page
from fsmc.frontend.keywords import RESERVED

_ID = re.compile(r"^(\d+|[0-9a-fA-F]{8,}|[0-9a-fA-F-]{36})$")
_WORDS = frozenset().union(*RESERVED.values())
_DOC_WORDS = frozenset(("help", "doc", "docs", "documentation", "wiki", "guide", "manual", "faq", "tutorial",
                        "handbook"))
_REDIRECTS = 5  # hops followed from a request to the page it lands on


def documentation(path: str) -> bool:
    """A path in bundled documentation: a segment, or a word of one (`TracGuide`, `user-manual`), names it."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", path)
    return any(w.lower() in _DOC_WORDS for w in words)


def location(url: str) -> str:
    """The location of a URL within its origin: path and query, no fragment."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def canonical(loc: str) -> str:
    """A location with its query decoded, sorted and encoded again: how two spellings of one request compare."""
    path, _, query = loc.partition("?")
    pairs = sorted(parse_qsl(query, keep_blank_values=True))
    return path + (f"?{urlencode(pairs)}" if pairs else "")


@dataclass(frozen=True)
class Posted:
    """A form the flows posted: the path it went to, the fields it sent, where it landed (redirects followed), its
    epoch: how many changes the archive recorded before it (offline, an episode that has reached no further gets it
    answered as recorded, and reaches epoch + 1: `fsmc.archive.routes.Recording`), and the location it was posted
    from (its Referer; "" where it has none)."""

    path: str
    fields: tuple[tuple[str, str], ...]
    landing: str
    epoch: int = 0
    source: str = ""
    navigated: bool = True  # the page was left for its answer (a form submitted), not a script's request (Trac's
    # preview of a ticket as it is typed); True where the archive does not say


@dataclass
class Capture:
    """What the importer reads from a capture: each captured HTML page by location, where each request the archive
    answers lands (after redirects, by canonical location), the moves the flows made (location before, after), and
    the forms they posted, in the order posted."""

    name: str
    origin: str
    start: str
    html: dict[str, str]
    served: dict[str, str] = field(default_factory=dict)
    navigations: set[tuple[str, str]] = field(default_factory=set)
    posted: list[Posted] = field(default_factory=list)
    rules: Rules = field(default_factory=load_rules)  # what in a URL is volatile


def _flow_navigations(flows: list[dict[str, Any]], origin: str) -> set[tuple[str, str]]:
    """Each change of location a flow's operation made: where it was, where it went."""
    moves = set()
    for flow in flows:
        here = location(urljoin(origin, str(flow.get("start") or "/")))
        for step in flow.get("steps") or []:
            there = location(urljoin(origin, step["url"]))
            if there != here:
                moves.add((here, there))
            here = there
    return moves


def _landing(recording: Recording, origin: str, url: str, position: int = 0,
             first: Exchange | None = None) -> tuple[str, str] | None:
    """Where a GET of `url` lands in the archive at `position` (or the answer `first` to another request of it),
    redirects followed within the origin: its location and its HTML (None for anything else: a miss, an error, not
    HTML)."""
    for _ in range(_REDIRECTS):
        x = first or recording.answer(recording.key("GET", url, None), position)
        first = None
        target = next((v for k, v in x.headers if k.lower() == "location"), None) if x else None
        if x is None or not (x.status == 200 or (300 <= x.status < 400 and target)):
            return None
        if x.status == 200:
            return (location(url), x.body.decode("utf-8", errors="replace")) if "html" in x.content_type else None
        url = urljoin(url, target)
        if not url.startswith(origin + "/"):
            return None
    return None


def _served(recording: Recording, origin: str) -> tuple[dict[str, str], dict[str, str]]:
    """Every HTML page the archive answers a GET with, by location; and where each GET it holds lands, by the
    request's canonical location."""
    html: dict[str, str] = {}
    served: dict[str, str] = {}
    for versions in recording.by_key.values():
        x = versions[0][1]
        landed = _landing(recording, origin, x.url) if x.method.upper() == "GET" and x.url.startswith(origin + "/") \
            else None
        if landed is not None:
            served[canonical(location(x.url))] = landed[0]
            html[landed[0]] = landed[1]
    return html, served


def _posted(recording: Recording, origin: str, html: dict[str, str]) -> list[Posted]:
    """The forms posted within the origin (bodies of name=value pairs) that landed on an HTML page, in the order
    posted, each landing read as the archive answers it right after that post; their landings' HTML added to `html`
    where it has none."""
    found: list[tuple[int, Posted]] = []
    for versions in recording.by_key.values():
        for epoch, x in versions:
            fields = _fields(x.request_body) if x.method.upper() == "POST" and x.url.startswith(origin + "/") else None
            landed = _landing(recording, origin, x.url, epoch + 1, x) if fields is not None else None
            if fields is not None and landed is not None:
                referer = next((v for k, v in x.request_headers if k.lower() == "referer"), "")
                source = location(referer) if referer.startswith(origin + "/") else ""
                found.append((epoch, Posted(urlsplit(x.url).path, fields, landed[0], epoch, source,
                                            x.kind in ("", "document"))))
                html.setdefault(*landed)
    return [p for _, p in sorted(found, key=lambda e: e[0])]


def _fields(body: bytes | None) -> tuple[tuple[str, str], ...] | None:
    """A form's body as its name-value pairs, a multipart one's text fields alone (None: not a form, URL-encoded or
    multipart; its files are what no agent can give, and the importer notes the form's file inputs)."""
    parts = multipart(body or b"")
    try:
        if parts is not None:
            return tuple((name, value.decode("utf-8")) for name, file, value in parts if file is None)
        return tuple(parse_qsl((body or b"").decode("ascii"), keep_blank_values=True, strict_parsing=bool(body)))
    except (UnicodeDecodeError, ValueError):
        return None


def read_capture(path: Path) -> Capture:
    """The capture's pages (those the crawl captured and those its flows went to), what its archive answers, and
    where its flows went."""
    folder = CaptureFolder(path)
    origin = folder.origin.rstrip("/")
    html, served = _served(folder.recording, origin)
    posted = _posted(folder.recording, origin, html)
    try:
        navigations = _flow_navigations(folder.manifest.get("flows") or [], origin)
        navigations |= {(p.source, p.landing) for p in posted if p.source and p.navigated}  # back where posted too
        start = location(folder.manifest["start"])
    except (KeyError, TypeError, AttributeError):
        raise CaptureError(f"{path}/manifest.json: its start or its flows are not what `fsmc capture` writes",
                           unreadable=True) from None
    captured = {location(p.url) for p in folder.pages if p.status == 200} | {loc for n in navigations for loc in n}
    html = {loc: text for loc, text in html.items() if loc in captured}
    if start not in html:
        raise CaptureError(f"{path}: its start page {folder.manifest['start']} is not a captured HTML page: nothing "
                           "to start the draft from", unreadable=True)
    return Capture(path.resolve().name, folder.origin, start, html, served, navigations, posted, rules=folder.rules)


def identifier(words: list[str], taken: set[str], limit: int = 48) -> str:
    """A fresh identifier made of `words` (cut at a word's end past `limit` characters), recorded in `taken`."""
    name = ""
    for word in re.sub(r"\W+", "_", "_".join(words)).lower().split("_"):
        if not word:
            continue
        if len(name) >= limit:
            break
        name = f"{name}_{word}" if name else word
    name = name or "home"
    if name[0].isdigit():
        name = "p_" + name
    if name in _WORDS:
        name += "_page"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def shape(path: str) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    """A path's template (a literal segment, or None for the slot) and its slot's value."""
    segments = [s for s in path.split("/") if s]
    pattern = tuple(None if _ID.match(s) else s for s in segments)
    if pattern.count(None) > 1:  # one slot per page: the last id-like segment; the others stay literal
        last = max(i for i, p in enumerate(pattern) if p is None)
        pattern = tuple(segments[i] if p is None and i != last else p for i, p in enumerate(pattern))
    return pattern, tuple(s for s, p in zip(segments, pattern, strict=True) if p is None)


@dataclass(eq=False)
class Instance:
    """A captured location: one state of its template."""

    loc: str
    slot: str | None  # the slot's value
    query: dict[str, str]  # each query parameter's (first) value
    page: PageHtml
    template: Template = field(repr=False)

    @property
    def title(self) -> str:
        return " ".join(self.page.title.split())

    def state(self) -> dict[str, str | None]:
        """The template's variables in this state: its slot, and its varying parameters (None where absent)."""
        t = self.template
        values: dict[str, str | None] = {t.var: self.slot} if t.var else {}
        return values | {var: self.query.get(param) for param, var in t.params.items()}


@dataclass(eq=False)
class Template:
    """Captured locations that differ only in their id-like path segments and their queries."""

    pattern: tuple[str | None, ...]  # a literal segment, or None for a slot
    name: str = ""
    instances: dict[str, Instance] = field(default_factory=dict)  # location → instance
    params: dict[str, str] = field(default_factory=dict)  # the varying query parameters → their variables
    start: Instance | None = None  # the capture's start, where it is one of this template's locations

    @property
    def var(self) -> str | None:
        return f"{self.name}_id" if None in self.pattern else None

    @property
    def slot(self) -> int:
        return self.pattern.index(None)

    @property
    def regex(self) -> str:
        body = "/".join("[^/]+" if s is None else re.escape(s) for s in self.pattern)
        return f"^/{body}/?$" if body else "^/$"  # a path may end with a slash (Django's do)

    @property
    def title(self) -> str:
        """What every instance's title says: the whole title where they share it; a page without a slot, the title of
        its location without a query (the others are its sorts and filters); else the words all titles start and end
        with around `…` (`… – My Project`; each instance names its own item), else nothing."""
        titles = list(dict.fromkeys(i.title for i in self.instances.values() if i.title))
        plain = [i.title for i in self.instances.values() if i.title and not i.query]
        if len(titles) <= 1:
            return titles[0] if titles else ""
        if self.var is None and plain:
            return plain[0]
        words = [t.split() for t in titles]
        head = len(os.path.commonprefix(words))
        tail = len(os.path.commonprefix([w[head:][::-1] for w in words]))
        shared = [*words[0][:head], "…", *words[0][len(words[0]) - tail:]] if head or tail else []
        return " ".join(shared) if any(c.isalnum() for w in shared for c in w) else ""

    def values(self, var: str) -> tuple[str, ...]:
        """The values a variable of this template is seen with (absent aside), ids in numeric order."""
        found = {v for i in self.instances.values() if (v := i.state()[var]) is not None}
        return tuple(sorted(found, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v)))

    def vars(self) -> list[str]:
        return ([self.var] if self.var else []) + list(self.params.values())


def _varying(instances: list[Instance], rules: Rules) -> list[str]:
    """The query parameters whose values (absent counting as one) are not the same on every instance, none of them
    volatile."""
    names = sorted({k for i in instances for k in i.query})
    return [k for k in names if len({i.query.get(k) for i in instances}) > 1
            and not any(rules.volatile(k, i.query[k]) for i in instances if k in i.query)]


def templates(capture: Capture, notes: list[str]) -> dict[str, Template]:
    """Each captured location's template, by location (one with a repeated query parameter is left out, noted)."""
    by_pattern: dict[tuple[str | None, ...], Template] = {}
    of: dict[str, Template] = {}
    taken: set[str] = set()
    for loc in sorted(capture.html, key=lambda p: (p != capture.start, p)):
        path, _, query = loc.partition("?")
        pairs = parse_qsl(query, keep_blank_values=True)
        if len({k for k, _ in pairs}) != len(pairs):
            notes.append(f"{loc}: a query parameter given twice (the state reads one value of each): left out")
            continue
        pattern, values = shape(path)
        t = by_pattern.get(pattern)
        if t is None:
            t = by_pattern[pattern] = Template(pattern, identifier([s or "item" for s in pattern], taken))
        t.instances[loc] = Instance(loc, values[0] if values else None, dict(pairs), read_page(capture.html[loc]), t)
        t.start = t.instances[loc] if loc == capture.start else t.start
        of[loc] = t
    for t in by_pattern.values():
        names = {t.var} if t.var else set()
        t.params = {k: identifier([t.name, k], names) for k in _varying(list(t.instances.values()), capture.rules)}
    return of


__all__ = ["Capture", "Instance", "Posted", "Template", "canonical", "documentation", "identifier", "location",
           "read_capture", "shape", "templates"]
