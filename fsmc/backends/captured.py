"""A captured site as a backend: served from its WARC archive with no network; and the live site it came from.

`CapturedSite` answers every request of its pages from the capture (`fsmc.capture`): a request the
capture lacks gets a deterministic 404 and is counted (`misses`), a request outside the site's origin
is refused and counted (`blocked_requests`), and anything that escapes the handlers (a popup's page)
reaches a sink proxy on loopback, which refuses and counts it too (`escaped`): nothing reaches the network. Time and randomness are
pinned (`fsmc.archive.pinning`), so the same actions give the same pixels. `LiveSite` is the same
episode over the live origin: what a capture is compared with. Selectors here are CSS selectors: a
third-party site has no data-testid attributes.

An episode's state here is its location and title; a spec acted out on a capture reads its own state through
the extractors it declares (`fsmc.backends.captured_spec`).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from fsmc.archive.folder import CaptureFolder
from fsmc.archive.pinning import LEAVING_JS, STILL_JS, pinned_page
from fsmc.archive.routes import LiveRoutes, OfflineRoutes, Routes, origin_of
from fsmc.backends.actor import LOCATE_JS, VISIBLE_JS, Actor
from fsmc.backends.pointer import lifts, prepare
from fsmc.backends.protocol import JPEG, Backend, Capture, EpisodeFailure, Hasher, ImageFormat, Op, Step
from fsmc.browser import Chromium, Sink

LOAD_TIMEOUT_MS = 15_000
_BY_TESTID = '`[data-testid="${CSS.escape(tid)}"]`'


def by_css(js: str) -> str:
    """A lookup script that finds its element by data-testid (`tid`), made to take a CSS selector in its place."""
    found = js.replace(_BY_TESTID, "tid")
    assert found != js, "the lookup no longer finds elements by data-testid"
    return found


CSS_LOCATE_JS, CSS_VISIBLE_JS = by_css(LOCATE_JS), by_css(VISIBLE_JS)
STATE_JS = "() => ({url: location.pathname + location.search, title: document.title})"


class SelectorActor(Actor):
    """The actor's operations with CSS selectors in place of data-testid values."""

    visible_js, locate_js = CSS_VISIBLE_JS, CSS_LOCATE_JS

    def what(self, testid: str | None) -> str:
        return f"selector {testid!r}"

    def not_one(self, testid: str | None, count: int) -> str:
        return f"{count} elements match {self.what(testid)} (one is needed)"

    async def _find(self, testid: str | None) -> dict[str, Any]:
        try:
            return await super()._find(testid)
        except Exception as err:  # Playwright's own Error: not a valid CSS selector
            raise EpisodeFailure("element_missing", f"{self.what(testid)}: {str(err).splitlines()[0]}") from None


