"""fsmc eval: the oracle scores 100 %, random is the same for a seed, callables and OpenAI-compatible models are
evaluated through the live environments (the models through the real openai client against a local stand-in)."""

from __future__ import annotations

import asyncio
import functools
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fsmc.cli import main
from fsmc.env import EnvPool, Observation, Site
from fsmc.eval import EPISODES, RESULTS, evaluate, make_policy, plan
from fsmc.eval.chat import read_action, system_prompt
from fsmc.eval.policies import CallablePolicy
from fsmc.export.actions import SYSTEM_PROMPT
from fsmc.testing.standin import Reply, StandIn

# every GUI operation and an answer, in short tasks of each goal type
ORACLE_TASKS = ["contents/cart/p17x1", "priciest_in/jackets", "count_matches/waterproof", "value/page_no/category/2",
                "view/search/waterproof,under_50,relevance", "latest_order/u1"]
SHORT = "view/search/waterproof,under_50,relevance"
Pool = tuple[EnvPool, asyncio.AbstractEventLoop]


@pytest.fixture(scope="module")
def site(shop_site: Path, shop_out: Path) -> Site:
    return Site.load(shop_site, shop_out)


@pytest.fixture(scope="module")
def pool(site: Site) -> Iterator[Pool]:
    """One Chromium for the evaluations of this file (each opens and closes its own environments)."""
    loop = asyncio.new_event_loop()
    p = EnvPool([site])
    loop.run_until_complete(p.start())
    yield p, loop
    loop.run_until_complete(p.close())
    loop.close()


