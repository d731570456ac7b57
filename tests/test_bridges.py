"""fsmc's sites in BrowserGym (the real browsergym-core) and OpenEnv: tasks registered, acted on over bids, rewarded."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from fsmc.bridges.browsergym import (
    PatientActions,
    decode_task_id,
    encode_task_id,
    env_id,
    register_site,
    release_playwright,
)

SLIDER_TASK = "view/search/waterproof,under_50,relevance"   # a comma in its id; a drag onto a price slider's stop
HOVER_TASK = "latest_order/u1"                               # the account menu opened by hovering
ANSWER_TASK = "count_matches/waterproof"                     # search, then answer 6 in the chat
# each element action may wait 10 s for its element to be actionable (BrowserGym's own 500 ms is a race on a busy
# machine): a limit that only a page that never becomes ready reaches
BROWSERGYM_OPTIONS: dict[str, Any] = {"pre_observation_delay": 0.1, "action_mapping": PatientActions(10_000)}


@pytest.fixture(scope="module", autouse=True)
def playwright_released() -> Iterator[None]:
    """BrowserGym's sync Playwright holds the thread's event loop: stopped after this module, so the tests after it can
    run their own asyncio loops in the same process."""
    yield
    release_playwright()


@pytest.fixture(scope="module")
def ids(shop_site: Path, shop_out: Path) -> list[str]:
    return register_site("shop", dist=shop_site, tasks=shop_out, **BROWSERGYM_OPTIONS)


@pytest.fixture
def make(ids: list[str]) -> Iterator[Any]:
    envs: list[Any] = []

    def make(task: str) -> Any:
        envs.append(gymnasium.make(env_id("shop", task)))
        return envs[-1]

    yield make
    for env in envs:
        env.close()


def trajectory(out: Path, task: str) -> dict[str, Any]:
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, lines) if r["task_id"] == task and r["kind"] == "positive")


def test_every_task_is_registered_under_an_id_gymnasium_accepts(ids: list[str], shop_out: Path) -> None:
    tasks = [json.loads(line)["id"] for line in (shop_out / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(ids) == len(set(ids)) == len(tasks)
    assert env_id("shop", SLIDER_TASK) == "browsergym/fsmc.shop.view.search.waterproof-2cunder_50-2crelevance"
    assert all(gymnasium.spec(i) is not None for i in ids)
    assert [decode_task_id(i.removeprefix("browsergym/fsmc.shop.")) for i in ids] == tasks
    assert decode_task_id(encode_task_id("a.b:c d/é")) == "a.b:c d/é"


def by_testid(selector: str) -> str:
    return f'[data-testid="{selector}"]'


def bid(page: Any, css: str) -> str:
    """The bid BrowserGym gave the element at its last observation."""
    return str(page.get_attribute(css, "bid"))


def bid_action(page: Any, op: dict[str, Any], css: Callable[[str], str] = by_testid) -> str:
    """A GUI operation as BrowserGym's action string over the element's bid (what an agent reading the AXTree sends);
    `css` makes the operation's selector a CSS selector."""
    at, text = bid(page, css(op["selector"])), json.dumps(op.get("text") or "")
    if op["op"] == "drag":
        return f"drag_and_drop('{at}', '{bid(page, css(op['text']))}')"
    key = text if op.get("text") else json.dumps("Enter")
    return {"click": f"click('{at}')", "hover": f"hover('{at}')", "type": f"fill('{at}', {text})",
            "press": f"press('{at}', {key})", "select": f"select_option('{at}', {text})"}[op["op"]]


