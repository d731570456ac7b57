"""Reward functions for GRPO on an fsmc grpo or grounding export, one per thing a reply can get right.

Each has TRL's signature `(completions, **kwargs) -> list[float | None]`: TRL passes every dataset
column of the batch as a keyword argument (one value per completion), so the functions read the
ground truth the export wrote: `action_type`, `bbox` [x, y, w, h], `text` and `accepted`. They are
pure: the same reply and row always give the same reward.

| reward                | 1.0 when                                                        | None (does not apply) when        |
|-----------------------|-----------------------------------------------------------------|-----------------------------------|
| `format_reward`       | the reply parses with `fsmc.export.parse_action`                | never                             |
| `action_type_reward`  | the parsed action is of the expected type                       | never                             |
| `coordinate_reward`   | its `coordinate` lies inside the target's `bbox` (edges count)  | the expected action has no target |
| `text_reward`         | same type, and the typed text / selected value / key is equal;  | the expected action has no text   |
|                       | an answer matches one of `accepted` after case and spaces       | (click, hover, drag, scroll)      |
| `drop_reward`         | a drag's `to` lies inside the drop target's `to_bbox`           | the expected action is no drag    |

Everything else scores 0.0. TRL sums the rewards with `reward_weights` and skips a None, so a row is
only judged on what it asks for (a `key` row has no coordinate to get right). A completion reaches
the functions as a string, or for conversational prompts as `[{"role": "assistant", "content": …}]`.
"""

from __future__ import annotations

from typing import Any

from fsmc.enumerate.answers import matches, normalise
from fsmc.export import parse_action

Reward = float | None
POINTED = ("click", "type", "hover", "select", "drag")   # actions aimed at an element's coordinate
TEXT_FIELD = {"type": "text", "select": "value", "key": "key", "answer": "text"}


def reply_text(completion: Any) -> str:
    """The text of a completion as TRL passes it: a string, or a list of messages whose last holds the reply."""
    if isinstance(completion, str):
        return completion
    content = completion[-1]["content"] if completion else ""
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content if part.get("type") == "text")
    return str(content or "")


def _parsed(completions: list[Any]) -> list[dict[str, Any] | None]:
    return [parse_action(reply_text(c)) for c in completions]


def format_reward(completions: list[Any], **kwargs: Any) -> list[Reward]:
    """1.0 for a reply with exactly the `<action>{json}</action>` that `parse_action` accepts, else 0.0."""
    return [float(a is not None) for a in _parsed(completions)]


def action_type_reward(completions: list[Any], action_type: list[str], **kwargs: Any) -> list[Reward]:
    """1.0 when the reply's action is the expected kind (click, type, key …)."""
    return [float(a is not None and a["action"] == want) for a, want in zip(_parsed(completions), action_type, strict=True)]


def inside(point: Any, bbox: list[int]) -> bool:
    """Whether `point` is an [x, y] pair of numbers within the box [x, y, w, h], edges included."""
    if not (isinstance(point, list | tuple) and len(point) == 2 and all(isinstance(v, int | float) for v in point)):
        return False
    (x, y), (left, top, w, h) = point, bbox
    return left <= x <= left + w and top <= y <= top + h


def coordinate_reward(completions: list[Any], action_type: list[str], bbox: list[list[int]],
                      **kwargs: Any) -> list[Reward]:
    """1.0 when the reply's `coordinate` falls inside the target's box, whatever the action (that is the type's reward).

    None for rows without a target box or whose action is not aimed at one (key, scroll, answer): the
    box of a `key` row is the focused field, which the reply does not point at.
    """
    return [None if want not in POINTED or len(box) != 4 else float(a is not None and inside(a.get("coordinate"), box))
            for a, want, box in zip(_parsed(completions), action_type, bbox, strict=True)]


def text_matches(action: dict[str, Any], want_type: str, text: str, accepted: list[str]) -> bool:
    """Same action type, and its text field equals `text` (an answer: any of `accepted`, normalised)."""
    if action["action"] != want_type:
        return False
    given = action.get(TEXT_FIELD[want_type])
    if not isinstance(given, str):
        return False
    if want_type == "answer":
        return matches([normalise(t) for t in accepted or [text]], given)
    return given == text


def text_reward(completions: list[Any], action_type: list[str], text: list[str], accepted: list[list[str]],
                **kwargs: Any) -> list[Reward]:
    """1.0 for the right typed text, selected value, key or answer; None for actions without text."""
    return [None if want not in TEXT_FIELD else float(a is not None and text_matches(a, want, t, acc))
            for a, want, t, acc in zip(_parsed(completions), action_type, text, accepted, strict=True)]


def drop_reward(completions: list[Any], action_type: list[str], to_bbox: list[list[int]], **kwargs: Any) -> list[Reward]:
    """1.0 when a drag is released inside the drop target's box; None for rows that are no drag."""
    return [None if want != "drag" or len(box) != 4 else float(a is not None and a["action"] == "drag"
                                                                and inside(a.get("to"), box))
            for a, want, box in zip(_parsed(completions), action_type, to_bbox, strict=True)]


REWARD_FUNCS = (format_reward, action_type_reward, coordinate_reward, text_reward, drop_reward)
