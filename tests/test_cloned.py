"""A cloned application as a backend: Django's admin (PyPI) over SQLite, started, reset and read by fsmc.

specs/todo.fsm declares `backend app "apps/todo/fsmc-backend.toml"`: the sidecar says how to set up and
start the Django project under specs/apps/todo, where its database lives and how its state is read (one
SQL query per variable). The tests start it for real, reset it (a row written, then gone), replay every
enumerated trajectory against it, and give it the bad inputs a user would: a state query that reads the
wrong value, an application that does not start, an adapter that raises, a selector that matches nothing.
The live environments run over it too: rewarded by the database, a task's start reached by acting out moves,
cheats undone by resetting and acting the accepted moves out again, one environment at a time.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fsmc import Compilation
from fsmc.backends import BackendError, ClonedApp, EpisodeFailure, Op
from fsmc.cli import main
from fsmc.enumerate import Options, enumerate_spec
from fsmc.env import AsyncFsmcEnv, EnvPool, Site, Task
from fsmc.env.oracle import oracle_for
from fsmc.env.pool import TooManyEpisodes
from fsmc.env.serving import ServerThread
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
    assert summary["trajectories"] == len((out / "trajectories.jsonl").read_text().splitlines()) >= 5
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


@pytest.mark.parametrize(("keys", "said"), [
    ({"url": '"http://127.0.0.1:{port}/tracker"', "start": '"{python} -m http.server {port} --bind 127.0.0.1"'},
     "answers, but not at `ready`: GET http://127.0.0.1:{port}/tracker/admin/login/ answered 404 File not found for "
     "5 s (is the application served under /tracker? `url` says so"),
    ({"start": '"{python} -c \'import time; time.sleep(60)\'"', "ready_timeout": "1"},
     "was not ready within 1 s: GET http://127.0.0.1:{port}/admin/login/ answered connection refused"),
    ({"start": '"{python} -m http.server {port} --bind 127.0.0.1"', "ready": '"/"', "home": '"/tracker/"'},
     "is up (`ready` answers) but its home page is not served: GET http://127.0.0.1:{port}/tracker/ answered 404"),
], ids=["prefix-not-served", "never-ready", "home-not-served"])
def test_an_application_not_served_where_the_sidecar_says_names_the_command_the_url_and_its_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], keys: dict[str, str], said: str) -> None:
    sidecar(tmp_path, setup="[]", **keys)
    spec = tmp_path / "todo.fsm"
    spec.write_text(SPEC.read_text(encoding="utf-8").replace("apps/todo/fsmc-backend.toml", "fsmc-backend.toml"))
    enumerate_spec(Compilation(str(spec)), tmp_path / "out", Options())
    assert main(["replay", str(tmp_path / "out"), "-o", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    port = re.search(r"127\.0\.0\.1:(\d+)/", err)
    assert port is not None and said.format(port=port[1]) in err, err
    started = json.loads(keys["start"]).replace("{python}", sys.executable).replace("{port}", port[1])
    assert f"it was started as `{started}`" in err and "Traceback" not in err


def test_an_adapter_that_raises_stops_the_run(out: Path, tmp_path: Path) -> None:
    (tmp_path / "broken_adapter.py").write_text("def state(db):\n    raise ValueError('no table todo_item')\n")
    broken = sidecar(tmp_path, adapter='"broken_adapter:state"')
    (tmp_path / "data").mkdir()
    replayer = Replayer(ClonedApp(broken, load(SPEC)), tmp_path / "data")
    with Journal(tmp_path / "data", "test") as journal, pytest.raises(BackendError) as err:
        asyncio.run(replayer.run(list(read_trajectories(out, 1)), journal))
    assert "broken_adapter:state" in str(err.value) and "ValueError: no table todo_item" in str(err.value)


def test_an_application_runs_with_an_interpreter_of_its_own(tmp_path: Path) -> None:
    """`python` names the application's virtual environment: `{python}` is its interpreter, not fsmc's."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   timeout=120)  # the system's site packages: Django without a download
    own = sidecar(tmp_path, python=json.dumps(str(venv / "bin" / "python")))

    async def go() -> tuple[list[str], dict[str, object]]:
        app = ClonedApp(own, load(SPEC))
        async with app:
            episode = await app.open()
            state = await episode.reset()
            assert app._process is not None
            return list(app._process.args), state  # type: ignore[arg-type]

    argv, state = asyncio.run(go())
    assert argv[0] == str((venv / "bin" / "python").absolute()) != sys.executable
    assert state == {"page": "login", "vars": {"logged_in": False, "milk": False, "milk_done": False}}
    missing = sidecar(tmp_path, python='"no-venv/bin/python"')
    with pytest.raises(BackendError) as err:
        ClonedApp(missing, load(SPEC))
    assert "`python` names " in str(err.value) and "no-venv/bin/python, which is no executable file" in str(err.value)


