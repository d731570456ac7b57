"""Atomic GUI operations in a Chromium page, done as an agent would: find the element, take its box, act at its centre.

One `Actor` drives one page. Every operation that an agent would see and do becomes a `Step`: the
operation, pixel coordinates, the target's box, the URL, and (as the caller's `Capture` asks) the view
before it. The actor knows nothing of who keeps the images: it says which view was the settled one.
Every backend whose episodes are pages in Chromium acts through this class.
"""

from __future__ import annotations

import base64
import functools
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from fsmc.backends.protocol import JPEG, Box, Capture, EpisodeFailure, ImageFormat, Op, Step
from fsmc.browser.chromium import VIEWPORT

# Time a settled page is given after each move: longer than any transient feedback the sites show
# (the toast lasts 1.6 s). Under fake time this costs nothing.
SETTLE_MS = 2000
SCROLL_STEP = VIEWPORT["height"] // 2
MAX_SCROLLS = 12
SIZE = (VIEWPORT["width"], VIEWPORT["height"])

LOCATE_JS = r"""(tid) => {
  const all = document.querySelectorAll(`[data-testid="${CSS.escape(tid)}"]`);
  if (all.length !== 1) return {count: all.length};
  const el = all[0];
  let r = el.getBoundingClientRect();
  const inView = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  if (!inView && r.width > 0) { el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); r = el.getBoundingClientRect(); }
  const style = getComputedStyle(el);
  const shown = r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  const top = shown ? document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) : null;
  return {count: 1, x: r.left, y: r.top, w: r.width, h: r.height, shown, scrolled: !inView,
          hit: !!top && (top === el || el.contains(top)), focused: document.activeElement === el,
          field: ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName),
          name: (el.getAttribute('aria-label') || el.innerText || el.getAttribute('placeholder') || '')
                  .replace(/\s+/g, ' ').trim().slice(0, 80)};
}"""

VISIBLE_JS = """(tid) => {
  const el = document.querySelector(`[data-testid="${CSS.escape(tid)}"]`);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
}"""

# Resolves once every image of the page has loaded (or failed) and is decoded, so that no screenshot
# catches a placeholder where a picture is about to appear.
IMAGES_JS = """() => Promise.all([...document.images].map((img) => (img.complete ? Promise.resolve() : new Promise((done) => {
  img.addEventListener('load', done, {once: true});
  img.addEventListener('error', done, {once: true});
})).then(() => img.decode().catch(() => null))))"""



@functools.cache
def resting_js(report: str | None, clock: bool) -> str:
    """The fake clock run for `ms` (when `clock`), then IMAGES_JS, then `report` (a JS function) if given: its result."""
    run = "await globalThis.__pwClock.controller.runFor(ms); " if clock else ""
    then = f"return ({report})();" if report else "return null;"
    return f"async (ms) => {{ {run}await ({IMAGES_JS})(); {then} }}"


async def come_to_rest(page: Any, fake_time: bool = True, report: str | None = None) -> Any:
    """Time passes (fake, so at once) and the images load; then `report`'s result (a JS function), if given.

    One round trip where the page has no frames: the fake clock Playwright installs is run in the page itself, as
    `page.clock.run_for` runs it. That call costs two round trips more (it runs every frame's clock), and leaves an
    init script behind in the context each time (its log, which a new document replays: so the time a page loaded
    later starts at depended on how many moves came before it; now it does not).
    """
    in_page = fake_time and len(page.frames) == 1
    if fake_time and not in_page:
        await page.clock.run_for(SETTLE_MS)
    return await page.evaluate(resting_js(report, in_page), SETTLE_MS)


SCROLL_JS = "() => [Math.round(scrollY), Math.max(0, document.documentElement.scrollHeight - innerHeight)]"


def capture_params(image: ImageFormat) -> dict[str, Any]:
    """The image format as Chrome's `Page.captureScreenshot` takes it (PNG optimised for speed)."""
    if image.quality is not None:
        return {"format": image.name, "quality": image.quality}
    return {"format": image.name, "optimizeForSpeed": True}


