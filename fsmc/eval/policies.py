"""The policies `fsmc eval` knows by name: the oracle, random, a Python callable, and an OpenAI-compatible endpoint."""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fsmc.env.core import AsyncFsmcEnv, Observation
from fsmc.env.oracle import Oracle, oracle_for
from fsmc.env.tasks import Task
from fsmc.errors import FsmcError
from fsmc.eval.policy import PolicyMaker
from fsmc.export.datasets import agent_steps, read_kept

POLICIES = ("oracle", "random", "callable:MODULE:FUNCTION", "openai")


class UnknownPolicy(FsmcError, ValueError):
    """A policy name fsmc does not know, or a callable it cannot import."""


class Demonstrations:
    """Each task's demonstration as the datasets teach it: the actions `fsmc export` writes for the task's shortest
    kept trajectory of a replay (`fsmc.export.datasets.agent_steps`), read once per replay folder."""

    def __init__(self, data: Mapping[str, Path]):
        self.data = dict(data)  # the replay folder of each site
        self._by_site: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def actions(self, site: str, task_id: str) -> list[dict[str, Any]]:
        if site not in self._by_site:
            self._by_site[site] = self._read(site)
        try:
            return self._by_site[site][task_id]
        except KeyError:
            raise LookupError(f"the replay in {self.data[site]} kept no trajectory of {task_id!r}: the oracle acts out "
                              "what the datasets teach") from None

    def _read(self, site: str) -> dict[str, list[dict[str, Any]]]:
        if site not in self.data:
            raise LookupError(f"the oracle has no replay of {site!r}: give --data DATA")
        best: dict[str, dict[str, Any]] = {}
        for t in read_kept(self.data[site]):
            known = best.get(t["task_id"])
            if known is None or (t["label"] == "shortest", -len(t["steps"])) > (known["label"] == "shortest",
                                                                                 -len(known["steps"])):
                best[t["task_id"]] = t
        return {task: [action for action, _ in agent_steps(t)] for task, t in best.items()}

    def check(self, tasks: list[tuple[str, str]]) -> None:
        """Every (site, task) planned has a demonstration (raises LookupError before any browser starts)."""
        for site, task in tasks:
            self.actions(site, task)


class OraclePolicy:
    """The task's demonstration, as the exported datasets teach it: the same actions at the same coordinates, one per
    step. Its 100 % proves the datasets: what they say an agent did, an agent does in the environment."""

    def __init__(self, demonstrations: Demonstrations):
        self.demonstrations = demonstrations
        self.todo: list[dict[str, Any]] = []

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        self.todo = list(self.demonstrations.actions(env.tasks.site, task.id))

    async def act(self, observation: Observation, info: dict[str, Any]) -> dict[str, Any] | None:
        return self.todo.pop(0) if self.todo else None


class Trajectories:
    """The shortest verified trajectory of each task, read once per enumerate output and shared by the episodes."""

    def __init__(self) -> None:
        self._by_out: dict[Path, dict[str, dict[str, Any]]] = {}

    def shortest(self, out: Path, task_id: str) -> dict[str, Any]:
        if out not in self._by_out:
            self._by_out[out] = self._read(out / "trajectories.jsonl")
        try:
            return self._by_out[out][task_id]
        except KeyError:
            raise LookupError(f"{out / 'trajectories.jsonl'} has no shortest trajectory of {task_id!r}") from None

    @staticmethod
    def _read(path: Path) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        with path.open(encoding="utf-8") as f:
            for line in f:
                t = json.loads(line)
                if t["kind"] == "positive" and t["label"] == "shortest":
                    found.setdefault(t["task_id"], t)
        return found


class LiveOraclePolicy:
    """The task's shortest verified trajectory acted out with pixel actions found on the live page (fsmc/env/oracle.py),
    where no replay is at hand (online training's roll-ins, train/grpo_online.py). Privileged: it reads element boxes
    from the page. `fsmc eval`'s oracle is `OraclePolicy`, the datasets' own actions."""

    def __init__(self, trajectories: Trajectories):
        self.trajectories = trajectories
        self.oracle: Oracle | None = None
        self.page: Any = None

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        self.oracle, self.page = oracle_for(self.trajectories.shortest(env.tasks.out, task.id), env.episode), env.page

    async def act(self, observation: Observation, info: dict[str, Any]) -> dict[str, Any] | None:
        assert self.oracle is not None, "start first"
        return await self.oracle.act(self.page)


class RandomPolicy:
    """Random pixel actions over the screenshot (the gymnasium action space's `sample`), seeded per episode."""

    def __init__(self) -> None:
        self.space: Any = None

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        from fsmc.env.gym import ActionSpace

        self.space = ActionSpace(seed=seed)

    async def act(self, observation: Observation, info: dict[str, Any]) -> dict[str, Any]:
        action: dict[str, Any] = self.space.sample()
        return action


class CallablePolicy:
    """A Python function `fn(observation, info) -> action dict | None`, sync or async. `info` also holds the task's
    `task` id and `instruction`. A sync function runs in a thread, so a slow one does not hold up the other episodes."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.task: Task | None = None

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        self.task = task

    async def act(self, observation: Observation, info: dict[str, Any]) -> Any:
        assert self.task is not None, "start first"
        info = {**info, "task": self.task.id, "instruction": self.task.instruction}
        if _is_async(self.fn):
            return await self.fn(observation, info)
        answer = await asyncio.to_thread(self.fn, observation, info)
        return await answer if inspect.isawaitable(answer) else answer


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


def load_callable(target: str) -> Callable[..., Any]:
    """`module:function` (or `module:object.method`), imported with the working folder on the path as
    `python -m` would have it."""
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UnknownPolicy(f"callable policy {target!r}: write it as callable:MODULE:FUNCTION")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise UnknownPolicy(f"callable policy: cannot import {module_name!r} ({err})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UnknownPolicy(f"callable policy: {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UnknownPolicy(f"callable policy: {target!r} is not callable")
    return obj  # type: ignore[no-any-return]


def make_policy(name: str, data: Mapping[str, Path] | None = None, **endpoint: Any) -> PolicyMaker:
    """What makes each episode's policy, by name (POLICIES); `data`: the oracle's replay folder of each site;
    `endpoint`: the openai policy's options (ChatEndpoint)."""
    if name == "oracle":
        return functools.partial(OraclePolicy, Demonstrations(data or {}))
    if name == "random":
        return RandomPolicy
    if name.startswith("callable:"):
        return functools.partial(CallablePolicy, load_callable(name.removeprefix("callable:")))
    if name == "openai":
        from fsmc.eval.chat import ChatEndpoint

        return ChatEndpoint(**endpoint)
    raise UnknownPolicy(f"unknown policy {name!r}: one of {', '.join(POLICIES)}")
