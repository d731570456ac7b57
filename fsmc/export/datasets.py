"""Rows of the three datasets, built from the kept positive trajectories of a replay.

Rows name their screenshots (`screens/…`); the writer puts the image bytes in when it writes them.

- sft: one conversation per step: system prompt; user turn with the screenshot, the task and the
  actions so far; assistant turn with a templated thought and the action. TRL's SFTTrainer reads
  `messages` and `images` as they are.
- sft-trajectory: one multi-turn conversation per trajectory, as an agent meets it: the task with the
  first screenshot, then a reply and the next screenshot in turn; `images` lists the screenshots in
  the order of the conversation's image parts (how TRL fills them in).
- grpo: one row per step: the same prompt, the screenshot in `image`, and the ground truth that
  reward functions read as keyword arguments (`action_type`, `coordinate`, `bbox`, `text`,
  `accepted`, `solution`).
- grounding: "click …" rows from the boxes of the elements the steps acted on, mixed with grpo
  navigation rows so that grounding is a given share of the whole (default 2 in 10).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fsmc.export.actions import SYSTEM_PROMPT, action_of, format_action, reply

Row = dict[str, Any]


def read_kept(data_dir: Path) -> Iterator[dict[str, Any]]:
    """The kept positive trajectories of a replay, in their order (negatives are not demonstrations)."""
    path = data_dir / "trajectories.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{data_dir}: no trajectories.jsonl; run `fsmc replay OUT --site SITE -o {data_dir}` first")
    with path.open(encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if t.get("status") == "kept" and t.get("kind", "positive") == "positive":
                yield t


def split_of(t: dict[str, Any], test_fraction: float) -> str:
    """"test" for a fixed share of the tasks (by a hash of the task id, so no task is in both splits)."""
    h = int(hashlib.sha256(str(t.get("task_id", t["id"])).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if h < test_fraction else "train"


def agent_steps(t: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(action, step) for every atomic step the agent takes, plus the answer of a retrieval task."""
    out = [(action_of(s), s) for s in t["steps"] if "unavailable" not in s]
    answer = t.get("answer")
    if answer is not None:
        out.append(({"action": "answer", "text": answer["text"]},
                    {"op": "answer", "screenshot": t["final_screenshot"], "move": len(t["moves"])}))
    return out


def _label(t: dict[str, Any], step: dict[str, Any]) -> str:
    i = step.get("move", 0)
    return str(t["moves"][i].get("label") or t["moves"][i]["action"]) if i < len(t["moves"]) else "answer"


def user_text(instruction: str, history: list[dict[str, Any]]) -> str:
    done = "\n".join(f"{i}. {format_action(a)}" for i, a in enumerate(history, 1)) or "none"
    return f"Task: {instruction}\nPrevious actions:\n{done}\nWhat is the next action?"


def _prompt(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]},
            {"role": "user", "content": [{"type": "image", "text": None}, {"type": "text", "text": text}]}]


Thoughts = Mapping[str, str]
"""A model's thought for each step, by row id (`TRAJECTORY/N`); a step without one gets the templated thought."""


def sft_rows(t: dict[str, Any], thoughts: Thoughts = MappingProxyType({})) -> Iterator[Row]:
    history: list[dict[str, Any]] = []
    for n, (action, step) in enumerate(agent_steps(t)):
        answer = reply(_label(t, step), step, action, thoughts.get(f"{t['id']}/{n}"))
        yield {"id": f"{t['id']}/{n}", "task_id": t.get("task_id", t["id"]), "step": n,
               "messages": [*_prompt(user_text(t["instruction"], history)),
                            {"role": "assistant", "content": [{"type": "text", "text": answer}]}],
               "images": [step["screenshot"]]}
        history.append(action)


def trajectory_row(t: dict[str, Any], thoughts: Thoughts = MappingProxyType({})) -> Row:
    """The whole trajectory as one conversation: each step's screenshot in a user turn, its reply in the next."""
    messages = [{"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]}]
    images = []
    for n, (action, step) in enumerate(agent_steps(t)):
        text = f"Task: {t['instruction']}\nWhat is the next action?" if n == 0 else "What is the next action?"
        messages += [{"role": "user", "content": [{"type": "image", "text": None}, {"type": "text", "text": text}]},
                     {"role": "assistant", "content": [{"type": "text", "text": reply(_label(t, step), step, action,
                                                                                   thoughts.get(f"{t['id']}/{n}"))}]}]
        images.append(step["screenshot"])
    return {"id": t["id"], "task_id": t.get("task_id", t["id"]), "steps": len(images), "messages": messages,
            "images": images}


def trajectory_rows(t: dict[str, Any], thoughts: Thoughts = MappingProxyType({})) -> Iterator[Row]:
    row = trajectory_row(t, thoughts)
    if row["images"]:
        yield row


def _ground_truth(row_id: str, t: dict[str, Any], n: int, image: str, text: str, action: dict[str, Any],
                  step: dict[str, Any], source: str) -> Row:
    answer = t.get("answer") or {}
    return {
        "id": row_id, "task_id": t.get("task_id", t["id"]), "step": n, "source": source,
        "prompt": _prompt(text), "image": image,
        "action_type": action["action"],
        "coordinate": action.get("coordinate", []),
        "bbox": step.get("bbox", []),
        "to_bbox": step.get("to_bbox", []),
        "text": str(action.get("text") or action.get("value") or action.get("key") or ""),
        "accepted": list(answer.get("variants", [])) if action["action"] == "answer" else [],
        "solution": format_action(action),
    }


def grpo_rows(t: dict[str, Any]) -> Iterator[Row]:
    history: list[dict[str, Any]] = []
    for n, (action, step) in enumerate(agent_steps(t)):
        yield _ground_truth(f"{t['id']}/{n}", t, n, step["screenshot"],
                            user_text(t["instruction"], history), action, step, "navigation")
        history.append(action)


def grounding_rows(t: dict[str, Any], seen: set[tuple[str, str]]) -> Iterator[Row]:
    """One "click …" row per element a step acted on, each (screenshot, element) once over the whole set."""
    for n, step in enumerate(t["steps"]):
        if "bbox" not in step or not step.get("selector") or step["op"] == "scroll":
            continue
        if (step["screenshot"], step["selector"]) in seen:
            continue
        seen.add((step["screenshot"], step["selector"]))
        name = step.get("element") or step["selector"].replace("-", " ")
        text = f"Click on “{name}”. Reply with a click action at the centre of that element."
        action = {"action": "click", "coordinate": [step["x"], step["y"]]}
        yield _ground_truth(f"{t['id']}/g{n}", t, n, step["screenshot"], text, action, step,
                            "grounding")


def grounding_mix(trajectories: list[dict[str, Any]], ratio: float, seed: int) -> list[Row]:
    """Grounding rows and navigation rows, grounding being `ratio` of the whole, in a seeded order grouped by
    screenshot (names are hashes, so the groups come in no meaningful order; grouped, each is stored once)."""
    nav = [r for t in trajectories for r in grpo_rows(t)]
    seen: set[tuple[str, str]] = set()
    ground = [r for t in trajectories for r in grounding_rows(t, seen)]
    rng = random.Random(seed)
    want = len(ground) if ratio >= 1 else round(len(nav) * ratio / (1 - ratio))
    rows = (nav if ratio < 1 else []) + rng.sample(ground, min(want, len(ground)))
    rng.shuffle(rows)
    rows.sort(key=lambda row: row["image"])
    return rows
