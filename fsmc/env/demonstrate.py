"""A dataset's demonstration acted out in an environment: the proof that what a dataset says an agent did, an agent can do.

From the task's reset, each of the demonstration's actions is sent to the environment as an agent would send it.
It succeeds when the reward is 1 exactly at the last action (not before: the episode would have ended), nothing the
environment had to put back, and, where the views the dataset shows are given, each one equal to the environment's
observation before the same action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fsmc.env.core import AsyncFsmcEnv


@dataclass(frozen=True)
class Outcome:
    """How a demonstration fared: None for `failure` when it earned reward 1 at its last action and nowhere else."""

    steps: int  # actions sent
    reward: float
    failure: str | None = None
    views_differing: int = 0  # steps whose dataset view differs from the environment's observation

    @property
    def ok(self) -> bool:
        return self.failure is None


async def act_out(env: AsyncFsmcEnv, task: str, actions: Sequence[dict[str, Any]],
                  views: Sequence[bytes] | None = None) -> Outcome:
    """Reset to `task`, then send `actions` one by one; `views`: the image the dataset shows before each action."""
    observation, _ = await env.reset(options={"task": task})
    differing, reward = 0, 0.0
    for n, action in enumerate(actions):
        if views is not None and views[n] != observation.screenshot:
            differing += 1
        result = await env.step(action)
        observation, reward = result.observation, result.reward
        last = n == len(actions) - 1
        if "restored" in result.info:
            return Outcome(n + 1, reward, f"step {n}: the environment put the page back ({result.info['restored']})",
                           differing)
        if result.terminated or result.truncated:
            why = None if last and reward == 1.0 else f"step {n}: the episode ended with reward {reward:g}"
            return Outcome(n + 1, reward, why, differing)
    return Outcome(len(actions), reward, f"the episode goes on after the last action (reward {reward:g})", differing)
