"""An agent's action done in a Chromium page with the real mouse and keyboard, at pixels, and what follows each one.

One code path for every actor of the project: the environments do an agent's checked action with `perform`, and
replay's actor does each atomic operation of a GUI procedure through the same function, at the centre of the
element it found. After every action the page comes to rest the same way (`after`): the pointer leaves the page
(but after a hover, whose menu must stay open), time passes on the page's fake clock and the images load. So the
view before each step of a dataset is the view the environment shows after the same actions from the same reset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fsmc.browser.chromium import VIEWPORT

SCROLL_STEP = VIEWPORT["height"] // 2

# The element under a point, if it is a <select> (or inside one); its options' values and labels.
SELECT_AT_JS = """([x, y]) => {
  const el = document.elementFromPoint(x, y);
  const sel = el && el.closest('select');
  return sel ? [...sel.options].map((o) => [o.value, o.label]) : null;
}"""
CHOOSE_JS = """([x, y, value]) => {
  const sel = document.elementFromPoint(x, y).closest('select');
  sel.focus();
  sel.value = value;
  sel.dispatchEvent(new Event('input', {bubbles: true}));
  sel.dispatchEvent(new Event('change', {bubbles: true}));
}"""
# A native <select>'s popup is no part of the page (no screenshot shows it) and, once open, swallows the keyboard:
# a press on a drop-down list focuses it and opens nothing; `select` picks its options. A sideways wheel turn
# past the page's edge is Chromium's gesture for going back in history: switched off.
GUARDS_JS = """() => { if (window.__fsmcGuards) return; window.__fsmcGuards = true;
  document.documentElement.style.overscrollBehaviorX = 'none';
  document.addEventListener('mousedown', (e) => { const s = e.target.closest && e.target.closest('select');
    if (s) { e.preventDefault(); s.focus(); } }, true); }"""
# Where the page stands: its own scroll, and that of every element the point lies in that scrolls (a sidebar's list).
SCROLL_POS_JS = """([x, y]) => { const at = [Math.round(scrollX), Math.round(scrollY)];
  for (let e = document.elementFromPoint(x, y); e; e = e.parentElement) at.push(e.scrollLeft, e.scrollTop);
  return at; }"""
WHEEL = {"down": (0, SCROLL_STEP), "up": (0, -SCROLL_STEP), "right": (SCROLL_STEP, 0), "left": (-SCROLL_STEP, 0)}
AWAY = (0, 0)  # where the pointer rests between actions: the page's corner, over no control
MOVED = "moved"  # no action: the rest once a move is complete, which the pointer leaves the page for, even after a hover


@dataclass(frozen=True)
class Action:
    """A checked agent action: its kind, where (pixels of the screenshot) and what."""

    kind: str
    point: tuple[int, int] | None = None
    to: tuple[int, int] | None = None
    text: str | None = None  # type and answer: the text; select: the value; key: the key; scroll: the direction

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind}
        if self.point is not None:
            out["coordinate"] = list(self.point)
        if self.to is not None:
            out["to"] = list(self.to)
        if self.text is not None:
            out[{"select": "value", "key": "key", "scroll": "direction"}.get(self.kind, "text")] = self.text
        return out


def lifts(kind: str) -> bool:
    """Whether the pointer leaves the page after an action of this kind: after all but a hover, whose menu or
    tooltip must stay open for the next action. So a view never depends on where an earlier click was made."""
    return kind != "hover"


async def prepare(page: Any) -> None:
    """Make the page fit for pixel actions, now and after any reload."""
    await page.add_init_script(f"document.addEventListener('DOMContentLoaded', {GUARDS_JS})")
    await page.evaluate(GUARDS_JS)


async def perform(page: Any, action: Action) -> str | None:
    """Do one action (not `answer`) on the page; a note when it did nothing an agent could see (a missed select, a
    wheel turn that moved nothing)."""
    mouse, keyboard = page.mouse, page.keyboard
    if action.kind == "key":
        await keyboard.press(action.text)
        return None
    assert action.point is not None
    x, y = action.point
    if action.kind == "click":
        await mouse.click(x, y)
    elif action.kind == "hover":
        await mouse.move(x, y)
    elif action.kind == "type":
        await mouse.click(x, y)
        await keyboard.press("ControlOrMeta+A")
        if action.text:
            await keyboard.insert_text(action.text)
        else:
            await keyboard.press("Backspace")
    elif action.kind == "select":
        return await _select(page, x, y, action.text or "")
    elif action.kind == "drag":
        assert action.to is not None
        await mouse.move(x, y)
        await mouse.down()
        await mouse.move(*action.to, steps=4)
        await mouse.up()
    elif action.kind == "scroll":
        return await _scroll(page, x, y, action.text or "down")
    return None


async def _select(page: Any, x: int, y: int, value: str) -> str | None:
    """A native <select>'s popup is not part of the page: the option is picked as the popup would pick it."""
    options = await page.evaluate(SELECT_AT_JS, [x, y])
    if options is None:
        return f"no drop-down list at ({x}, {y})"
    values = {v: v for v, _ in options} | {label.strip(): v for v, label in options}
    if value not in values:
        return f"the drop-down list at ({x}, {y}) has no option {value!r}"
    await page.evaluate(CHOOSE_JS, [x, y, values[value]])
    return None


async def _scroll(page: Any, x: int, y: int, direction: str) -> str | None:
    """Turn the wheel over the point and wait until the page, or an element under the point, has moved (wheel events
    are applied asynchronously)."""
    before = await page.evaluate(SCROLL_POS_JS, [x, y])
    await page.mouse.move(x, y)
    await page.mouse.wheel(*WHEEL[direction])
    for _ in range(20):
        if await page.evaluate(SCROLL_POS_JS, [x, y]) != before:
            return None
    return f"the page did not scroll {direction}"
