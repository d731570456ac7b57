"""Atomic GUI operations in a Chromium page, done as an agent would: find the element, take its box, act at its centre.

One `Actor` drives one page. Every operation that an agent would see and do becomes a `Step`: the
operation, pixel coordinates, the target's box, the URL, and (as the caller's `Capture` asks) the view
before it. The actor knows nothing of who keeps the images: it says which view was the settled one.
Every backend whose episodes are pages in Chromium acts through this class, and every action through
`fsmc.backends.pointer`, as the environments do.
"""

from __future__ import annotations

import base64
import functools
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from fsmc.backends.pointer import AWAY, MOVED, WHEEL, Action, lifts, perform
from fsmc.backends.protocol import JPEG, Box, Capture, EpisodeFailure, ImageFormat, Op, Step
from fsmc.browser.chromium import VIEWPORT

# Time a settled page is given after each move: longer than any transient feedback the sites show
# (the toast lasts 1.6 s). Under fake time this costs nothing.
SETTLE_MS = 2000
MAX_SCROLLS = 12
SIZE = (VIEWPORT["width"], VIEWPORT["height"])

# The element's box and what acting on it needs. `away`: null when it is in view (wholly, or its centre where it is
# taller or wider than the view), else the way the wheel must turn to bring it in ("down" or "up").
LOCATE_JS = r"""(tid) => {
  const all = document.querySelectorAll(`[data-testid="${CSS.escape(tid)}"]`);
  if (all.length !== 1) return {count: all.length};
  const el = all[0];
  const r = el.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const inY = r.height <= innerHeight ? r.top >= 0 && r.bottom <= innerHeight : cy >= 0 && cy < innerHeight;
  const inX = cx >= 0 && cx < innerWidth;
  const style = getComputedStyle(el);
  const shown = r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  const away = inY || !inX ? null : (cy >= innerHeight / 2 ? 'down' : 'up');
  const top = shown && !away ? document.elementFromPoint(cx, cy) : null;
  let over = null;  // the centre of the part in view of the element it scrolls within (a sidebar's list), if any
  for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
    if (!/(auto|scroll)/.test(getComputedStyle(a).overflowY) || a.scrollHeight <= a.clientHeight) continue;
    const q = a.getBoundingClientRect();
    over = [Math.round((Math.max(q.left, 0) + Math.min(q.right, innerWidth)) / 2),
            Math.round((Math.max(q.top, 0) + Math.min(q.bottom, innerHeight)) / 2)];
    break;
  }
  return {count: 1, x: r.left, y: r.top, w: r.width, h: r.height, shown, away, over,
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
    # a timer of the page's own that throws is the page's error, as it would be in a real browser (reported to the page's
    # `error` listeners and Playwright's `pageerror`), not the end of the run: the clock throws its first one at the end
    run = ("try { await globalThis.__pwClock.controller.runFor(ms); } catch (e) { reportError(e); } "
           if clock else "")
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
        try:
            await page.clock.run_for(SETTLE_MS)
        except Exception as err:  # Playwright's own Error: a timer of the page threw (its `pageerror` is not emitted)
            if page.is_closed():
                raise
            await page.evaluate("(m) => reportError(new Error(m))", str(err).splitlines()[0])
    return await page.evaluate(resting_js(report, in_page), SETTLE_MS)


def capture_params(image: ImageFormat) -> dict[str, Any]:
    """The image format as Chrome's `Page.captureScreenshot` takes it (PNG optimised for speed)."""
    if image.quality is not None:
        return {"format": image.name, "quality": image.quality}
    return {"format": image.name, "optimizeForSpeed": True}


class Pacer(Protocol):
    """How a page comes to rest after an agent's action: `expect` is called just before the action, `rest` after it
    (with the action's kind: the pointer leaves the page after all but a hover, `pointer.lifts`). A page that may
    load because of an action (a captured or cloned site) waits for that load in `rest`."""

    def expect(self) -> None: ...

    async def rest(self, kind: str) -> None: ...


