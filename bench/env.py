"""Benchmark: the environment against a naive loop in the same run, and a soak through the HTTP server.

    python bench/env.py               # reset and step latency, steps/s with --envs environments, soak 10,000 steps
    python bench/env.py --quick       # a smaller run of each

The workload is the oracle acting out the shop's shortest positive trajectories. The naive loop is what a
first script would do: a new browser context and page load per episode, and per step `page.screenshot()`
then the Playwright action on the element's selector (`page.click` and co., with their actionability
waits). The soak drives random actions through `fsmc serve-env` from 8 concurrent clients and reports
leaked contexts, pages and processes and the growth of resident memory (this process and its Chromium).
The bridges' part resets and steps the same site through fsmc's own environment, through BrowserGym
(fsmc.browsergym: its observation with AXTree, DOM and screenshot, Chromium launched twice at each reset) and
through OpenEnv (fsmc.bridges.openenv, server and client over its WebSocket protocol), each step a click that hits
nothing, so the three measure their own machinery on the same work.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.replay import naive_op  # noqa: E402
from fsmc import load  # noqa: E402
from fsmc.browser import Chromium, Isolation, SiteServer, open_site  # noqa: E402
from fsmc.codegen import build_site  # noqa: E402
from fsmc.enumerate import Options, enumerate_spec  # noqa: E402
from fsmc.env import EnvPool, Site  # noqa: E402
from fsmc.env import core as env_core  # noqa: E402
from fsmc.env.client import AsyncRemoteEnv  # noqa: E402
from fsmc.env.gym import ActionSpace  # noqa: E402
from fsmc.env.oracle import Oracle  # noqa: E402
from fsmc.env.server import Settings  # noqa: E402
from fsmc.env.serving import ServerThread  # noqa: E402


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))] if s else float("nan")


async def fsmc_episodes(pool: EnvPool, trajectories: list[dict[str, Any]], n: int) -> tuple[list[float], list[float], int, float]:
    """(reset ms, step ms, steps, seconds) with n environments acting out the trajectories between them."""
    resets: list[float] = []
    steps: list[float] = []
    queue = list(trajectories)
    started = time.perf_counter()

    async def worker(env: Any) -> None:
        while queue:
            t = queue.pop()
            s = time.perf_counter()
            await env.reset(options={"task": t["task_id"]})
            resets.append((time.perf_counter() - s) * 1000)
            oracle = Oracle(t)
            while (action := await oracle.act(env.page)) is not None:
                s = time.perf_counter()
                r = await env.step(action)
                steps.append((time.perf_counter() - s) * 1000)
                if r.terminated or r.truncated:
                    break

    await asyncio.gather(*(worker(env) for env in pool.envs[:n]))
    return resets, steps, len(steps), time.perf_counter() - started


async def naive_episodes(dist: Path, trajectories: list[dict[str, Any]], n: int) -> tuple[list[float], list[float], int, float]:
    chromium = Chromium()
    await chromium.start()
    resets: list[float] = []
    steps: list[float] = []
    count = 0
    queue = list(trajectories)
    started = time.perf_counter()
    with SiteServer(dist) as server:
        iso = Isolation(server.url.rstrip("/"))

        async def worker() -> None:
            nonlocal count
            while queue:
                t = queue.pop()
                s = time.perf_counter()
                page = await open_site(chromium.browser, server.url, iso)
                resets.append((time.perf_counter() - s) * 1000)
                for move in t["moves"]:
                    for op in move["gui"]:
                        s = time.perf_counter()
                        k = await naive_op(page, op)
                        if k:
                            steps.append((time.perf_counter() - s) * 1000 / k)
                            count += k
                await page.context.close()

        await asyncio.gather(*(worker() for _ in range(n)))
    await chromium.close()
    return resets, steps, count, time.perf_counter() - started


def time_parts(env: Any, parts: dict[str, list[float]]) -> None:
    """Time each part of the environment's steps from now on into `parts` (ms by part): the agent's action, the rest
    after it, the state read and the semantics' check, the screenshot; the wrappers stay for the pool's life."""

    def timed(owner: Any, name: str, part: str) -> None:
        inner = getattr(owner, name)

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await inner(*args, **kwargs)
            finally:
                parts.setdefault(part, []).append((time.perf_counter() - began) * 1000)

        setattr(owner, name, wrapper)

    timed(env_core, "perform", "the action (the page's own reaction included)")
    timed(env.episode, "rest", "the rest after it (the pointer away, fake clock, images)")
    timed(env, "_advance", "the state read and checked against the semantics")
    timed(env.episode, "screenshot", "the screenshot")


async def bare_screenshots(env: Any, n: int) -> list[float]:
    """Milliseconds of n screenshots of the settled page alone (the floor of a step: an observation is one)."""
    out = []
    for _ in range(n):
        s = time.perf_counter()
        await env.episode.screenshot()
        out.append((time.perf_counter() - s) * 1000)
    return out


def descendants() -> list[int]:
    """This process's child processes, recursively (Chromium and its helpers)."""
    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parents[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [os.getpid()]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        frontier += kids
    return out


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


async def soak_clients(url: str, episodes: int, steps: int, clients: int, total: int = 0) -> tuple[int, int]:
    """(steps, episodes) done by `clients` clients playing random episodes of at most `steps` steps: at least
    `episodes` episodes, and more until `total` steps are done."""
    done = [0, 0]
    started = [0]

    def another() -> int | None:
        if started[0] >= episodes and done[0] >= total:
            return None
        started[0] += 1
        return started[0]

    async def client(i: int) -> None:
        env = AsyncRemoteEnv(url, "shop", max_steps=steps)
        space = ActionSpace(seed=i)
        try:
            while (e := another()) is not None:
                await env.reset(seed=e)
                for _ in range(steps):
                    r = await env.step(space.sample())
                    done[0] += 1
                    if r.terminated or r.truncated:
                        break
                done[1] += 1
        finally:
            await env.close()

    await asyncio.gather(*(client(i) for i in range(clients)))
    return done[0], done[1]


def soak(site: Site, episodes: int, steps: int, clients: int, total: int) -> None:
    settings = Settings(max_steps=steps, lease_s=60)
    with ServerThread([site], settings) as url:
        asyncio.run(soak_clients(url, max(8, episodes // 10), steps, clients))  # warm-up
        import httpx

        def gauges() -> dict[str, float]:
            text = httpx.get(f"{url}/metrics").text
            return {ln.split()[0]: float(ln.split()[1]) for ln in text.splitlines() if "{" not in ln}

        procs0, rss0 = len(descendants()), rss_mb([os.getpid(), *descendants()])
        s = time.perf_counter()
        n_steps, n_eps = asyncio.run(soak_clients(url, episodes, steps, clients, total))
        secs = time.perf_counter() - s
        g = gauges()
        procs1, rss1 = len(descendants()), rss_mb([os.getpid(), *descendants()])
        print(f"soak: {n_steps} steps over {n_eps} episodes, {clients} clients, {secs:.1f} s ({n_steps / secs:.1f} steps/s)")
        print(f"  after: sessions {g['fsmc_env_sessions']:.0f}, contexts {g['fsmc_env_browser_contexts']:.0f}, "
              f"pages {g['fsmc_env_browser_pages']:.0f}, processes {procs1 - procs0:+d}, "
              f"RSS {rss0:.0f} → {rss1:.0f} MB ({(rss1 - rss0) / rss0 * 100:+.1f} %)")
    print(f"  server stopped: processes left {len(descendants())}")


NOWHERE = {"action": "click", "coordinate": [2, 715]}
BRIDGE_TASKS = ("buy/p01", "count_matches/waterproof", "priciest_in/jackets")


def own_env(site: Site, episodes: int, steps: int) -> tuple[list[float], list[float]]:
    async def run() -> tuple[list[float], list[float]]:
        resets: list[float] = []
        stepped: list[float] = []
        async with EnvPool([site], n=1, max_steps=steps + 1) as pool:
            for i in range(episodes + 1):  # the first episode warms the views up, as the others' first reset does not
                t = time.perf_counter()
                await pool.envs[0].reset(options={"task": BRIDGE_TASKS[i % len(BRIDGE_TASKS)]})
                resets.append((time.perf_counter() - t) * 1000)
                for _ in range(steps):
                    t = time.perf_counter()
                    await pool.envs[0].step(NOWHERE)
                    stepped.append((time.perf_counter() - t) * 1000)
        return resets[1:], stepped[steps:]

    return asyncio.run(run())


def browsergym_env(dist: Path, out: Path, episodes: int, steps: int) -> tuple[list[float], list[float]]:
    import gymnasium

    from fsmc.browsergym import env_id, register_site

    register_site("shop", dist=dist, tasks=out, pre_observation_delay=0.0)
    resets: list[float] = []
    stepped: list[float] = []
    for i in range(episodes):
        env = gymnasium.make(env_id("shop", BRIDGE_TASKS[i % len(BRIDGE_TASKS)]))
        try:
            t = time.perf_counter()
            env.reset(seed=0)
            resets.append((time.perf_counter() - t) * 1000)
            for _ in range(steps):
                t = time.perf_counter()
                env.step("mouse_click(2, 715)")
                stepped.append((time.perf_counter() - t) * 1000)
        finally:
            env.close()
    return resets, stepped


def openenv_env(dist: Path, out: Path, episodes: int, steps: int) -> tuple[list[float], list[float]]:
    from fsmc.bridges.openenv import FsmcAction, FsmcEnvClient, create_openenv_app

    resets: list[float] = []
    stepped: list[float] = []
    app = create_openenv_app(dist, out, observe=("url",), max_steps=steps + 1)
    with ServerThread([], app=app) as url, FsmcEnvClient(base_url=url).sync() as client:
        for i in range(episodes + 1):  # the first: Chromium starts with the first session
            t = time.perf_counter()
            client.reset(task=BRIDGE_TASKS[i % len(BRIDGE_TASKS)])
            resets.append((time.perf_counter() - t) * 1000)
            for _ in range(steps):
                t = time.perf_counter()
                client.step(FsmcAction(**NOWHERE))
                stepped.append((time.perf_counter() - t) * 1000)
    return resets[1:], stepped[steps:]


def bridges(site: Site, dist: Path, out: Path, episodes: int, steps: int) -> None:
    print(f"the bridges, {episodes} episodes of {steps} steps (a click that hits nothing), the same shop tasks:")
    for name, (resets, stepped) in (("fsmc env", own_env(site, episodes, steps)),
                                    ("OpenEnv", openenv_env(dist, out, episodes, steps)),
                                    ("BrowserGym", browsergym_env(dist, out, episodes, steps))):
        print(f"  {name:<10} reset ms p50/p95 {pct(resets, .5):.1f}/{pct(resets, .95):.1f}"
              f"  step ms p50/p95 {pct(stepped, .5):.1f}/{pct(stepped, .95):.1f}")
    print("  (BrowserGym with pre_observation_delay=0: its default waits 500 ms before each observation)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run of each part")
    parser.add_argument("--episodes", type=int, default=40, help="oracle episodes per side (default 40)")
    parser.add_argument("--envs", type=int, default=4, help="environments at once for steps/s (default 4)")
    parser.add_argument("--no-soak", action="store_true", help="leave the soak out")
    parser.add_argument("--soak-only", action="store_true", help="the soak alone")
    parser.add_argument("--bridges-only", action="store_true", help="BrowserGym and OpenEnv beside fsmc's own alone")
    args = parser.parse_args()
    episodes = 8 if args.quick else args.episodes
    work = Path(tempfile.mkdtemp(prefix="fsmc-bench-env-"))
    dist = build_site(load(ROOT / "specs" / "shop.fsm"), work / "sites").dist
    enumerate_spec(ROOT / "specs" / "shop.fsm", work / "out", Options(per_goal=1, negatives=False))
    records = [json.loads(x) for x in (work / "out" / "trajectories.jsonl").read_text().splitlines()]
    shortest = [r for r in records if r["label"] == "shortest"]
    sample = random.Random(0).sample(shortest, min(episodes, len(shortest)))
    site = Site.load(dist, work / "out")

    async def measure(n: int) -> tuple[Any, Any]:
        async with EnvPool([site], n=n) as pool:
            await fsmc_episodes(pool, sample[:2], 1)  # warm-up: the views of the first states
            if n == 1:
                time_parts(pool.envs[0], parts)
            ours = await fsmc_episodes(pool, sample, n)
            if n == 1:
                shots.extend(await bare_screenshots(pool.envs[0], 30))
        return ours, await naive_episodes(dist, sample, n)

    shots: list[float] = []
    parts: dict[str, list[float]] = {}

    if args.bridges_only:
        bridges(site, dist, work / "out", 3 if args.quick else 10, 5 if args.quick else 10)
        return
    for n in () if args.soak_only else (1, args.envs):
        (r, s, k, secs), (nr, ns, nk, nsecs) = asyncio.run(measure(n))
        print(f"{n} env(s), {len(sample)} episodes:")
        print(f"  reset ms p50/p95: fsmc {pct(r, .5):.1f}/{pct(r, .95):.1f}  naive {pct(nr, .5):.1f}/{pct(nr, .95):.1f}"
              f"  ratio {pct(nr, .5) / pct(r, .5):.1f}x")
        print(f"  step  ms p50/p95: fsmc {pct(s, .5):.1f}/{pct(s, .95):.1f}  naive {pct(ns, .5):.1f}/{pct(ns, .95):.1f}"
              f"  ratio {pct(ns, .5) / pct(s, .5):.1f}x  (a bare screenshot: p50 {pct(shots, .5):.1f} ms, so a step is "
              f"{pct(s, .5) - pct(shots, .5):+.1f} ms beyond it)")
        print(f"  steps/s: fsmc {k / secs:.1f}  naive {nk / nsecs:.1f}  ratio {(k / secs) / (nk / nsecs):.1f}x"
              f"  (mean step {statistics.mean(s):.1f} ms)")
        if n == 1:
            print("  a step's parts, p50 ms: " + ", ".join(f"{part} {pct(xs, .5):.1f}" for part, xs in parts.items()))
            parts.clear()
    if not args.soak_only:
        bridges(site, dist, work / "out", 3 if args.quick else 10, 5 if args.quick else 10)
    if not args.no_soak:
        soak(site, 20 if args.quick else 200, 10 if args.quick else 50, 8, 200 if args.quick else 10_000)


if __name__ == "__main__":
    main()
