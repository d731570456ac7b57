"""Replays trajectories in Chromium so that each distinct transition is proven once, through the UI.

BFS trajectories share long prefixes and many states. A transition (state, move) is executed through
the UI, as an agent would, the first time any trajectory needs it, and the site's state is compared
with the semantics' state; every later trajectory that takes the same transition reuses its recorded
steps. A worker whose page is not in the state a transition starts from jumps there through the
harness (`window.__fsmc.reset`). That is sound because a settled page is a function of its state
alone: the view reached through the UI and the view reached by a jump are the same pixels
(tests/test_replay.py shows it on a sample; `audit_every` re-checks it during a run). So the browser
work grows with the distinct transitions, not with the total number of steps, and every step of
every kept trajectory is still proven.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic
from fsmc.browser import Actor, Isolation, ReplayFailure, SiteServer, launch, open_site
from fsmc.replay.inputs import Move, Trajectory, canonical
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
    failure: ReplayFailure | None = None


class Worker:
    """One page of its own context, and the state its settled view shows (None: unknown)."""

    def __init__(self, page: Any, url: str, image_format: str):
        self.page, self.url = page, url
        self.actor = Actor(page, image_format=image_format)
        self.at: str | None = None


class Replayer:
    """Replays trajectories against one built site into a data folder; resumable through its journal."""

    def __init__(self, dist: Path, data_dir: Path, *, workers: int = 3, image_format: str = "jpeg",
                 audit_every: int = 25, on_progress: Callable[[Stats], None] | None = None):
        self.dist, self.data_dir = Path(dist), Path(data_dir)
        self.image_format = image_format
        self.suffix = ".jpg" if image_format == "jpeg" else f".{image_format}"
        self.workers, self.audit_every = max(1, workers), audit_every
        self.on_progress = on_progress
        self.stats = Stats()
        self._edges: dict[tuple[str, str], Edge | asyncio.Future[Edge]] = {}
        self._views: dict[str, str] = {}  # state -> screenshot of its settled view

    # ---------------------------------------------------------------- screenshots
    def _name(self, image: bytes) -> str:
        """Where a screenshot is stored: named by its bytes, so each distinct view is stored once."""
        return f"{SCREENS}/{hashlib.sha256(image).hexdigest()[:32]}{self.suffix}"

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
            self._views[state] = self._store(await w.actor.screenshot())
        return self._views[state]

    async def _arrived(self, w: Worker, state: str, key: str) -> None:
        """After a transition proven through the UI: keep the view of the state it reached.

        Every state a trajectory reaches is either followed by a move or is the trajectory's last, so
        its view is needed, and the one reached through the UI is the one to keep. Where another path
        has stored it already, a deterministic sample of arrivals is checked against it instead.
        """
        if state not in self._views:
            await self._view(w, state)
            return
        if self.audit_every <= 0 or int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % self.audit_every:
            return
        self.stats.view_checks += 1
        if self._name(await w.actor.screenshot()) != self._views[state]:
            self.stats.view_mismatches += 1

    # ---------------------------------------------------------------- moving the page
    async def _harness(self, w: Worker, expr: str, arg: Any = None) -> Any:
        try:
            return await w.page.evaluate(expr, arg)
        except Exception as err:  # Playwright's own Error: the page crashed or left the site
            raise ReplayFailure("navigation_failed", f"the harness did not answer: {str(err).splitlines()[0]}") from None

    async def _jump(self, w: Worker, state: str) -> None:
        """Put the page in `state` through the harness (reloading the site if the page was lost)."""
        self.stats.jumps += 1
        w.at = None
        try:
            await self._harness(w, "(s) => window.__fsmc.reset(s)", json.loads(state))
        except ReplayFailure:
            await w.page.goto(w.url, wait_until="load")
            await self._harness(w, "(s) => window.__fsmc.reset(s)", json.loads(state))
        await w.actor.settle()
        if canonical(await self._harness(w, "() => window.__fsmc.state()")) != state:
            raise ReplayFailure("navigation_failed", "the harness could not put the page in the expected state")
        w.at = state

    async def _prove(self, w: Worker, state: str, move: Move) -> Edge:
        if w.at != state:
            await self._jump(w, state)

        async def shoot(pristine: bool) -> str:
            return await self._view(w, state) if pristine else self._store(await w.actor.screenshot())

        records: list[dict[str, Any]] = []
        w.at = None
        for op in move.ops:
            try:
                records += await w.actor.perform(op, shoot)
            except ReplayFailure as failure:
                if move.enabled or failure.reason not in ("element_missing", "not_visible"):
                    raise
                records.append({"op": op.op, "selector": op.selector, "unavailable": failure.detail})
                break  # a disabled move's control may be absent or hidden: the agent cannot do it
        await w.actor.settle()
        observed = canonical(await self._harness(w, "() => window.__fsmc.state()"))
        w.at = observed
        self.stats.transitions += 1
        if observed != move.state:
            return Edge(records, ReplayFailure("state_diverged", state_difference(json.loads(observed), json.loads(move.state))))
        await self._arrived(w, observed, f"{state}|{move.key}")
        return Edge(records)

    async def _edge(self, w: Worker, state: str, move: Move) -> Edge:
        key = (state, move.key)
        known = self._edges.get(key)
        if isinstance(known, Edge):
            return known
        if known is not None:
            return await known
        future: asyncio.Future[Edge] = asyncio.get_running_loop().create_future()
        self._edges[key] = future
        try:
            edge = await asyncio.wait_for(self._prove(w, state, move), STEP_TIMEOUT_S)
        except ReplayFailure as failure:
            edge = Edge([], failure)
        except TimeoutError:
            edge = Edge([], ReplayFailure("timeout", f"the move took longer than {STEP_TIMEOUT_S:.0f} s"))
        except Exception as err:  # Playwright's own Error from an operation: the page went away
            edge = Edge([], ReplayFailure("navigation_failed", str(err).splitlines()[0]))
        if edge.failure is not None and edge.failure.reason != "state_diverged":
            w.at = None
        self._edges[key] = edge
        future.set_result(edge)
        return edge

    # ---------------------------------------------------------------- trajectories
    async def _final(self, w: Worker, state: str) -> str:
        if state not in self._views:
            if w.at != state:
                await self._jump(w, state)
            await self._view(w, state)
        return self._views[state]

    async def _replay(self, w: Worker, t: Trajectory) -> dict[str, Any]:
        state, steps = t.initial, []
        for i, move in enumerate(t.moves):
            edge = await self._edge(w, state, move)
            if edge.failure is not None:
                return {"id": t.id, "status": "rejected", "reason": edge.failure.reason,
                        "detail": edge.failure.detail, "failed_move": i}
            steps += [{**rec, "move": i} for rec in edge.records]
            state = move.state
        try:
            final = await asyncio.wait_for(self._final(w, state), STEP_TIMEOUT_S)
        except (TimeoutError, ReplayFailure) as err:
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
        from playwright.async_api import async_playwright

        (self.data_dir / SCREENS).mkdir(parents=True, exist_ok=True)
        self.stats.trajectories = len(trajectories)
        queue: asyncio.Queue[Trajectory] = asyncio.Queue()
        for t in trajectories:
            if t.id in journal.done:
                self.stats.resumed += 1
                self._count(journal.done[t.id])
            else:
                queue.put_nowait(t)
        start = time.perf_counter()
        with SiteServer(self.dist) as server:
            isolation = Isolation(server.url.rstrip("/"))
            async with async_playwright() as pw:
                browser = await launch(pw)
                try:
                    n = min(self.workers, max(1, queue.qsize()))
                    pages = [await open_site(browser, server.url, isolation) for _ in range(n)]
                    await asyncio.gather(*(self._work(Worker(p, server.url, self.image_format), queue, journal) for p in pages))
                finally:
                    await browser.close()
            self.stats.blocked_requests = isolation.blocked
        self.stats.seconds = time.perf_counter() - start