class PageEpisode:
    """One page of its own pinned context on a site whose requests go through `routes`."""

    def __init__(self, page: Any, routes: Routes, start: str, image: ImageFormat):
        self.page, self.routes, self.start = page, routes, start
        self.actor = SelectorActor(page, image=image)
        self.actor.pacer = self  # an action may load a page: each rests once that load is in
        self._loads = self._loads_before = 0  # page loads so far, and before the last operation
        self._load = asyncio.Event()
        page.on("load", self._loaded)

    def _loaded(self, _: Any) -> None:
        self._loads += 1
        self._load.set()

    async def goto(self, url: str) -> int | None:
        """Load `url` (a path is taken within the site) and let it settle; the document's HTTP status."""
        try:
            response = await self.page.goto(urljoin(self.start, url), wait_until="load", timeout=LOAD_TIMEOUT_MS)
        except Exception as err:  # Playwright's own Error: refused, aborted, a download, timed out
            raise EpisodeFailure("navigation_failed", f"{url}: {str(err).splitlines()[0]}") from None
        await self.actor.settle(STILL_JS)
        return response.status if response is not None else None

    async def reset(self, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Load the page the state names (`{"url": "/db/table"}`; None: the start page), as the capture first served it."""
        if isinstance(self.routes, OfflineRoutes):
            self.routes.restart()
        await self.goto((state or {}).get("url") or self.start)
        return await self.state()

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        self._loads_before = self._loads
        return await self.actor.perform(op, capture)

    async def settle(self) -> None:
        """After a move: each action rested already (`rest`), so the page is at rest in its new state."""
        await self.actor.moved()

    def expect(self) -> None:
        """An action is about to be done on the page outside `perform` (an agent's own click): the page loads it
        starts are counted from here."""
        self._loads_before = self._loads

    async def rest(self, kind: str) -> None:
        """After an action of this kind (the actor's or an agent's own): wait for the page load it started, if any,
        then let the page come to rest, the pointer gone from the page but after a hover (`pointer.lifts`)."""
        await self._come_to_rest(mouse_leaves=lifts(kind))

    async def _come_to_rest(self, mouse_leaves: bool) -> None:
        loads = self._loads_before
        try:
            leaving = await self.page.evaluate(LEAVING_JS)
        except Exception:  # Playwright's own Error: the document went away while asked
            leaving = True
        if leaving or self._loads != loads:
            await self._next_load(loads)
        try:
            await self.actor.rest_page(STILL_JS, mouse_leaves=mouse_leaves)
        except Exception as err:  # Playwright's own Error: a load began that nothing announced (a script's submit())
            if "destroyed" not in str(err):
                raise
            await self.page.wait_for_load_state("load")
            await self.actor.rest_page(STILL_JS, mouse_leaves=mouse_leaves)

    async def _next_load(self, loads: int) -> None:
        while self._loads <= loads:
            self._load.clear()
            try:
                await asyncio.wait_for(self._load.wait(), LOAD_TIMEOUT_MS / 1000)
            except TimeoutError:
                raise EpisodeFailure("timeout", f"the page load started from {self.actor.location()} did not "
                                     "finish") from None

    async def arrive(self, within_s: float = 15.0) -> None:
        """Wait for a page load an action started outside `perform` (an agent's click on a link, a form it posts)."""
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            try:
                if not await self.page.evaluate(LEAVING_JS):
                    return
            except Exception:  # Playwright's own Error: the document went away while asked
                pass
            await asyncio.sleep(0.05)

    async def state(self) -> dict[str, Any]:
        state: dict[str, Any] = await self.page.evaluate(STATE_JS)
        return state

    async def screenshot(self) -> bytes:
        return await self.actor.screenshot()

    async def close(self) -> None:
        await self.page.context.close()


class FromStartEpisode:
    """An episode of a backend that can be reset to its initial state alone (a capture, a cloned application): the
    operations of `inner` (a PageEpisode), failures named with the page they happened on. A subclass says how to
    go back to the start (`restart`), where that is (`home`), and how the state is read (`state`)."""

    start_is = "its initial state"  # what the reset reaches, for the message when another state is asked for

    def __init__(self, inner: PageEpisode):
        self.inner = inner

    @property
    def page(self) -> Any:
        """The Playwright page (the environments act on it with the mouse and keyboard)."""
        return self.inner.page

    @property
    def actor(self) -> SelectorActor:
        return self.inner.actor

    async def restart(self) -> None:
        """Whatever the backend puts back before its home page is loaded again."""

    def home(self) -> str:
        raise NotImplementedError

    async def state(self) -> dict[str, Any]:
        raise NotImplementedError

    async def reset(self, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Back to the start, cookies forgotten, the home page loaded; only the initial state can be asked for."""
        await self.restart()
        await self.inner.page.context.clear_cookies()
        await self.inner.goto(self.home())
        shown = await self.state()
        if state is not None and dict(state) != shown:
            raise EpisodeFailure("navigation_failed", f"this backend is reset to {self.start_is} alone, which is "
                                 f"{shown}, not {dict(state)}")
        return shown

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        """The operation on the page; a failure names the page it happened on."""
        try:
            return await self.inner.perform(op, capture)
        except EpisodeFailure as failure:
            raise EpisodeFailure(failure.reason, f"{failure.detail}, on {self.inner.actor.location()}") from None

    async def settle(self) -> None:
        await self.inner.settle()

    def expect(self) -> None:
        self.inner.expect()

    async def rest(self, kind: str) -> None:
        await self.inner.rest(kind)

    async def screenshot(self) -> bytes:
        return await self.inner.screenshot()

    async def close(self) -> None:
        await self.inner.close()


class _BrowserSite(Backend):
    """What the captured and the live site share: one Chromium (own or shared), a pinned context per episode."""

    def __init__(self, start: str, image: ImageFormat, chromium: Chromium | None):
        self.start_url, self.image = start, image
        self._chromium, self._owns = chromium or Chromium(), chromium is None
        self.episodes: list[PageEpisode] = []

    def routes(self) -> Routes:
        raise NotImplementedError

    @property
    def blocked_requests(self) -> int:
        return sum(e.routes.tally.blocked for e in self.episodes) + self.escaped

    @property
    def escaped(self) -> int:
        return 0

    async def start_browser(self) -> None:
        if self._owns:
            await self._chromium.start()

    async def start(self) -> None:
        await self.start_browser()

    def proxy(self) -> str | None:
        return None

    async def open(self) -> PageEpisode:
        routes = self.routes()
        return await self._episode(await pinned_page(self._chromium.browser, routes, self.proxy()), routes)

    async def adopt(self, page: Any) -> PageEpisode:
        """An episode on a page opened elsewhere (BrowserGym's), before it loads anything of the site: its requests
        held for this site's routes from now on. Its context is not pinned here, so its clock is the real one."""
        routes = self.routes()
        await routes.attach(page)
        episode = await self._episode(page, routes)
        episode.actor.fake_time = False
        return episode

    async def _episode(self, page: Any, routes: Routes) -> PageEpisode:
        await prepare(page)
        episode = PageEpisode(page, routes, self.start_url, self.image)
        self.episodes.append(episode)
        return episode

    async def close(self) -> None:
        if self._owns:
            await self._chromium.close()


class CapturedSite(_BrowserSite):
    """A capture folder served offline: every request answered from its archive, or refused and counted."""

    def __init__(self, folder: str | Path | CaptureFolder, *, image: ImageFormat = JPEG, chromium: Chromium | None = None,
                 rules: str | Path | None = None):
        self.capture = folder if isinstance(folder, CaptureFolder) else CaptureFolder(folder, rules)
        self._sink: Sink | None = None
        super().__init__(self.capture.manifest["start"], image, chromium)

    def routes(self) -> Routes:
        return OfflineRoutes(self.capture.origin, self.capture.recording)

    def proxy(self) -> str | None:
        return self._sink.url if self._sink is not None else None

    @property
    def escaped(self) -> int:
        """The pages' requests that got past the handlers to the sink (refused there: none reached the network)."""
        return len(self._sink.split(self.capture.origin)[0]) if self._sink is not None else 0

    @property
    def background(self) -> list[str]:
        """The browser's own requests (autofill and the like) the sink refused: never the pages', never sent."""
        return self._sink.split(self.capture.origin)[1] if self._sink is not None else []

    @property
    def misses(self) -> int:
        """Requests the archive had no response for (answered with the deterministic 404)."""
        return sum(e.routes.tally.misses for e in self.episodes)

    def fingerprint(self, h: Hasher) -> None:
        """The archive and the rules, by their bytes."""
        for path in self.capture.fingerprint_files():
            h.update(path.name.encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())

    async def start(self) -> None:
        self.capture.recording  # noqa: B018 - read (and check) the archive before the browser starts
        self._sink = Sink()
        await self.start_browser()

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self._sink is not None:
                self._sink.close()


class LiveSite(_BrowserSite):
    """The live site at `start`'s origin, its pages pinned as the capture's are, requests within the origin let through
    untouched and the others refused: what a capture is compared with."""

    def __init__(self, start: str, *, image: ImageFormat = JPEG, chromium: Chromium | None = None):
        super().__init__(start, image, chromium)

    def routes(self) -> Routes:
        return LiveRoutes(origin_of(self.start_url))

    def fingerprint(self, h: Hasher) -> None:
        h.update(self.start_url.encode())
