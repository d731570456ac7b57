"""Random walks on the built site against the semantics, with Hypothesis: any divergence is shrunk to a shortest walk.

Each walk starts the site in its initial state and takes enabled moves drawn by Hypothesis, acting out
each move's GUI procedure through the backend protocol (fsmc.backends, as `fsmc replay` does) and
comparing the site's state with the semantics' after every move. A walk that diverges (a state that
differs, or an operation that cannot be done) is a failing example, which Hypothesis shrinks to the
fewest, earliest moves that still diverge. `--seed` fixes every draw: the same site, spec and seed walk
the same walks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmc.backends import Capture, EpisodeFailure, GeneratedSite, Op, SiteEpisode
from fsmc.enumerate.trajectories import gui_ops
from fsmc.errors import FsmcError
from fsmc.semantics import Machine, Move, State, state_difference

Run = Callable[[Coroutine[Any, Any, Any]], Any]
"""Runs a coroutine to its end on the walks' event loop."""


class Divergence(FsmcError):
    """The site and the semantics part ways after `moves`; `detail` says how."""

    def __init__(self, moves: tuple[Move, ...], detail: str):
        super().__init__(detail)
        self.moves, self.detail = moves, detail


@dataclass(frozen=True)
class WalkReport:
    walks: int
    divergence: Divergence | None
    flaky: bool = False  # a walk diverged once, but not again when replayed: the site is not deterministic


class _Walker:
    """One episode on the site, driven move by move beside the semantics."""

    def __init__(self, machine: Machine, episode: SiteEpisode, run: Run):
        self.machine, self.episode, self.run = machine, episode, run

    def start(self) -> State:
        state = self.machine.initial()
        self._compare(self.run(self.episode.reset(None)), state, ())
        return state

    def move(self, state: State, move: Move, moves: tuple[Move, ...]) -> State:
        try:
            for op in gui_ops(self.machine, state, move):
                self.run(self.episode.perform(Op.from_json(op), Capture.NONE))
            self.run(self.episode.settle())
        except EpisodeFailure as err:
            raise Divergence(moves, f"{err.reason}: {err.detail}") from None
        after = self.machine.step(state, move)
        self._compare(self.run(self.episode.state()), after, moves)
        return after

    def _compare(self, shown: dict[str, Any], state: State, moves: tuple[Move, ...]) -> None:
        want = self.machine.to_json(state)
        if shown != want:
            raise Divergence(moves, f"the site shows another state: {state_difference(shown, want)}")


def walk_site(machine: Machine, dist: str | Path, *, walks: int, seed: int, max_steps: int) -> WalkReport:
    """Up to `walks` random walks of at most `max_steps` moves; the shrunk divergence, if one is found."""
    from hypothesis import HealthCheck, Verbosity, given, settings
    from hypothesis import seed as fix_seed
    from hypothesis import strategies as st
    from hypothesis.errors import Flaky

    loop = asyncio.new_event_loop()
    site = GeneratedSite(dist)
    try:
        loop.run_until_complete(site.start())
        walker = _Walker(machine, loop.run_until_complete(site.open()), loop.run_until_complete)

        @fix_seed(seed)
        @settings(max_examples=walks, deadline=None, database=None, verbosity=Verbosity.quiet,
                  report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
        @given(st.data())
        def walk(data: st.DataObject) -> None:
            state = walker.start()
            moves: tuple[Move, ...] = ()
            for _ in range(max_steps):
                enabled = machine.enabled(state)
                if not enabled:
                    return
                move = enabled[data.draw(st.integers(0, len(enabled) - 1))]
                moves = (*moves, move)
                state = walker.move(state, move, moves)

        try:
            walk()
        except Divergence as found:
            return WalkReport(walks, found)
        except Flaky:
            return WalkReport(walks, None, flaky=True)
        return WalkReport(walks, None)
    finally:
        loop.run_until_complete(site.close())
        loop.close()
