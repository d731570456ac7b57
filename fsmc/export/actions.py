"""The one action format every dataset uses, and the templated thoughts that go with it (no LLM).

An agent answers each screenshot with `<think>…</think><action>{…}</action>`, the action a JSON
object: click, type, key, hover, select, drag, scroll (at pixel coordinates of the 1280×720
screenshot) or answer (for retrieval tasks).
"""

from __future__ import annotations

import json
import re
from typing import Any

SYSTEM_PROMPT = (
    "You are a web agent. You see a 1280x720 screenshot of a website and a task. Reply with a short thought "
    "in <think>...</think> and then exactly one action in <action>...</action> as JSON, one of: "
    '{"action":"click","coordinate":[x,y]}, {"action":"type","coordinate":[x,y],"text":"..."}, '
    '{"action":"key","key":"Enter"}, {"action":"hover","coordinate":[x,y]}, '
    '{"action":"select","coordinate":[x,y],"value":"..."}, {"action":"drag","coordinate":[x,y],"to":[x,y]}, '
    '{"action":"scroll","coordinate":[x,y],"direction":"down"}, {"action":"answer","text":"..."}. '
    "Coordinates are pixels from the top-left corner of the screenshot."
)

ACTION_TYPES = ("click", "type", "key", "hover", "select", "drag", "scroll", "answer")
ACTION_RE = re.compile(r"<action>(.*?)</action>", re.S)


def action_of(step: dict[str, Any]) -> dict[str, Any]:
    """The agent-level action of one recorded atomic step."""
    op, xy = step["op"], [step.get("x", 0), step.get("y", 0)]
    if op == "click":
        return {"action": "click", "coordinate": xy}
    if op == "type":
        return {"action": "type", "coordinate": xy, "text": step.get("text", "")}
    if op == "press":
        return {"action": "key", "key": step.get("key", "Enter")}
    if op == "hover":
        return {"action": "hover", "coordinate": xy}
    if op == "select":
        return {"action": "select", "coordinate": xy, "value": step.get("text", "")}
    if op == "drag":
        return {"action": "drag", "coordinate": xy, "to": step.get("to", xy)}
    if op == "scroll":
        return {"action": "scroll", "coordinate": xy, "direction": step.get("direction", "down")}
    raise ValueError(f"no agent action for the recorded operation {op!r}")


def format_action(action: dict[str, Any]) -> str:
    return json.dumps(action, separators=(",", ":"), ensure_ascii=False)


def parse_action(reply: str) -> dict[str, Any] | None:
    """The action of a model's reply in this format, or None (what a reward function needs first)."""
    found = ACTION_RE.search(reply)
    if not found:
        return None
    try:
        action = json.loads(found.group(1))
    except json.JSONDecodeError:
        return None
    return action if isinstance(action, dict) and action.get("action") in ACTION_TYPES else None


def _target(step: dict[str, Any]) -> str:
    name = step.get("element") or re.sub(r"[-_]+", " ", step.get("selector") or "").strip()
    return f"“{name}”" if name else "the control"


def _purpose(label: str) -> str:
    return label[:1].lower() + label[1:] if label else "continue"


def thought(label: str, step: dict[str, Any], action: dict[str, Any]) -> str:
    """One templated sentence: what the step is for and what it does."""
    kind, target, why = action["action"], _target(step), _purpose(label)
    if kind == "answer":
        return f"The page shows what the task asks for, so I answer: {action['text']}."
    if kind == "scroll":
        return f"To {why}, I scroll down: {target} is further down the page."
    doing = {
        "click": f"I click {target}",
        "type": f"I type “{action.get('text', '')}” into {target}",
        "key": f"I press {action.get('key', 'Enter')} in {target}",
        "hover": f"I hover over {target} to open it",
        "select": f"I choose “{action.get('value', '')}” in {target}",
        "drag": f"I drag {target} to its place",
    }[kind]
    return f"To {why}, {doing}."


def reply(label: str, step: dict[str, Any], action: dict[str, Any], written: str | None = None) -> str:
    """The assistant's turn: a thought (`written` by a model, else the templated one) and the action."""
    return f"<think>{written or thought(label, step, action)}</think><action>{format_action(action)}</action>"
