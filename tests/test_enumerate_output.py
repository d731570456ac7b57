"""`fsmc enumerate`: the output files, their determinism, caps, derived goals, answers and the CLI's exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fsmc import load
from fsmc.cli import main
from fsmc.enumerate import Options, accepts, answer_record, enumerate_spec, variants
from fsmc.enumerate.output import FILES

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def mini_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("enum") / "mini"
    enumerate_spec(load(MINI), out, Options(negatives=True, per_goal=2, seed=7), spec_path=str(MINI))
    return out


def test_same_inputs_give_the_same_bytes(mini_out: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert main(["enumerate", str(MINI), "-o", str(again), "--negatives", "--seed", "7"]) == 0
    for name in FILES:
        assert (again / name).read_bytes() == (mini_out / name).read_bytes(), name


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
    assert main(["enumerate", str(MINI), "-o", str(tmp_path / "x"), "--engine", "native", "--per-page-cap", "3"]) == 1


def test_native_engine_gives_the_same_trajectories(mini_out: Path, tmp_path: Path) -> None:

    out = tmp_path / "native"
    enumerate_spec(load(MINI), out, Options(negatives=True, per_goal=2, seed=7, engine="native"), spec_path=str(MINI))
    for name in ("bfs.json", "trajectories.jsonl", "tasks.jsonl"):
        assert (out / name).read_bytes() == (mini_out / name).read_bytes(), name
