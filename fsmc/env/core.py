"""`AsyncFsmcEnv`: one episode of a backend as a reinforcement-learning environment, its reward from the semantics.

The page is never trusted: after every action the state it reports must be the state before it or one
move of the semantics away from it. Anything else (the harness called from the page, a reload, a typed
URL, a page that left the site) is undone by putting the page back in the last state the semantics
vouch for, and the step says so in `info["restored"]`. The reward is decided on that vouched-for state.

A backend that cannot jump (`Backend.jumps` false: a cloned application, a capture) is put in a state by a reset
to its start and the moves that lead there acted out with the spec's GUI procedures (`fsmc.env.reach`): a task's
initial state by a shortest path, and the page put back by the moves the episode has accepted so far.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

from fsmc.backends.pointer import MOVED, lifts, perform
from fsmc.backends.protocol import AgentPaced, Episode, EpisodeFailure
from fsmc.env.actions import HEIGHT, WIDTH, Action, parse
from fsmc.env.reach import reach
from fsmc.env.tasks import Task, TaskSet
from fsmc.errors import FsmcError
from fsmc.semantics import Move, State

OBSERVABLES = ("screenshot", "url", "axtree", "axtree_ids")
DEFAULT_MAX_STEPS = 30
ACTION_TIMEOUT_S = 10.0  # an action that takes longer is abandoned and the page put back: nothing hangs
MAX_VIEWS = 512
# Nothing the agent did may show in the next episode's first view: a focused field keeps its caret and ring.


class EpisodeEnded(FsmcError, RuntimeError):
    """A step after the episode terminated or was truncated: call reset first."""


class NotReset(FsmcError, RuntimeError):
    """A step before the first reset."""


@dataclass
class Observation:
    """What the agent sees: the screenshot (encoded in the backend's image format), the task's instruction (`goal`),
    what went wrong with the last action (`last_action_error`, empty when nothing did) and, by option, the URL, the
    ARIA tree (`axtree`: Playwright's ARIA snapshot) and the ARIA tree with an id and a box per element (`axtree_ids`:
    `- button "Add to cart" [ref=e12] [box=880,410,160,40]`, the box in pixels of the screenshot: x, y, width, height).
    """

    screenshot: bytes
    url: str | None = None
    axtree: str | None = None
    goal: str | None = None
    last_action_error: str = ""
    axtree_ids: str | None = None


@dataclass
class StepResult:
    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)

    def astuple(self) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        return self.observation, self.reward, self.terminated, self.truncated, self.info


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What differs between two JSON states: {"page": [old, new]} and each variable's [old, new]."""
    out: dict[str, Any] = {}
    if before["page"] != after["page"]:
        out["page"] = [before["page"], after["page"]]
    old, new = before["vars"], after["vars"]
    for name in dict.fromkeys([*old, *new]):
        if old.get(name) != new.get(name):
            out[name] = [old.get(name), new.get(name)]
    return out


class AsyncFsmcEnv:
    """An episode of a backend driven by agent actions; `reset` and `step` follow gymnasium's contract, awaited."""

    def __init__(self, episode: Episode, tasks: TaskSet, *, max_steps: int = DEFAULT_MAX_STEPS,
                 observe: tuple[str, ...] = ("screenshot",),
                 views: dict[str, bytes] | None = None, jumps: bool = True):
        if unknown := set(observe) - set(OBSERVABLES):
            raise ValueError(f"unknown observation {sorted(unknown)}; choose from {OBSERVABLES}")
        self.episode, self.tasks, self.machine = episode, tasks, tasks.machine
        self.max_steps, self.observe, self.jumps = max_steps, observe, jumps
        self.page: Any = getattr(episode, "page", None)
        self._paced = isinstance(episode, AgentPaced)  # it lets its page rest after an agent's own action
        self.task: Task | None = None
        self.steps = 0
        self.done = False
        self.closed = False
        self._state: State | None = None  # the last state the semantics vouch for
        self._path: list[Move] = []  # the moves from the backend's start state to it (a backend that cannot jump)
        self._rng = random.Random()
        self.last: Observation | None = None
        # The settled view of a state, by state: a page at rest is a function of its state alone (docs/replay.md),
        # so a reset to a state seen before needs no screenshot. Shared by the environments of one site. Not where
        # the backend cannot jump: a real application's page may show more than the state (a message after a save).
        self.views = views if views is not None else {}

    @property
    def state(self) -> dict[str, Any]:
        """The current state (JSON form), as the semantics vouch for it."""
        if self._state is None:
            raise NotReset("call reset first")
        return self.machine.to_json(self._state)

    def pick(self, seed: int | None, options: Mapping[str, Any] | None) -> Task:
        if seed is not None:
            self._rng.seed(seed)
        task_id = (options or {}).get("task")
        if task_id is None:
            return self._rng.choice(list(self.tasks))
        return self.tasks.get(str(task_id))

    async def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None,
                    ) -> tuple[Observation, dict[str, Any]]:
        """Put the episode in the task's initial state (the generated site: through its harness, no page load; a
        backend that cannot jump: reset, then the moves that lead there acted out); `options["task"]`: its id
        (default: a task drawn with `seed`)."""
        task = self.pick(seed, options)
        self.task, self.steps, self.done = task, 0, False
        self._state = self.machine.from_json(task.initial)
        if self.jumps:
            shown = await self.episode.reset(task.initial)
            if shown != task.initial:
                raise EpisodeFailure("state_diverged", f"the page did not take the initial state of {task.id}")
        else:
            self._path = await reach(self.episode, self.machine, self._state)
        self.last = await self.observation(settled=True)
        return self.last, {"task": task.id, "instruction": task.instruction, "retrieval": task.retrieval,
                           "state": task.initial, "step": 0, "max_steps": self.max_steps}

    async def step(self, action: Mapping[str, Any] | Action) -> StepResult:
        """Do one action with the real mouse and keyboard; reward 1 when the task is done (answer tasks: answered right)."""
        if self.task is None or self._state is None:
            raise NotReset("call reset before step")
        if self.done:
            raise EpisodeEnded(f"the episode of {self.task.id} has ended; call reset")
        act = action if isinstance(action, Action) else parse(action, (WIDTH, HEIGHT))
        started = time.perf_counter()
        self.steps += 1
        before = self._state
        info: dict[str, Any] = {"task": self.task.id, "step": self.steps, "action": act.to_json()}
        if act.kind == "answer":
            reward, terminated = self._answer(act, info)
        else:
            await self._act(act, info)
            reward = float(not self.task.retrieval and self.tasks.holds(self.task, self._state))
            terminated = bool(reward) or self.tasks.terminal(self._state)
            self.last = await self.observation()
        assert self.last is not None
        self.last = replace(self.last, last_action_error=info.get("restored") or info.get("note") or "")
        truncated = not terminated and self.steps >= self.max_steps
        self.done = terminated or truncated
        info.update(state=self.machine.to_json(self._state), success=bool(reward),
                    changed=changes(self.machine.to_json(before), self.machine.to_json(self._state)),
                    ms=round((time.perf_counter() - started) * 1000, 2))
        return StepResult(self.last, reward, terminated, truncated, info)

    def _answer(self, act: Action, info: dict[str, Any]) -> tuple[float, bool]:
        assert self.task is not None
        accepted = self.task.accepts(act.text or "")
        info["answer"] = {"given": act.text, "accepted": accepted}
        if not self.task.retrieval:
            info["note"] = "this task asks for no answer"
        return float(accepted), True

    async def _act(self, act: Action, info: dict[str, Any]) -> None:
        if self.page is None or not self._paced:
            raise TypeError("this backend's episodes have no page to act on with mouse and keyboard")
        try:
            note = await asyncio.wait_for(self._perform(act), ACTION_TIMEOUT_S)
        except TimeoutError:
            await self._restore(info, f"the action took more than {ACTION_TIMEOUT_S:g} s")
            return
        except Exception as err:  # Playwright's own Error: the page crashed, navigated away or closed
            await self._restore(info, f"the action failed: {str(err).splitlines()[0]}")
            return
        if note:
            info["note"] = note
        await self._advance(info)
        if info.get("move") is not None and not lifts(act.kind):  # a move is complete: the pointer leaves, as in replay
            await cast(AgentPaced, self.episode).rest(MOVED)

    async def _perform(self, act: Action) -> str | None:
        """The action with the real mouse and keyboard, then the page at rest as after each step of a replay (the page
        load it started finished, time passed, the pointer gone from the page but after a hover)."""
        paced = cast(AgentPaced, self.episode)
        paced.expect()
        note = await perform(self.page, act)
        await paced.rest(act.kind)
        return note

    async def _advance(self, info: dict[str, Any]) -> None:
        """Accept the page's new state if one move of the semantics explains it; otherwise put the page back."""
        assert self._state is not None
        try:
            shown = self.machine.from_json(await self.episode.state())
        except EpisodeFailure as err:
            await self._restore(info, err.detail)
            return
        except (KeyError, TypeError, ValueError) as err:
            await self._restore(info, f"the page reports no state of this spec ({err})")
            return
        if shown == self._state:
            info["move"] = None
            return
        move = self._explaining(shown)
        if move is None:
            await self._restore(info, "the page's state is not one move of the semantics from the last state")
            return
        self._state = shown
        self._path.append(move)
        info["move"] = move.to_json()

    def _explaining(self, shown: State) -> Move | None:
        assert self._state is not None
        return next((mv for mv, nxt in self.machine.successors(self._state) if nxt == shown), None)

    async def _restore(self, info: dict[str, Any], why: str) -> None:
        info["move"] = None
        info["restored"] = why
        if self.jumps:
            await self.episode.reset(self.machine.to_json(self._state) if self._state is not None else None)
            return
        assert self._state is not None
        try:
            await reach(self.episode, self.machine, self._state, self._path)
        except EpisodeFailure as failure:
            moves = f"{len(self._path)} move{'s' * (len(self._path) != 1)}"
            raise EpisodeFailure(failure.reason, f"the page could not be put back in the state the semantics vouch "
                                 f"for by a reset and the {moves} that reached it: {failure.detail}") from None

    async def observation(self, settled: bool = False) -> Observation:
        """The view now; `settled`: the page is at rest in the state (just reset), so a view seen before serves."""
        settled = settled and self.jumps
        key = json.dumps(self.state, sort_keys=True) if settled else ""
        shot = self.views.get(key) if settled else None
        if shot is None:
            shot = await self.episode.screenshot()
            if settled and len(self.views) < MAX_VIEWS:
                self.views[key] = shot
        url = axtree = None
        if self.page is not None and "url" in self.observe:
            parts = urlsplit(self.page.url)
            url = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
        if self.page is not None and "axtree" in self.observe:
            axtree = await self.page.locator("body").aria_snapshot()
        ids = await self.page.aria_snapshot(mode="ai", boxes=True) if self.page and "axtree_ids" in self.observe else None
        return Observation(shot, url, axtree, goal=self.task.instruction if self.task else None, axtree_ids=ids)

    async def close(self) -> None:
        """Close the episode (its browser context and page); idempotent."""
        if not self.closed:
            self.closed = True
            await self.episode.close()