class Actor:
    """Executes atomic operations on one Playwright (async) page and records them as agent steps."""

    def __init__(self, page: Any, *, fake_time: bool = True, image: ImageFormat = JPEG):
        self.page = page
        self.fake_time = fake_time
        self.params = capture_params(image)
        self.pristine = True  # the view is the settled view of a state: no operation since the last settle
        self._capture = Capture.EVERY
        self._cdp: Any = None
        self._url = ""

    async def screenshot(self) -> bytes:
        """The viewport as an image, straight from CDP (no font or animation waits, no re-encoding)."""
        if self._cdp is None:
            self._cdp = await self.page.context.new_cdp_session(self.page)
        shot = await self._cdp.send("Page.captureScreenshot", self.params)
        return base64.b64decode(shot["data"])

    async def settle(self, report: str | None = None, *, mouse_leaves: bool = True) -> Any:
        """Let the page come to rest after a move (or a jump): the mouse leaves the page (unless `mouse_leaves` is
        false: after an agent's own action, whose hover must last), then time passes (`come_to_rest`).

        `report`: a JS function whose result is returned, called once the images are in (one round trip for both).
        """
        if mouse_leaves:
            await self.page.mouse.move(0, 0)
        result = await come_to_rest(self.page, self.fake_time, report)
        self.pristine = True
        return result

    visible_js, locate_js = VISIBLE_JS, LOCATE_JS  # how an element is found: by data-testid here

    def what(self, testid: str | None) -> str:
        """How an element is named in a failure."""
        return f"data-testid={testid!r}"

    def not_one(self, testid: str | None, count: int) -> str:
        """The failure when `count` elements, not one, answer to `testid`."""
        return f"no element with {self.what(testid)}" if count == 0 else f"{count} elements with {self.what(testid)}"

    async def _find(self, testid: str | None) -> dict[str, Any]:
        info: dict[str, Any] = await self.page.evaluate(self.locate_js, testid or "")
        return info

    async def visible(self, testid: str | None) -> bool:
        return bool(testid) and bool(await self.page.evaluate(self.visible_js, testid))

    async def locate(self, testid: str | None) -> tuple[Box, dict[str, Any]]:
        """The element's box, scrolled into view if it was not; fails if absent, ambiguous, hidden or covered."""
        info = await self._find(testid)
        if info["count"] != 1:
            raise EpisodeFailure("element_missing", self.not_one(testid, info["count"]))
        if not info["shown"]:
            raise EpisodeFailure("not_visible", f"{self.what(testid)} is not displayed")
        if not info["hit"]:
            raise EpisodeFailure("not_visible", f"{self.what(testid)} is covered by another element")
        if info["scrolled"]:
            self.pristine = False
        return Box(info["x"], info["y"], info["w"], info["h"]), info

    def location(self) -> str:
        """The page's URL without its origin (the local server's port changes from run to run): `/#/cart`."""
        parts = urlsplit(self.page.url)
        return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        """Do one operation; returns the agent steps it took (a scroll or repeat may take several, a wait none)."""
        handler = getattr(self, f"_op_{op.op}", None)
        if handler is None:
            raise EpisodeFailure("element_missing", f"unknown GUI operation {op.op!r}")
        self._capture = capture
        steps: list[Step] = await handler(op)
        return steps

    async def _before(self) -> tuple[bytes | None, bool]:
        """The view before an operation (and the URL it shows), once it has finished loading; and whether it is
        the settled view. Its image is taken as the caller's `Capture` asks."""
        if not self.pristine:
            await self.page.evaluate(IMAGES_JS)
        self._url = self.location()
        settled, self.pristine = self.pristine, False
        wanted = self._capture is Capture.EVERY or (self._capture is Capture.UNSETTLED and not settled)
        return (await self.screenshot() if wanted else None), settled

    def _step(self, kind: str, op: Op, before: tuple[bytes | None, bool], box: Box | None,
              point: tuple[int, int] | None = None, **details: Any) -> Step:
        image, settled = before
        return Step(kind, op.selector, self._url, SIZE, point or (box.center if box else None), box, image, settled,
                    {k: v for k, v in details.items() if v is not None})

    async def _op_click(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        await self.page.mouse.click(*box.center)
        return [self._step("click", op, before, box, element=info["name"])]

    async def _op_hover(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        await self.page.mouse.move(0, 0)  # leave first, so that an element already under the mouse is entered
        await self.page.mouse.move(*box.center)
        return [self._step("hover", op, before, box, element=info["name"])]

    async def _op_type(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        keyboard = self.page.keyboard
        await self.page.mouse.click(*box.center)
        await keyboard.press("ControlOrMeta+A")
        if op.text:
            await keyboard.insert_text(op.text)
        else:
            await keyboard.press("Backspace")
        return [self._step("type", op, before, box, element=info["name"], text=op.text or "")]

    async def _op_press(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        if not info["focused"]:  # a field is clicked into, anything else focused (as Tab would)
            if info["field"]:
                await self.page.mouse.click(*box.center)
            else:
                await self.page.focus(f'[data-testid="{op.selector}"]')
        key = op.text or "Enter"
        await self.page.keyboard.press(key)
        return [self._step("press", op, before, box, element=info["name"], key=key)]

    async def _op_select(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        try:  # a native <select>'s popup is not part of the page: pick the option as the popup would
            await self.page.select_option(f'[data-testid="{op.selector}"]', value=op.text or "", timeout=2000)
        except Exception as err:  # Playwright's own Error: no such option, or the select is disabled
            raise EpisodeFailure("element_missing", f"cannot choose {op.text!r} in data-testid={op.selector!r}: "
                                 f"{str(err).splitlines()[0]}") from None
        return [self._step("select", op, before, box, element=info["name"], text=op.text or "")]

    async def _op_drag(self, op: Op) -> list[Step]:
        box, info = await self.locate(op.selector)
        before = await self._before()
        mouse = self.page.mouse
        await mouse.move(*box.center)
        await mouse.down()
        target, _ = await self.locate(op.text)  # drop targets may appear only once a drag has started
        await mouse.move(*target.center, steps=4)
        await mouse.up()
        return [self._step("drag", op, before, box, element=info["name"], to=list(target.center), to_selector=op.text,
                           to_bbox=target.rounded())]

    async def _op_wait(self, op: Op) -> list[Step]:
        if self.fake_time:
            await self.page.clock.run_for(op.limit or 0)
        return []

    async def _op_scroll_until_visible(self, op: Op) -> list[Step]:
        steps: list[Step] = []
        for _ in range(op.limit or MAX_SCROLLS):
            if await self.visible(op.selector):
                return steps
            top, bottom = await self.page.evaluate(SCROLL_JS)
            if top >= bottom:
                break
            before = await self._before()
            centre = (SIZE[0] // 2, SIZE[1] // 2)
            await self.page.mouse.move(*centre)
            await self.page.mouse.wheel(0, SCROLL_STEP)
            await self._scrolled_from(top)
            steps.append(self._step("scroll", op, before, None, centre, direction="down", dy=SCROLL_STEP))
        if not await self.visible(op.selector):
            raise EpisodeFailure("not_visible", f"data-testid={op.selector!r} did not come into view by scrolling")
        return steps

    async def _scrolled_from(self, before: int) -> None:
        """Wait until a wheel event has moved the page (it is applied asynchronously)."""
        for _ in range(50):
            if (await self.page.evaluate(SCROLL_JS))[0] != before:
                return
        raise EpisodeFailure("timeout", "the page did not scroll")

    async def _op_repeat_click(self, op: Op) -> list[Step]:
        steps: list[Step] = []
        for _ in range(op.limit or 1):
            if await self.visible(op.until):
                return steps
            steps += await self._op_click(op)
        if not await self.visible(op.until):
            raise EpisodeFailure("element_missing", f"data-testid={op.until!r} not shown after {op.limit} clicks "
                                 f"on {op.selector!r}")
        return steps
