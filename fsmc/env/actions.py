"""The export's action dicts, checked: what an agent may send to an environment, and nothing else."""

from __future__ import annotations

import re
from typing import Any

from fsmc.backends.pointer import Action
from fsmc.errors import FsmcError
from fsmc.export.actions import ACTION_TYPES

WIDTH, HEIGHT = 1280, 720
MAX_TEXT = 2000
DIRECTIONS = ("up", "down", "left", "right")
POINTED = ("click", "type", "hover", "select", "drag", "scroll")
FIELDS = {"click": (), "hover": (), "type": ("text",), "select": ("value",), "drag": ("to",), "scroll": ("direction",),
          "key": ("key",), "answer": ("text",)}
NAMED_KEYS = {"Enter", "Tab", "Escape", "Backspace", "Delete", "Space", "ArrowUp", "ArrowDown", "ArrowLeft",
              "ArrowRight", "Home", "End", "PageUp", "PageDown", "Insert", *(f"F{i}" for i in range(1, 13))}
MODIFIER = r"(?:Control|Shift|Alt|Meta|ControlOrMeta)\+"
KEY_RE = re.compile(rf"^(?:{MODIFIER})*(?:{'|'.join(sorted(NAMED_KEYS))}|[\x21-\x7e])$")


class InvalidAction(FsmcError, ValueError):
    """The action is not one of the export's actions, or is badly formed."""


class OffScreen(InvalidAction):
    """A coordinate outside the screenshot."""


def _point(value: Any, name: str, size: tuple[int, int]) -> tuple[int, int]:
    ok = isinstance(value, list | tuple) and len(value) == 2
    if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        raise InvalidAction(f"`{name}` must be [x, y], two numbers of pixels; got {value!r}")
    x, y = round(value[0]), round(value[1])
    if not (0 <= x < size[0] and 0 <= y < size[1]):
        raise OffScreen(f"`{name}` [{x}, {y}] is off the {size[0]}x{size[1]} screenshot")
    return x, y


def _text(action: dict[str, Any], name: str) -> str:
    value = action.get(name)
    if not isinstance(value, str):
        raise InvalidAction(f"a {action['action']} action needs `{name}`, a string; got {value!r}")
    if len(value) > MAX_TEXT:
        raise InvalidAction(f"`{name}` is longer than {MAX_TEXT} characters")
    return value


def parse(action: Any, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Action:
    """The checked form of an action dict; raises InvalidAction (OffScreen for a point off the screenshot)."""
    if not isinstance(action, dict):
        raise InvalidAction(f"an action is a JSON object such as {{\"action\": \"click\", \"coordinate\": [x, y]}}; "
                            f"got {type(action).__name__}")
    kind = action.get("action")
    if kind not in ACTION_TYPES:
        raise InvalidAction(f"unknown action {kind!r}; one of {', '.join(ACTION_TYPES)}")
    allowed = {"action", *FIELDS[kind], *(("coordinate",) if kind in POINTED else ())}
    if extra := sorted(set(action) - allowed):
        raise InvalidAction(f"a {kind} action has no field {', '.join(map(repr, extra))}; it takes {sorted(allowed)}")
    point = _point(action.get("coordinate"), "coordinate", size) if kind in POINTED else None
    to = _point(action.get("to"), "to", size) if kind == "drag" else None
    text = None
    if kind in ("type", "answer"):
        text = _text(action, "text")
    elif kind == "select":
        text = _text(action, "value")
    elif kind == "key":
        text = _text(action, "key")
        if not KEY_RE.match(text):
            raise InvalidAction(f"unknown key {text!r}: a character or one of {', '.join(sorted(NAMED_KEYS))}, "
                                "optionally after Control+, Shift+, Alt+ or Meta+")
    elif kind == "scroll":
        text = action.get("direction", "down")
        if text not in DIRECTIONS:
            raise InvalidAction(f"scroll direction {text!r}: one of {', '.join(DIRECTIONS)}")
    return Action(kind, point, to, text)
