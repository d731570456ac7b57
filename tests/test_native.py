"""The native explorer against the Python reference: same states, same BFS order, paths that replay."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmc import Machine, load_text
from fsmc.engines.native import LoweringError, NativeStateSpace, explore_native
from fsmc.engines.python import StateSpace, explore

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FSMC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "native-cache"))


def assert_same(py: StateSpace, nat: NativeStateSpace) -> None:
    assert len(nat) == len(py)
    assert nat.complete == py.complete
    assert nat.enabled_moves == py.enabled_moves
    for i in range(len(py)):
        assert nat.state(i) == py.state(i), i
        assert (nat.parent[i], nat.move[i], nat.depth[i]) == (py.parent[i], py.move[i], py.depth[i]), i


def assert_paths_replay(machine: Machine, nat: NativeStateSpace, sample: int = 40) -> None:
    rng = random.Random(0)
    for i in rng.sample(range(len(nat)), min(sample, len(nat))):
        s = machine.initial()
        for mv in nat.path(i):
            assert machine.is_enabled(s, mv)
            s = machine.step(s, mv)
        assert s == nat.state(i)
        assert nat.index_of(s) == i


def test_mini_matches_python_state_by_state(mini_machine: Machine) -> None:
    py = explore(mini_machine)
    nat = explore_native(mini_machine)
    assert_same(py, nat)
    assert_paths_replay(mini_machine, nat)
    assert nat.index_of((0, (), (), True)) is not None
    assert nat.index_of((0, (("zz", 1),), (), True)) is None  # a value outside the domain


@pytest.mark.parametrize("max_states,max_depth,per_page", [
    (1000, None, None), (50_000, 4, None), (1, None, None), (10, 0, None),
    (50_000, 22, None),  # exactly the deepest level: complete, though moves are enabled there
    (50_000, 21, None), (50_000, None, 0), (50_000, None, 1), (50_000, None, 40), (300, 6, 90),
])
def test_caps_match_python(mini_machine: Machine, max_states: int, max_depth: int | None,
                           per_page: int | None) -> None:
    py = explore(mini_machine, max_states=max_states, max_depth=max_depth, max_per_page=per_page)
    nat = explore_native(mini_machine, max_states=max_states, max_depth=max_depth, max_per_page=per_page)
    assert_same(py, nat)


def test_depths_and_paths_are_consistent(mini_machine: Machine) -> None:
    nat = explore_native(mini_machine)
    assert list(nat.depth)[:3] == [0, 1, 1]
    assert all(len(nat.path(i)) == nat.depth[i] for i in range(0, len(nat), 97))


def test_progress_is_reported_and_can_stop(mini_machine: Machine) -> None:
    seen: list[int] = []
    explore_native(mini_machine, on_progress=lambda e, d, depth: seen.append(d))
    assert seen and seen[-1] == len(explore(mini_machine))


def test_unsupported_construct_names_itself() -> None:
    text = (ROOT / "tests" / "fixtures" / "mini.fsm").read_text().replace(
        "var member: bool = false", 'var member: bool = false\n  var notes: map<ref items, {"a", "b"}?> = {}')
    with pytest.raises(LoweringError, match="map 'notes' with optional values"):
        explore_native(Machine(load_text(text, "notes.fsm")))


# ---------------------------------------------------------------- random specs

CHOICES = ('"r"', '"g"', '"b"')


def random_spec(seed: int) -> str:
    """A small random site: every variable type, every effect, views, navigation with carry."""
    rng = random.Random(seed)
    pages = ["p0", "p1", "p2"][: rng.randint(2, 3)]
    lines = ["site rnd { entry p0 }", 'enum C { "r", "g", "b" }',
             "table t(id: str, w: int) key id {", '  ("x", 3)', '  ("y", 1)', '  ("z", 2)', "}",
             "session {", "  var s: set<ref t> = {}", "  var m: map<C, int[1..2]> = {}", "  var f: bool = false", "}"]
    for pi, page in enumerate(pages):
        lines += [f"page {page} {{", "  var k: int[0..2] = 0", '  var c: C? = none',
                  "  view v = t as r where r.w > k order by r.w desc when f page k size 2" if pi == 0 else ""]
        lines += [_action(rng, page, j, pages) for j in range(rng.randint(3, 6))]
        lines.append("}")
    return "\n".join(lines)


def _action(rng: random.Random, page: str, j: int, pages: list[str]) -> str:
    reqs = rng.sample(["f", "not f", "k < 2", "k > 0", "c != none", "c == none", "len(s) < 2", "len(m) < 2",
                       "x in s", "x not in s", "sum(m) < 3", "len(v) > 0" if page == "p0" else "k != 1",
                       "first(v) == x" if page == "p0" else "c != \"g\""], rng.randint(0, 2))
    effects = rng.sample(["toggle f", "k += 1", "k -= 1", "k := 2", "c := q", "clear c", "add x to s",
                          "remove x from s", "m[q] += 1", "m[q] -= 1", "remove q from m", "clear s", "clear m"],
                         rng.randint(1, 3))
    nav = ""
    if rng.random() < 0.4:
        target = rng.choice(pages)
        nav = f"goto {target}" + (" carry k, c" if rng.random() < 0.5 else "")
    body = "".join(f"require {r}  " for r in reqs) + "  ".join(effects) + f"  {nav}"
    return f"  action a{j}(x: ref t, q: C) {{ {body} }}"


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_random_specs_match_python(seed: int) -> None:
    machine = Machine(load_text(random_spec(seed), f"rnd{seed}.fsm"))
    py = explore(machine, max_states=20_000)
    nat = explore_native(machine, max_states=20_000)
    assert_same(py, nat)
    assert_paths_replay(machine, nat, 10)
    depth = max(py.depth)
    for cap in (depth, max(0, depth - 1)):
        assert_same(explore(machine, max_depth=cap), explore_native(machine, max_depth=cap))
    assert_same(explore(machine, max_per_page=7), explore_native(machine, max_per_page=7))


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_enumerate", ROOT / "bench" / "enumerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_bench_model_matches_python() -> None:
    bench = load_bench()
    machine = Machine(load_text(bench.shop_spec(4), "bench.fsm"))
    assert_same(explore(machine), explore_native(machine))


@pytest.mark.parametrize("spec", sorted((ROOT / "specs").glob("*.fsm")), ids=lambda p: p.name)
def test_example_specs_match_python(spec: Path) -> None:
    from fsmc import Compilation

    comp = Compilation(spec)
    assert comp.ok, comp.diagnostics
    machine = comp.machine
    py = explore(machine, max_states=400_000)
    nat = explore_native(machine, max_states=400_000)
    assert len(nat) == len(py) and nat.complete == py.complete
    assert_paths_replay(machine, nat, 20)


def test_load_mini_state_words_roundtrip(mini_machine: Machine) -> None:
    nat = explore_native(mini_machine, max_states=500)
    for i in range(len(nat)):
        assert nat.packing.pack(nat.state(i)) == list(nat.words(i))
