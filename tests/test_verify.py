"""`fsmc verify` accepts an untouched output and catches every kind of corruption, with line numbers."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmc.cli import main
from fsmc.enumerate import Options, enumerate_spec
from fsmc.enumerate.output import resolve_spec
from fsmc.enumerate.verify import VerifyError, verify_output
from fsmc.testing import specs

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"

Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("verify")
    spec = base / "mini.fsm"
    shutil.copy(MINI, spec)
    out = base / "out"
    enumerate_spec(spec, out, Options(negatives=True, per_goal=1, max_depth=12))
    return out


def _copy(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(pristine, out)
    shutil.copy(pristine.parent / "mini.fsm", tmp_path)  # outside a project the manifest names it beside OUT
    return out


def _corrupt(out: Path, pick: Callable[[dict[str, Any]], bool], edit: Edit) -> int:
    """Apply `edit` to the first trajectory `pick` accepts; its 1-based line number."""
    path = out / "trajectories.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines):
        t = json.loads(line)
        if pick(t):
            edit(t)
            lines[n] = json.dumps(t)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return n + 1
    raise AssertionError("no trajectory to corrupt")


def _long(t: dict[str, Any]) -> bool:
    return t["kind"] == "positive" and t["length"] >= 3


def test_untouched_output_verifies(pristine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = verify_output(pristine)
    assert report.ok and report.trajectories > 100 and report.paths >= 1
    assert main(["verify", str(pristine)]) == 0


def _flip_state(t: dict[str, Any]) -> None:
    t["moves"][1]["state"]["vars"]["member"] = not t["moves"][1]["state"]["vars"]["member"]


def _drop_step(t: dict[str, Any]) -> None:
    del t["moves"][1]
    t["length"] -= 1


def _change_action(t: dict[str, Any]) -> None:
    t["moves"][0]["action"] = "join" if t["moves"][0]["action"] != "join" else "browse"


def _change_selector(t: dict[str, Any]) -> None:
    t["moves"][-1]["gui"][0]["selector"] = "somewhere-else"


def _truncate_positive(t: dict[str, Any]) -> None:
    t["moves"] = t["moves"][:-1]
    t["length"] -= 1


def _answer(t: dict[str, Any]) -> None:
    t["answer"]["value"] = 1.0


def _enable_negative(t: dict[str, Any]) -> None:
    t["moves"][-1]["enabled"] = True


def _join_twice(t: dict[str, Any]) -> None:
    t["moves"].insert(1, dict(t["moves"][0]))
    t["length"] += 1


def _label(kind: str, label: str) -> Edit:
    def edit(t: dict[str, Any]) -> None:
        t["kind"], t["label"] = kind, label

    return edit


@pytest.mark.parametrize(("pick", "edit", "words"), [
    (_long, _flip_state, "state differs"),
    (_long, _drop_step, "step 2"),
    (_long, _change_action, "step 1"),
    (_long, _change_selector, "GUI operations differ"),
    (_long, _truncate_positive, "goal does not hold"),
    (lambda t: t["answer"] is not None, _answer, "answer"),
    (lambda t: t["label"] == "disabled_move", _enable_negative, "enabled"),
    (lambda t: t["moves"] and t["moves"][0]["action"] == "join", _join_twice, "preconditions of Move(home.join()) do not hold"),
    # negatives that are not what their label says
    (lambda t: t["label"] == "disabled_move", _label("negative", "truncated"), "do not hold"),
    (lambda t: t["label"] == "truncated", _label("negative", "disabled_move"), "must end with a disabled move"),
    (lambda t: t["label"] == "truncated", _label("positive", "shortest"), "goal does not hold"),
    (lambda t: t["label"] == "shortest" and t["length"] > 0, _label("negative", "truncated"), "goal holds at the end"),
    (lambda t: t["label"] == "truncated", _label("negative", "alternative"), "not a valid combination"),
])
def test_corruption_is_reported_with_its_line(pristine: Path, tmp_path: Path, pick: Callable[[dict[str, Any]], bool],
                                              edit: Edit, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = _copy(pristine, tmp_path)
    line = _corrupt(out, pick, edit)
    report = verify_output(out)
    assert not report.ok
    semantic = [m for m in report.mismatches if m.line]
    assert semantic and all(m.line == line for m in semantic)
    assert any(words in m.message for m in semantic), [str(m) for m in report.mismatches]
    assert any("changed since enumeration" in m.message for m in report.mismatches)
    assert main(["verify", str(out)]) == 1
    assert f"trajectories.jsonl:{line}:" in capsys.readouterr().err


@pytest.mark.parametrize("garbage", [b"{not json\n", b"\xff\xfe\n", b"[1, 2]\n"])
def test_garbage_line_is_reported_with_its_line(pristine: Path, tmp_path: Path, garbage: bytes,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = _copy(pristine, tmp_path)
    path = out / "trajectories.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:9], garbage, *lines[9:]]))
    report = verify_output(out)
    (bad,) = [m for m in report.mismatches if m.line]
    assert bad.line == 10 and ("not valid JSON" in bad.message or "not a trajectory record" in bad.message)
    assert main(["verify", str(out)]) == 1
    assert "trajectories.jsonl:10: " in capsys.readouterr().err


def _rewrite(out: Path, edit: Callable[[list[dict[str, Any]]], int]) -> int:
    path = out / "trajectories.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    line = edit(records)
    path.write_text("".join(json.dumps(t) + "\n" for t in records), encoding="utf-8")
    return line


def _first(records: list[dict[str, Any]], label: str) -> int:
    return next(n for n, t in enumerate(records) if t["label"] == label)


def test_alternatives_are_checked_across_lines(pristine: Path, tmp_path: Path) -> None:
    out = _copy(pristine, tmp_path)

    def same_end(records: list[dict[str, Any]]) -> int:
        n = _first(records, "alternative")
        shortest = next(t for t in records if t["task_id"] == records[n]["task_id"] and t["label"] == "shortest")
        records[n]["moves"], records[n]["length"] = shortest["moves"], shortest["length"]
        return n + 1

    line = _rewrite(out, same_end)
    messages = [m.message for m in verify_output(out).mismatches if m.line == line]
    assert any("ends in the same state as the trajectory on line" in m for m in messages), messages
    out = _copy(pristine, tmp_path / "2")

    def second_shortest(records: list[dict[str, Any]]) -> int:
        n = _first(records, "alternative")
        records[n]["label"] = "shortest"
        return n + 1

    line = _rewrite(out, second_shortest)
    assert any("a second shortest" in m.message for m in verify_output(out).mismatches if m.line == line)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["options"]["per_goal"], manifest["options"]["slack"] = 0, 0
    (out / "manifest.json").write_text(json.dumps(manifest))
    messages = [m.message for m in verify_output(out).mismatches]
    assert any("more than the manifest's per_goal 0" in m for m in messages)


def test_tampered_spec_is_refused(pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = resolve_spec(json.loads((pristine / "manifest.json").read_text())["spec"]["path"], pristine)
    changed = tmp_path / "mini.fsm"
    changed.write_text(Path(spec).read_text().replace('"Alpha lamp", "acme", 19.5', '"Alpha lamp", "acme", 18.5'))
    with pytest.raises(VerifyError, match="not the spec"):
        verify_output(pristine, str(changed))
    assert main(["verify", str(pristine), "--spec", str(changed)]) == 1
    manifest = json.loads((pristine / "manifest.json").read_text())
    manifest["spec"]["sha256"] = "0" * 64
    out = _copy(pristine, tmp_path)
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(VerifyError, match="not the spec"):
        verify_output(out)
    assert main(["verify", str(out)]) == 1
    assert "sha256" in capsys.readouterr().err


def test_unreadable_output(tmp_path: Path) -> None:
    assert main(["verify", str(tmp_path / "nothing")]) == 2


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs(max_states=300), st.integers(0, 3))
def test_every_enumerated_trajectory_verifies(spec: Any, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        enumerate_spec(spec, out, Options(negatives=True, per_goal=2, seed=seed))
        report = verify_output(out, spec=spec)
        assert report.ok, [str(m) for m in report.mismatches[:5]]
