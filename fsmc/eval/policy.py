"""What an agent under evaluation is: a `Policy` started on a task and asked for one action per observation.

A policy is made fresh for every episode (by a `PolicyMaker`), so what it remembers (its history, its
random generator) belongs to one episode however many run at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fsmc.env.core import AsyncFsmcEnv, Observation
from fsmc.env.tasks import Task
from fsmc.errors import FsmcError


class PolicyUnavailable(FsmcError, RuntimeError):
    """The policy cannot act at all (an endpoint that cannot be reached, a key it refuses, a model it lacks):
    every episode would fail the same way, so the evaluation stops instead."""


@dataclass
class Decision:
    """A policy's answer to one observation.

    `action` None and `error` None: the policy has nothing more to do (the episode ends). `error` set: the
    step failed (an answer that is no action); it counts as a step and the episode goes on.
    """

    action: dict[str, Any] | None
    raw: str | None = None  # what a model replied, as it replied it
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)  # tokens of the request that gave it, where counted


class Policy(Protocol):
    """One episode's agent."""

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        """Called once before the first `act`: the task to do, the environment (only the oracle may look at its
        page: an agent sees the observations alone) and the episode's seed."""

    async def act(self, observation: Observation, info: dict[str, Any]) -> Decision | dict[str, Any] | None:
        """The next action in the export's action format (`fsmc/export/actions.py`), or a Decision, or None
        to stop. `info` is the last step's (the reset's at first); `info["error"]` says why the last action
        was refused."""


PolicyMaker = Callable[[], Policy]
"""Makes the policy of one episode: a class, or an object holding what episodes share (a client). Where it has
them, its coroutine methods `check` (raises PolicyUnavailable before any browser starts) and `aclose` (when the
evaluation ends) are awaited."""


def as_decision(answer: Decision | dict[str, Any] | None) -> Decision:
    return answer if isinstance(answer, Decision) else Decision(answer)
