"""The generated site behaves exactly like the spec: random walks through the UI agree with the semantics.

For every example spec (and the mini and widgets fixtures) a site is built once. Hypothesis draws random
sequences of enabled moves; each move's GUI procedure is executed in headless Chromium through the same
backend that `fsmc replay` uses (`fsmc.backends.GeneratedSite`: at the elements' bounding-box centres, as an
agent would), and in the Python semantics. After every move the episode's state (the site's
`window.__fsmc.state()`) must equal `Machine.to_json` of the semantic state.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_build_widgets import ROWS_SPEC, write_widgets

from fsmc import Machine, load
from fsmc.backends import Capture, EpisodeFailure, GeneratedSite, Op, SiteEpisode
from fsmc.browser import Chromium
from fsmc.codegen import BuildError, build_site
from fsmc.enumerate.trajectories import gui_ops
from fsmc.semantics import Move, State

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = Path("widgets.fsm")  # written from test_build_widgets.WIDGETS_SPEC when first needed
SPECS = sorted((ROOT / "specs").glob("*.fsm")) + [ROOT / "tests" / "fixtures" / "mini.fsm", WIDGETS]
# CI-sized; set FSMC_CONFORMANCE_EXAMPLES / FSMC_CONFORMANCE_STEPS for a longer hunt.
EXAMPLES = int(os.environ.get("FSMC_CONFORMANCE_EXAMPLES", "20"))
MAX_STEPS = int(os.environ.get("FSMC_CONFORMANCE_STEPS", "8"))


class Site:
    """A built site's episode (one page on it, served on 127.0.0.1), driven as replay drives it, and its semantics."""

    def __init__(self, run: Callable[[Any], Any], machine: Machine, episode: SiteEpisode):
        self.run, self.machine, self.episode = run, machine, episode

    def js_state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.run(self.episode.state())
        return state

    def reset(self, state: State | None = None) -> None:
        self.run(self.episode.reset(None if state is None else self.machine.to_json(state)))

    def act(self, state: State, move: Move) -> None:
        """The move's GUI procedure, its selectors rendered in the pre-state, then the page comes to rest."""
        for op in gui_ops(self.machine, state, move):
            self.run(self.episode.perform(Op.from_json(op), Capture.NONE))
        self.run(self.episode.settle())


@pytest.fixture(scope="module")
def run() -> Iterator[Callable[[Any], Any]]:
    """Runs a coroutine on this module's own event loop (Playwright objects stay bound to it between tests)."""
    loop = asyncio.new_event_loop()
    yield loop.run_until_complete
    loop.close()


@pytest.fixture(scope="module")
def sites(run: Callable[[Any], Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], Site]]:
    """Sites built on demand, one per spec, each an episode of its own on one shared Chromium, kept for the module."""
    chromium = Chromium()
    run(chromium.start())
    cache: dict[Path, Site] = {}
    backends: list[GeneratedSite] = []

    def get(path: Path) -> Site:
        if path not in cache:
            spec = load(write_widgets(tmp_path_factory.mktemp("spec")) if path == WIDGETS else path)
            try:
                dist = build_site(spec, tmp_path_factory.mktemp("sites")).dist
            except BuildError as err:
                pytest.fail(str(err))
            backends.append(GeneratedSite(dist, chromium=chromium))
            run(backends[-1].start())
            cache[path] = Site(run, Machine(spec), run(backends[-1].open()))
        return cache[path]

    yield get
    run(chromium.close())
    for backend in backends:  # the servers
        run(backend.close())


