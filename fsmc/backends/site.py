"""The generated site as a backend: its dist/ served on loopback, one Chromium context per episode.

Every request of a page goes to the site or is refused (`Isolation`); what no route sees (the browser's own
services, a page's WebSockets) goes to a `Sink` on loopback, the contexts' proxy: nothing leaves the machine.

The site's harness (`window.__fsmc`, installed by the runtime) puts a page in any state without a page
load and reports the state the page shows; the GUI operations are the `Actor`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fsmc.backends.actor import SETTLE_MS, Actor, resting_js
from fsmc.backends.pointer import prepare
from fsmc.backends.protocol import JPEG, Backend, Capture, EpisodeFailure, Hasher, ImageFormat, Op, Step
from fsmc.browser import Chromium, Isolation, Sink, SiteServer, open_site

# nothing stays focused or selected from before the reset: a settled page is a function of its state alone
RESET_JS = """(s) => {
  if (document.activeElement) document.activeElement.blur();
  getSelection().removeAllRanges();
  window.__fsmc.reset(s);
}"""
STATE_JS = "() => window.__fsmc.state()"
# The whole reset in one round trip where the page's clock is Playwright's fake one: the reset, Vue's render (a
# microtask, awaited), the pending timers run as `page.clock.run_for` runs them (the controller Playwright injects
# and calls in the page itself), the images, the state. Through the API that would be three more round trips, and
# each `run_for` also leaves an init script behind in the context (its log, replayed on a reload), one per reset.
# Nothing in a generated site reads the time, so a reload that replays a shorter log shows the same views.
RESET_SETTLE_JS = f"""async ([s, ms]) => {{
  if (!globalThis.__pwClock) return null;
  ({RESET_JS})(s);
  await Promise.resolve();
  return ({resting_js(STATE_JS, True)})(ms);
}}"""
ENABLED_JS = "() => window.__fsmc.enabled()"


class SiteEpisode:
    """One page of its own context on the generated site."""

    def __init__(self, page: Any, url: str, image: ImageFormat):
        self.page, self.url = page, url
        self.actor = Actor(page, image=image)

    async def _harness(self, expr: str, arg: Any = None) -> Any:
        try:
            return await self.page.evaluate(expr, arg)
        except Exception as err:  # Playwright's own Error: the page crashed or left the site
            raise EpisodeFailure("navigation_failed", f"the harness did not answer: {str(err).splitlines()[0]}") from None

    async def reset(self, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Through the harness, without a page load (the site is loaded again if the page was lost).

        Two round trips to the browser with fake time: the mouse leaves the page, then the reset settles and reports
        its state in the page (`RESET_SETTLE_JS`); four without: the reset, the clock, the mouse, the state.
        """
        if self.actor.fake_time and len(self.page.frames) == 1:  # as `come_to_rest` runs the clock in the page
            try:
                await self.page.mouse.move(0, 0)
                quick = await self.page.evaluate(RESET_SETTLE_JS, [state, SETTLE_MS])
            except Exception:  # Playwright's own Error: the page crashed or left the site; the long way loads it again
                quick = None
            if quick is not None:
                self.actor.pristine, self.actor.hovering = True, False
                return dict(quick)
        try:
            await self._harness(RESET_JS, state)
        except EpisodeFailure:
            await self.page.goto(self.url, wait_until="load")
            await self._harness(RESET_JS, state)
        try:
            shown: dict[str, Any] = await self.actor.settle(STATE_JS)
        except Exception as err:  # Playwright's own Error: the page crashed or left the site
            raise EpisodeFailure("navigation_failed", f"the harness did not answer: {str(err).splitlines()[0]}") from None
        return shown

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        return await self.actor.perform(op, capture)

    async def settle(self) -> None:
        await self.actor.moved()

    def expect(self) -> None:
        """An agent's own action is about to be done on the page (its pages never load: nothing to count)."""

    async def rest(self, kind: str) -> None:
        """After an agent's own action of this kind: as after each of the actor's (`Actor.rest`)."""
        await self.actor.rest(kind)

    async def state(self) -> dict[str, Any]:
        state: dict[str, Any] = await self._harness(STATE_JS)
        return state

    async def enabled(self) -> list[dict[str, Any]]:
        """The moves the site's runtime finds enabled (`Move.to_json` form): what the conformance tests compare."""
        moves: list[dict[str, Any]] = await self._harness(ENABLED_JS)
        return moves

    async def screenshot(self) -> bytes:
        return await self.actor.screenshot()

    async def close(self) -> None:
        await self.page.context.close()


class GeneratedSite(Backend):
    """A built site's dist/: served on 127.0.0.1, reachable alone from a Chromium of its own or a shared one."""

    def __init__(self, dist: str | Path, *, image: ImageFormat = JPEG, chromium: Chromium | None = None):
        self.dist, self.image = Path(dist), image
        self._chromium, self._owns = chromium or Chromium(), chromium is None
        self._server: SiteServer | None = None
        self._isolation: Isolation | None = None
        self._sink: Sink | None = None

    @property
    def blocked_requests(self) -> int:
        return self._isolation.blocked if self._isolation is not None else 0

    @property
    def escaped(self) -> list[str]:
        """What reached the sink instead of the network: the browser's own services (form autofill) and a page's
        WebSockets, which no route sees. Not part of any report: the browser's services ask when they please."""
        return list(self._sink.hits) if self._sink is not None else []

    def fingerprint(self, h: Hasher) -> None:
        """Every file of dist/, by its path and bytes."""
        for path in sorted(p for p in self.dist.rglob("*") if p.is_file()):
            h.update(str(path.relative_to(self.dist)).encode())
            h.update(path.read_bytes())

    async def start(self) -> None:
        self._server = SiteServer(self.dist).__enter__()
        self._isolation = Isolation(self._server.url.rstrip("/"))
        self._sink = Sink()
        if self._owns:
            await self._chromium.start()

    async def open(self) -> SiteEpisode:
        assert self._server is not None and self._isolation is not None and self._sink is not None, \
            "start the backend first"
        page = await open_site(self._chromium.browser, self._server.url, self._isolation, proxy=self._sink.url)
        await prepare(page)
        return SiteEpisode(page, self._server.url, self.image)

    async def close(self) -> None:
        try:
            if self._owns:
                await self._chromium.close()
        finally:
            if self._server is not None:
                self._server.__exit__(None, None, None)
                self._server = None
            if self._sink is not None:
                self._sink.close()
                self._sink = None
