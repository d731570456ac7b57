"""Checked actions done in a Chromium page with the real mouse and keyboard, at the agent's pixels."""

from __future__ import annotations

from typing import Any

from fsmc.backends.actor import SCROLL_STEP, come_to_rest
from fsmc.env.actions import Action

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
SCROLL_POS_JS = "() => [Math.round(scrollX), Math.round(scrollY)]"
WHEEL = {"down": (0, SCROLL_STEP), "up": (0, -SCROLL_STEP), "right": (SCROLL_STEP, 0), "left": (-SCROLL_STEP, 0)}


async def prepare(page: Any) -> None:
    """Make the page fit for pixel actions, now and after any reload."""
    await page.add_init_script(f"document.addEventListener('DOMContentLoaded', {GUARDS_JS})")
    await page.evaluate(GUARDS_JS)


async def perform(page: Any, action: Action) -> str | None:
    """Do one action (not `answer`) on the page; a note when it did nothing an agent could not see (a missed select)."""
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
        await _scroll(page, x, y, action.text or "down")
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


async def _scroll(page: Any, x: int, y: int, direction: str) -> None:
    """Turn the wheel over the point and wait until the page has moved (wheel events are applied asynchronously)."""
    before = await page.evaluate(SCROLL_POS_JS)
    await page.mouse.move(x, y)
    await page.mouse.wheel(*WHEEL[direction])
    for _ in range(20):
        if await page.evaluate(SCROLL_POS_JS) != before:
            return


async def rest(page: Any, fake_time: bool = True) -> None:
    """Let the page come to rest after an action: time passes (fake, so instantly) and images load; the mouse stays."""
    await come_to_rest(page, fake_time)