class Actor:
    """Executes atomic operations on one Playwright (async) page and records them as agent steps.

    Each step is one action of the export's vocabulary, done through `pointer.perform` exactly as an environment does
    an agent's action, and followed by the same rest; whatever else the page needs to be acted on is a step of its
    own: an element out of view is brought into view by wheel turns (`scroll` steps), a field that must have the
    focus for a key press is clicked into (a `click` step). Nothing changes the view between two screenshots that an
    agent's own action would not change in the environment.
    """

    def __init__(self, page: Any, *, fake_time: bool = True, image: ImageFormat = JPEG):
        self.page = page
        self.fake_time = fake_time
        self.params = capture_params(image)
        self.pristine = True  # the view is the settled view of a state: no operation since the last settle
        self.hovering = False  # the last action was a hover: the pointer is still over the page
        self.pacer: Pacer = self  # who lets the page rest after each action (an episode whose pages load: itself)
        self._capture = Capture.EVERY
        self._cdp: Any = None
        self._url = ""

    # the actor's own pacing, for pages that never load (the generated site's)
    def expect(self) -> None:
        pass

    async def rest(self, kind: str) -> None:
        """After an action of this kind: the pointer leaves the page (`pointer.lifts`), time passes, images load."""
        await self.rest_page(mouse_leaves=lifts(kind))

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
        result = await self.rest_page(report, mouse_leaves=mouse_leaves)
        self.pristine = not self.hovering
        return result

    async def rest_page(self, report: str | None = None, *, mouse_leaves: bool = True) -> Any:
        """The mouse leaves the page (if `mouse_leaves`), then `come_to_rest`; `report`'s result."""
        if mouse_leaves:
            await self.page.mouse.move(*AWAY)
            self.hovering = False
        return await come_to_rest(self.page, self.fake_time, report)

    async def moved(self) -> None:
        """After a move's last operation: every action has rested already, so the view is the settled view of the new
        state, unless the move ended on a hover (the pointer then leaves, as the environments let it leave after an
        action that completes a move)."""
        if self.hovering or self.pristine:
            await self.pacer.rest(MOVED)
        self.pristine = True

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

    async def locate(self, testid: str | None, *, scroll: Op | None = None) -> tuple[Box, dict[str, Any], list[Step]]:
        """The element's box, once it is in view; fails if absent, ambiguous, hidden, covered or out of view.

        `scroll`: the operation on whose behalf an element out of view is brought into view by turning the wheel,
        each turn a `scroll` step (returned); without it, an element out of view fails."""
        steps: list[Step] = []
        while True:
            info = await self._find(testid)
            if info["count"] != 1:
                raise EpisodeFailure("element_missing", self.not_one(testid, info["count"]))
            if not info["shown"]:
                raise EpisodeFailure("not_visible", f"{self.what(testid)} is not displayed")
            if info["away"] is None:
                break
            if scroll is None or len(steps) >= MAX_SCROLLS:
                raise EpisodeFailure("not_visible", f"{self.what(testid)} is out of view")
            step = await self._wheel(scroll, info["away"], info.get("over"))
            if step is None:
                raise EpisodeFailure("not_visible", f"{self.what(testid)} cannot be scrolled into view")
            steps.append(step)
        if not info["hit"]:
            raise EpisodeFailure("not_visible", f"{self.what(testid)} is covered by another element")
        return Box(info["x"], info["y"], info["w"], info["h"]), info, steps

    async def _wheel(self, op: Op, direction: str, over: list[int] | None = None) -> Step | None:
        """One turn of the wheel at the centre of the view, as a `scroll` step; where that moves nothing, over the
        element the target scrolls within (`over`: a sidebar's list, which a wheel over the page leaves where it is);
        None when nothing moved."""
        before = await self._before()
        for point in dict.fromkeys([(SIZE[0] // 2, SIZE[1] // 2), *([(over[0], over[1])] if over else [])]):
            if await self._do(Action("scroll", point, text=direction)) is None:
                return self._step("scroll", op, before, None, point, direction=direction, dy=WHEEL[direction][1])
        return None

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
        """The view before an action (and the URL it shows); and whether it is the settled view. Its image is taken as
        the caller's `Capture` asks. The page is at rest: the action before it rested."""
        self._url = self.location()
        settled, self.pristine = self.pristine, False
        wanted = self._capture is Capture.EVERY or (self._capture is Capture.UNSETTLED and not settled)
        return (await self.screenshot() if wanted else None), settled

    async def _do(self, action: Action) -> str | None:
        """The action, as an environment does it, and the rest after it."""
        self.pacer.expect()
        note = await perform(self.page, action)
        self.hovering = not lifts(action.kind)
        await self.pacer.rest(action.kind)
        return note

    def _step(self, kind: str, op: Op, before: tuple[bytes | None, bool], box: Box | None,
              point: tuple[int, int] | None = None, **details: Any) -> Step:
        image, settled = before
        return Step(kind, op.selector, self._url, SIZE, point or (box.center if box else None), box, image, settled,
                    {k: v for k, v in details.items() if v is not None})

    async def _pointed(self, op: Op, kind: str, value: str | None = None, **details: Any) -> list[Step]:
        """An action at the centre of the operation's element (brought into view first)."""
        box, info, steps = await self.locate(op.selector, scroll=op)
        before = await self._before()
        note = await self._do(Action(kind, box.center, text=value))
        if note is not None:
            raise EpisodeFailure("element_missing", f"{self.what(op.selector)}: {note}")
        return [*steps, self._step(kind, op, before, box, element=info["name"], **details)]

    async def _op_click(self, op: Op) -> list[Step]:
        return await self._pointed(op, "click")

    async def _op_hover(self, op: Op) -> list[Step]:
        return await self._pointed(op, "hover")

    async def _op_type(self, op: Op) -> list[Step]:
        return await self._pointed(op, "type", op.text or "", text=op.text or "")

    async def _op_select(self, op: Op) -> list[Step]:
        return await self._pointed(op, "select", op.text or "", text=op.text or "")

    async def _op_press(self, op: Op) -> list[Step]:
        """A key pressed in the element: a field without the focus is clicked into first, a step of its own."""
        box, info, steps = await self.locate(op.selector, scroll=op)
        if not info["focused"]:
            if not info["field"]:
                raise EpisodeFailure("unreproducible", f"pressing a key in {self.what(op.selector)} needs it focused, "
                                     "and an agent could focus it only by clicking it, which would also activate it")
            steps += await self._pointed(op, "click")
        key = op.text or "Enter"
        before = await self._before()
        await self._do(Action("key", text=key))
        return [*steps, self._step("press", op, before, box, element=info["name"], key=key)]

    async def _op_drag(self, op: Op) -> list[Step]:
        box, info, steps = await self.locate(op.selector, scroll=op)
        before = await self._before()
        mouse = self.page.mouse
        self.pacer.expect()
        await mouse.move(*box.center)
        await mouse.down()
        target, _, _ = await self.locate(op.text)  # drop targets may appear only once a drag has started
        await mouse.move(*target.center, steps=4)
        await mouse.up()
        self.hovering = False
        await self.pacer.rest("drag")
        return [*steps, self._step("drag", op, before, box, element=info["name"], to=list(target.center),
                                   to_selector=op.text, to_bbox=target.rounded())]

    async def _op_wait(self, op: Op) -> list[Step]:
        """Time an agent lets pass: each action is followed by SETTLE_MS of the page's time, so a shorter wait has
        passed already; a longer one is no step an agent can take."""
        if self.fake_time and (op.limit or 0) > SETTLE_MS:
            raise EpisodeFailure("unreproducible", f"a wait of {op.limit} ms is longer than the {SETTLE_MS} ms that "
                                 "pass after each action of an agent")
        return []

    async def _op_scroll_until_visible(self, op: Op) -> list[Step]:
        steps: list[Step] = []
        for _ in range(op.limit or MAX_SCROLLS):
            if await self.visible(op.selector):
                return steps
            step = await self._wheel(op, "down")
            if step is None:
                break
            steps.append(step)
        if not await self.visible(op.selector):
            raise EpisodeFailure("not_visible", f"data-testid={op.selector!r} did not come into view by scrolling")
        return steps

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
