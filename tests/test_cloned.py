"""A cloned application as a backend: Django's admin (PyPI) over SQLite, started, reset and read by fsmc.

specs/todo.fsm declares `backend app "apps/todo/fsmc-backend.toml"`: the sidecar says how to set up and
start the Django project under specs/apps/todo, where its database lives and how its state is read (one
SQL query per variable). The tests start it for real, reset it (a row written, then gone), replay every
enumerated trajectory against it, and give it the bad inputs a user would: a state query that reads the
wrong value, an application that does not start, an adapter that raises, a selector that matches nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from fsmc import Compilation
from fsmc.backends import BackendError, ClonedApp, EpisodeFailure, Op
from fsmc.enumerate import Options, enumerate_spec
from fsmc.formats import load
from fsmc.replay import Replayer, replay
from fsmc.replay.inputs import read_trajectories
from fsmc.replay.journal import Journal

pytest.importorskip("django")

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "todo.fsm"
APP = ROOT / "specs" / "apps" / "todo"
SIDECAR = APP / "fsmc-backend.toml"


def sidecar(folder: Path, **keys: str) -> Path:
    """A copy of the todo app's sidecar in `folder` (commands still run in the app), with `keys` replaced or added."""
    text = SIDECAR.read_text(encoding="utf-8").replace('cwd = "."', f"cwd = {json.dumps(str(APP))}")
    for key, value in keys.items():
        line = f"{key} = {value}"
        text, n = re.subn(rf"^{key} = .*$", line.replace("\\", "\\\\"), text, count=1, flags=re.MULTILINE)
        if not n:
            text = line + "\n" + text
    path = folder / "fsmc-backend.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("todo") / "out"
    enumerate_spec(Compilation(str(SPEC)), folder, Options())
    return folder


def test_reset_restores_the_database_and_reads_the_state() -> None:
    async def go() -> tuple[ClonedApp, list[dict[str, object]], EpisodeFailure]:
        app = ClonedApp(SIDECAR, load(SPEC))
        async with app:
            episode = await app.open()
            seen = [await episode.reset()]
            with sqlite3.connect(app.database) as db:
                db.execute("insert into todos_todo (title, done) values ('buy milk', 1)")
            seen.append(await episode.state())
            for _ in range(10):
                seen.append(await episode.reset())
            with pytest.raises(EpisodeFailure) as missing:
                await episode.perform(Op("click", "#no-such-button"))
            with sqlite3.connect(app.database) as db:
                assert db.execute("select count(*) from todos_todo").fetchone() == (0,)
        return app, seen, missing.value

    app, seen, missing = asyncio.run(go())
    initial = {"page": "login", "vars": {"logged_in": False, "milk": False, "milk_done": False}}
    assert seen[0] == initial
    assert seen[1] == {"page": "login", "vars": {"logged_in": False, "milk": True, "milk_done": True}}
    assert all(s == initial for s in seen[2:])
    assert statistics.median(app.reset_seconds) < 0.1, app.reset_seconds  # the goal: a reset within 100 ms
    assert missing.reason == "element_missing"
    assert "#no-such-button" in missing.detail and "/admin/login/" in missing.detail
    assert app.data is not None and not app.data.exists()  # the application's data folder is gone with it


def test_replay_keeps_every_trajectory(out: Path, tmp_path: Path) -> None:
    summary, stats = replay(out, None, tmp_path / "data", workers=2)
    assert summary["trajectories"] == len((out / "trajectories.jsonl").read_text().splitlines()) > 10
    assert summary["kept"] == summary["trajectories"], summary["rejected_examples"]
    rows = [json.loads(line) for line in (tmp_path / "data" / "trajectories.jsonl").read_text().splitlines()]
    steps = [s for r in rows for s in r["steps"]]
    assert {s["url"] for s in steps} >= {"/admin/login/", "/admin/", "/admin/todos/todo/", "/admin/todos/todo/add/"}
    assert all((tmp_path / "data" / s["screenshot"]).is_file() for s in steps)
    assert stats.transitions == sum(len(r["moves"]) for r in rows)  # every move acted out: no jumps


def test_a_state_that_differs_from_the_semantics_is_rejected(out: Path, tmp_path: Path) -> None:
    wrong = sidecar(tmp_path, milk='"select 0"')  # the application never shows the todo the spec added
    trajectories = [t for t in read_trajectories(out) if t.id == "add_milk#0"]
    (tmp_path / "data").mkdir()
    replayer = Replayer(ClonedApp(wrong, load(SPEC)), tmp_path / "data")
    with Journal(tmp_path / "data", "test") as journal:
        asyncio.run(replayer.run(trajectories, journal))
        result = journal.done["add_milk#0"]
    assert result["status"] == "rejected" and result["reason"] == "state_diverged"
    assert "milk" in result["detail"] and result["failed_move"] == len(trajectories[0].moves) - 1


def test_an_application_that_does_not_start_is_a_clear_error(tmp_path: Path) -> None:
    bad = "import sys; print('no database configured'); sys.exit(3)"
    sidecar(tmp_path, setup="[]", start=json.dumps(f"{{python}} -c {json.dumps(bad)}"))
    spec = tmp_path / "todo.fsm"
    spec.write_text(SPEC.read_text(encoding="utf-8").replace("apps/todo/fsmc-backend.toml", "fsmc-backend.toml"))
    enumerate_spec(Compilation(str(spec)), tmp_path / "out", Options())
    run = subprocess.run([sys.executable, "-m", "fsmc", "replay", str(tmp_path / "out"), "-o", str(tmp_path / "data")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1, run.stderr
    assert "exited (code 3)" in run.stderr and "no database configured" in run.stderr
    assert "sys.exit(3)" in run.stderr  # the command as started
    assert "Traceback" not in run.stderr


def test_an_adapter_that_raises_stops_the_run(out: Path, tmp_path: Path) -> None:
    (tmp_path / "broken_adapter.py").write_text("def state(db):\n    raise ValueError('no table todo_item')\n")
    broken = sidecar(tmp_path, adapter='"broken_adapter:state"')
    (tmp_path / "data").mkdir()
    replayer = Replayer(ClonedApp(broken, load(SPEC)), tmp_path / "data")
    with Journal(tmp_path / "data", "test") as journal, pytest.raises(BackendError) as err:
        asyncio.run(replayer.run(list(read_trajectories(out, 1)), journal))
    assert "broken_adapter:state" in str(err.value) and "ValueError: no table todo_item" in str(err.value)
