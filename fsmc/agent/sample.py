"""The conformance sample an agent's every edit must pass, and the pages it looks at.

The sample is fixed for a run: breadth-first from the initial state, the first transition of every distinct
move (each action with each parameter value the explored states enable), so every control a GUI procedure
needs is acted on once, in a state of fewest moves. Each transition is proven as replay proves it: the
page put in the pre-state through the harness, the move's GUI operations done at the elements' boxes, the
page settled, and the state the runtime reports compared with the semantics'. The run's Chromium is shared
by every check; each check serves the current dist/ afresh.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from fsmc.backends import PNG, Capture, EpisodeFailure, GeneratedSite, Op
from fsmc.browser import Chromium
from fsmc.enumerate.trajectories import gui_ops
from fsmc.semantics import Machine, Move, State

MAX_STATES = 20_000  # explored for the sample; a bigger space is sampled from its first states
T = TypeVar("T")


@dataclass(frozen=True)
class Transition:
    before: State
    move: Move
    after: State


@dataclass(frozen=True)
class Sample:
    """The transitions every edit is checked on, and a state of each page reached (its first, breadth-first)."""

    transitions: tuple[Transition, ...]
    pages: dict[str, State]


def choose_sample(machine: Machine, size: int) -> Sample:
    """Up to `size` transitions: the first of every distinct move, then (past `size`) one per action first."""
    first: dict[Move, Transition] = {}
    pages: dict[str, State] = {}
    seen, queue = {machine.initial()}, deque([machine.initial()])
    while queue and len(seen) <= MAX_STATES:
        state = queue.popleft()
        pages.setdefault(machine.page_of(state), state)
        for move, after in machine.successors(state):
            first.setdefault(move, Transition(state, move, after))
            if after not in seen:
                seen.add(after)
                queue.append(after)
    every = list(first.values())
    actions: set[str] = set()
    primary: list[int] = []
    rest: list[int] = []
    for i, t in enumerate(every):
        (rest if t.move.name in actions else primary).append(i)
        actions.add(t.move.name)
    chosen = sorted(primary[:size] + rest[:max(0, size - len(primary))])
    return Sample(tuple(every[i] for i in chosen), pages)


def describe(machine: Machine, t: Transition) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in t.move.params.items())
    ops = "; ".join(" ".join(str(v) for v in op.values()) for op in gui_ops(machine, t.before, t.move))
    return f"{t.move.name}({args}) [{ops}]"


class Browser:
    """One Chromium for the run, on an event loop of its own (the agent's loop is synchronous)."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self.loop = asyncio.new_event_loop()
        self.chromium: Chromium | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coroutine)

    async def _started(self) -> Chromium:
        if self.chromium is None:
            chromium = Chromium()
            await chromium.start()
            self.chromium = chromium
        return self.chromium

    def check(self, dist: Path, transitions: tuple[Transition, ...]) -> list[str]:
        """What went wrong on each transition that failed (empty: the site does what the spec says)."""
        return self.run(self._check(dist, transitions))

    def screenshot(self, dist: Path, state: State) -> bytes:
        """A 1280×720 PNG of the site in `state`, settled."""
        return self.run(self._screenshot(dist, state))

    async def _check(self, dist: Path, transitions: tuple[Transition, ...]) -> list[str]:
        failures: list[str] = []
        m = self.machine
        async with GeneratedSite(dist, chromium=await self._started()) as site:
            episode = await site.open()
            for t in transitions:
                try:
                    shown = await episode.reset(m.to_json(t.before))
                    if shown != m.to_json(t.before):
                        failures.append(f"{describe(m, t)}: the page does not show the state it was reset to")
                        continue
                    for op in gui_ops(m, t.before, t.move):
                        await episode.perform(Op.from_json(op), Capture.NONE)
                    await episode.settle()
                    if await episode.state() != m.to_json(t.after):
                        failures.append(f"{describe(m, t)}: state_diverged: the site's state after the move is "
                                        "not the spec's")
                except EpisodeFailure as failure:
                    failures.append(f"{describe(m, t)}: {failure.reason}: {failure.detail}")
            await episode.close()
        return failures

    async def _screenshot(self, dist: Path, state: State) -> bytes:
        async with GeneratedSite(dist, image=PNG, chromium=await self._started()) as site:
            episode = await site.open()
            await episode.reset(self.machine.to_json(state))
            image = await episode.screenshot()
            await episode.close()
        return image

    def close(self) -> None:
        try:
            if self.chromium is not None:
                self.run(self.chromium.close())
        finally:
            self.loop.close()
