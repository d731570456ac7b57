"""The page's world pinned, so that the same actions on a captured site give the same pixels.

Every capture and every offline view opens its pages in a context made here: 1280×720 at scale 1,
reduced motion, no service workers, en-GB in UTC, the clock installed at a fixed instant and paused
(time moves only when the episode lets it, `Actor.settle`), and `Math.random` / `crypto.getRandomValues`
seeded afresh on every document; the text caret hidden (it blinks on Chromium's own timer); CSS animations are stilled before a view is taken (`STILL_JS`). An init script also notes when a document is about to be left, so
that an episode knows a click started a page load and waits for it.
"""

from __future__ import annotations

from typing import Any

from fsmc.archive.routes import Routes
from fsmc.browser import HIDE_CARET, VIEWPORT

PINNED_TIME_MS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
SEED = 20250101

# mulberry32, seeded per document; getRandomValues filled from it too (randomUUID is built on it in Chromium)
PIN_JS = """(() => {
  let s = SEED >>> 0;
  const next = () => { s = (s + 0x6D2B79F5) >>> 0; let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  Math.random = next;
  if (self.crypto) crypto.getRandomValues = (a) => { for (let i = 0; i < a.length; i++) a[i] = Math.floor(next() * 4294967296); return a; };
  if (self === self.top) {
    self.__fsmcLeaving = false;
    if (self.navigation) navigation.addEventListener('navigate', (e) => {
      if (!e.destination.sameDocument) self.__fsmcLeaving = true; });
    // a form's submission navigates a task later than its click: its submit event says it is coming
    addEventListener('submit', (e) => { if (!e.defaultPrevented) self.__fsmcLeaving = true; });
  }
})();""".replace("SEED", str(SEED))

# a load is coming, or under way: the document is about to be left, or the new one is not complete yet
LEAVING_JS = "() => self.__fsmcLeaving === true || document.readyState !== 'complete'"
# CSS animations run on the compositor's clock, not the page's: finite ones are finished, endless ones (a blinking
# caret drawn by an editor, a spinner) cancelled, as Playwright's own screenshots do with animations="disabled".
# Then the pictures a stylesheet draws (`background-image`) are loaded and decoded, as the page's <img> are: a
# stylesheet's background that came in late made a view differ between two runs of the same page.
STILL_JS = """() => { for (const a of document.getAnimations()) {
  const t = a.effect && a.effect.getComputedTiming();
  if (t && t.endTime !== Infinity) a.finish(); else a.cancel(); }
  const urls = new Set();
  for (const el of document.querySelectorAll('*')) {
    const bg = getComputedStyle(el).backgroundImage;
    if (bg && bg !== 'none') for (const m of bg.matchAll(/url\\("?([^")]*)"?\\)/g)) urls.add(m[1]);
  }
  return Promise.all([...urls].map((url) => { const img = new Image(); img.src = url;
    return img.decode().catch(() => null); })).then(() => null); }"""


async def pinned_page(browser: Any, routes: Routes, proxy: str | None = None, bypass: str | None = None) -> Any:
    """A page in a fresh context, its clock and randomness pinned, every request of it held for `routes`;
    with `proxy`, whatever escapes them goes there (a `Sink`), but for the hosts in `bypass`."""
    context = await browser.new_context(viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce",
                                        service_workers="block", locale="en-GB", timezone_id="UTC",
                                        proxy={"server": proxy, "bypass": bypass or ""} if proxy else None)
    await context.clock.install(time=PINNED_TIME_MS)
    await context.clock.pause_at(PINNED_TIME_MS + 1000)
    await context.add_init_script(PIN_JS)
    await context.add_init_script(HIDE_CARET)
    page = await context.new_page()
    await routes.attach(page)
    return page
