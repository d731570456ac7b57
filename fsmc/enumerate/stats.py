"""`output_stats`: counts per goal type and page, trajectory lengths and states per depth of an output folder."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class StatsError(Exception):
    """The folder is not a readable `fsmc enumerate` output."""


@dataclass
class Stats:
    goals_by_kind: Counter[str] = field(default_factory=Counter)
    reached_by_kind: Counter[str] = field(default_factory=Counter)
    goals_by_page: Counter[str] = field(default_factory=Counter)
    trajectories_by_label: Counter[str] = field(default_factory=Counter)
    trajectories_by_kind: Counter[str] = field(default_factory=Counter)
    final_page: Counter[str] = field(default_factory=Counter)
    lengths: Counter[int] = field(default_factory=Counter)  # positive trajectories
    states_per_depth: list[int] = field(default_factory=list)
    states_per_page: dict[str, int] = field(default_factory=dict)
    states: int = 0
    complete: bool = True


def _jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError as err:
        raise StatsError(f"cannot read {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise StatsError(f"{path} is not JSON lines: {err}") from None


def output_stats(out: str | Path) -> Stats:
    out = Path(out)
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        counts = manifest["counts"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError):
        raise StatsError(f"{out} has no readable manifest.json; is it an `fsmc enumerate` output?") from None
    st = Stats(states_per_depth=list(counts.get("states_per_depth", [])),
               states_per_page=dict(counts.get("states_per_page", {})), states=int(counts.get("states", 0)),
               complete=bool(counts.get("complete", True)))
    for task in _jsonl(out / "tasks.jsonl"):
        kind = str(task.get("kind"))
        st.goals_by_kind[kind] += 1
        st.reached_by_kind[kind] += bool(task.get("reached"))
        st.goals_by_page[str(task.get("page") or "(any page)")] += 1
    for t in _jsonl(out / "trajectories.jsonl"):
        st.trajectories_by_label[str(t.get("label"))] += 1
        st.trajectories_by_kind[str(t.get("goal_type"))] += 1
        moves = t.get("moves") or []
        st.final_page[moves[-1]["state"]["page"] if moves else str((t.get("initial") or {}).get("page"))] += 1
        if t.get("kind") == "positive":
            st.lengths[len(moves)] += 1
    return st


def draw(st: Stats, png: str | Path) -> None:
    """Four panels: goals per type, trajectory lengths, states per depth, states per page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(2, 2, figsize=(12, 8))
    kinds = sorted(st.goals_by_kind)
    xs = range(len(kinds))
    ax[0][0].bar([x - 0.2 for x in xs], [st.goals_by_kind[k] for k in kinds], width=0.4, label="goals")
    ax[0][0].bar([x + 0.2 for x in xs], [st.reached_by_kind[k] for k in kinds], width=0.4, label="reached")
    ax[0][0].set_xticks(list(xs), kinds)
    ax[0][0].set_title("goals per type")
    ax[0][0].legend()
    lens = sorted(st.lengths)
    ax[0][1].bar(lens, [st.lengths[n] for n in lens])
    ax[0][1].set_title("positive trajectory length (moves)")
    ax[1][0].bar(range(len(st.states_per_depth)), st.states_per_depth)
    ax[1][0].set_yscale("log")
    ax[1][0].set_title(f"states per BFS depth ({st.states:,} states)")
    pages = list(st.states_per_page)
    ax[1][1].barh(pages, [st.states_per_page[p] for p in pages])
    ax[1][1].set_xscale("log")
    ax[1][1].set_title("states per page")
    fig.tight_layout()
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
