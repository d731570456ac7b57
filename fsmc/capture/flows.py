"""Flows: scripted GUI operations acted out during a capture (forms, filters, anything a crawl does not reach).

A flows file is JSON: a list of flows, each a start page within the site and the operations an agent
would do there, with CSS selectors (the operations of trajectories.jsonl's `gui` entries):

    [{"name": "filter", "start": "/zoo/animals",
      "ops": [{"op": "select", "selector": "select[name=_filter_column]", "text": "name"},
              {"op": "type", "selector": "input[name=_filter_value]", "text": "cat"},
              {"op": "click", "selector": "form.filters input[type=submit]"}]}]

The capture acts each flow out after the crawl, in the same context, and keeps the view after every
operation; the offline check acts it out again and compares.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsmc.archive.folder import CaptureError
from fsmc.backends.protocol import Capture, EpisodeFailure, Op

if TYPE_CHECKING:
    from fsmc.backends.captured import PageEpisode

OPS = ("click", "hover", "type", "press", "select", "drag", "scroll_until_visible", "repeat_click", "wait")


@dataclass(frozen=True)
class Flow:
    name: str
    start: str
    ops: tuple[Op, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "start": self.start,
                "ops": [{k: v for k, v in op.__dict__.items() if v is not None} for op in self.ops]}

    @classmethod
    def from_json(cls, d: Any, where: str) -> Flow:
        if not isinstance(d, dict) or not isinstance(d.get("start"), str) or not isinstance(d.get("ops"), list):
            raise CaptureError(f"{where}: a flow is an object with a start page and a list of ops", unreadable=True)
        ops = []
        for i, op in enumerate(d["ops"]):
            if not isinstance(op, dict) or op.get("op") not in OPS:
                raise CaptureError(f"{where}, op {i + 1}: {op!r} is not an operation (op is one of {', '.join(OPS)})",
                                   unreadable=True)
            ops.append(Op.from_json(op))
        return cls(str(d.get("name") or where), d["start"], tuple(ops))


def load_flows(path: str | Path) -> list[Flow]:
    """The flows of a JSON file; CaptureError naming the file and the flow for anything that is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise CaptureError(f"{path}: cannot read the flows file: {getattr(err, 'strerror', None) or err}",
                           unreadable=True) from None
    if not isinstance(data, list):
        raise CaptureError(f"{path}: a flows file is a JSON list of flows", unreadable=True)
    return [Flow.from_json(d, f"{path}: flow {i + 1}") for i, d in enumerate(data)]


def step(number: int, op: Op) -> str:
    """How a message names a flow's operation: `step 2 (click form.new input[type=submit])`."""
    return f"step {number} ({op.op}{' ' + op.selector if op.selector else ''})"


async def act_out(episode: PageEpisode, flow: Flow,
                  after: Callable[[str, bool], None] | None = None) -> list[tuple[Op, str, bytes]]:
    """Go to the flow's start and do its operations; after each, the page's location and view once settled. `after`,
    what the capture checks there, is called with the step's name (`start /items/new`, or `step` of an operation)
    and whether it failed, after each and before a failure of it is reported: the site's own failure explains it.

    Raises EpisodeFailure (the operation's, naming the step) when an element is missing, ambiguous or hidden.
    """
    def check(name: str, failed: bool = True) -> None:
        if after is not None:
            after(name, failed)

    try:
        await episode.goto(flow.start)
    except EpisodeFailure:
        check(f"start {flow.start}")
        raise
    views = []
    for number, op in enumerate(flow.ops, 1):
        try:
            await episode.perform(op, Capture.NONE)
            await episode.settle()
        except EpisodeFailure as failure:
            check(step(number, op))
            raise EpisodeFailure(failure.reason, f"{step(number, op)}: {failure.detail}") from None
        check(step(number, op), failed=False)
        views.append((op, episode.actor.location(), await episode.screenshot()))
    return views
