"""fsmc's environment in OpenEnv's shape: typed action, observation and state, a server made by OpenEnv's `create_app`
(reset, step and state over its WebSocket protocol, one environment per session) and an `EnvClient` for it.

The server's sessions share one Chromium (an `EnvPool` started on the server's event loop at the first session);
each session is one `AsyncFsmcEnv` in a browser context of its own. A bad action, an unknown task or a step after
the end is answered in the observation (`last_action_error`, reward 0), never by a dead session.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any, Literal
from uuid import uuid4

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from fsmc.env.actions import InvalidAction
from fsmc.env.core import AsyncFsmcEnv, EpisodeEnded
from fsmc.env.core import Observation as FsmcObs
from fsmc.env.pool import EnvPool, Site
from fsmc.env.tasks import UnknownTask

Kind = Literal["click", "type", "key", "hover", "select", "drag", "scroll", "answer"]


class FsmcAction(Action):
    """One of fsmc's actions (docs/env.md): pixels of the 1280×720 screenshot, and what to type, press or answer."""

    action: Kind
    coordinate: list[int] | None = Field(default=None, description="[x, y]: where to act")
    to: list[int] | None = Field(default=None, description="drag: [x, y] to drop at")
    text: str | None = Field(default=None, description="type: the text; answer: the answer")
    key: str | None = Field(default=None, description="key: Enter, Tab, Control+a, …")
    value: str | None = Field(default=None, description="select: an option's value or label")
    direction: Literal["up", "down", "left", "right"] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The action as fsmc's environment takes it."""
        return self.model_dump(exclude_none=True, exclude={"metadata"})


class FsmcObservation(Observation):
    """What the agent sees after a reset or a step; `done` and `reward` are OpenEnv's own fields."""

    task: str = ""
    goal: str = Field(default="", description="the task's instruction")
    url: str = ""
    axtree: str = Field(default="", description="the ARIA tree with an element id and a box (pixels) per element")
    screenshot: str = Field(default="", description="the view, base64 (JPEG), when the server was asked for it")
    last_action_error: str = ""


class FsmcState(State):
    """The episode: its task, the state the semantics vouch for (JSON form), whether it has ended."""

    site: str = ""
    task: str | None = None
    state: dict[str, Any] | None = None
    done: bool = False


class SharedPool:
    """One `EnvPool` for every session of a server, started on the server's event loop when first needed."""

    def __init__(self, site: Site, observe: tuple[str, ...] = ("url", "axtree_ids"), max_steps: int = 30):
        self.site, self.observe, self.max_steps = site, observe, max_steps
        self.pool: EnvPool | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._starting = asyncio.Lock()

    async def open(self) -> AsyncFsmcEnv:
        async with self._starting:
            if self.pool is None:
                pool = EnvPool([self.site], observe=("screenshot", *self.observe), max_steps=self.max_steps)
                await pool.start()
                self.pool, self.loop = pool, asyncio.get_running_loop()
        return await self.pool.open()

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None


class FsmcEnvironment(Environment[FsmcAction, FsmcObservation, FsmcState]):
    """One session: an fsmc environment of the shared pool, opened at its first reset."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, shared: SharedPool):
        super().__init__()
        self.shared = shared
        self.env: AsyncFsmcEnv | None = None
        self._state = FsmcState(episode_id=str(uuid4()), site=shared.site.name)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> FsmcObservation:
        raise TypeError("FsmcEnvironment is async: the server awaits reset_async")

    def step(self, action: FsmcAction, timeout_s: float | None = None, **kwargs: Any) -> FsmcObservation:
        raise TypeError("FsmcEnvironment is async: the server awaits step_async")

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, task: str | None = None,
                          **kwargs: Any) -> FsmcObservation:
        """The task's initial state (`task`: its id; none: one drawn with `seed`)."""
        if self.env is None:
            self.env = await self.shared.open()
        try:
            obs, info = await self.env.reset(seed=seed, options={"task": task} if task else None)
        except UnknownTask as err:
            return FsmcObservation(done=True, reward=0.0, last_action_error=f"UnknownTask: {err}")
        self._state = FsmcState(episode_id=episode_id or str(uuid4()), site=self.shared.site.name, task=info["task"],
                                state=info["state"], step_count=0, done=False)
        return self._observation(obs, 0.0, False, {"instruction": info["instruction"]})

    async def step_async(self, action: FsmcAction, timeout_s: float | None = None, **kwargs: Any) -> FsmcObservation:
        """One action; an action fsmc refuses or a step after the end gets reward 0 and `last_action_error`."""
        if self.env is None or self.env.task is None:
            return FsmcObservation(done=True, reward=0.0, last_action_error="NotReset: call reset before step")
        try:
            result = await self.env.step(action.as_dict())
        except (InvalidAction, EpisodeEnded) as err:
            assert self.env.last is not None
            return self._observation(self.env.last, 0.0, self.env.done, {}, f"{type(err).__name__}: {err}")
        self._state.step_count, self._state.state = self.env.steps, result.info["state"]
        self._state.done = result.terminated or result.truncated
        return self._observation(result.observation, result.reward, self._state.done, result.info)

    def _observation(self, obs: FsmcObs, reward: float, done: bool, info: dict[str, Any],
                     error: str | None = None) -> FsmcObservation:
        shot = base64.b64encode(obs.screenshot).decode() if "screenshot" in self.shared.observe else ""
        return FsmcObservation(done=done, reward=reward, task=self._state.task or "", goal=obs.goal or "",
                               url=obs.url or "", axtree=obs.axtree_ids or obs.axtree or "", screenshot=shot,
                               last_action_error=obs.last_action_error if error is None else error,
                               metadata={k: v for k, v in info.items() if k in ("instruction", "success", "changed",
                                                                                 "note", "restored", "answer")})

    @property
    def state(self) -> FsmcState:
        return self._state

    def close(self) -> None:
        """Called by the server in a worker thread: the context is closed on the server's own loop."""
        env, loop = self.env, self.shared.loop
        self.env = None
        if env is not None and loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(env.close(), loop).result(timeout=30)


