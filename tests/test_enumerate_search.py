"""BFS optimality and completeness of both engines and of the goal scan, against a brute-force search written here.

The brute force below uses only the machine's public moves/is_enabled/step, level by level, with
its own visited dict: it shares no code with `fsmc.analysis.explore`, the native engine or the
scanner. The specs are Hypothesis-drawn random specs (fsmc.testing.specs).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmc import Machine
from fsmc.engines.native import explore_native
from fsmc.engines.python import explore
from fsmc.enumerate import Options, Scanner
from fsmc.enumerate.goals import MAX_PER_FAMILY
from fsmc.semantics import State
from fsmc.testing import specs

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_force(machine: Machine, max_depth: int | None = None) -> dict[State, int]:
    """Distance of every reachable state: a level-by-level search over every move of the page, not `explore`."""
    dist = {machine.initial(): 0}
    level = [machine.initial()]
    d = 0
    while level and (max_depth is None or d < max_depth):
        nxt: list[State] = []
        for s in level:
            for mv in machine.moves(machine.page_of(s)):
                if machine.is_enabled(s, mv):
                    t = machine.step(s, mv)
                    if t not in dist:
                        dist[t] = d + 1
                        nxt.append(t)
        level, d = nxt, d + 1
    return dist


def _consistent(machine: Machine, sp: Any) -> None:
    for i in range(1, len(sp)):
        p, mv = sp.parent[i], machine.all_moves[sp.move[i]]
        assert machine.is_enabled(sp.state(p), mv)
        assert machine.step(sp.state(p), mv) == sp.state(i)
        assert sp.depth[i] == sp.depth[p] + 1
        assert len(sp.path(i)) == sp.depth[i]
        assert sp.index_of(sp.state(i)) == i


@SETTINGS
@given(specs(max_states=400))
def test_explore_finds_every_state_at_its_distance(spec: Any) -> None:
    machine = Machine(spec)
    dist = brute_force(machine)
    sp = explore(machine)
    assert sp.complete
    assert {sp.state(i): sp.depth[i] for i in range(len(sp))} == dist
    assert list(sp.depth) == sorted(sp.depth)
    _consistent(machine, sp)


@pytest.fixture(scope="module")
def native_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native-cache")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs(max_states=400), st.integers(0, 6))
def test_native_engine_finds_every_state_at_its_distance(native_cache: Path, spec: Any, cap: int) -> None:
    machine = Machine(spec)
    dist = brute_force(machine)
    sp = explore_native(machine, cache=native_cache)
    assert sp.complete
    assert {sp.state(i): sp.depth[i] for i in range(len(sp))} == dist
    _consistent(machine, sp)
    capped = explore_native(machine, max_depth=cap, cache=native_cache)
    assert {capped.state(i) for i in range(len(capped))} == {s for s, d in dist.items() if d <= cap}
    assert capped.complete == (max(dist.values()) <= cap)


@SETTINGS
@given(specs(max_states=400), st.integers(0, 6))
def test_depth_cap_keeps_exactly_the_near_states(spec: Any, cap: int) -> None:
    machine = Machine(spec)
    full = brute_force(machine)
    sp = explore(machine, max_depth=cap)
    assert {sp.state(i) for i in range(len(sp))} == {s for s, d in full.items() if d <= cap}
    assert sp.complete == (max(full.values()) <= cap)


@SETTINGS
@given(specs(max_states=400), st.integers(1, 50), st.integers(1, 20))
def test_state_and_page_caps_are_respected(spec: Any, n: int, per_page: int) -> None:
    machine = Machine(spec)
    full = explore(machine)
    capped = explore(machine, max_states=n)
    assert len(capped) == min(n, len(full))
    assert capped.states == full.states[:n]
    assert capped.complete == (len(full) <= n)
    paged = explore(machine, max_per_page=per_page)
    counts = Counter(s[0] for s in paged.states)
    assert max(counts.values()) <= per_page
    _consistent(machine, paged)
    # incomplete exactly when some page has more reachable states than the cap
    full_counts = Counter(s[0] for s in full.states)
    assert paged.complete == all(n <= per_page for n in full_counts.values())


@SETTINGS
@given(specs(max_states=400), st.integers(0, 3), st.integers(0, 2))
def test_every_goal_gets_a_shortest_trajectory(spec: Any, k: int, slack: int) -> None:
    machine = Machine(spec)
    dist = brute_force(machine)
    sp = explore(machine)
    scanner = Scanner(machine, Options(per_goal=k, slack=slack))
    scanner.scan(sp)
    for hits in scanner.results():
        g = hits.goal
        holds = _goal_test(machine, g)
        holding = [d for s, d in dist.items() if holds(s)]
        if not holding:
            assert hits.first < 0 and g.kind == "task"
            continue
        assert hits.depth == min(holding) == len(sp.path(hits.first))
        assert holds(sp.state(hits.first))
        assert len(hits.others) == min(k, sum(1 for d in holding if d <= hits.depth + slack) - 1)
        for i in hits.others:
            assert holds(sp.state(i)) and sp.depth[i] <= hits.depth + slack
        assert len(set(hits.others) | {hits.first}) == len(hits.others) + 1
    _every_derived_goal_found(machine, scanner, dist)


def _every_derived_goal_found(machine: Machine, scanner: Scanner, dist: dict[State, int]) -> None:
    """Every reachable terminal page has its goal; each family found every key the reachable states have."""
    terminals = {machine.page_of(s) for s in dist} & set(machine.spec.site.terminals)
    found = {h.goal.page for h in scanner.results() if h.goal.kind == "terminal" and h.first >= 0}
    assert found == terminals
    for fam in scanner.families:
        keys = {k for k in map(fam.key, dist) if k is not None}
        assert len(fam.goals) == min(len(keys), MAX_PER_FAMILY)
        assert set(fam.goals) <= keys


def _goal_test(machine: Machine, g: Any) -> Any:
    """The goal as a predicate on states, from its task or its recorded match (independent of the scanner)."""
    if g.kind == "task":
        ti = [t.name for t in machine.spec.tasks].index(g.task)
        return lambda s: machine.holds(ti, g.args, s)

    def matches(s: State) -> bool:
        js = machine.to_json(s)
        page_ok = g.match["page"] is None or g.match["page"] == js["page"]
        return page_ok and all(js["vars"].get(n, object()) == v for n, v in g.match["vars"].items())

    return matches
