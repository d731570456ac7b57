"""Debian's Chromium through Playwright: launched offline, one isolated 1280×720 context per site, fake time."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fsmc.errors import FsmcError

VIEWPORT = {"width": 1280, "height": 720}
# Off the network (no background services), and rendering that does not depend on timing or the GPU:
# no smooth scrolling, no overlay scrollbars appearing and fading, no font hinting differences, and tiles
# re-rastered whole, so a state's view has the same pixels whichever views came before it.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-smooth-scrolling",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    "--disable-partial-raster",  # a tile partly re-rastered anti-aliases its text otherwise than a whole one
    "--disable-frame-rate-limit",
]
HARNESS_READY = "() => window.__fsmc !== undefined"
# The text caret blinks on Chromium's own timer, not the page's (fake) clock: a screenshot of a focused field would
# show it or not by chance. Hidden, as Playwright's own page.screenshot hides it by default.
HIDE_CARET = """addEventListener('DOMContentLoaded', () => {
  const style = document.createElement('style')
  style.textContent = '*, *::before, *::after { caret-color: transparent !important; }'
  document.head.appendChild(style)
})"""


class BrowserMissing(FsmcError, RuntimeError):
    """Chromium (or Playwright) is not installed."""


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise BrowserMissing("Chromium was not found on PATH: run `bash scripts/setup.sh` (Debian package `chromium`)")
    return path


@dataclass
class Isolation:
    """Lets the browser reach only the site under test; counts (and keeps a few of) the requests it blocks."""

    origin: str
    blocked: int = 0
    blocked_urls: list[str] = field(default_factory=list)

    def allows(self, url: str) -> bool:
        return url.startswith(self.origin) or url.startswith(("data:", "blob:"))

    def _block(self, url: str) -> None:
        self.blocked += 1
        if len(self.blocked_urls) < 20:
            self.blocked_urls.append(url)

    async def route(self, route: Any) -> None:
        if self.allows(route.request.url):
            await route.continue_()
        else:
            self._block(route.request.url)
            await route.abort("blockedbyclient")


async def launch(playwright: Any) -> Any:
    """A headless Chromium from `async_playwright()`."""
    try:
        return await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
    except BrowserMissing:
        raise
    except Exception as err:  # Playwright raises its own Error type for a browser that will not start
        raise BrowserMissing(f"Chromium did not start: {str(err).splitlines()[0]}") from None


class Chromium:
    """Playwright and one headless Chromium, started and closed together; several sites may share it."""

    def __init__(self) -> None:
        self.browser: Any = None
        self._playwright: Any = None

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self.browser = await launch(self._playwright)

    async def close(self) -> None:
        if self.browser is not None:
            await self.browser.close()
            self.browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None


async def open_site(browser: Any, url: str, isolation: Isolation, *, fake_time: bool = True,
                    proxy: str | None = None) -> Any:
    """A page on the site in a fresh context: 1280×720, reduced motion, isolated, timers under our control, no caret;
    with `proxy` (a `Sink`'s URL), whatever is no page request of the site (the browser's services, WebSockets) goes
    there; the site's own host is reached directly (Playwright sends loopback through a context's proxy too).

    With fake time the page's clock only moves when we say so (`page.clock.run_for`): toasts and
    delays elapse instantly and identically on every run, which keeps screenshots deterministic.
    """
    context = await browser.new_context(viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce",
                                        service_workers="block", locale="en-GB", timezone_id="UTC",
                                        proxy={"server": proxy, "bypass": urlsplit(url).hostname or ""} if proxy else None)
    await context.route("**/*", isolation.route)
    await context.add_init_script(HIDE_CARET)
    if fake_time:
        await context.clock.install(time=0)
        await context.clock.pause_at(1000)
    page = await context.new_page()
    await page.goto(url, wait_until="load")
    await page.wait_for_function(HARNESS_READY, timeout=10_000)
    return page