def reachable_sample(m: Machine, rng: random.Random, count: int, depth: int) -> list[State]:
    states = []
    for _ in range(count):
        s = m.initial()
        for _ in range(rng.randint(0, depth)):
            moves = m.enabled(s)
            if not moves:
                break
            s = m.step(s, rng.choice(moves))
        states.append(s)
    return states


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_random_walks_through_the_ui_agree_with_the_semantics(spec_path: Path, sites: Any) -> None:
    site: Site = sites(spec_path)
    m = site.machine

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("FSMC_CONFORMANCE_RANDOM") is None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(st.data())
    def walk(data: st.DataObject) -> None:
        state = m.initial()
        site.reset()
        assert site.js_state() == m.to_json(state)
        trail = []
        for _ in range(MAX_STEPS):
            moves = m.enabled(state)
            if not moves:
                break
            move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
            trail.append(repr(move))
            site.act(state, move)
            state = m.step(state, move)
            assert site.js_state() == m.to_json(state), f"diverged after {' → '.join(trail)}"

    walk()


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_runtime_enabled_moves_equal_the_semantics(spec_path: Path, sites: Any) -> None:
    """On sampled reachable states (set through reset), the JS enabled() is the Python enabled list."""
    site: Site = sites(spec_path)
    m = site.machine
    for s in reachable_sample(m, random.Random(7), count=15, depth=10):
        site.reset(s)
        assert site.js_state() == m.to_json(s)
        js = site.run(site.episode.enabled())
        assert js == [mv.to_json() for mv in m.enabled(s)], m.to_json(s)


def _failing_moves(m: Machine, s: State) -> list[Move]:
    """Moves of the page whose preconditions fail in s, leaving out those whose GUI procedure is also an enabled
    move's: two actions may share a control (one star button for star and unstar), and doing its procedure
    then does the enabled move, as it should."""
    enabled = m.enabled(s)
    doable = {json.dumps(gui_ops(m, s, mv)) for mv in enabled}
    return [mv for mv in m.moves(m.page_of(s)) if mv not in enabled and json.dumps(gui_ops(m, s, mv)) not in doable]


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_disabled_moves_are_no_ops_through_the_ui(spec_path: Path, sites: Any) -> None:
    """Acting out a disabled move's procedure (where its elements are there to act on) changes nothing."""
    site: Site = sites(spec_path)
    m = site.machine
    rng = random.Random(11)
    tried = 0
    for s in reachable_sample(m, rng, count=12, depth=6):
        disabled = _failing_moves(m, s)
        if not disabled:
            continue
        move = rng.choice(disabled)
        site.reset(s)
        try:
            site.act(s, move)
        except EpisodeFailure as failure:  # absent, hidden or covered: an agent cannot do it either
            assert failure.reason in ("element_missing", "not_visible"), failure
            site.run(site.episode.settle())
        tried += 1
        assert site.js_state() == m.to_json(s), f"disabled {move} changed the state"
    assert tried > 0 or not any(m.moves(p.name) for p in m.spec.pages)


def test_rows_scrolled_to_by_their_own_testid_can_be_scrolled_to(sites: Any, tmp_path: Path) -> None:
    """`scroll_until_visible "hotel-card-{h}"` then `click "hotel-book-{h}"`: the row carries the scroll's testid,
    so the move is acted out from below the fold; and every flight of flights' results (the same pattern) is chosen."""
    path = tmp_path / "rows.fsm"
    path.write_text(ROWS_SPEC)
    site: Site = sites(path)
    m = site.machine
    s = m.initial()
    last = m.enabled(s)[-1]  # the bottom row
    assert last.args == ("h16",)
    site.reset(s)
    steps = [step for op in gui_ops(m, s, last)
             for step in site.run(site.episode.perform(Op.from_json(op), Capture.NONE))]
    site.run(site.episode.settle())
    assert steps[0].op == "scroll" and steps[-1].op == "click"
    assert site.js_state() == m.to_json(m.step(s, last))

    flights: Site = sites(ROOT / "specs" / "flights.fsm")
    m = flights.machine
    results = _nearest(m, lambda state: any(mv.name == "results.choose" for mv in m.enabled(state)))
    chosen = [mv for mv in m.enabled(results) if mv.name == "results.choose"]
    for move in chosen:
        flights.reset(results)
        flights.act(results, move)
        assert flights.js_state() == m.to_json(m.step(results, move)), move


def _nearest(m: Machine, want: Callable[[State], bool]) -> State:
    """The state nearest the initial one that `want` holds of, by breadth-first search."""
    from collections import deque

    seen = {m.initial()}
    queue = deque(seen)
    while queue:
        s = queue.popleft()
        if want(s):
            return s
        for mv in m.enabled(s):
            t = m.step(s, mv)
            if t not in seen:
                seen.add(t)
                queue.append(t)
    raise AssertionError("no such state")