def act_over_bids(env: Any, obs: dict[str, Any], record: dict[str, Any],
                  css: Callable[[str], str] = by_testid) -> tuple[float, bool, dict[str, Any], list[str]]:
    """The verified trajectory `record` acted out with BrowserGym's own actions over bids, each checked to leave no
    error; the last reward, done and info, and the selectors of the elements acted on that BrowserGym's flattened AXTree
    does not list with their bid, a role and a name."""
    from browsergym.utils.obs import flatten_axtree_to_str

    page = env.unwrapped.page
    reward, done, info, missing = 0.0, False, {}, []
    for op in (op for move in record["moves"] for op in move["gui"]):
        action = bid_action(page, op, css)
        at = bid(page, css(op["selector"]))
        line = re.search(rf"^\s*\[{re.escape(at)}\] (\w+) '([^']*)'", flatten_axtree_to_str(obs["axtree_object"]), re.M)
        if line is None or not line[2]:
            missing.append(op["selector"])
        obs, reward, done, _, info = env.step(action)
        assert obs["last_action_error"] == "", (action, obs["last_action_error"])
    if record.get("answer"):
        obs, reward, done, _, info = env.step(f"send_msg_to_user({json.dumps(record['answer']['text'])})")
    return reward, done, info, missing


@pytest.mark.parametrize("task", [SLIDER_TASK, HOVER_TASK])
def test_an_agent_over_bids_completes_the_task_and_sees_every_element_it_acts_on(task: str, make: Any,
                                                                                shop_out: Path) -> None:
    """Every element a trajectory acts on is in BrowserGym's AXTree with its bid, a role and a name; acted on with
    BrowserGym's own action set, the verified trajectory earns reward 1."""
    env = make(task)
    obs, info = env.reset(seed=0)
    record = trajectory(shop_out, task)
    assert obs["goal_object"][0]["text"] == record["instruction"] and info["task_info"]["task"] == task
    reward, done, step_info, missing = act_over_bids(env, obs, record)
    assert (reward, done) == (1.0, True), step_info
    assert missing == [], f"elements acted on without a role and a name in the accessibility tree: {missing}"


def test_bad_actions_get_browsergym_errors_and_cheat_earns_the_reward(make: Any) -> None:
    env = make(ANSWER_TASK)
    env.reset(seed=0)
    for action, error in (("click('no-such-bid')", "Could not find element with bid"), ("click(", "ValueError: Received an empty action"),
                          ("fly('a1')", "NameError: Invalid action type")):
        obs, reward, done, _, _ = env.step(action)
        assert error in obs["last_action_error"] and (reward, done) == (0.0, False)
    u = env.unwrapped
    u.task.cheat(u.page, u.chat.messages)
    obs, reward, done, _, info = env.step("noop()")
    assert (reward, done) == (1.0, True) and info["task_info"]["answer"] == "6"
    obs, reward, done, _, info = env.step("noop()")   # after the end: nothing more to earn
    assert (reward, done) == (0.0, True) and "ended" in info["task_info"]["note"]


def test_the_openenv_server_and_client(shop_site: Path, shop_out: Path) -> None:
    """Reset, step and state over OpenEnv's protocol; a refused action and a step after the end come back in the
    observation (reward 0), and the session goes on."""
    from fsmc.bridges.openenv import FsmcAction, FsmcEnvClient, create_openenv_app
    from fsmc.env.serving import ServerThread

    nowhere = FsmcAction(action="click", coordinate=[2, 715])
    with ServerThread([], app=create_openenv_app(shop_site, shop_out, max_steps=2)) as url, \
            FsmcEnvClient(base_url=url).sync() as client:
        first = client.reset(task="buy/p01")
        assert first.observation.goal == "Buy the Ridgeline Waterproof Shell Jacket." and first.observation.url == "/#/home"
        assert re.search(r'button "Cart".*\[ref=e\d+\].*\[box=\d+,\d+,\d+,\d+\]', first.observation.axtree)
        off = client.step(FsmcAction(action="click", coordinate=[5000, 5]))
        assert off.reward == 0.0 and not off.done and off.observation.last_action_error.startswith("OffScreen")
        missed = client.step(FsmcAction(action="select", coordinate=[2, 715], value="x"))   # fsmc's own note
        assert (missed.done, missed.observation.last_action_error) == (False, "no drop-down list at (2, 715)")
        assert client.step(nowhere).done   # truncated at max_steps
        after = client.step(nowhere)
        assert (after.reward, after.done) == (0.0, True) and "EpisodeEnded" in after.observation.last_action_error
        state = client.state()
        assert (state.task, state.step_count, state.done, state.state["page"]) == ("buy/p01", 2, True, "home")
        unknown = client.reset(task="no/such")
        assert unknown.done and "UnknownTask" in unknown.observation.last_action_error
        assert client.reset(task="buy/p02").observation.goal == "Buy the Harbour Waxed Cotton Jacket."


