"""Replays trajectories on a backend so that each distinct transition is proven once, through the UI.

BFS trajectories share long prefixes and many states. A transition (state, move) is executed through
the UI, as an agent would, the first time any trajectory needs it, and the backend's state is compared
with the semantics' state; every later trajectory that takes the same transition reuses its recorded
steps. A worker whose episode is not in the state a transition starts from jumps there (`Episode.reset`:
the generated site's harness, `window.__fsmc.reset`). That is sound because a settled view is a function
of its state alone: the view reached through the UI and the view reached by a jump are the same pixels
(tests/test_replay.py shows it on a sample; `audit_every` re-checks it during a run). So the browser
work grows with the distinct transitions, not with the total number of steps, and every step of
every kept trajectory is still proven. Only the `fsmc.backends` protocol is used here.

A backend that cannot jump (`Backend.jumps` false: a cloned application, reset only to its initial state by
restoring its database) has every trajectory acted out from that state, move by move, one episode at a time
(`Backend.max_episodes`); its views are not shared between trajectories, since a real application's page
may show more than the state (a message after a save), and a `BackendError` (its adapter raised) stops the run.
With `run_through` (a site fsmc did not generate, verified rather than filtered), a trajectory is acted out to its
end past a state that disagrees with the semantics: its result says whether every operation still ran (`executed`)
and where the states first differed.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic
from fsmc.backends import Backend, BackendError, Capture, Episode, EpisodeFailure, Step
from fsmc.replay.inputs import KeyedState, Move, Trajectory, canonical
from fsmc.replay.journal import Journal
from fsmc.semantics import state_difference

STEP_TIMEOUT_S = 20.0
SCREENS = "screens"


@dataclass
class Stats:
    """What one run did; the deterministic summary of the results is `summarise` in fsmc.replay."""

    trajectories: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    resumed: int = 0
    steps: int = 0
    transitions: int = 0
    jumps: int = 0
    screenshots: int = 0
    view_checks: int = 0
    view_mismatches: int = 0
    blocked_requests: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "rejected"}
        return {**out, "rejected": dict(sorted(self.rejected.items())), "seconds": round(self.seconds, 2)}


@dataclass
class Edge:
    """A proven (or failed) transition: the agent steps it took."""

    records: list[dict[str, Any]]
    failure: EpisodeFailure | None = None


class Worker:
    """One episode, and the state its settled view shows (its key; None: unknown)."""

    def __init__(self, episode: Episode):
        self.episode = episode
        self.at: str | None = None


def as_read(backend: Backend, shown: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The state a backend showed, with the variables it cannot read (`unread`: fields another generator's runtime does
    not hold, such as the importer's own `access_method`) taken as the semantics have them."""
    unread: frozenset[str] = getattr(backend, "unread", frozenset())
    if not unread or not isinstance(shown.get("vars"), dict):
        return shown
    taken = {n: v for n, v in (expected.get("vars") or {}).items() if n in unread}
    return {**shown, "vars": {**shown["vars"], **taken}}


