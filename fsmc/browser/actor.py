"""Atomic GUI operations done as an agent would: find the element, take its box, act at its centre.

One `Actor` drives one page. Every operation that an agent would see and do becomes a step record:
the screenshot before it, the operation, pixel and normalised coordinates, the target's box, the URL.
The conformance tests, `fsmc build --screenshots` and `fsmc replay` all act through this class.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from fsmc.browser.chromium import VIEWPORT

# Time a settled page is given after each move: longer than any transient feedback the sites show
# (the toast lasts 1.6 s). Under fake time this costs nothing.
SETTLE_MS = 2000
SCROLL_STEP = VIEWPORT["height"] // 2
# Screenshot encodings: JPEG (the default) is about twice as fast to take and a third of the size of
# PNG on pages with images; PNG is lossless. Both encoders are deterministic.
IMAGE_FORMATS: dict[str, dict[str, Any]] = {
    "jpeg": {"format": "jpeg", "quality": 90},
    "png": {"format": "png", "optimizeForSpeed": True},
}
MAX_SCROLLS = 12

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

SCROLL_JS = "() => [Math.round(scrollY), Math.max(0, document.documentElement.scrollHeight - innerHeight)]"


class ReplayFailure(Exception):
    """An operation could not be done or its result is wrong; `reason` is one of REASONS."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


REASONS = ("element_missing", "not_visible", "state_diverged", "navigation_failed", "timeout")


@dataclass(frozen=True)
class Op:
    """One concrete atomic operation, its selectors already rendered (a `gui` entry of trajectories.jsonl)."""

    op: str
    selector: str | None = None
    text: str | None = None
    until: str | None = None
    limit: int | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Op:
        return cls(d["op"], d.get("selector"), d.get("text"), d.get("until"), d.get("limit"))


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[int, int]:
        return round(self.x + self.w / 2), round(self.y + self.h / 2)

    def rounded(self) -> list[int]:
        return [round(self.x), round(self.y), round(self.w), round(self.h)]


# Given whether the view is still the settled view of the state, return the stored screenshot's name.
Shooter = Callable[[bool], Awaitable[str | None]]


async def _no_shot(pristine: bool) -> None:
    return None


