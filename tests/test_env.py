"""The environment: rewards from the semantics through real mouse and keyboard, no cheating, no leaks, gymnasium's API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fsmc.env import AsyncFsmcEnv, EnvPool, EpisodeEnded, InvalidAction, OffScreen, UnknownTask, parse
from fsmc.env.oracle import Oracle

NOWHERE = {"action": "click", "coordinate": [2, 715]}


def trajectories(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]


def covering(out: Path) -> list[dict[str, Any]]:
    """Shortest positive trajectories that together use every GUI operation, and a retrieval task."""
    picked: dict[str, dict[str, Any]] = {}
    for r in trajectories(out):
        if r["label"] != "shortest":
            continue
        for op in {g["op"] for m in r["moves"] for g in m["gui"]} - set(picked):
            picked[op] = r
        if r["answer"] is not None:
            picked.setdefault("answer", r)
    return list({r["id"]: r for r in picked.values()}.values())


async def play(env: AsyncFsmcEnv, trajectory: dict[str, Any]) -> Any:
    await env.reset(options={"task": trajectory["task_id"]})
    oracle, result = Oracle(trajectory), None
    while (action := await oracle.act(env.page)) is not None:
        result = await env.step(action)
        assert "restored" not in result.info, result.info
        if result.terminated or result.truncated:
            break
    return result


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def pool(shop_site: Path, shop_out: Path) -> Iterator[tuple[EnvPool, asyncio.AbstractEventLoop]]:
    loop = asyncio.new_event_loop()
    p = EnvPool.of(shop_site, shop_out, n=2, max_steps=60)
    loop.run_until_complete(p.start())
    yield p, loop
    loop.run_until_complete(p.close())
    loop.close()


def test_the_oracle_earns_reward_one_through_every_gui_operation(pool: Any, shop_out: Path) -> None:
    p, loop = pool
    env = p.envs[0]
    for t in covering(shop_out):
        result = loop.run_until_complete(play(env, t))
        assert result is not None and result.reward == 1.0 and result.terminated, (t["id"], result and result.info)
        assert result.info["success"]


def test_a_wrong_answer_earns_nothing_and_ends_the_episode(pool: Any, shop_out: Path) -> None:
    p, loop = pool
    env = p.envs[0]
    task = next(t for t in env.tasks if t.retrieval)
    loop.run_until_complete(env.reset(options={"task": task.id}))
    result = loop.run_until_complete(env.step({"action": "answer", "text": "certainly not this"}))
    assert (result.reward, result.terminated, result.info["answer"]["accepted"]) == (0.0, True, False)
    with pytest.raises(EpisodeEnded):
        loop.run_until_complete(env.step(NOWHERE))


def test_bad_actions_are_refused_before_anything_is_done(pool: Any) -> None:
    p, loop = pool
    env = p.envs[0]
    loop.run_until_complete(env.reset(options={"task": "buy/p01"}))
    for bad in ({"action": "fly"}, {"action": "click"}, {"action": "click", "coordinate": [1, 2], "extra": 1},
                {"action": "key", "key": "NoSuchKey"}, {"action": "type", "coordinate": [1, 1]}, "click", None):
        with pytest.raises(InvalidAction):
            loop.run_until_complete(env.step(bad))  # type: ignore[arg-type]
    with pytest.raises(OffScreen):
        parse({"action": "click", "coordinate": [1280, 10]})
    assert env.steps == 0 and not env.done
    with pytest.raises(UnknownTask):
        loop.run_until_complete(env.reset(options={"task": "no/such-task"}))


def goal_state(out: Path, task: str) -> dict[str, Any]:
    t = next(r for r in trajectories(out) if r["task_id"] == task and r["kind"] == "positive")
    state: dict[str, Any] = t["moves"][-1]["state"]
    return state


@pytest.mark.parametrize("cheat", ["harness", "url", "offsite", "reload", "storage"])
def test_nothing_done_outside_the_gui_changes_the_state_or_the_reward(pool: Any, shop_out: Path, cheat: str) -> None:
    p, loop = pool
    env = p.envs[0]
    goal = goal_state(shop_out, "buy/p01")
    loop.run_until_complete(env.reset(options={"task": "buy/p01"}))
    before, page = env.state, env.page
    origin = page.url.split("#")[0]

    async def tamper() -> None:
        if cheat == "harness":  # page JS calling the harness
            await page.evaluate("(s) => window.__fsmc.reset(s)", goal)
        elif cheat == "url":  # a URL typed into the address bar
            await page.goto(origin + "#/confirmation")
        elif cheat == "offsite":  # blocked: the page is left on Chromium's error page
            with pytest.raises(Exception, match="BLOCKED"):
                await page.goto("http://example.com/")
        elif cheat == "reload":
            await page.evaluate("(s) => window.__fsmc.reset(s)", goal)
            await page.reload()
        elif cheat == "storage":  # the state the site restores on load, forged
            key = await page.evaluate("() => Object.keys(sessionStorage)[0]")
            await page.evaluate("([k, s]) => sessionStorage.setItem(k, JSON.stringify(s))", [key, goal])
            await page.reload()

    loop.run_until_complete(tamper())
    result = loop.run_until_complete(env.step(NOWHERE))
    assert result.reward == 0.0 and not result.terminated
    assert env.state == before == result.info["state"]
    assert loop.run_until_complete(env.episode.state()) == before  # the page was put back
    if cheat != "url":
        assert "restored" in result.info


def test_typed_urls_and_browser_keys_do_nothing_but_what_the_page_does(pool: Any) -> None:
    p, loop = pool
    env = p.envs[0]
    loop.run_until_complete(env.reset(options={"task": "buy/p01"}))
    box = loop.run_until_complete(env.page.evaluate(
        "() => { const r = document.querySelector('input').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] }"))
    point = [round(box[0]), round(box[1])]
    for action in ({"action": "type", "coordinate": point, "text": "javascript:window.__fsmc.reset(null)"},
                   {"action": "key", "key": "F5"}, {"action": "key", "key": "Control+l"}, {"action": "key", "key": "Alt+ArrowLeft"}):
        result = loop.run_until_complete(env.step(action))
        assert result.reward == 0.0 and "restored" not in result.info, result.info


def test_environments_of_a_pool_share_nothing(pool: Any) -> None:
    p, loop = pool
    a, b = p.envs

    async def go() -> None:
        await a.reset(options={"task": "buy/p01"})
        await b.reset(options={"task": "buy/p01"})
        await a.page.evaluate("() => { document.cookie = 'who=a'; localStorage.setItem('who', 'a') }")
        await a.step({"action": "click", "coordinate": list(await featured(a))})
        assert a.state != b.state
        assert await b.episode.state() == b.state
        assert await b.page.evaluate("() => [document.cookie, localStorage.getItem('who')]") == ["", None]
        stored = await b.page.evaluate("() => Object.values(sessionStorage)")
        assert [json.loads(v) for v in stored] == [b.state]

    loop.run_until_complete(go())


async def featured(env: AsyncFsmcEnv) -> tuple[int, int]:
    box = await Oracle({"moves": [{"gui": [{"op": "click", "selector": "featured-card-hero-1"}]}]}).act(env.page)
    if box is None or box["action"] != "click":
        pytest.skip("the shop's home page shows no featured card in view")
    return tuple(box["coordinate"])  # type: ignore[return-value]


def test_a_reset_view_from_the_cache_is_the_view_of_the_state(pool: Any) -> None:
    p, loop = pool
    env = p.envs[1]

    async def go() -> tuple[bytes, bytes]:
        await env.reset(options={"task": "buy/p01"})
        await env.step({"action": "click", "coordinate": list(await featured(env))})
        obs, _ = await env.reset(options={"task": "buy/p01"})  # served from the cache
        return obs.screenshot, await env.episode.screenshot()

    cached, fresh = loop.run_until_complete(go())
    assert cached == fresh


def test_closing_an_environment_closes_its_context_and_page(shop_site: Path, shop_out: Path) -> None:
    async def go() -> None:
        async with EnvPool.of(shop_site, shop_out, n=3) as p:
            assert (p.contexts(), p.pages()) == (3, 3)
            env = p.envs[0]
            await env.close()
            await env.close()
            assert env.page.is_closed() and (p.contexts(), p.pages()) == (2, 2)
            extra = await p.open()
            assert p.contexts() == 3
            await extra.close()
        assert p.contexts() == 0

    run(go())


def test_gymnasium_make_reset_step_close_even_inside_an_event_loop(shop_site: Path, shop_out: Path) -> None:
    import gymnasium

    import fsmc.env  # noqa: F401 - registers fsmc/<site>-v0

    async def inside_a_loop() -> None:
        env = gymnasium.make("fsmc/shop-v0", dist=str(shop_site), tasks=str(shop_out), observe=("url", "axtree"),
                             render_mode="rgb_array")
        try:
            obs, info = env.reset(seed=3, options={"task": "buy/p01"})
            assert env.observation_space.contains(obs) and obs["screenshot"].shape == (720, 1280, 3)
            assert obs["url"] == "/#/home" and "banner" in obs["axtree"] and info["task"] == "buy/p01"
            action = env.action_space.sample()
            assert env.action_space.contains(action)
            obs, reward, terminated, truncated, info = env.step(action)
            assert env.observation_space.contains(obs) and reward in (0.0, 1.0) and "state" in info
            assert env.render().shape == (720, 1280, 3)
            _, info = env.reset(seed=3)
            _, again = env.reset(seed=3)
            assert info["task"] == again["task"]  # a seed draws the same task
        finally:
            env.close()

    run(inside_a_loop())