def test_the_pages_of_an_application_under_a_prefix_are_paths_within_it(tmp_path: Path) -> None:
    """`url` with a path: `ready`, `home` and the `pages` patterns are within it; a location outside is no page."""
    text = SIDECAR.read_text(encoding="utf-8").replace('url = "http://127.0.0.1:{port}"',
                                                       'url = "http://127.0.0.1:{port}/tracker/"')
    text = text[:text.index("[state]")].replace("[env]", 'adapter = "zero_adapter:state"\n[env]')
    (tmp_path / "fsmc-backend.toml").write_text(text, encoding="utf-8")
    (tmp_path / "zero_adapter.py").write_text("def state(db):\n    return dict(logged_in=0, milk=0, milk_done=0)\n")
    app = ClonedApp(tmp_path / "fsmc-backend.toml", load(SPEC))
    app.port = 8123
    assert app.prefix == "/tracker" and app.home == "http://127.0.0.1:8123/tracker/admin/login/"
    app._load_adapter()
    assert app.read_state("/tracker/admin/todos/todo/")["page"] == "todos"
    with pytest.raises(EpisodeFailure) as outside:
        app.read_state("/admin/todos/todo/")
    assert "the location /admin/todos/todo/ is no page of the spec" in outside.value.detail


# ---------------------------------------------------------------- the live environments over the application
NOWHERE = {"action": "click", "coordinate": [2, 715]}
LOGGED_IN_TODOS = {"page": "todos", "vars": {"logged_in": True, "milk": False, "milk_done": False}}


@pytest.fixture(scope="module")
def pool(out: Path) -> Iterator[tuple[EnvPool, asyncio.AbstractEventLoop]]:
    loop = asyncio.new_event_loop()
    p = EnvPool([Site.declared(out)], n=1)
    loop.run_until_complete(p.start())
    yield p, loop
    loop.run_until_complete(p.close())
    loop.close()


