"""What an exported dataset says an agent did: each trajectory's actions, read back from the Parquet of any format.

`demonstrations(DS)` gives, per trajectory, its task and the actions its rows teach, in order, parsed from the
rows themselves (the assistant's replies of `sft` and `sft-trajectory`, the `solution` of `grpo` and of `grounding`'s
navigation rows). Acting them out in an environment from the task's reset must earn reward 1 at the last one:
`bench/dataset_env.py` and tests/test_dataset_env.py check it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from fsmc.export.actions import parse_action


@dataclass
class Demonstration:
    """One trajectory as a dataset teaches it: its task and its actions, in order."""

    task: str
    actions: list[dict[str, Any]] = field(default_factory=list)


def export_format(ds: Path) -> str:
    """The format an export folder holds (from its `fsmc_export.json`)."""
    meta = Path(ds) / "fsmc_export.json"
    if not meta.is_file():
        raise FileNotFoundError(f"{ds}: no fsmc_export.json; is this a folder `fsmc export` wrote?")
    fmt: str = json.loads(meta.read_text(encoding="utf-8"))["format"]
    return fmt


def _reply_actions(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    replies = [part["text"] for m in messages if m["role"] == "assistant" for part in m["content"]
               if part.get("type") == "text"]
    actions = [parse_action(text) for text in replies]
    if any(a is None for a in actions):
        raise ValueError("a reply holds no action in the dataset's format")
    return [a for a in actions if a is not None]


def _rows(ds: Path, columns: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for shard in sorted((Path(ds) / "data").glob("*.parquet")):
        rows += pq.read_table(shard, columns=columns).to_pylist()
    return rows


def demonstrations(ds: str | Path) -> dict[str, Demonstration]:
    """Every trajectory of an export folder (all splits), by trajectory id, with the actions its rows teach."""
    ds = Path(ds)
    fmt = export_format(ds)
    found: dict[str, Demonstration] = {}
    if fmt == "sft-trajectory":
        for row in _rows(ds, ["id", "task_id", "messages"]):
            found[row["id"]] = Demonstration(row["task_id"], _reply_actions(row["messages"]))
        return dict(sorted(found.items()))
    stepped: dict[str, dict[int, dict[str, Any]]] = {}
    tasks: dict[str, str] = {}
    if fmt == "sft":
        for row in _rows(ds, ["id", "task_id", "step", "messages"]):
            trajectory = row["id"].rsplit("/", 1)[0]
            stepped.setdefault(trajectory, {})[row["step"]] = _reply_actions(row["messages"])[0]
            tasks[trajectory] = row["task_id"]
    else:  # grpo, grounding: the navigation rows' solutions
        for row in _rows(ds, ["id", "task_id", "step", "source", "solution"]):
            if row["source"] != "navigation":
                continue
            trajectory = row["id"].rsplit("/", 1)[0]
            stepped.setdefault(trajectory, {})[row["step"]] = json.loads(row["solution"])
            tasks[trajectory] = row["task_id"]
    for trajectory, steps in stepped.items():
        if sorted(steps) != list(range(len(steps))):
            raise ValueError(f"{ds}: the rows of {trajectory} skip a step ({sorted(steps)})")
        found[trajectory] = Demonstration(tasks[trajectory], [steps[n] for n in range(len(steps))])
    return dict(sorted(found.items()))
