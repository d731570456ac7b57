"""`output_stats`: counts per goal type and page, trajectory lengths and states per depth of an output folder."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.errors import EXIT_UNREADABLE, FsmcError


class StatsError(FsmcError):
    """The folder is not a readable `fsmc enumerate` output."""

    exit_code = EXIT_UNREADABLE


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


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file, one at a time (outputs can hold millions of lines)."""
    n = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    rec = json.loads(line)
                    if not isinstance(rec, dict):
                        raise StatsError(f"{path}:{n}: not a JSON object; `fsmc verify` says more")
                    yield rec
    except OSError as err:
        raise StatsError(f"cannot read {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise StatsError(f"{path}:{n}: not JSON ({err.msg}); `fsmc verify` says more") from None


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
        last = moves[-1].get("state") if moves and isinstance(moves[-1], dict) else t.get("initial")
        st.final_page[str((last or {}).get("page"))] += 1
        if t.get("kind") == "positive":
            st.lengths[len(moves)] += 1
    return st


def _bars(ax: Any, labels: list[str], values: list[int], title: str, log: bool = False) -> None:
    ax.barh(labels, values)
    ax.invert_yaxis()  # the first label on top, as in the printed tables
    if log and any(values):
        ax.set_xscale("log")
    ax.set_title(title)


def draw(st: Stats, png: str | Path) -> None:
    """Six panels: goals per type (and reached), trajectories per label, goals per page, trajectory
    lengths, states per depth, states per page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(3, 2, figsize=(13, 12))
    kinds = sorted(st.goals_by_kind)
    ys = range(len(kinds))
    ax[0][0].barh([y - 0.2 for y in ys], [st.goals_by_kind[k] for k in kinds], height=0.4, label="goals")
    ax[0][0].barh([y + 0.2 for y in ys], [st.reached_by_kind[k] for k in kinds], height=0.4, label="reached")
    ax[0][0].set_yticks(list(ys), kinds)
    ax[0][0].invert_yaxis()
    ax[0][0].set_title("goals per type")
    ax[0][0].legend()
    labels = sorted(st.trajectories_by_label)
    _bars(ax[0][1], labels, [st.trajectories_by_label[k] for k in labels], "trajectories per label")
    pages = sorted(st.goals_by_page, key=lambda p: (-st.goals_by_page[p], p))
    _bars(ax[1][0], pages, [st.goals_by_page[p] for p in pages], "goals per page")
    lens = sorted(st.lengths)
    ax[1][1].bar(lens, [st.lengths[n] for n in lens])
    ax[1][1].set_xlabel("moves")
    ax[1][1].xaxis.set_major_locator(MaxNLocator(integer=True))
    ax[1][1].set_title("positive trajectory lengths")
    ax[2][0].bar(range(len(st.states_per_depth)), st.states_per_depth)
    if any(st.states_per_depth):
        ax[2][0].set_yscale("log")
    ax[2][0].set_xlabel("depth")
    ax[2][0].xaxis.set_major_locator(MaxNLocator(integer=True))
    capped = "" if st.complete else ", capped"
    ax[2][0].set_title(f"states per BFS depth ({st.states:,} states{capped})")
    _bars(ax[2][1], list(st.states_per_page), list(st.states_per_page.values()), "states per page", log=True)
    fig.tight_layout()
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
