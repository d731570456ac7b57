"""Model-written texts for the datasets, both cached: paraphrased task instructions, and a thought per step.

Paraphrases (`fsmc enumerate --paraphrase K`): K more instructions per task, each kept only if it names every
value the task's instruction names (its parameters as rendered: "The Long Field", "2026-12-18") verbatim, so
that the task it asks for is still the one the goal checks. They go to OUT/paraphrases.jsonl, beside the
enumeration's own files, which stay as they are (`fsmc verify` recomputes those instructions from the spec).

Thoughts (`fsmc export --thoughts MODEL`): one or two sentences, written from the screenshot, the task and the
action the step takes, in place of the templated thought. `thoughts_output` writes them for a replay's DATA
folder to DATA/thoughts.jsonl, one line per step, `{"id": "TRAJECTORY/N", "thought"}`: the ids of the sft rows,
so an export looks a row's thought up by its id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsmc.atomic import write_atomic
from fsmc.llm.base import LLMError, Message, Request
from fsmc.llm.client import Client

if TYPE_CHECKING:
    from fsmc.semantics import Machine

PARAPHRASES = "paraphrases.jsonl"
THOUGHTS = "thoughts.jsonl"
PARAPHRASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"instructions": {"type": "array", "items": {"type": "string"}}},
    "required": ["instructions"],
    "additionalProperties": False,
}
PARAPHRASE_SYSTEM = ("You rewrite instructions given to a web agent. Each rewrite asks for exactly the same thing "
                     "in other words, as different users would ask, and repeats every quoted value exactly as "
                     'written, letter for letter. Reply with a JSON object {"instructions": ["...", ...]}.')
THOUGHT_SYSTEM = ("You are a web agent that sees a screenshot of a website. Given the task, the actions taken so "
                  "far and the action you take next, write the thought that leads to that action: one or two "
                  "sentences in the first person, about what the screenshot shows and why the action is the next "
                  "step. Reply with the thought alone.")
QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def keeps_values(text: str, values: Sequence[str]) -> bool:
    """Whether `text` names every value verbatim."""
    return all(v in text for v in values)


def paraphrase(client: Client, instruction: str, values: Sequence[str], k: int) -> tuple[list[str], int]:
    """Up to `k` paraphrases of `instruction` that name every one of `values` verbatim (2k are asked for, the
    first k that do are kept, repeats aside), and how many were rejected for not naming them. LLMError for a
    reply that is no such JSON."""
    named = "; ".join(f'"{v}"' for v in values) or "none"
    ask = (f"Instruction: {instruction}\nValues that every rewrite must contain exactly as written: {named}\n"
           f"Write {2 * k} different rewrites.")
    reply = client.complete(Request((Message("system", PARAPHRASE_SYSTEM), Message("user", ask)),
                                    schema=PARAPHRASE_SCHEMA, temperature=0.7, max_tokens=256 + 96 * k,
                                    purpose="paraphrase"))
    found = reply.json()
    candidates = found.get("instructions") if isinstance(found, dict) else None
    if not isinstance(candidates, list):
        raise LLMError('the model\'s reply is JSON but no object with a list "instructions"')
    kept: list[str] = []
    rejected = 0
    for c in candidates:
        text = " ".join(str(c).split())
        if not keeps_values(text, values):
            rejected += 1
        elif text and text != instruction and text not in kept and len(kept) < k:
            kept.append(text)
    return kept, rejected


def paraphrase_output(client: Client, out: Path, values: dict[str, list[str]], k: int) -> dict[str, int]:
    """Paraphrase every task of an enumeration's OUT (tasks.jsonl) into OUT/paraphrases.jsonl: a line per task,
    `{"id", "instruction", "values", "paraphrases", "rejected"}` (or `"error"` for a reply that could not be
    used). `values` maps a task id to the values its paraphrases must name (default: the instruction's quoted
    strings). Counts of tasks, paraphrases kept and rejected."""
    lines, counts = [], {"tasks": 0, "kept": 0, "rejected": 0, "failed": 0}
    for task in _tasks(out):
        instruction = str(task["instruction"])
        must = values.get(task["id"], quoted(instruction))
        line: dict[str, Any] = {"id": task["id"], "instruction": instruction, "values": must}
        try:
            line["paraphrases"], line["rejected"] = paraphrase(client, instruction, must, k)
        except LLMError as err:
            if "no valid JSON" not in err.message and "no object" not in err.message:
                raise  # the model cannot be asked at all: stop, rather than fail every task alike
            line["paraphrases"], line["rejected"], line["error"] = [], 0, err.message
            counts["failed"] += 1
        counts["tasks"] += 1
        counts["kept"] += len(line["paraphrases"])
        counts["rejected"] += line["rejected"]
        lines.append(json.dumps(line, ensure_ascii=False))
    write_atomic(out / PARAPHRASES, "".join(f"{line}\n" for line in lines))
    return counts


def task_values(machine: Machine) -> dict[str, list[str]]:
    """For each task goal of the spec (by its id in tasks.jsonl), the values its instruction's placeholders
    render to: what a paraphrase must keep."""
    from fsmc.enumerate.goals import task_goals
    from fsmc.semantics.machine import render_template, template_names

    found: dict[str, list[str]] = {}
    s0 = machine.initial()
    for goal, ti, _ in task_goals(machine):
        task = machine.spec.tasks[ti]
        bindings = machine.bindings(s0, task.params, goal.args)
        rendered = (render_template("{" + n + "}", bindings) for n in template_names(task.instruction))
        found[goal.id] = list(dict.fromkeys(v for v in rendered if v))
    return found


def quoted(instruction: str) -> list[str]:
    """The quoted strings of an instruction ("Reach the “Checkout” page." names “Checkout”)."""
    return [a or b for a, b in QUOTED_RE.findall(instruction)]


def _tasks(out: Path) -> Iterator[dict[str, Any]]:
    with (out / "tasks.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


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
    from fsmc.export.datasets import agent_steps, read_kept

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
