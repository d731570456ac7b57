"""`fsmc stats` prints its tables (goals per type and page, lengths, states per depth) and draws a PNG."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmc import load
from fsmc.cli import main
from fsmc.enumerate import Options, enumerate_spec
from fsmc.enumerate.stats import output_stats

MINI = Path(__file__).resolve().parent / "fixtures" / "mini.fsm"


def test_stats_counts_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    summary = enumerate_spec(load(MINI), out, Options(max_depth=8, negatives=True))
    st = output_stats(out)
    assert sum(st.states_per_depth) == summary.states == st.states
    assert sum(st.trajectories_by_label.values()) == sum(summary.trajectories.values())
    assert st.goals_by_kind["task"] == 7 and st.lengths
    png = tmp_path / "stats.png"
    assert main(["stats", str(out), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    for title in ("goals per type", "per page", "goals on it", "trajectory lengths", "positive trajectories", "states per depth"):
        assert title in printed
    assert "partial: the enumeration was capped" in " ".join(printed.split())  # max_depth 8 of mini's 22
    assert main(["stats", str(out)]) == 0  # by default the PNG goes into OUT
    assert (out / "stats.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (out / "stats.png").unlink()
    assert main(["stats", str(out), "--no-png"]) == 0 and not (out / "stats.png").exists()
    assert main(["stats", str(tmp_path / "missing")]) == 2
    with open(out / "trajectories.jsonl", "a", encoding="utf-8") as f:
        f.write("{not json\n")
    assert main(["stats", str(out), "--no-png"]) == 2
    assert f"trajectories.jsonl:{sum(summary.trajectories.values()) + 1}: not JSON" in capsys.readouterr().err
