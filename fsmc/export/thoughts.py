"""Model-written thoughts (`fsmc export --thoughts MODEL`), cached: one or two sentences per step of a replay.

Each is written from the screenshot, the task and the action the step takes, in place of the templated thought.
`thoughts_output` writes them for a replay's DATA folder to DATA/thoughts.jsonl, one line per step,
`{"id": "TRAJECTORY/N", "thought"}`: the ids of the sft rows, so an export looks a row's thought up by its id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic
from fsmc.export.datasets import agent_steps, read_kept
from fsmc.llm.base import LLMError, Message, Request
from fsmc.llm.client import Client

THOUGHTS = "thoughts.jsonl"
THOUGHT_SYSTEM = ("You are a web agent that sees a screenshot of a website. Given the task, the actions taken so "
                  "far and the action you take next, write the thought that leads to that action: one or two "
                  "sentences in the first person, about what the screenshot shows and why the action is the next "
                  "step. Reply with the thought alone.")


class ModelThoughts:
    """`thoughts(instruction, history, action, screenshot)` → the model's thought for one step (cached by the
    request, so the same step of the same trajectory costs one call however often it is exported)."""

    def __init__(self, client: Client, max_tokens: int = 160):
        self.client = client
        self.max_tokens = max_tokens

    def __call__(self, instruction: str, history: Sequence[dict[str, Any]], action: dict[str, Any],
                 screenshot: bytes) -> str:
        done = "\n".join(json.dumps(a, ensure_ascii=False) for a in history) or "none"
        ask = (f"Task: {instruction}\nActions so far:\n{done}\n"
               f"Next action: {json.dumps(action, ensure_ascii=False)}")
        reply = self.client.complete(Request((Message("system", THOUGHT_SYSTEM), Message("user", ask, (screenshot,))),
                                             max_tokens=self.max_tokens, purpose="thought"))
        thought = " ".join(reply.text.replace("<think>", "").replace("</think>", "").split())
        if not thought:
            raise LLMError(f"the model {self.client.model!r} wrote an empty thought")
        return thought


def thoughts_output(client: Client, data: Path) -> dict[str, int]:
    """A model's thought for every agent step of the kept trajectories of a replay, in DATA/thoughts.jsonl;
    counts of trajectories and steps. Stops at the first call that fails (LLMError)."""
    write = ModelThoughts(client)
    lines, counts = [], {"trajectories": 0, "steps": 0}
    for t in read_kept(data):
        history: list[dict[str, Any]] = []
        for n, (action, step) in enumerate(agent_steps(t)):
            thought = write(str(t["instruction"]), history, action, (data / step["screenshot"]).read_bytes())
            lines.append(json.dumps({"id": f"{t['id']}/{n}", "thought": thought}, ensure_ascii=False))
            history.append(action)
            counts["steps"] += 1
        counts["trajectories"] += 1
    write_atomic(data / THOUGHTS, "".join(f"{line}\n" for line in lines))
    return counts
