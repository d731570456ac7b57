"""`FsmcEnv`: the gymnasium 1.x sync API over `AsyncFsmcEnv`, and the registered ids `fsmc/<site>-v0`.

The async environment runs on an event loop in a thread of its own, so the sync API works the same
from plain code, from a notebook or from inside another event loop.

    env = gymnasium.make("fsmc/shop-v0", dist="generated_sites/shop/dist", tasks="out/shop")
    obs, info = env.reset(seed=0, options={"task": "buy/p01"})
    obs, reward, terminated, truncated, info = env.step({"action": "click", "coordinate": [640, 360]})
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces

from fsmc.env.actions import DIRECTIONS, HEIGHT, WIDTH, InvalidAction, parse
from fsmc.env.core import DEFAULT_MAX_STEPS, Observation
from fsmc.env.pool import EnvPool
from fsmc.export.actions import ACTION_TYPES

T = TypeVar("T")
MAX_OBS_TEXT = 200_000
ALWAYS = ("goal", "last_action_error")  # in every observation, whatever `observe` asks for


class LoopThread:
    """An asyncio loop in a daemon thread: runs coroutines for sync callers, whatever loop they are in."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fsmc-env-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
        self.loop.close()


class AnyText(spaces.Text):
    """Text of any characters up to a length (gymnasium's Text space checks each character against a charset)."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length


class ActionSpace(gymnasium.Space[dict[str, Any]]):
    """The export's action dicts; `sample` draws a random one (what the random policy does)."""

    def __init__(self, size: tuple[int, int] = (WIDTH, HEIGHT), seed: int | None = None):
        super().__init__(None, None, seed)
        self.size = size

    def contains(self, x: Any) -> bool:
        try:
            parse(x, self.size)
        except InvalidAction:
            return False
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        rng = self.np_random
        kind = str(rng.choice([k for k in ACTION_TYPES if k != "answer"] + ["click"] * 4))
        point = [int(rng.integers(self.size[0])), int(rng.integers(self.size[1]))]
        extras: dict[str, dict[str, Any]] = {
            "type": {"text": "wool"}, "key": {"key": str(rng.choice(["Enter", "Tab", "Escape"]))},
            "select": {"value": ""}, "drag": {"to": [int(rng.integers(self.size[0])), int(rng.integers(self.size[1]))]},
            "scroll": {"direction": str(rng.choice(DIRECTIONS))}}
        extra = extras.get(kind, {})
        return {"action": kind, **({} if kind == "key" else {"coordinate": point}), **extra}

    @property
    def is_np_flattenable(self) -> bool:
        return False


def decode(image: bytes) -> np.ndarray:
    """A screenshot as an RGB array, height × width × 3."""
    from PIL import Image

    with Image.open(io.BytesIO(image)) as im:
        return np.asarray(im.convert("RGB"))


def observation_space(observe: tuple[str, ...]) -> spaces.Dict:
    parts: dict[str, gymnasium.Space[Any]] = {"screenshot": spaces.Box(0, 255, (HEIGHT, WIDTH, 3), np.uint8)}
    parts |= {name: AnyText(MAX_OBS_TEXT, min_length=0) for name in (*ALWAYS, *observe) if name != "screenshot"}
    return spaces.Dict(parts)


def as_gym(obs: Observation, observe: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"screenshot": decode(obs.screenshot)}
    out |= {name: getattr(obs, name) or "" for name in (*ALWAYS, *observe) if name != "screenshot"}
    return out


class FsmcEnv(gymnasium.Env[dict[str, Any], dict[str, Any]]):
    """A built site and its tasks as a gymnasium environment (its own Chromium, one context)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, dist: str | Path, tasks: str | Path, *, spec: str | Path | None = None,
                 max_steps: int = DEFAULT_MAX_STEPS, observe: tuple[str, ...] = ("screenshot",),
                 render_mode: str | None = None):
        self.observe = ("screenshot", *(o for o in observe if o != "screenshot"))
        self.render_mode = render_mode
        self.action_space = ActionSpace()
        self.observation_space = observation_space(self.observe)
        self._loop = LoopThread()
        self._pool = EnvPool.of(dist, tasks, n=1, spec=spec, max_steps=max_steps, observe=self.observe)
        try:
            self._loop.run(self._pool.start())
        except BaseException:
            self._loop.run(self._pool.close())
            self._loop.stop()
            raise
        self.env = self._pool.envs[0]
        self._last: Observation | None = None

    @property
    def tasks(self) -> list[str]:
        return [t.id for t in self.env.tasks]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self._loop.run(self.env.reset(seed=seed, options=options))
        self._last = obs
        return as_gym(obs, self.observe), info

    def step(self, action: dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        result = self._loop.run(self.env.step(action))
        self._last = result.observation
        return as_gym(result.observation, self.observe), result.reward, result.terminated, result.truncated, result.info

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        return decode(self._last.screenshot) if self._last is not None and self.render_mode == "rgb_array" else None

    def close(self) -> None:
        if self._loop.loop.is_closed():
            return
        try:
            self._loop.run(self._pool.close())
        finally:
            self._loop.stop()
        super().close()