class Actor:
    """Executes atomic operations on one Playwright (async) page and records them as agent steps."""

    def __init__(self, page: Any, *, fake_time: bool = True, image_format: str = "jpeg"):
        self.page = page
        self.fake_time = fake_time
        self.capture = IMAGE_FORMATS[image_format]
        self.pristine = True  # the view is the settled view of a state: no operation since the last settle
        self._cdp: Any = None
        self._url = ""

    async def screenshot(self) -> bytes:
        """The viewport as an image, straight from CDP (no font or animation waits, no re-encoding)."""
        if self._cdp is None:
            self._cdp = await self.page.context.new_cdp_session(self.page)
        shot = await self._cdp.send("Page.captureScreenshot", self.capture)
        return base64.b64decode(shot["data"])

    async def settle(self) -> None:
        """Let the page come to rest after a move (or a jump): time passes, the mouse leaves the page."""
        if self.fake_time:
            await self.page.clock.run_for(SETTLE_MS)
        await self.page.mouse.move(0, 0)
        await self.page.evaluate(IMAGES_JS)
        self.pristine = True

    async def visible(self, testid: str | None) -> bool:
        return bool(testid) and bool(await self.page.evaluate(VISIBLE_JS, testid))

    async def locate(self, testid: str | None) -> tuple[Box, dict[str, Any]]:
        """The element's box, scrolled into view if it was not; fails if absent, ambiguous, hidden or covered."""
        info = await self.page.evaluate(LOCATE_JS, testid or "")
        if info["count"] == 0:
            raise ReplayFailure("element_missing", f"no element with data-testid={testid!r}")
        if info["count"] > 1:
            raise ReplayFailure("element_missing", f"{info['count']} elements with data-testid={testid!r}")
        if not info["shown"]:
            raise ReplayFailure("not_visible", f"data-testid={testid!r} is not displayed")
        if not info["hit"]:
            raise ReplayFailure("not_visible", f"data-testid={testid!r} is covered by another element")
        if info["scrolled"]:
            self.pristine = False
        return Box(info["x"], info["y"], info["w"], info["h"]), info

    def location(self) -> str:
        """The page's URL without its origin (the local server's port changes from run to run): `/#/cart`."""
        parts = urlsplit(self.page.url)
        return urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))

    def record(self, kind: str, op: Op, shot: str | None, box: Box | None, **extra: Any) -> dict[str, Any]:
        rec: dict[str, Any] = {"op": kind, "selector": op.selector, "screenshot": shot, "url": self._url}
        if box is not None:
            x, y = box.center
            rec.update(x=x, y=y, nx=round(x / VIEWPORT["width"], 4), ny=round(y / VIEWPORT["height"], 4),
                       bbox=box.rounded())
        rec.update({k: v for k, v in extra.items() if v is not None})
        return rec

    async def perform(self, op: Op, shoot: Shooter = _no_shot) -> list[dict[str, Any]]:
        """Do one operation; returns the agent steps it took (a scroll or repeat may take several, a wait none)."""
        handler = getattr(self, f"_op_{op.op}", None)
        if handler is None:
            raise ReplayFailure("element_missing", f"unknown GUI operation {op.op!r}")
        records: list[dict[str, Any]] = await handler(op, shoot)
        return records

    async def _shot(self, shoot: Shooter) -> str | None:
        """The screenshot before an operation (and the URL it shows), once the view has finished loading."""
        if not self.pristine:
            await self.page.evaluate(IMAGES_JS)
        self._url = self.location()
        name = await shoot(self.pristine)
        self.pristine = False
        return name

    async def _op_click(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        await self.page.mouse.click(*box.center)
        return [self.record("click", op, shot, box, element=info["name"])]

    async def _op_hover(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        await self.page.mouse.move(0, 0)  # leave first, so that an element already under the mouse is entered
        await self.page.mouse.move(*box.center)
        return [self.record("hover", op, shot, box, element=info["name"])]

    async def _op_type(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        keyboard = self.page.keyboard
        await self.page.mouse.click(*box.center)
        await keyboard.press("ControlOrMeta+A")
        if op.text:
            await keyboard.insert_text(op.text)
        else:
            await keyboard.press("Backspace")
        return [self.record("type", op, shot, box, element=info["name"], text=op.text or "")]

    async def _op_press(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        if not info["focused"]:  # a field is clicked into, anything else focused (as Tab would)
            if info["field"]:
                await self.page.mouse.click(*box.center)
            else:
                await self.page.focus(f'[data-testid="{op.selector}"]')
        key = op.text or "Enter"
        await self.page.keyboard.press(key)
        return [self.record("press", op, shot, box, element=info["name"], key=key)]

    async def _op_select(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        try:  # a native <select>'s popup is not part of the page: pick the option as the popup would
            await self.page.select_option(f'[data-testid="{op.selector}"]', value=op.text or "", timeout=2000)
        except Exception as err:  # Playwright's own Error: no such option, or the select is disabled
            raise ReplayFailure("element_missing", f"cannot choose {op.text!r} in data-testid={op.selector!r}: "
                                f"{str(err).splitlines()[0]}") from None
        return [self.record("select", op, shot, box, element=info["name"], text=op.text or "")]

    async def _op_drag(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        box, info = await self.locate(op.selector)
        shot = await self._shot(shoot)
        mouse = self.page.mouse
        await mouse.move(*box.center)
        await mouse.down()
        target, _ = await self.locate(op.text)  # drop targets may appear only once a drag has started
        await mouse.move(*target.center, steps=4)
        await mouse.up()
        return [self.record("drag", op, shot, box, element=info["name"], to=list(target.center), to_selector=op.text,
                            to_bbox=target.rounded())]

    async def _op_wait(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        if self.fake_time:
            await self.page.clock.run_for(op.limit or 0)
        return []

    async def _op_scroll_until_visible(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for _ in range(op.limit or MAX_SCROLLS):
            if await self.visible(op.selector):
                return records
            before, bottom = await self.page.evaluate(SCROLL_JS)
            if before >= bottom:
                break
            shot = await self._shot(shoot)
            x, y = VIEWPORT["width"] // 2, VIEWPORT["height"] // 2
            await self.page.mouse.move(x, y)
            await self.page.mouse.wheel(0, SCROLL_STEP)
            await self._scrolled_from(before)
            records.append(self.record("scroll", op, shot, None, x=x, y=y, nx=0.5, ny=0.5, direction="down", dy=SCROLL_STEP))
        if not await self.visible(op.selector):
            raise ReplayFailure("not_visible", f"data-testid={op.selector!r} did not come into view by scrolling")
        return records

    async def _scrolled_from(self, before: int) -> None:
        """Wait until a wheel event has moved the page (it is applied asynchronously)."""
        for _ in range(50):
            if (await self.page.evaluate(SCROLL_JS))[0] != before:
                return
        raise ReplayFailure("timeout", "the page did not scroll")

    async def _op_repeat_click(self, op: Op, shoot: Shooter) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for _ in range(op.limit or 1):
            if await self.visible(op.until):
                return records
            records += await self._op_click(op, shoot)
        if not await self.visible(op.until):
            raise ReplayFailure("element_missing", f"data-testid={op.until!r} not shown after {op.limit} clicks "
                                f"on {op.selector!r}")
        return records