class Replayer:
    """Replays trajectories on one backend into a data folder; resumable through its journal."""

    def __init__(self, backend: Backend, data_dir: Path, *, workers: int = 3, audit_every: int = 25,
                 on_progress: Callable[[Stats], None] | None = None, run_through: bool = False):
        self.backend, self.data_dir = backend, Path(data_dir)
        self.workers, self.audit_every = max(1, workers), audit_every
        self.on_progress = on_progress
        self.stats = Stats()
        self._edges: dict[tuple[str, str], Edge | asyncio.Future[Edge]] = {}
        self._views: dict[str, str] = {}  # state key -> screenshot of its settled view
        self._shared = bool(getattr(backend, "jumps", True))  # views and transitions shared across trajectories
        self.run_through = run_through and not self._shared  # acted from the start alone: nothing shared to spoil

    # ---------------------------------------------------------------- screenshots
    def _name(self, image: bytes) -> str:
        """Where a screenshot is stored: named by its bytes, so each distinct view is stored once."""
        return f"{SCREENS}/{hashlib.sha256(image).hexdigest()[:32]}{self.backend.image.suffix}"

    def _store(self, image: bytes) -> str:
        name = self._name(image)
        path = self.data_dir / name
        if not path.exists():
            write_atomic(path, image)
        self.stats.screenshots += 1
        return name

    async def _view(self, w: Worker, state: str) -> str:
        """The screenshot of a state's settled view, taken once (the page must show it, settled)."""
        if state not in self._views:
            self._views[state] = self._store(await w.episode.screenshot())
        return self._views[state]

    def _kept(self, step: Step, state: str) -> str:
        """The stored screenshot of the view before a step: a settled view is the state's, taken once."""
        if self._shared and step.settled and state in self._views:
            return self._views[state]
        assert step.image is not None, "the episode left out a view replay does not hold"
        name = self._store(step.image)
        if step.settled and self._shared:
            self._views[state] = name
        return name

    async def _arrived(self, w: Worker, state: str, key: str) -> None:
        """After a transition proven through the UI: keep the view of the state it reached.

        Every state a trajectory reaches is either followed by a move or is the trajectory's last, so
        its view is needed, and the one reached through the UI is the one to keep. Where another path
        has stored it already, a deterministic sample of arrivals is checked against it instead.
        """
        if not self._shared:
            return
        if state not in self._views:
            await self._view(w, state)
            return
        if self.audit_every <= 0 or int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.audit_every:
            return
        self.stats.view_checks += 1
        if self._name(await w.episode.screenshot()) != self._views[state]:
            self.stats.view_mismatches += 1

    # ---------------------------------------------------------------- moving the page
    async def _jump(self, w: Worker, state: KeyedState) -> None:
        """Put the episode in `state` without acting it out (the site: through its harness)."""
        self.stats.jumps += 1
        w.at = None
        await w.episode.reset(state.value)
        if canonical(await w.episode.state()) != state.key:
            raise EpisodeFailure("navigation_failed", "the harness could not put the page in the expected state")
        w.at = state.key

    async def _act(self, w: Worker, state: str, move: Move) -> list[dict[str, Any]]:
        """The move's operations through the UI, as agent steps; a disabled move stops at a control it cannot use."""
        records: list[dict[str, Any]] = []
        for op in move.ops:
            capture = Capture.UNSETTLED if self._shared and state in self._views else Capture.EVERY
            try:
                steps = await w.episode.perform(op, capture)
            except EpisodeFailure as failure:
                if move.enabled or failure.reason not in ("element_missing", "not_visible"):
                    raise
                records.append({"op": op.op, "selector": op.selector, "unavailable": failure.detail})
                break  # a disabled move's control may be absent or hidden: the agent cannot do it
            records += [step.to_json(self._kept(step, state)) for step in steps]
        return records

    async def _prove(self, w: Worker, state: KeyedState, move: Move) -> Edge:
        if w.at != state.key:
            await self._jump(w, state)
        w.at = None
        records = await self._act(w, state.key, move)
        await w.episode.settle()
        observed = as_read(self.backend, await w.episode.state(), move.state.value)
        w.at = reached = canonical(observed)
        self.stats.transitions += 1
        if reached != move.state.key:
            return Edge(records, EpisodeFailure("state_diverged", state_difference(observed, move.state.value)))
        await self._arrived(w, reached, f"{state.key}|{move.key}")
        return Edge(records)

    async def _edge(self, w: Worker, state: KeyedState, move: Move) -> Edge:
        key = (state.key, move.key)
        known = self._edges.get(key)
        if isinstance(known, Edge):
            return known
        if known is not None:
            return await known
        future: asyncio.Future[Edge] = asyncio.get_running_loop().create_future()
        self._edges[key] = future
        try:
            edge = await self._attempt(w, state, move)
        except BaseException:  # the backend failed: the run stops, and so do the workers waiting on this move
            future.cancel()
            raise
        self._edges[key] = edge
        future.set_result(edge)
        return edge

    async def _attempt(self, w: Worker, state: KeyedState, move: Move) -> Edge:
        """The move proven through the UI, or why it failed; a failure of the backend itself goes up."""
        try:
            edge = await asyncio.wait_for(self._prove(w, state, move), STEP_TIMEOUT_S)
        except EpisodeFailure as failure:
            edge = Edge([], failure)
        except TimeoutError:
            edge = Edge([], EpisodeFailure("timeout", f"the move took longer than {STEP_TIMEOUT_S:.0f} s"))
        except BackendError:
            raise
        except Exception as err:  # Playwright's own Error from an operation: the page went away
            edge = Edge([], EpisodeFailure("navigation_failed", str(err).splitlines()[0]))
        if edge.failure is not None and edge.failure.reason != "state_diverged":
            w.at = None
        return edge

    # ---------------------------------------------------------------- trajectories
    async def _final(self, w: Worker, state: KeyedState) -> str:
        if not self._shared:  # the page shows the final state now: its own view
            return self._store(await w.episode.screenshot())
        if state.key not in self._views:
            if w.at != state.key:
                await self._jump(w, state)
            await self._view(w, state.key)
        return self._views[state.key]

    async def _start(self, w: Worker, t: Trajectory) -> dict[str, Any] | None:
        """A backend that cannot jump: reset to its initial state, which must be the trajectory's (else it is rejected)."""
        w.at = None
        try:
            shown = await asyncio.wait_for(w.episode.reset(None), STEP_TIMEOUT_S)
        except (TimeoutError, EpisodeFailure) as err:
            return {"id": t.id, "status": "rejected", "reason": getattr(err, "reason", "timeout"),
                    "detail": f"could not reset: {getattr(err, 'detail', err)}", "failed_move": 0}
        w.at = t.initial.key
        shown = as_read(self.backend, shown, t.initial.value)
        if canonical(shown) != t.initial.key:
            return {"id": t.id, "status": "rejected", "reason": "state_diverged", "failed_move": 0,
                    "detail": "the initial state: " + state_difference(shown, t.initial.value)}
        return None

    async def _replay(self, w: Worker, t: Trajectory) -> dict[str, Any]:
        state, steps = t.initial, []
        disagreed: dict[str, Any] | None = None  # where the states first differed (with `run_through`)
        if not self._shared and (refused := await self._start(w, t)) is not None:
            if not self.run_through or refused["reason"] != "state_diverged":
                return refused
            disagreed = {"detail": refused["detail"], "failed_move": 0}
        for i, move in enumerate(t.moves):
            edge = await (self._edge(w, state, move) if self._shared else self._attempt(w, state, move))
            failure = edge.failure
            if failure is not None and failure.reason == "state_diverged" and self.run_through:
                disagreed = disagreed or {"detail": failure.detail, "failed_move": i}
                w.at = move.state.key  # acted on from the state the site shows, as if it were the expected one
            elif failure is not None:
                return {"id": t.id, "status": "rejected", "reason": failure.reason, "detail": failure.detail,
                        "failed_move": i, **({"disagreed": disagreed} if disagreed else {})}
            steps += [{**rec, "move": i} for rec in edge.records]
            state = move.state
        if disagreed is not None:  # every operation ran, but the states differ
            return {"id": t.id, "status": "rejected", "reason": "state_diverged", **disagreed, "executed": True}
        try:
            final = await asyncio.wait_for(self._final(w, state), STEP_TIMEOUT_S)
        except (TimeoutError, EpisodeFailure) as err:
            w.at = None
            return {"id": t.id, "status": "rejected", "reason": getattr(err, "reason", "timeout"),
                    "detail": "could not show the final state", "failed_move": len(t.moves)}
        return {"id": t.id, "status": "kept", "steps": steps, "final_screenshot": final}

    def _count(self, result: dict[str, Any]) -> None:
        if result["status"] == "kept":
            self.stats.kept += 1
            self.stats.steps += len(result["steps"])
        else:
            self.stats.rejected[result["reason"]] += 1
        if self.on_progress is not None:
            self.on_progress(self.stats)

    async def _work(self, w: Worker, queue: asyncio.Queue[Trajectory], journal: Journal) -> None:
        while not queue.empty():
            t = queue.get_nowait()
            result = await self._replay(w, t)
            journal.add(result)
            self._count(result)

    async def run(self, trajectories: list[Trajectory], journal: Journal) -> None:
        """Replay every trajectory the journal does not hold yet; results go to the journal."""
        (self.data_dir / SCREENS).mkdir(parents=True, exist_ok=True)
        self.stats.trajectories = len(trajectories)
        queue: asyncio.Queue[Trajectory] = asyncio.Queue()
        for t in trajectories:
            if t.id in journal.done:
                self.stats.resumed += 1
                self._count(journal.done[t.id])
            else:
                queue.put_nowait(t)
        if queue.empty():  # everything is in the journal already: no browser to start
            return
        start = time.perf_counter()
        async with self.backend:
            n = min(self.workers, max(1, queue.qsize()), getattr(self.backend, "max_episodes", None) or self.workers)
            episodes = [await self.backend.open() for _ in range(n)]
            await asyncio.gather(*(self._work(Worker(e), queue, journal) for e in episodes))
        self.stats.blocked_requests = self.backend.blocked_requests
        self.stats.seconds = time.perf_counter() - start