@pytest.fixture(scope="module")
def demos(shop_site: Path, shop_out: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay of the shortest trajectories of ORACLE_TASKS: what the oracle acts out (their exported actions)."""
    from conftest import write_sample

    from fsmc.replay import replay

    lines = [line for line in (shop_out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
             if (t := json.loads(line))["task_id"] in ORACLE_TASKS and t["label"] == "shortest"]
    sample = write_sample(shop_out, tmp_path_factory.mktemp("demos") / "out", lines)
    data = tmp_path_factory.mktemp("demos") / "data"
    replay(sample, shop_site, data, workers=2)
    return data


def run_eval(pool: Pool, policy: Any, out: Path, tasks: list[str], **options: Any) -> dict[str, Any]:
    p, loop = pool
    episodes = options.pop("episodes", None)
    make = (make_policy(policy, options.pop("data", None), **options.pop("endpoint", {})) if isinstance(policy, str)
            else policy)
    planned = plan(list(p.sites.values()), tasks, episodes, options.pop("seed", 0))
    return loop.run_until_complete(evaluate(p, planned, make, out, meta={"policy": str(policy)}, **options))


def episodes(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / EPISODES).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def oracle_out(pool: Pool, demos: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "oracle"
    run_eval(pool, "oracle", out, ORACLE_TASKS, n=2, data={"shop": demos})
    return out


def test_the_oracle_scores_100_percent_and_the_outputs_have_their_shape(site: Site, oracle_out: Path) -> None:
    results = json.loads((oracle_out / RESULTS).read_text(encoding="utf-8"))
    assert (results["episodes"], results["success_rate"], results["ends"]) == (len(ORACLE_TASKS), 1.0, {"success": 6})
    assert set(results["by_goal_type"]) == {"contents", "task", "value", "view"} and list(results["by_site"]) == ["shop"]
    in_file_order = [t.id for t in site.tasks if t.id in ORACLE_TASKS]
    assert [r["task"] for r in results["rows"]] == in_file_order  # the planned order, whatever finished first
    assert results["mean_steps"] == round(sum(r["steps"] for r in results["rows"]) / len(ORACLE_TASKS), 3)
    rows = episodes(oracle_out)
    assert [r["episode"] for r in rows] == list(range(len(ORACLE_TASKS)))
    for r in rows:
        assert r["trace"][-1]["reward"] == 1.0 and r["state"]["page"]
        for step in r["trace"]:
            assert {"step", "screenshot", "action", "reward", "move", "changed"} <= set(step)
            assert (oracle_out / step["screenshot"]).read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    assert any(s.get("answer", {}).get("accepted") for r in rows for s in r["trace"])
    index = (oracle_out / "gallery" / "index.html").read_text(encoding="utf-8")
    assert "6 succeeded, 0 failed" in index
    page = next((oracle_out / "gallery").glob("00000-*.html")).read_text(encoding="utf-8")
    sources = [part.split('"')[0] for part in page.split('<img src="')[1:]]
    assert sources and all((oracle_out / "gallery" / src).resolve().is_file() for src in sources)


def test_random_gives_the_same_output_for_a_seed(pool: Pool, tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        run_eval(pool, "random", out, ["view", "contents"], episodes=3, seed=7, n=2, max_steps=4)
    a, b = outs
    assert (a / RESULTS).read_bytes() == (b / RESULTS).read_bytes()
    assert (a / EPISODES).read_bytes() == (b / EPISODES).read_bytes()
    assert len({json.dumps(r["trace"][0]["action"]) for r in episodes(a)}) > 1  # each episode its own draw


def test_a_callable_policy_its_refused_actions_and_its_errors(pool: Pool, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def agent(observation: Observation, info: dict[str, Any]) -> dict[str, Any] | None:
        seen.append(info)
        if info["task"] == "latest_order/u1":
            raise RuntimeError("my agent broke")
        if "error" not in info:
            return {"action": "click", "coordinate": [5000, 10]}  # off the screenshot: refused, the episode goes on
        return None  # stop

    run_eval(pool, functools.partial(CallablePolicy, agent), tmp_path / "out", ["count_matches/waterproof", "latest_order/u1"])
    first, second = episodes(tmp_path / "out")
    assert (first["end"], first["steps"], first["failed_steps"], first["success"]) == ("stopped", 1, 1, False)
    assert "off the 1280x720 screenshot" in first["trace"][0]["error"]
    assert (second["end"], second["trace"][0]["error"]) == ("policy_error", "the policy raised RuntimeError: my agent broke")
    assert seen[0]["instruction"] and seen[0]["task"] == "count_matches/waterproof"


def oracle_actions(oracle_out: Path, task: str) -> list[dict[str, Any]]:
    record = next(r for r in episodes(oracle_out) if r["task"] == task)
    return [s["action"] for s in record["trace"]]


def test_a_model_behind_an_openai_endpoint_succeeds_and_a_500_is_retried(pool: Pool, oracle_out: Path, tmp_path: Path) -> None:
    from PIL import Image

    actions = oracle_actions(oracle_out, SHORT)
    script: list[Reply | str] = [json.dumps({"thought": f"step {i}", "action": a}) for i, a in enumerate(actions)]
    script.insert(1, Reply(status=500))  # the client retries it: the episode never sees it
    with StandIn(script) as server:
        results = run_eval(pool, "openai", tmp_path / "out", [SHORT],
                           endpoint={"model": "stand-in-vl", "base_url": server.openai_url, "api_key": "k"})
    assert (results["success_rate"], results["rows"][0]["steps"]) == (1.0, len(actions))
    assert len(server.requests) == len(actions) + 1
    assert results["usage"]["requests"] == len(actions) and results["usage"]["prompt_tokens"] > 0
    first = server.requests[0]
    assert first.body["response_format"] == {"type": "json_object"} and first.body["model"] == "stand-in-vl"
    (mime, image), = first.images
    assert mime == "image/jpeg" and Image.open(io.BytesIO(image)).size == (1280, 720)
    assert "Previous actions:\nnone" in first.texts[-1] and "1. {" in server.requests[-1].texts[-1]
    trace = episodes(tmp_path / "out")[0]["trace"]
    assert trace[0]["raw"] == script[0] and trace[0]["usage"]["completion_tokens"] > 0


def test_garbage_from_the_model_is_a_failed_step_not_a_crash(pool: Pool, tmp_path: Path) -> None:
    garbage = ["I would click the button.", '{"thought": "no action here"}', '{"action": {"action": "fly"}}',
               '{"action": "click", "coordinate": [1, 2, 3]}']

    with StandIn(garbage) as server:
        results = run_eval(pool, "openai", tmp_path / "out", [SHORT], max_steps=4,
                           endpoint={"model": "m", "base_url": server.openai_url, "prompt": "fsmc"})
    row = results["rows"][0]
    assert (row["success"], row["end"], row["steps"], row["failed_steps"]) == (False, "step_limit", 4, 4)
    errors = [s["error"] for s in episodes(tmp_path / "out")[0]["trace"]]
    assert errors[0] == "the reply holds no JSON object" and "no `action`" in errors[1]
    assert errors[2].startswith("refused: unknown action 'fly'") and "[x, y]" in errors[3]
    assert "could not be used (the reply holds no JSON object)" in server.requests[1].texts[-1]
    assert server.requests[0].texts[0] == SYSTEM_PROMPT and "response_format" not in server.requests[0].body


def test_replies_are_read_in_every_shape_a_model_gives_them() -> None:
    click = {"action": "click", "coordinate": [3, 4]}
    for reply in ('<think>go</think><action>{"action":"click","coordinate":[3,4]}</action>',
                  '{"thought": "go", "action": {"action": "click", "coordinate": [3, 4]}}',
                  'Sure:\n```json\n{"action": "click", "coordinate": [3, 4], "thought": "go"}\n```'):
        assert read_action(reply) == click
    for bad, why in (("", "no JSON object"), ("{nope", "does not parse"), ('{"x": 1}', "no `action`")):
        with pytest.raises(ValueError, match=why):
            read_action(bad)
    assert '"action": ACTION' in system_prompt("json") and system_prompt("fsmc") == SYSTEM_PROMPT


def test_an_unreachable_endpoint_stops_with_one_line_and_writes_nothing(shop_site: Path, shop_out: Path,
                                                                        tmp_path: Path, capsys: Any) -> None:
    with StandIn([]) as server:
        closed = server.openai_url  # the port is free again once the stand-in has stopped
    code = main(["eval", "--site", "shop", "--dist", str(shop_site), "--tasks-from", str(shop_out), "--tasks", SHORT,
                 "--policy", "openai", "--model", "m", "--base-url", closed, "--retries", "0", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1 and f"cannot reach {closed}/" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists() and not (tmp_path / ".out.tmp").exists()


@pytest.mark.parametrize(("args", "message", "exit_code"), [
    (["--site", "nosuchsite"], "is not a built site", 2),
    (["--tasks", "no/such-task"], "no task 'no/such-task'", 2),
    (["--policy", "telepathy"], "unknown policy 'telepathy'", 2),
    (["--data", "nowhere"], "nowhere holds no replay", 2),
    (["--policy", "callable:no_such_module:act"], "cannot import 'no_such_module'", 2),
    (["--policy", "openai"], "needs --model", 64),  # usage errors
    (["-n", "0"], "-n must be at least 1", 64),
])
def test_bad_input_is_one_line_and_exit_2(shop_site: Path, shop_out: Path, tmp_path: Path, capsys: Any,
                                          args: list[str], message: str, exit_code: int) -> None:
    base = {"--site": "shop", "--dist": str(shop_site), "--tasks-from": str(shop_out), "--policy": "oracle"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    if base["--site"] != "shop":
        del base["--dist"], base["--tasks-from"]
    argv = ["eval", *[x for kv in base.items() for x in kv], "-o", str(tmp_path / "out")]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == exit_code and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_an_output_folder_of_something_else_is_left_alone(shop_site: Path, shop_out: Path, tmp_path: Path,
                                                          capsys: Any) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    code = main(["eval", "--site", "shop", "--dist", str(shop_site), "--tasks-from", str(shop_out), "--policy", "random",
                 "--tasks", SHORT, "-o", str(precious)])
    assert code == 2 and "not an `fsmc eval` output" in capsys.readouterr().err
    assert [p.name for p in precious.iterdir()] == ["notes.txt"]


def test_the_oracle_acts_out_exactly_what_the_datasets_teach(oracle_out: Path, demos: Path) -> None:
    from fsmc.export.datasets import agent_steps, read_kept

    taught = {t["task_id"]: [a for a, _ in agent_steps(t)] for t in read_kept(demos)}
    assert set(taught) == set(ORACLE_TASKS)
    for task, actions in taught.items():
        assert oracle_actions(oracle_out, task) == actions, task
