"""BrowserGym tasks on the backends a spec declares: datasette's capture served offline, Django's todo app cloned.

`register_site` without a built site registers the tasks on the backend their spec declares; BrowserGym's own page is
then driven by that backend's episode: the capture's requests answered from its archive (nothing reaches the network:
a tripwire listens where datasette was), the cloned application reset from its database snapshot and its state read
by SQL. Acted on over BrowserGym's bids, each task earns the reward its semantics give.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from datasette_site import Datasette, Tripwire, zoo_db
from test_bridges import BROWSERGYM_OPTIONS, act_over_bids, bid, trajectory

from fsmc.bridges.browsergym import declared_backend, env_id, register_site, release_playwright
from fsmc.capture import Options, capture
from fsmc.cli import main

pytest.importorskip("datasette")
pytest.importorskip("django")

ROOT = Path(__file__).resolve().parent.parent
ZOO_TASK = "reach_zoo_animals_item_3"   # home -> animals -> the third animal


@pytest.fixture(scope="module", autouse=True)
def playwright_released() -> Iterator[None]:
    yield
    release_playwright()


def css(selector: str) -> str:
    return selector


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Tripwire]]:
    """datasette captured then stopped (a tripwire where it was), the draft imported and enumerated: OUT."""
    root = tmp_path_factory.mktemp("project")
    live = Datasette(zoo_db(root / "zoo.db"))
    try:
        capture(live.url, root / "captures" / "zoo", Options(depth=2, pages=12, flows=ROOT / "specs" / "datasette" / "flows.json"))
    finally:
        live.stop()
    tripwire = Tripwire(live.port)
    spec, out = root / "specs" / "datasette" / "zoo.fsm", root / "out" / "zoo"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)  # the output names its spec relative to here: its tasks and backend are read here, once
        assert main(["import", str(root / "captures" / "zoo"), "-o", str(spec)]) == 0
        assert main(["enumerate", str(spec), "-o", str(out), "--max-depth", "3"]) == 0
        register_site("zoo", tasks=out, **BROWSERGYM_OPTIONS)
    yield out, tripwire
    tripwire.shutdown()
    tripwire.server_close()


@pytest.fixture(scope="module")
def todo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("todo") / "out"
    assert main(["enumerate", str(ROOT / "specs" / "todo.fsm"), "-o", str(out)]) == 0
    register_site("todo", tasks=out, **BROWSERGYM_OPTIONS)
    return out


@pytest.fixture
def make() -> Iterator[Any]:
    envs: list[Any] = []

    def make(site: str, task: str) -> Any:
        envs.append(gymnasium.make(env_id(site, task)))
        return envs[-1]

    yield make
    for env in envs:
        env.close()


def cheat_then_wrong(env: Any, wrong: list[str]) -> tuple[tuple[float, bool], tuple[float, bool]]:
    """(reward, done) after the task's own cheat, then after a reset and the actions over the bids of `wrong`."""
    u = env.unwrapped
    u.task.cheat(u.page, u.chat.messages)
    _, reward, done, _, _ = env.step("noop()")
    cheated = (reward, done)
    env.reset(seed=0)
    for selector in wrong:
        obs, reward, done, _, info = env.step(f"click('{bid(env.unwrapped.page, selector)}')")
        assert obs["last_action_error"] == "", obs["last_action_error"]
    return cheated, (reward, done)


def test_a_capture_runs_offline_under_browsergym(zoo: tuple[Path, Tripwire], make: Any) -> None:
    out, tripwire = zoo
    env = make("zoo", ZOO_TASK)
    obs, info = env.reset(seed=0)
    record = trajectory(out, ZOO_TASK)
    assert obs["goal_object"][0]["text"] == record["instruction"] and obs["url"].endswith("/")
    reward, done, step_info, missing = act_over_bids(env, obs, record, css)
    assert (reward, done) == (1.0, True), step_info
    assert step_info["task_info"]["state"] == {"page": "zoo_animals_item", "vars": {"zoo_animals_item_id": "3"}}
    assert missing == [], f"elements acted on without a role and a name in the accessibility tree: {missing}"
    obs, reward, done, _, _ = env.step("noop()")   # after the end: nothing more to earn
    assert (reward, done) == (0.0, True)
    env.reset(seed=0)
    cheated, wrong = cheat_then_wrong(env, ['a[href="/zoo/keepers"]'])
    assert cheated == (1.0, True) and wrong == (0.0, False)
    for action, error in (("click('no-such-bid')", "Could not find element with bid"),
                          ("click(", "ValueError: Received an empty action")):
        obs, reward, done, _, _ = env.step(action)
        assert error in obs["last_action_error"] and (reward, done) == (0.0, False)
    backend = declared_backend(str(out))
    assert backend.blocked_requests == 0 and backend.misses == 0 and tripwire.hits == []  # nothing left the machine


def test_a_cloned_application_is_reset_and_read_by_sql_under_browsergym(todo: Path, make: Any) -> None:
    env = make("todo", "add_milk")
    obs, _ = env.reset(seed=0)
    record = trajectory(todo, "add_milk")
    reward, done, step_info, missing = act_over_bids(env, obs, record, css)
    assert (reward, done) == (1.0, True) and step_info["task_info"]["state"]["vars"]["milk"] is True, step_info
    assert missing == [], f"elements acted on without a role and a name in the accessibility tree: {missing}"
    env.reset(seed=0)   # the database restored: the todo is gone, the session with it
    assert env.unwrapped.task.state == {"page": "login", "vars": {"logged_in": False, "milk": False, "milk_done": False}}
    for op in record["moves"][0]["gui"]:   # logged in, over bids
        value = json.dumps(op.get("text") or "")
        at = bid(env.unwrapped.page, op["selector"])
        env.step(f"fill('{at}', {value})" if op["op"] == "type" else f"click('{at}')")
    obs, reward, done, _, info = env.step(f"click('{bid(env.unwrapped.page, '#logout-form button')}')")
    assert (reward, done) == (0.0, True) and info["task_info"]["state"]["page"] == "logged_out"   # the wrong way out
    env.reset(seed=0)
    u = env.unwrapped
    u.task.cheat(u.page, u.chat.messages)
    assert env.step("noop()")[1:3] == (1.0, True)
    with pytest.raises(RuntimeError, match="1 episode at a time"):   # one database: a second environment waits
        make("todo", "log_out").reset(seed=0)
