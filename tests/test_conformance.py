"""The generated site behaves exactly like the spec: random walks through the UI agree with the semantics.

For every example spec (and the mini fixture) a site is built once per session. Hypothesis draws random
sequences of enabled moves; each move is executed in headless Chromium through its GUI procedure, at the
elements' bounding-box centres as an agent would act, and in the Python semantics. After every step the
site's `window.__fsmc.state()` must equal `Machine.to_json` of the semantic state.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_build_widgets import write_widgets

from fsmc import Machine, load
from fsmc.codegen import BuildError, build_site
from fsmc.codegen.preview import ElementMissing, launch_browser, open_page, perform, serving

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = Path("widgets.fsm")  # written from test_build_widgets.WIDGETS_SPEC when first needed
SPECS = sorted((ROOT / "specs").glob("*.fsm")) + [ROOT / "tests" / "fixtures" / "mini.fsm", WIDGETS]
# CI-sized; set FSMC_CONFORMANCE_EXAMPLES / FSMC_CONFORMANCE_STEPS for a longer hunt.
EXAMPLES = int(os.environ.get("FSMC_CONFORMANCE_EXAMPLES", "20"))
MAX_STEPS = int(os.environ.get("FSMC_CONFORMANCE_STEPS", "8"))

import playwright.sync_api as playwright_sync  # noqa: E402


class Site:
    """A built site served on 127.0.0.1 with one browser page on it, and the spec's semantics."""

    def __init__(self, machine: Machine, page: Any, base_url: str):
        self.machine, self.page, self.base_url = machine, page, base_url

    def js_state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.page.evaluate("() => window.__fsmc.state()")
        return state

    def reset(self, state: Any = None) -> None:
        self.page.evaluate("(s) => window.__fsmc.reset(s)", None if state is None else self.machine.to_json(state))

    def act(self, state: Any, move: Any) -> None:
        """Run the move's GUI procedure, its templates filled from the parameters and the pre-state."""
        m = self.machine
        for op in move.action.gui:
            fill = (lambda t: None if t is None else m.render(t, state, move))  # noqa: E731
            perform(self.page, op.op, fill(op.selector), fill(op.text), fill(op.until), op.limit)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as pw:
        b = launch_browser(pw)
        yield b
        b.close()


@pytest.fixture(scope="session")
def sites(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Site]]:
    """Sites built on demand, one per spec, kept for the whole session."""
    cache: dict[str, Site] = {}
    stack: list[Any] = []

    def get(path: Path) -> Site:
        if str(path) not in cache:
            spec = load(write_widgets(tmp_path_factory.mktemp("spec")) if path == WIDGETS else path)
            try:
                result = build_site(spec, tmp_path_factory.mktemp("sites"))
            except BuildError as err:
                pytest.fail(str(err))
            ctx = serving(result.dist)
            url = ctx.__enter__()
            stack.append(ctx)
            cache[str(path)] = Site(Machine(spec), open_page(browser, url), url)
        return cache[str(path)]

    yield get  # type: ignore[misc]
    for ctx in stack:
        ctx.__exit__(None, None, None)


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
    rng = random.Random(7)
    states = []
    for _ in range(15):
        s = m.initial()
        for _ in range(rng.randint(0, 10)):
            moves = m.enabled(s)
            if not moves:
                break
            s = m.step(s, rng.choice(moves))
        states.append(s)
    for s in states:
        site.reset(s)
        assert site.js_state() == m.to_json(s)
        js = site.page.evaluate("() => window.__fsmc.enabled()")
        assert js == [mv.to_json() for mv in m.enabled(s)], m.to_json(s)


def test_harness_is_hidden_and_the_url_cannot_move_the_fsm(sites: Any) -> None:
    site: Site = sites(ROOT / "tests" / "fixtures" / "mini.fsm")
    m = site.machine
    site.reset()
    page = site.page
    assert page.evaluate("() => Object.keys(window).includes('__fsmc')") is False
    assert page.evaluate("() => document.body.innerText.includes('__fsmc')") is False
    other = next(p.name for p in m.spec.pages if p.name != m.spec.site.entry)
    page.goto(site.base_url + f"#/{other}")
    page.wait_for_function("() => window.__fsmc !== undefined")
    assert site.js_state()["page"] == m.spec.site.entry
    assert page.evaluate("() => window.location.hash") == f"#/{m.spec.site.entry}"
    # A reload keeps the state.
    s = m.step(m.initial(), m.enabled(m.initial())[0])
    site.reset(s)
    page.reload()
    page.wait_for_function("() => window.__fsmc !== undefined")
    assert site.js_state() == m.to_json(s)
    site.reset()


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_disabled_moves_are_no_ops_through_the_ui(spec_path: Path, sites: Any) -> None:
    """Acting out a disabled move's procedure (where its elements are on the page) changes nothing."""
    site: Site = sites(spec_path)
    m = site.machine
    rng = random.Random(11)
    tried = 0
    for _ in range(12):
        s = m.initial()
        for _ in range(rng.randint(0, 6)):
            moves = m.enabled(s)
            if not moves:
                break
            s = m.step(s, rng.choice(moves))
        enabled = set(m.enabled(s))
        disabled = [mv for mv in m.moves(m.page_of(s)) if mv not in enabled]
        if not disabled:
            continue
        move = rng.choice(disabled)
        site.reset(s)
        with contextlib.suppress(ElementMissing):  # hidden or absent: an agent cannot do it either
            site.act(s, move)
        tried += 1
        assert site.js_state() == m.to_json(s), f"disabled {move} changed the state"
    assert tried > 0 or not any(m.moves(p.name) for p in m.spec.pages)