def shortest(out: Path, task: str) -> dict[str, Any]:
    rows = [json.loads(line) for line in (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]
    found: dict[str, Any] = next(r for r in rows if r["task_id"] == task and r["label"] == "shortest")
    return found


async def play(env: AsyncFsmcEnv, trajectory: dict[str, Any], moves: slice = slice(None)) -> list[Any]:
    """The trajectory's moves acted out by the oracle with pixel actions; every step's result."""
    oracle, results = oracle_for({**trajectory, "moves": trajectory["moves"][moves]}, env.episode), []
    while (action := await oracle.act(env.page)) is not None:
        results.append(await env.step(action))
        assert "restored" not in results[-1].info, results[-1].info
    return results


def rows(pool: EnvPool, title: str) -> int:
    app = pool.backends["todo"]
    assert isinstance(app, ClonedApp)
    with sqlite3.connect(app.database) as db:
        count: int = db.execute("select count(*) from todos_todo where title = ?", (title,)).fetchone()[0]
    return count


@pytest.mark.parametrize("task", ["milk_done", "log_out"])
def test_the_oracle_is_rewarded_by_the_database(pool: Any, out: Path, task: str) -> None:
    p, loop = pool
    env = p.envs[0]

    async def go() -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
        _, info = await env.reset(options={"task": task})
        results = await play(env, shortest(out, task))
        return info, results, await env.episode.state()

    info, results, shown = loop.run_until_complete(go())
    assert info["state"]["page"] == "login" and results[0].reward == 0.0
    last = results[-1]
    assert (last.reward, last.terminated, last.info["success"]) == (1.0, True, True), last.info
    assert [r.info["move"]["action"] for r in results if r.info["move"]] == [m["action"] for m in shortest(out, task)["moves"]]
    assert shown == last.info["state"] == env.state  # the database says what the semantics say
    if task == "milk_done":
        assert shown["vars"]["milk_done"] is True and rows(p, "buy milk") == 1


def test_a_task_that_starts_elsewhere_is_reached_by_acting_out_its_moves(pool: Any, out: Path) -> None:
    p, loop = pool
    env = p.envs[0]
    add = p.sites["todo"].tasks.get("add_milk")
    p.sites["todo"].tasks.tasks["add_from_todos"] = Task("add_from_todos", add.instruction, add.goal, None,
                                                         LOGGED_IN_TODOS)

    async def go() -> tuple[dict[str, Any], str, dict[str, Any], list[Any]]:
        _, info = await env.reset(options={"task": "add_from_todos"})
        return info, env.page.url, await env.episode.state(), await play(env, shortest(out, "add_milk"), slice(2, None))

    try:
        info, url, shown, results = loop.run_until_complete(go())
    finally:
        del p.sites["todo"].tasks.tasks["add_from_todos"]
    assert info["state"] == shown == LOGGED_IN_TODOS and url.endswith("/admin/todos/todo/")
    assert [m.name for m in env._path] == ["login.log_in", "index.open_todos", "todos.add_todo", "add.save_milk"]
    assert (results[-1].reward, results[-1].terminated) == (1.0, True)


@pytest.mark.parametrize(("cheat", "accepted", "path"), [("url", 1, "/admin/"), ("database", 2, "/admin/todos/todo/")])
def test_a_cheat_is_undone_by_acting_the_accepted_moves_out_again(pool: Any, out: Path, cheat: str, accepted: int,
                                                                  path: str) -> None:
    p, loop = pool
    env = p.envs[0]

    async def go() -> tuple[dict[str, Any], Any]:
        await env.reset(options={"task": "add_milk"})
        await play(env, shortest(out, "add_milk"), slice(0, accepted))
        before = env.state
        if cheat == "url":  # a URL typed into the address bar: the add form, two moves away from the index
            await env.page.goto(env.page.url.split("/admin/")[0] + "/admin/todos/todo/add/")
        else:  # the goal written into the database behind the environment's back
            with sqlite3.connect(p.backends["todo"].database) as db:
                db.execute("insert into todos_todo (title, done) values ('buy milk', 0)")
        return before, await env.step(NOWHERE)

    before, result = loop.run_until_complete(go())
    assert before["page"] == ("index" if accepted == 1 else "todos") and before["vars"]["logged_in"]
    assert "restored" in result.info and result.info["move"] is None
    assert (result.reward, result.terminated) == (0.0, False)
    assert result.info["state"] == env.state == before
    assert loop.run_until_complete(env.episode.state()) == before  # the application was put back
    assert env.page.url.endswith(path) and rows(p, "buy milk") == 0
    assert len(env._path) == accepted  # the moves accepted so far, acted out again


def test_a_page_that_cannot_be_put_back_is_a_clear_failure(pool: Any, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p, loop = pool
    env, app = p.envs[0], p.backends["todo"]

    async def go() -> None:
        await env.reset(options={"task": "add_milk"})
        await play(env, shortest(out, "add_milk"), slice(0, 1))
        monkeypatch.setattr(app, "restore", lambda: None)  # the reset no longer restores the database
        with sqlite3.connect(app.database) as db:
            db.execute("insert into todos_todo (title, done) values ('buy milk', 0)")
        await env.step(NOWHERE)

    with pytest.raises(EpisodeFailure) as failed:
        loop.run_until_complete(go())
    assert failed.value.reason == "state_diverged"
    assert "could not be put back" in failed.value.detail and "milk = true (expected false)" in failed.value.detail


def test_one_environment_at_a_time_and_closing_closes_its_context(pool: Any) -> None:
    p, loop = pool
    env = p.envs[0]
    with pytest.raises(TooManyEpisodes, match="runs 1 environment at a time .*ClonedApp.*1 open, 1 more asked for"):
        loop.run_until_complete(p.open())
    assert p.contexts() == 1
    loop.run_until_complete(env.close())
    assert env.page.is_closed() and p.contexts() == 0
    p.envs[0] = loop.run_until_complete(p.open())  # the one environment closed: another may open
    assert p.contexts() == 1
    with pytest.raises(TooManyEpisodes, match="0 open, 2 more asked for"):
        loop.run_until_complete(EnvPool([p.sites["todo"]], n=2).start())


def test_eval_with_the_oracle_scores_every_task(out: Path, tmp_path: Path) -> None:
    """The oracle acts out the replay's exported actions on the application: what the datasets teach works there."""
    replay(out, None, tmp_path / "data", workers=1)
    assert main(["eval", "--site", "todo", "--tasks-from", str(out), "--policy", "oracle", "--tasks", "log_out",
                 "add_milk", "--data", str(tmp_path / "data"),
                 "-o", str(tmp_path / "eval")]) == 0  # four environments asked for: one episode at a time
    results = json.loads((tmp_path / "eval" / "results.json").read_text(encoding="utf-8"))
    assert (results["episodes"], results["success_rate"]) == (2, 1.0), results


def test_serve_env_gives_the_application_to_one_session_at_a_time(out: Path) -> None:
    with ServerThread([Site.declared(out)]) as url:
        first = httpx.post(f"{url}/sessions", json={"site": "todo", "task": "log_out"}, timeout=60)
        assert first.status_code == 201 and first.json()["info"]["state"]["page"] == "login"
        second = httpx.post(f"{url}/sessions", json={"site": "todo"}, timeout=60)
        assert second.status_code == 409 and second.json()["error"] == "site_busy"
        assert "runs 1 environment at a time" in second.json()["message"]
        assert httpx.delete(f"{url}/sessions/{first.json()['session']}", timeout=60).status_code == 200
        assert httpx.post(f"{url}/sessions", json={"site": "todo"}, timeout=60).status_code == 201
