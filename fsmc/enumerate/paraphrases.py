"""Model-written task instructions (`fsmc enumerate --paraphrase K`), cached: K more instructions per task.

Each is kept only if it names every value the task's instruction names (its parameters as rendered: "The Long
Field", "2026-12-18") verbatim, so that the task it asks for is still the one the goal checks. They go to
OUT/paraphrases.jsonl, beside the enumeration's own files, which stay as they are (`fsmc verify` recomputes those
instructions from the spec).
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
PARAPHRASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"instructions": {"type": "array", "items": {"type": "string"}}},
    "required": ["instructions"],
    "additionalProperties": False,
}
PARAPHRASE_SYSTEM = ("You rewrite instructions given to a web agent. Each rewrite asks for exactly the same thing "
                     "in other words, as different users would ask, and repeats every quoted value exactly as "
                     'written, letter for letter. Reply with a JSON object {"instructions": ["...", ...]}.')
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
