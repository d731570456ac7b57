"""Capturing a live site: Chromium crawls it within its origin, and every HTTP exchange goes into the archive.

Breadth first from the start URL, to a depth and a page budget: each HTML page is loaded in one pinned
context (`fsmc.archive.pinning`, so cookies carry over as a user's would), left to settle, photographed
(PNG, the reference for offline views) and searched for links within the origin. Links are followed
once per normalised URL with its volatile values left out (`Rules.volatile`: a cache buster, a time in
the query), so neither makes a page new. Links that turn out not to be HTML (JSON, CSV, downloads) are
recorded in the archive but are not pages.

The budget goes to the application before its bundled documentation: a page whose path has a segment
naming documentation (`sitemap.documentation`: help, doc(s), wiki, guide, manual, faq, tutorial, handbook, as a
segment or a word of one, such as Trac's `/wiki/TracGuide`) is captured only once every application
page within the depth is, nearest first, and the links on it are not followed: documentation links to
more documentation, not to the application. A capture that starts in documentation treats none as such.
Flows (`fsmc.capture.flows`) are acted out after the crawl in the same context, their views kept after
every operation.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urldefrag, urlencode, urlsplit

from fsmc import __version__
from fsmc.archive.folder import MANIFEST, SCREENS, CaptureError, folder_in_progress
from fsmc.archive.pinning import PINNED_TIME_MS, SEED, STILL_JS, pinned_page
from fsmc.archive.routes import RecordingRoutes, origin_of
from fsmc.archive.rules import RULES_FILE, Rules, RulesError, load_rules
from fsmc.archive.warc import WARC_FILE, ArchiveWriter
from fsmc.atomic import write_atomic
from fsmc.backends.actor import Actor
from fsmc.backends.captured import LOAD_TIMEOUT_MS as STEP_TIMEOUT_MS
from fsmc.backends.captured import PageEpisode
from fsmc.backends.protocol import PNG, EpisodeFailure
from fsmc.browser import VIEWPORT, Chromium, Sink
from fsmc.capture.flows import Flow, act_out, load_flows
from fsmc.capture.sitemap import documentation

LOAD_TIMEOUT_MS = 30_000
LINKS_JS = "() => [...document.querySelectorAll('a[href]')].map((a) => [a.getAttribute('href'), a.href])"


@dataclass(frozen=True)
class Options:
    """How far a capture goes: links followed to `depth` from the start page, at most `pages` HTML pages."""

    depth: int = 2
    pages: int = 20
    rules: str | Path | None = None  # a rules file extending the defaults
    flows: str | Path | None = None  # a flows file (fsmc.capture.flows) acted out after the crawl
    replace: bool = False  # replace an existing capture folder


@dataclass(order=True)
class Target:
    """A page to load, in the order the crawl loads them: application before documentation, nearest first, then
    as found."""

    docs: bool
    depth: int
    found: int
    url: str
    parent: str | None = None
    href: str | None = None


def page_key(rules: Rules, url: str) -> str:
    """What tells two pages apart: the URL as the rules match it, without query parameters of volatile value."""
    parts = urlsplit(rules.url(url))
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not rules.volatile(k, v)]
    return parts._replace(query=urlencode(query)).geturl()


def capture(url: str, dest: str | Path, options: Options = Options(),
            on_page: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Capture the site at `url` into the folder `dest`; its manifest. CaptureError (and no folder) if it fails."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CaptureError(f"{url}: not an http(s) URL to capture (for example http://127.0.0.1:8001/)", unreadable=True)
    if options.depth < 0 or options.pages < 1:
        raise CaptureError("the depth must be 0 or more and the page budget 1 or more", unreadable=True)
    try:
        rules = load_rules(options.rules)
    except RulesError as err:
        raise CaptureError(str(err), unreadable=True) from None
    flows = load_flows(options.flows) if options.flows else []
    with folder_in_progress(Path(dest), replace=options.replace) as work:
        manifest = asyncio.run(_capture(url, work, rules, options, flows, on_page))
        write_atomic(work / RULES_FILE, rules.to_toml())
        write_atomic(work / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


async def _capture(url: str, work: Path, rules: Rules, options: Options, flows: list[Flow],
                   on_page: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    (work / SCREENS).mkdir()
    origin = origin_of(url)
    chromium, sink = Chromium(), Sink()  # the browser's own services go to the sink, not to the internet
    page_errors: set[tuple[str, str]] = set()  # a page's own script errors (page, first line): recorded, never fatal
    try:
        await chromium.start()
        with (work / WARC_FILE).open("wb") as stream:
            writer = ArchiveWriter(stream, rules, {"software": f"fsmc {__version__}", "format": "WARC File Format 1.1",
                                                   "isPartOf": url})
            routes = RecordingRoutes(origin, writer, rules)
            page = await pinned_page(chromium.browser, routes, sink.url, bypass=urlsplit(origin).hostname)
            page.on("pageerror", lambda err: page_errors.add((page.url, f"{err.name}: {err.message}".splitlines()[0])))
            pages, skipped = await _crawl(page, url, work, rules, options, routes, on_page)
            acted = [await _act_out(page, routes, url, flow, i, work) for i, flow in enumerate(flows)]
            version = chromium.browser.version
    finally:
        await chromium.close()
        sink.close()
    return {
        "fsmc_version": __version__, "start": url, "origin": origin, "browser": f"Chromium {version}",
        "options": {"depth": options.depth, "pages": options.pages}, "viewport": VIEWPORT,
        "pinned_time_ms": PINNED_TIME_MS, "seed": SEED, "rules_sha256": rules.digest(), "warc": WARC_FILE,
        "pages": pages, "skipped": skipped, "flows": acted,
        "exchanges": routes.tally.served, "responses": writer.responses, "revisits": writer.revisits,
        "statuses": {str(k): v for k, v in sorted(routes.statuses.items())},
        "blocked": routes.tally.blocked, "blocked_urls": routes.tally.blocked_urls,
        "failed": [{"url": u, "error": e} for u, e in sorted(routes.failures.items())],
        "background_refused": dict(Counter(sink.hits)),
        "page_errors": [{"url": u, "error": e} for u, e in sorted(page_errors)],
    }


async def _crawl(page: Any, url: str, work: Path, rules: Rules, options: Options, routes: RecordingRoutes,
                 on_page: Callable[[dict[str, Any]], None] | None) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    actor = Actor(page, image=PNG)
    queue, seen = [Target(False, 0, 0, url)], {page_key(rules, url)}
    in_docs = documentation(urlsplit(url).path)  # a capture of documentation: nothing in it is set apart
    pages: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    while queue and len(pages) < options.pages:
        target = heapq.heappop(queue)
        status, why = await _load(page, target.url)
        if status is None:
            if not pages and target.url in routes.failures:  # the start page: nothing to capture
                raise CaptureError(f"{target.url}: cannot reach the site: {routes.failures[target.url]}",
                                   unreadable=True)
            if not pages:
                raise CaptureError(f"{target.url}: {why}: start the capture from a page of the site", unreadable=True)
            skipped.append({"url": target.url, "why": why})
            continue
        await actor.settle(STILL_JS)
        shot = await actor.screenshot()
        name = f"{SCREENS}/{len(pages):04d}.png"
        (work / name).write_bytes(shot)
        record = {"url": page.url, "status": status, "depth": target.depth, "from": target.parent, "href": target.href,
                  "title": await page.title(), "screenshot": name, "sha256": hashlib.sha256(shot).hexdigest()}
        pages.append(record)
        if on_page is not None:
            on_page(record)
        if target.depth < options.depth and not target.docs:
            for href, absolute in await page.evaluate(LINKS_JS):
                link = urldefrag(absolute)[0]
                if routes.allows(link) and page_key(rules, link) not in seen:
                    seen.add(page_key(rules, link))
                    docs = not in_docs and documentation(urlsplit(link).path)
                    heapq.heappush(queue, Target(docs, target.depth + 1, len(seen), link, page.url, href))
    return pages, skipped


async def _act_out(page: Any, routes: RecordingRoutes, url: str, flow: Flow, number: int, work: Path) -> dict[str, Any]:
    """The flow acted out on the live site: each operation with the location and view after it."""
    episode = PageEpisode(page, routes, url, PNG)
    seen, lost = len(routes.changes), len(routes.lost)

    def answered(where: str, failed: bool) -> None:  # what the capture would replay of a step the site failed or refused is an error
        nonlocal seen, lost
        unanswered = [(r, why) for r, why in routes.lost[lost:] if r.vital]
        refused = [x for x in routes.changes[seen:] if not 200 <= x.status < 400]
        waiting = [r for r in routes.waiting.values() if r.vital and failed]  # what a timed-out step waited for
        seen, lost = len(routes.changes), len(routes.lost)
        if unanswered or waiting:
            r, why = unanswered[0] if unanswered else (waiting[0], f"no answer after {STEP_TIMEOUT_MS // 1000} s")
            raise CaptureError(f"flow {flow.name!r}, {where}: {r.method} {r.url} failed: {why}: the site stopped "
                               "answering (is it still running?); capture again once it answers")
        if refused:
            x = refused[0]
            raise CaptureError(f"flow {flow.name!r}, {where}: the site answered {x.method} "
                               f"{urlsplit(x.url).path} with {x.status}: fix the flow (the form's fields, or a login "
                               "before it), or leave it out")

    try:
        views = await act_out(episode, flow, answered)
    except EpisodeFailure as failure:
        raise CaptureError(f"flow {flow.name!r}: {failure.detail} on {episode.actor.location()} "
                           f"({failure.reason}): fix the flow's selector or its start page") from None
    steps = []
    for i, (op, location, shot) in enumerate(views):
        name = f"{SCREENS}/flow-{number:02d}-{i:02d}.png"
        (work / name).write_bytes(shot)
        steps.append({"op": op.op, "selector": op.selector, "url": location, "screenshot": name,
                      "sha256": hashlib.sha256(shot).hexdigest()})
    return {**flow.to_json(), "steps": steps}


async def _load(page: Any, url: str) -> tuple[int | None, str]:
    """Load `url`; its HTTP status if it is an HTML page, else None and why it is not one."""
    try:
        response = await page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
    except Exception as err:  # Playwright's own Error: refused, aborted, a download, timed out
        return None, str(err).splitlines()[0]
    if response is None:
        return None, "no response"
    kind = (await response.header_value("content-type") or "").split(";")[0].strip()
    if kind not in ("text/html", "application/xhtml+xml"):
        return None, f"not an HTML page ({kind or 'no content type'})"
    return response.status, ""
