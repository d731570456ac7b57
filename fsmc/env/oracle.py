"""The oracle policy: a verified trajectory's GUI operations turned into pixel actions on the live page.

It reads element boxes from the page (it is privileged: an agent sees only the screenshot) and sends the
same actions an agent would, one per step, so a trajectory that `fsmc verify` accepts must earn reward 1.
The generated site's GUI procedures name elements by data-testid; a captured or cloned site's by CSS selector
(`SelectorOracle`); `oracle_for` picks the one the environment's episode acts with.
"""

from __future__ import annotations

from typing import Any

from fsmc.backends.actor import VISIBLE_JS
from fsmc.backends.captured import CSS_VISIBLE_JS, SelectorActor, by_css

BOX_JS = r"""(tid) => {
  const el = document.querySelector(`[data-testid="${CSS.escape(tid)}"]`);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, above: r.top + r.height / 2 < 1, below: r.top + r.height / 2 > innerHeight - 2,
          focused: document.activeElement === el, field: ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)};
}"""
CENTRE = [640, 360]
CSS_BOX_JS = by_css(BOX_JS)


class Oracle:
    """Acts out one trajectory record of trajectories.jsonl; `act` gives the next action, None when it is done."""

    box_js, visible_js = BOX_JS, VISIBLE_JS  # how an element is found: by data-testid here

    def css(self, selector: str) -> str:
        """The CSS selector of the element an operation names."""
        return f'[data-testid="{selector}"]'

    def __init__(self, trajectory: dict[str, Any]):
        self.ops = [op for move in trajectory["moves"] for op in move["gui"]]
        self.answer = (trajectory.get("answer") or {}).get("text")
        self.i = 0
        self.answered = False

    async def act(self, page: Any) -> dict[str, Any] | None:
        while self.i < len(self.ops):
            action = await self._next(page, self.ops[self.i])
            if action is not None:
                return action
            self.i += 1
        if self.answer is not None and not self.answered:
            self.answered = True
            return {"action": "answer", "text": self.answer}
        return None

    async def _box(self, page: Any, testid: str) -> dict[str, Any]:
        box: dict[str, Any] | None = await page.evaluate(self.box_js, testid)
        if box is None:
            raise LookupError(f"the oracle finds no element {self.css(testid)}")
        return box

    def _done(self, action: dict[str, Any]) -> dict[str, Any]:
        self.i += 1
        return action

    async def _next(self, page: Any, op: dict[str, Any]) -> dict[str, Any] | None:
        """The next action for `op`; None when the operation needs none (any more)."""
        kind, sel = op["op"], str(op.get("selector"))
        if kind == "wait":
            return None
        if kind == "scroll_until_visible":
            box = await self._box(page, sel) if await page.evaluate(self.box_js, sel) else None
            if box is None or not (box["above"] or box["below"]):
                return None
            return {"action": "scroll", "coordinate": CENTRE, "direction": "up" if box["above"] else "down"}
        if kind == "repeat_click" and await page.evaluate(self.visible_js, op["until"]):
            return None
        box = await self._box(page, sel)
        if box["above"] or box["below"]:  # out of view: scroll to it first, as an agent would
            return {"action": "scroll", "coordinate": CENTRE, "direction": "up" if box["above"] else "down"}
        point = [round(box["x"]), round(box["y"])]
        if kind == "repeat_click":
            return {"action": "click", "coordinate": point}
        if kind == "press" and not box["focused"]:
            if box["field"]:
                return {"action": "click", "coordinate": point}
            await page.focus(self.css(sel))  # as Tab would: no state changes by focus
        return self._done(self._action(kind, op, point, page) if kind != "drag" else await self._drag(page, op, point))

    @staticmethod
    def _action(kind: str, op: dict[str, Any], point: list[int], page: Any) -> dict[str, Any]:
        if kind == "click":
            return {"action": "click", "coordinate": point}
        if kind == "hover":
            return {"action": "hover", "coordinate": point}
        if kind == "type":
            return {"action": "type", "coordinate": point, "text": op.get("text") or ""}
        if kind == "select":
            return {"action": "select", "coordinate": point, "value": op.get("text") or ""}
        if kind == "press":
            return {"action": "key", "key": op.get("text") or "Enter"}
        raise ValueError(f"the oracle cannot act out {kind!r}")

    async def _drag(self, page: Any, op: dict[str, Any], point: list[int]) -> dict[str, Any]:
        target = await self._box(page, op["text"])
        return {"action": "drag", "coordinate": point, "to": [round(target["x"]), round(target["y"])]}


class SelectorOracle(Oracle):
    """The oracle of a captured or cloned site, whose GUI procedures name elements by CSS selector."""

    box_js, visible_js = CSS_BOX_JS, CSS_VISIBLE_JS

    def css(self, selector: str) -> str:
        return selector


def oracle_for(trajectory: dict[str, Any], episode: Any) -> Oracle:
    """The oracle that finds elements as the episode's own operations do."""
    return (SelectorOracle if isinstance(getattr(episode, "actor", None), SelectorActor) else Oracle)(trajectory)
