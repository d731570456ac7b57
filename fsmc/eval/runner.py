"""Episodes of a policy over an EnvPool: which tasks, N environments at once, every step recorded.

Each episode is numbered when it is planned and its record is put at that number, so the output is the
same whichever environment finishes first; each draws its seed from the run's seed and its number.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmc.backends.protocol import JPEG, ImageFormat
from fsmc.env.actions import InvalidAction
from fsmc.env.core import DEFAULT_MAX_STEPS, AsyncFsmcEnv, Observation, StepResult
from fsmc.env.pool import EnvPool, Site
from fsmc.env.tasks import Task, UnknownTask
from fsmc.eval.policy import Policy, PolicyMaker, PolicyUnavailable, as_decision
from fsmc.eval.report import RESULTS, write_outputs

Record = dict[str, Any]


@dataclass(frozen=True)
class Planned:
    """One episode to run: its number, its site and task, and its seed."""

    index: int
    site: str
    task: Task
    seed: int


def goal_type(task: Task) -> str:
    """The goal's kind (task, contents, view, value, terminal): what `fsmc stats` counts trajectories by."""
    return str(task.goal.get("kind") or task.id.split("/")[0])


def _matches(task: Task, wanted: str) -> bool:
    """A task id, a goal type, or a prefix of ids ending at a slash (`buy` is buy/p01, buy/p02, ...)."""
    return wanted in (task.id, goal_type(task)) or task.id.startswith(wanted.rstrip("/") + "/")


def plan(sites: Sequence[Site], wanted: Sequence[str] | None = None, episodes: int | None = None,
         seed: int = 0) -> list[Planned]:
    """The episodes: the tasks `wanted` picks (default all, in tasks.jsonl's order); `episodes` K draws K of them
    with `seed` (cycling through them all first when K is more than there are)."""
    pool = [(s.name, t) for s in sites for t in s.tasks]
    if not pool:
        raise UnknownTask(f"no tasks in {', '.join(str(s.tasks.out) for s in sites)}: run `fsmc enumerate` first")
    if wanted:
        for w in wanted:
            if not any(_matches(t, w) for _, t in pool):
                kinds = sorted({goal_type(t) for _, t in pool})
                raise UnknownTask(f"no task {w!r}: give task ids (e.g. {pool[0][1].id!r}), id prefixes or goal types "
                                  f"({', '.join(kinds)})")
        pool = [(s, t) for s, t in pool if any(_matches(t, w) for w in wanted)]
    if episodes is not None:
        rounds, rest = divmod(episodes, len(pool))
        drawn = sorted(random.Random(seed).sample(range(len(pool)), rest))
        pool = pool * rounds + [pool[i] for i in drawn]
    return [Planned(i, s, t, _seed(seed, i, s, t.id)) for i, (s, t) in enumerate(pool)]