FIRST_PRODUCT = re.compile(r"heading 'Products'.*?heading '([^']+)'", re.S)
COUNT = re.compile(r"(\d+) (?:items|results|products)")


def scripted_model(requests: dict[str, int]) -> Any:
    """The stand-in's model for AgentLab's GenericAgent: reads the AXTree in the prompt AgentLab sends, finds the bids
    of what it needs by role and name, and answers in GenericAgent's format; the answer is read off the page too."""
    def bid_of(text: str, role: str, name: str) -> str:
        return str(re.findall(rf"\[(\w+)\] {role} '{name}", text)[-1])

    def jackets(text: str, step: int) -> str:
        if step == 1:
            return f"click('{bid_of(text, 'button', 'Browse Jackets')}')"
        if step == 2:
            return f"select_option('{bid_of(text, 'combobox', 'Sort by')}', 'Price: high to low')"
        return f"send_msg_to_user({json.dumps(FIRST_PRODUCT.findall(text)[-1])})"

    def waterproof(text: str, step: int) -> str:
        if step == 1:
            return f"fill('{bid_of(text, 'textbox', 'Search')}', 'waterproof')"
        if step == 2:
            return f"press('{bid_of(text, 'textbox', 'Search')}', 'Enter')"
        return f"send_msg_to_user('{COUNT.findall(text)[-1]}')"

    def reply(request: Any) -> str:
        text = "\n".join(request.texts)
        goal = "jackets" if "most expensive product in Jackets" in text else "waterproof"
        step = requests[goal] = requests.get(goal, 0) + 1
        action = (jackets if goal == "jackets" else waterproof)(text, step)
        return f"<think>step {step}</think>\n<action>\n{action}\n</action>"

    return reply


def test_agentlab_runs_its_generic_agent_on_the_benchmark(shop_site: Path, shop_out: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """AgentLab's own GenericAgent, its model behind the stand-in OpenAI server, solves two shop tasks of the fsmc
    benchmark through AgentLab's experiment loop: the reward AgentLab records is the semantics'."""
    from copy import deepcopy

    from fsmc.bridges.agentlab import benchmark  # first: it keeps litellm and tiktoken offline
    from fsmc.testing.standin import StandIn

    # isort: split
    from agentlab.agents.generic_agent.agent_configs import FLAGS_8B
    from agentlab.agents.generic_agent.generic_agent import GenericAgentArgs
    from agentlab.experiments.loop import ExpArgs, get_exp_result
    from agentlab.llm.chat_api import OpenAIModelArgs

    bench = benchmark("shop", shop_site, shop_out, tasks=["priciest_in/jackets", ANSWER_TASK], max_steps=5,
                      action_timeout_ms=10_000)
    assert [e.task_name for e in bench.env_args_list] == ["fsmc.shop.priciest_in.jackets",
                                                          "fsmc.shop.count_matches.waterproof"]
    flags = deepcopy(FLAGS_8B)
    flags.max_prompt_tokens = None   # nothing to shrink: no tokenizer to fetch for the stand-in's model name
    agent = GenericAgentArgs(chat_model_args=OpenAIModelArgs(model_name="gpt-4o-mini", max_total_tokens=None,
                                                             max_input_tokens=None, max_new_tokens=200), flags=flags)
    agent.set_benchmark(bench, demo_mode=False)
    requests: dict[str, int] = {}
    with StandIn(scripted_model(requests)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        results = []
        for env_args in bench.env_args_list:
            exp = ExpArgs(agent_args=agent, env_args=env_args)
            exp.prepare(tmp_path)
            exp.run()
            results.append(get_exp_result(exp.exp_dir).summary_info)
    assert [(r["cum_reward"], r["n_steps"], r["err_msg"]) for r in results] == [(1.0, 3, None), (1.0, 3, None)]
    assert requests == {"jackets": 3, "waterproof": 3}
