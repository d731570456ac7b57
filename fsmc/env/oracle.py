"""The oracle policy: a verified trajectory's GUI operations turned into pixel actions on the live page.

It reads element boxes from the page (it is privileged: an agent sees only the screenshot) and sends the
same actions an agent would, one per step, so a trajectory that `fsmc verify` accepts must earn reward 1.
"""

from __future__ import annotations

from typing import Any

from fsmc.backends.actor import VISIBLE_JS

BOX_JS = r"""(tid) => {
  const el = document.querySelector(`[data-testid="${CSS.escape(tid)}"]`);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, above: r.top + r.height / 2 < 1, below: r.top + r.height / 2 > innerHeight - 2,
          focused: document.activeElement === el, field: ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)};
}"""
CENTRE = [640, 360]


class Oracle:
    """Acts out one trajectory record of trajectories.jsonl; `act` gives the next action, None when it is done."""

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
        box: dict[str, Any] | None = await page.evaluate(BOX_JS, testid)
        if box is None:
            raise LookupError(f"the oracle finds no element data-testid={testid!r}")
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
            box = await self._box(page, sel) if await page.evaluate(BOX_JS, sel) else None
            if box is None or not (box["above"] or box["below"]):
                return None
            return {"action": "scroll", "coordinate": CENTRE, "direction": "up" if box["above"] else "down"}
        if kind == "repeat_click" and await page.evaluate(VISIBLE_JS, op["until"]):
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
            await page.focus(f'[data-testid="{sel}"]')  # as Tab would: no state changes by focus
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
