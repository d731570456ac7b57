"""`fsmc stats` prints its tables and draws a PNG."""

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
    assert "goals per type" in printed and "states per depth" in printed
    assert main(["stats", str(tmp_path / "missing")]) == 2
