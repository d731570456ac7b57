"""Resumable and reproducible `fsmc enumerate`: a killed run resumes with the same bytes; a checkout's path leaves no trace."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import fsmc.enumerate.run as run_module
from fsmc.cli import main
from fsmc.enumerate import Options, enumerate_spec, verify_output
from fsmc.enumerate.output import FILES

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
ARGS = ["--negatives", "--per-goal", "3", "--seed", "4"]
OPTS = Options(negatives=True, per_goal=3, seed=4)


def _bytes(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What an uninterrupted run writes (the spec copied into a project of its own, as the runs below use)."""
    project = tmp_path_factory.mktemp("clean")
    spec = _project(project)
    assert main(["enumerate", str(spec), "-o", str(project / "out"), *ARGS]) == 0
    return _bytes(project / "out")


def _project(folder: Path) -> Path:
    (folder / "fsmc.toml").write_text("")
    (folder / "specs").mkdir()
    return Path(shutil.copy(MINI, folder / "specs" / "mini.fsm"))


def _stop_after(monkeypatch: pytest.MonkeyPatch, goals: int) -> None:
    """Make the writer stop (as a kill would) after `goals` goals, with a checkpoint after every goal."""
    monkeypatch.setattr(run_module, "EVERY", 0.0)
    goal, count = run_module._Writer.goal, [0]

    def stopping(self: Any, planned: Any) -> None:
        if count[0] == goals:
            raise KeyboardInterrupt
        count[0] += 1
        goal(self, planned)

    monkeypatch.setattr(run_module._Writer, "goal", stopping)


def test_a_run_stopped_while_writing_resumes_with_the_same_bytes(clean: dict[str, bytes], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    spec, notes = _project(tmp_path), []
    for stop in (3, 11):
        with monkeypatch.context() as m:
            _stop_after(m, stop)
            with pytest.raises(KeyboardInterrupt):
                enumerate_spec(spec, tmp_path / "out", OPTS, on_note=notes.append)
        assert not (tmp_path / "out").exists() and (tmp_path / ".out.resume" / "plan.json").exists()
    searched: list[str] = []
    monkeypatch.setattr(run_module, "_search", lambda *a: searched.append("again"))
    enumerate_spec(spec, tmp_path / "out", OPTS, on_note=notes.append)
    assert _bytes(tmp_path / "out") == clean and not searched  # no new search: the plan was resumed
    assert [n.split(" (")[-1] for n in notes] == ["3 of 32 goals written)", "14 of 32 goals written)"]  # 3, then 11 more
    assert not (tmp_path / ".out.resume").exists()


@pytest.mark.parametrize("damage", ["truncate plan", "alter plan", "alter done", "cut part", "alter part"])
def test_a_corrupt_checkpoint_is_dropped_with_a_note(clean: dict[str, bytes], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    spec, ck = _project(tmp_path), tmp_path / ".out.resume"
    with monkeypatch.context() as m:
        _stop_after(m, 6)
        with pytest.raises(KeyboardInterrupt):
            enumerate_spec(spec, tmp_path / "out", OPTS)
    what, name = damage.split()
    path = ck / {"plan": "plan.json", "done": "done.json", "part": "trajectories.jsonl"}[name]
    data = path.read_bytes()
    if what in ("truncate", "cut"):
        path.write_bytes(data[: len(data) // 2])
    else:
        i = data.index(b"moves" if name == "part" else b"goals") + 2
        path.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1:])
    notes: list[str] = []
    enumerate_spec(spec, tmp_path / "out", OPTS, on_note=notes.append)
    assert len(notes) == 1 and "is corrupt" in notes[0] and "starting over" in notes[0]
    assert _bytes(tmp_path / "out") == clean


def test_other_options_do_not_resume_the_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _project(tmp_path)
    with monkeypatch.context() as m:
        _stop_after(m, 4)
        with pytest.raises(KeyboardInterrupt):
            enumerate_spec(spec, tmp_path / "out", OPTS)
    notes: list[str] = []
    enumerate_spec(spec, tmp_path / "out", Options(seed=5), on_note=notes.append)
    assert notes == []  # another key: another run's checkpoint, cleared without resuming
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["options"]["seed"] == 5


def test_killed_at_random_moments_then_rerun_gives_the_same_bytes(clean: dict[str, bytes], tmp_path: Path) -> None:
    """SIGKILL `fsmc enumerate` at random delays (some while it writes), rerun: the bytes of a clean run."""
    spec, out, rng = _project(tmp_path), tmp_path / "out", random.Random(12)
    env = {**os.environ, "FSMC_CHECKPOINT_EVERY": "0"}
    cmd = [sys.executable, "-m", "fsmc", "enumerate", str(spec), "-o", str(out), *ARGS]
    resume = tmp_path / ".out.resume"
    killed, resumable, said = 0, 0, []
    for round_ in range(12):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # the moments are read off the run's own progress, not the clock, so a fast machine kills as surely as a
        # slow one: while it searches (its checkpoint folder is made), or while it writes the goals (after the plan)
        marker, delay = (resume / "plan.json", 0.01) if round_ % 2 else (resume, 0.2)
        start = time.monotonic()
        while not marker.exists() and proc.poll() is None and time.monotonic() - start < 20:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, delay))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
            resumable += (resume / "plan.json").exists()
        said.append(proc.communicate()[1].decode())
        if out.exists():
            if resumable:
                break
            shutil.rmtree(out)  # it finished before a kill that leaves a plan behind: run it again
    assert killed >= 1 and resumable >= 1
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    assert _bytes(out) == clean, run.stderr
    assert any("note: resuming from the checkpoint" in s for s in [*said, run.stderr])
    assert not (tmp_path / ".out.resume").exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.tmp")]


def test_two_checkouts_give_the_same_bytes(clean: dict[str, bytes], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for where in ("a", "b/deeper"):
        (tmp_path / where).mkdir(parents=True)
        spec = _project(tmp_path / where)
        assert main(["enumerate", str(spec), "-o", str(tmp_path / where / "out"), *ARGS]) == 0
        assert _bytes(tmp_path / where / "out") == clean
    manifest = json.loads(clean["manifest.json"])
    assert manifest["spec"]["path"] == "specs/mini.fsm"
    monkeypatch.chdir(tmp_path)  # verify finds the spec from the manifest's relative path
    assert verify_output(tmp_path / "b" / "deeper" / "out").ok
    assert main(["verify", str(tmp_path / "a" / "out")]) == 0


def test_outside_a_project_the_path_is_relative_to_the_output(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    outs = []
    for where in ("one", "two"):
        (tmp_path / where).mkdir()
        spec = Path(shutil.copy(MINI, tmp_path / where / "mini.fsm"))
        outs.append(tmp_path / where / "runs" / "out")
        enumerate_spec(spec, outs[-1], Options(max_depth=4))
    assert _bytes(outs[0]) == _bytes(outs[1])
    assert json.loads((outs[0] / "manifest.json").read_text())["spec"]["path"] == "../mini.fsm"
    monkeypatch.chdir(tmp_path)
    assert verify_output(outs[1]).ok