def _seed(seed: int, index: int, site: str, task: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{index}/{site}/{task}".encode()).digest()[:4], "big")


class Screens:
    """Each episode's screenshots under screens/, named by episode and step: the trace names the same files
    whenever the same actions are taken, even where Chromium renders a pixel differently."""

    def __init__(self, root: Path, image: ImageFormat):
        self.root, self.suffix = root, image.suffix
        (root / "screens").mkdir(parents=True, exist_ok=True)

    def store(self, episode: int, step: str, image: bytes) -> str:
        name = f"screens/{episode:05d}-{step}{self.suffix}"
        (self.root / name).write_bytes(image)
        return name


def _end(result: StepResult) -> str:
    if result.reward:
        return "success"
    if "answer" in result.info:
        return "wrong_answer"
    return "terminal_page" if result.terminated else "step_limit"


def _outcome(result: StepResult) -> Record:
    """What a step did, as recorded: its reward and state change, and what the environment noted (no timings:
    the same actions give the same record)."""
    info = result.info
    out: Record = {"reward": result.reward, "move": info.get("move"), "changed": info.get("changed", {})}
    out |= {k: info[k] for k in ("note", "restored", "answer") if k in info}
    return out


async def _step(env: AsyncFsmcEnv, policy: Policy, observation: Observation, info: dict[str, Any],
                row: Record) -> tuple[StepResult | None, str | None]:
    """One step, recorded in `row`: the policy's decision and what the environment made of it. Gives the step's
    result (None for a failed step: `row["error"]` says why) and the episode's end where it ends here."""
    try:
        decision = as_decision(await policy.act(observation, info))
    except PolicyUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 - the agent's bug ends its episode, not the evaluation
        row["error"] = f"the policy raised {type(err).__name__}: {err}"
        return None, "policy_error"
    row |= {"action": decision.action} | {k: v for k, v in (("raw", decision.raw), ("usage", decision.usage)) if v}
    if decision.error is not None:
        row["error"] = decision.error
        return None, None
    if decision.action is None:
        return None, "stopped"
    try:
        result = await env.step(decision.action)
    except InvalidAction as err:
        row["error"] = f"refused: {err}"
        return None, None
    row |= _outcome(result)
    return result, (_end(result) if result.terminated or result.truncated else None)


async def run_episode(env: AsyncFsmcEnv, planned: Planned, policy: Policy, max_steps: int, screens: Screens) -> Record:
    """One episode: reset to the task, then the policy's actions until success, the end or `max_steps` steps.

    A step whose answer is no action (or one the environment refuses) counts and is recorded with the reason,
    and the next `act` is told it in `info["error"]`; an exception of the policy ends its episode
    (`policy_error`); PolicyUnavailable ends the evaluation.
    """
    task = planned.task
    observation, info = await env.reset(options={"task": task.id})
    await policy.start(task, env, planned.seed)
    trace: list[Record] = []
    end, reward = "step_limit", 0.0
    for n in range(1, max_steps + 1):
        row: Record = {"step": n}
        result, stop = await _step(env, policy, observation, info, row)
        if stop != "stopped":  # the screenshot the step was decided on
            row["screenshot"] = screens.store(planned.index, f"{n:02d}", observation.screenshot)
            trace.append(row)
        if result is not None:
            observation, info, reward = result.observation, result.info, result.reward
        elif "error" in row:
            info = {"step": n, "error": row["error"]}
        if stop is not None:
            end = stop
            break
    return {"episode": planned.index, "site": planned.site, "task": task.id, "goal_type": goal_type(task),
            "instruction": task.instruction, "seed": planned.seed, "success": bool(reward), "reward": reward, "end": end,
            "steps": len(trace), "failed_steps": sum("error" in r for r in trace), "shortest": task.shortest,
            "trace": trace, "final_screenshot": screens.store(planned.index, "final", observation.screenshot),
            "state": env.state}


async def _run_all(pool: EnvPool, planned: list[Planned], make: PolicyMaker, n: int, max_steps: int, screens: Screens,
                   on_episode: Callable[[Record], None]) -> list[Record]:
    """The episodes with `n` environments of their own per site (closed at the end), each site's sharing its queue;
    a site whose backend runs fewer at once (a cloned application: one) runs its episodes one after another."""
    records: list[Record | None] = [None] * len(planned)
    envs: list[AsyncFsmcEnv] = []

    async def worker(env: AsyncFsmcEnv, queue: Iterator[Planned]) -> None:
        for p in queue:  # each worker takes the next episode
            record = records[p.index] = await run_episode(env, p, make(), max_steps, screens)
            on_episode(record)

    try:
        async with asyncio.TaskGroup() as tg:
            for site in pool.sites:
                mine = [p for p in planned if p.site == site]
                k = min(n, len(mine), pool.limit(site) or n)
                opened = [await pool.open(site, max_steps=max_steps) for _ in range(k)]
                envs += opened
                queue = iter(mine)
                for env in opened:
                    tg.create_task(worker(env, queue))
    except BaseExceptionGroup as group:  # the first failure, as itself (the others were cancelled because of it)
        raise group.exceptions[0] from None
    finally:
        for env in envs:
            await env.close()
    return [r for r in records if r is not None]


def check_out(out: Path) -> None:
    """Refuse a folder that holds something other than an earlier evaluation (it is replaced as a whole)."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / RESULTS).is_file())):
        raise FileExistsError(f"{out} exists and is not an `fsmc eval` output: choose a new folder (nothing was written)")


async def evaluate(sites: Sequence[Site] | EnvPool, planned: list[Planned], make: PolicyMaker, out: str | Path, *,
                   n: int = 1, max_steps: int = DEFAULT_MAX_STEPS, image: ImageFormat = JPEG,
                   meta: dict[str, Any] | None = None,
                   on_episode: Callable[[Record], None] = lambda record: None) -> dict[str, Any]:
    """Run the planned episodes with `n` environments per site and write OUT (results.json, episodes.jsonl,
    screens/, gallery/); returns the results. `sites`: the sites, in a Chromium of the evaluation's own, or a
    started EnvPool serving them (several evaluations in one Chromium; its image format then holds).
    OUT is written beside itself and moved into place at the end: it is the complete previous output or the
    complete new one."""
    out = Path(out)
    check_out(out)
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        if check := getattr(make, "check", None):
            await check()
        if isinstance(sites, EnvPool):
            records = await _run_all(sites, planned, make, n, max_steps, _screens(tmp, sites), on_episode)
        else:
            async with EnvPool(list(sites), image=image) as pool:
                records = await _run_all(pool, planned, make, n, max_steps, _screens(tmp, pool), on_episode)
        results = write_outputs(tmp, records, {**(meta or {}), "max_steps": max_steps})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if aclose := getattr(make, "aclose", None):
            await aclose()
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return results


def _screens(root: Path, pool: EnvPool) -> Screens:
    return Screens(root, next(iter(pool.backends.values())).image)