def create_openenv_app(dist: str | Path, out: str | Path, *, max_sessions: int = 8,
                       observe: tuple[str, ...] = ("url", "axtree_ids"), max_steps: int = 30) -> Any:
    """OpenEnv's FastAPI app over a built site and its enumerate output (serve it with uvicorn, on loopback)."""
    shared = SharedPool(Site.load(dist, out), observe, max_steps)
    app = create_app(lambda: FsmcEnvironment(shared), FsmcAction, FsmcObservation, env_name="fsmc",
                     max_concurrent_envs=max_sessions, state_cls=FsmcState)
    app.router.on_shutdown.append(shared.close)
    return app


class FsmcEnvClient(EnvClient[FsmcAction, FsmcObservation, FsmcState]):
    """OpenEnv's client for an fsmc server: `FsmcEnvClient(base_url=url).sync()`, then reset(task=…), step, state."""

    def _step_payload(self, action: FsmcAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[FsmcObservation]:
        obs = FsmcObservation(**{**payload.get("observation", {}), "done": payload.get("done", False),
                                 "reward": payload.get("reward")})
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> FsmcState:
        return FsmcState(**payload)


class BrowserTools:
    """fsmc's environment through OpenEnv as TRL's `environment_factory` takes one: `reset` (the task's goal and page),
    one tool per action (click, type_text, press_key, scroll, answer; each returns what the page shows then), and
    `get_reward` (the semantics' reward of the episode). `GRPOTrainer(environment_factory=lambda: BrowserTools(url))`.
    """

    def __init__(self, base_url: str):
        self.client = FsmcEnvClient(base_url=base_url).sync()
        self.reward, self.done = 0.0, False

    def reset(self, task: str | None = None, **example: Any) -> str:
        """Start the example's task (its `task` column); the text the model is shown after the prompt."""
        self.reward, self.done = 0.0, False
        return self._seen(self.client.reset(task=task))

    def click(self, x: int, y: int) -> str:
        """Click at a point of the page.

        Args:
            x: Pixels from the left edge of the 1280-pixel-wide page.
            y: Pixels from the top edge of the 720-pixel-high page.

        Returns:
            The page after the click.
        """
        return self._act(FsmcAction(action="click", coordinate=[x, y]))

    def type_text(self, x: int, y: int, text: str) -> str:
        """Click into the field at a point, select what it holds and type text.

        Args:
            x: Pixels from the left edge of the page.
            y: Pixels from the top edge of the page.
            text: The text to type.

        Returns:
            The page after typing.
        """
        return self._act(FsmcAction(action="type", coordinate=[x, y], text=text))

    def press_key(self, key: str) -> str:
        """Press a key, such as Enter, Tab or Escape.

        Args:
            key: The key's name.

        Returns:
            The page after the key.
        """
        return self._act(FsmcAction(action="key", key=key))

    def scroll(self, direction: str) -> str:
        """Scroll the page half a screen.

        Args:
            direction: up, down, left or right.

        Returns:
            The page after scrolling.
        """
        if direction not in ("up", "down", "left", "right"):
            return f"error: {direction!r} is no direction; choose up, down, left or right"
        return self._act(FsmcAction(action="scroll", coordinate=[640, 360], direction=direction))  # type: ignore[arg-type]

    def answer(self, text: str) -> str:
        """Give the answer the task asks for; this ends the episode.

        Args:
            text: The answer.

        Returns:
            Whether the episode ended.
        """
        return self._act(FsmcAction(action="answer", text=text))

    def get_reward(self) -> float:
        """The episode's reward, as the semantics decided it at its last step."""
        return self.reward

    def _act(self, action: FsmcAction) -> str:
        if self.done:
            return "error: the episode has ended"
        return self._seen(self.client.step(action))

    def _seen(self, result: StepResult[FsmcObservation]) -> str:
        obs = result.observation
        self.reward, self.done = max(self.reward, float(result.reward or 0.0)), bool(result.done)
        error = f"\nerror: {obs.last_action_error}" if obs.last_action_error else ""
        return f"goal: {obs.goal}\nurl: {obs.url}{error}\n{obs.axtree}"

    # TRL takes every public method for a tool: the connection is closed by `with BrowserTools(url) as tools:`
    def __enter__(self) -> BrowserTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()
