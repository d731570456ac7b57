"""`fsmc enumerate`: the output files, their determinism, caps, derived goals, answers and the CLI's exit codes."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import fsmc.enumerate.run as run_module
from fsmc import __version__, load, load_text
from fsmc.cli import main
from fsmc.enumerate import Options, accepts, answer_record, enumerate_spec, spec_digest, variants
from fsmc.enumerate.output import FILES, file_digest
from fsmc.enumerate.progress import PlainProgress

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def mini_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("enum") / "mini"
    enumerate_spec(MINI, out, Options(negatives=True, per_goal=2, seed=7))
    return out


def test_same_inputs_give_the_same_bytes(mini_out: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert main(["enumerate", str(MINI), "-o", str(again), "--negatives", "--seed", "7"]) == 0
    for name in FILES:
        assert (again / name).read_bytes() == (mini_out / name).read_bytes(), name


def test_same_bytes_in_fresh_processes_whatever_the_hash_seed(tmp_path: Path) -> None:
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        cmd = [sys.executable, "-m", "fsmc", "enumerate", str(MINI), "-o", str(tmp_path / seed), "--max-depth", "7",
               "--negatives", "--seed", "5"]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
    for name in FILES:
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name


def test_output_files_have_their_shapes(mini_out: Path) -> None:
    assert sorted(p.name for p in mini_out.iterdir()) == sorted(FILES)
    bfs = json.loads((mini_out / "bfs.json").read_text())
    assert bfs["initial"] == "home"
    (term,) = bfs["terminals"]
    assert term["terminal_page"] == "done" and term["shortest_step_count"] == len(term["paths"][0]["actions"])
    first = term["paths"][0]
    assert first["id_seq"] == [a["id"] for a in first["actions"]]
    assert set(first["actions"][0]) == {"id", "name", "from", "to", "params"}
    manifest = json.loads((mini_out / "manifest.json").read_text())
    assert manifest["counts"]["states"] == 25536 and manifest["counts"]["complete"]
    assert len(manifest["spec"]["sha256"]) == 64 and manifest["options"]["seed"] == 7
    trajs = _jsonl(mini_out / "trajectories.jsonl")
    assert manifest["counts"]["trajectories"] == len(trajs)
    tasks = _jsonl(mini_out / "tasks.jsonl")
    assert {t["id"] for t in trajs} == {i for t in tasks for i in t["trajectories"]}


def test_task_goals_and_derived_goals(mini_out: Path) -> None:
    tasks = {t["id"]: t for t in _jsonl(mini_out / "tasks.jsonl")}
    assert tasks["buy/a1"]["instruction"] == "Buy the Alpha lamp" and tasks["buy/a1"]["reached"]
    assert tasks["terminal/done"]["goal"]["match"] == {"page": "done", "vars": {}}
    assert tasks["contents/cart/b2x2"]["goal"]["match"] == {"page": None, "vars": {"cart": [["b2", 2]]}}
    assert "view/list/acme,price_asc" in tasks
    cheapest = tasks["cheapest/acme"]
    assert cheapest["answer"]["value"] == 19.5 and "$19.50" in cheapest["answer"]["variants"]


def test_trajectories_carry_states_and_concrete_gui(mini_out: Path) -> None:
    trajs = {t["id"]: t for t in _jsonl(mini_out / "trajectories.jsonl")}
    t = trajs["buy/c3#0"]
    assert t["kind"] == "positive" and t["label"] == "shortest" and t["answer"] is None
    assert t["moves"][-1]["state"]["page"] == "done"
    adds = [m for m in t["moves"] if m["action"] == "add"]
    assert adds and adds[0]["gui"] == [{"op": "click", "selector": "add-c3"}] and adds[0]["label"] == "Add Gamma desk"
    assert all(m["enabled"] for m in t["moves"])


def test_negatives_are_labelled(mini_out: Path) -> None:
    trajs = _jsonl(mini_out / "trajectories.jsonl")
    neg = [t for t in trajs if t["kind"] == "negative"]
    assert {t["label"] for t in neg} == {"truncated", "disabled_move"}
    for t in neg:
        if t["label"] == "disabled_move":
            assert not t["moves"][-1]["enabled"] and t["moves"][-1]["state"] == (
                t["moves"][-2]["state"] if len(t["moves"]) > 1 else t["initial"])


def test_per_goal_and_depth_caps(tmp_path: Path) -> None:
    s = enumerate_spec(load(MINI), tmp_path / "o", Options(per_goal=0, max_depth=3, derived=False))
    assert s.max_depth <= 3 and not s.complete
    trajs = _jsonl(tmp_path / "o" / "trajectories.jsonl")
    assert trajs and all(t["label"] == "shortest" and t["length"] <= 3 for t in trajs)
    assert {t["goal_type"] for t in trajs} <= {"task", "terminal"}
    s = enumerate_spec(load(MINI), tmp_path / "p", Options(per_goal=1, slack=0, per_page_cap=50))
    assert max(s.states_per_page.values()) <= 50
    for t in _jsonl(tmp_path / "p" / "tasks.jsonl"):
        assert len(t["trajectories"]) <= 2


def test_answer_variants() -> None:
    assert variants(9.99)[0] == "9.99"
    assert {"9.99", "$9.99", "£9.99", "9.990"} <= set(variants(9.99))
    assert {"12", "12.0"} <= set(variants(12))
    rec = answer_record("Wool Blend Beanie")
    assert accepts(rec, "  wool BLEND beanie ") and not accepts(rec, "beanie")
    assert accepts(answer_record(10.0), "10") and accepts(answer_record(True), "yes")


@pytest.mark.parametrize(("value", "given", "ok"), [
    (45, "45 minutes", True), (45, "45 min", True), (45, "45.00", True), (45, "46 minutes", False),
    (45, "forty-five", False), (45, "it takes 45 minutes", False), (2, "2 stops", True),
    (19.5, "$19.50", True), (19.5, "19.5 EUR", True), (19.5, "€19.50", True), (19.5, "$19.50 dollars", False),
    (1299.0, "1,299", True), (1299.0, "$1,299.00", True), (1299.0, "1,29", False),
    ("Wool Coat", "2", False), (True, "1", False), (None, "none", True),
])
def test_a_number_is_accepted_in_the_forms_people_write_it_in(value: Any, given: str, ok: bool) -> None:
    """docs/language.md, "What an answer task accepts": a number with its unit or its currency is that number."""
    assert accepts(answer_record(value), given) is ok
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    assert any("unit word" in form for form in answer_record(value)["forms"]) is numeric


def test_cli_refuses_bad_specs_and_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["enumerate", str(tmp_path / "nope.fsm"), "-o", str(tmp_path / "o")]) == 2
    bad = tmp_path / "bad.fsm"
    bad.write_text(MINI.read_text().replace("goto done", "goto nowhere"))
    assert main(["enumerate", str(bad), "-o", str(tmp_path / "o")]) == 1
    assert "error" in capsys.readouterr().err and not (tmp_path / "o").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    assert main(["enumerate", str(MINI), "-o", str(foreign)]) == 1
    assert (foreign / "keep.txt").exists()


@pytest.fixture
def native_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FSMC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "native-cache"))


@pytest.mark.usefixtures("native_cache")
def test_native_engine_gives_the_same_bytes(mini_out: Path, tmp_path: Path) -> None:
    opts = Options(negatives=True, per_goal=2, seed=7, engine="native")
    for run in ("native", "again"):
        enumerate_spec(MINI, tmp_path / run, opts)
    for name in FILES:  # twice with the same seed: the same bytes, the manifest included
        assert (tmp_path / "native" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    for name in ("bfs.json", "trajectories.jsonl", "tasks.jsonl"):  # and what the python engine writes
        assert (tmp_path / "native" / name).read_bytes() == (mini_out / name).read_bytes(), name


@pytest.mark.usefixtures("native_cache")
def test_per_page_cap_with_either_engine(tmp_path: Path) -> None:
    for engine in ("python", "native"):
        args = ["enumerate", str(MINI), "-o", str(tmp_path / engine), "--engine", engine, "--per-page-cap", "40"]
        assert main(args) == 0
    manifest = json.loads((tmp_path / "native" / "manifest.json").read_text())
    assert max(manifest["counts"]["states_per_page"].values()) <= 40 and not manifest["counts"]["complete"]
    for name in ("bfs.json", "trajectories.jsonl", "tasks.jsonl"):
        assert (tmp_path / "native" / name).read_bytes() == (tmp_path / "python" / name).read_bytes(), name


def test_the_seed_decides_the_choices(mini_out: Path, tmp_path: Path) -> None:
    enumerate_spec(MINI, tmp_path / "o", Options(negatives=True, per_goal=2, seed=8))
    seven, eight = _jsonl(mini_out / "trajectories.jsonl"), _jsonl(tmp_path / "o" / "trajectories.jsonl")
    shortest = [t for t in seven if t["label"] == "shortest"]
    assert shortest == [t for t in eight if t["label"] == "shortest"]  # no choice in a shortest trajectory
    drawn = {t["id"]: t["moves"] for t in seven if t["label"] != "shortest"}
    redrawn = {t["id"]: t["moves"] for t in eight if t["label"] != "shortest"}
    # alternatives and negatives are drawn (how many alternatives a goal keeps depends on the draw: those passing
    # through a state where the goal holds already are left out)
    assert drawn != redrawn
    assert {k for k in drawn if "#" in k and not k.split("#")[1].isdigit()} == \
        {k for k in redrawn if "#" in k and not k.split("#")[1].isdigit()}


def test_alternatives_end_in_other_states(mini_out: Path) -> None:
    ends: dict[str, list[Any]] = {}
    for t in _jsonl(mini_out / "trajectories.jsonl"):
        if t["kind"] == "positive":
            ends.setdefault(t["task_id"], []).append(t["moves"][-1]["state"] if t["moves"] else t["initial"])
    assert any(len(e) == 3 for e in ends.values())
    for e in ends.values():
        assert len(e) <= 3 and all(e[i] != e[j] for i in range(len(e)) for j in range(i))


def test_manifest_records_spec_options_counts_and_files(mini_out: Path) -> None:
    manifest = json.loads((mini_out / "manifest.json").read_text())
    assert manifest["fsmc_version"] == __version__
    path = "tests/fixtures/mini.fsm"  # relative to the project (the folder of pyproject.toml): the same in any checkout
    assert manifest["spec"] == {"path": path, "site": "mini", "sha256": spec_digest(MINI, load(MINI))}
    assert manifest["options"] == Options(negatives=True, per_goal=2, seed=7).to_json()
    counts = manifest["counts"]
    assert sum(counts["states_per_depth"]) == sum(counts["states_per_page"].values()) == counts["states"]
    assert sum(counts["trajectories_by_label"].values()) == counts["trajectories"]
    assert manifest["files"] == {n: file_digest(mini_out / n) for n in ("bfs.json", "trajectories.jsonl", "tasks.jsonl")}


def test_an_interrupted_run_leaves_the_previous_output(mini_out: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    shutil.copytree(mini_out, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    stale = tmp_path / ".out.tmp-999999999"  # what a killed run left (no such process)
    stale.mkdir()
    (stale / "trajectories.jsonl").write_text("{half a line")
    written: list[str] = []
    goal = run_module._Writer.goal

    def interrupted(self: Any, planned: Any) -> None:
        if len(written) == 5:
            raise KeyboardInterrupt
        written.append(planned["goal"]["id"])
        goal(self, planned)

    monkeypatch.setattr(run_module._Writer, "goal", interrupted)
    with pytest.raises(KeyboardInterrupt):
        enumerate_spec(MINI, out, Options(seed=3))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # neither the stale folder nor ours is left; the checkpoint stays for the next run to resume from
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.resume", "out"]
    monkeypatch.undo()
    enumerate_spec(load(MINI), tmp_path / "fresh", Options(max_depth=2))
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == sorted(FILES)


def test_value_goals_for_scalar_variables_a_task_reads(tmp_path: Path) -> None:
    text = MINI.read_text() + 'task join_club {\n  goal member\n  instruction "Join the club"\n}\n'
    enumerate_spec(load_text(text, "club.fsm"), tmp_path / "o", Options(max_depth=6))
    tasks = {t["id"]: t for t in _jsonl(tmp_path / "o" / "tasks.jsonl")}
    value = [t for t in tasks.values() if t["kind"] == "value"]
    assert [t["id"] for t in value] == ["value/member/true"]  # false is where the site starts: no goal
    assert value[0]["instruction"] == "Set member to yes." and value[0]["shortest"] == 1
    assert value[0]["goal"]["match"] == {"page": None, "vars": {"member": True}}


def test_progress_is_sparse_lines_off_a_terminal(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    now = [0.0]
    stream = io.StringIO()
    show = PlainProgress("fsmc enumerate", stream=stream, every=10.0, clock=lambda: now[0])
    for k in range(1, 100):  # 99 reports over 49 seconds: a line every 10 s, then a last one
        now[0] = k / 2
        show("explore", k * 1000, k * 3000, k // 10)
    show("scan", 1, 10, 0)  # a short phase prints nothing
    show.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 5 and "\r" not in stream.getvalue()
    assert lines[0] == "fsmc enumerate: explore: 63,000 states, depth 2, 6,300 states/s"
    assert lines[-1].startswith("fsmc enumerate: explore: done: 297,000 states, depth 9")
    assert main(["enumerate", str(MINI), "-o", str(tmp_path / "o"), "--max-depth", "3"]) == 0
    assert "\r" not in capsys.readouterr().err
