"""One Compilation explores the states once: the checks, `.state_space`, `.machine` and `fsmc enumerate` share them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fsmc.checks.context
import fsmc.compilation
from fsmc import Compilation, load
from fsmc.checks import CheckContext, check
from fsmc.cli import main
from fsmc.compilation import reusable_space
from fsmc.engines.python import explore
from fsmc.enumerate import Options, enumerate_spec

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
OUTPUTS = ("bfs.json", "trajectories.jsonl", "tasks.jsonl")


def caps(opts: Options) -> tuple[Any, ...]:
    """The arguments of reusable_space that an enumeration's options give."""
    return opts.engine, opts.max_states, opts.max_depth, opts.per_page_cap


@pytest.fixture
def explorations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the explorations the checks start (one entry per call)."""
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return explore(*args, **kwargs)

    monkeypatch.setattr(fsmc.checks.context, "explore", counted)
    return calls


def test_diagnostics_and_state_space_share_one_exploration(explorations: list[int]) -> None:
    c = Compilation(MINI)
    assert c.ok
    space = c.state_space
    assert space is not None and space is c.context.state_space
    assert c.machine is c.context.machine and c.graph is c.context.page_graph
    assert explorations == [1]


def test_check_uses_the_context_it_is_given(explorations: list[int]) -> None:
    spec = load(MINI)
    ctx = CheckContext(spec)
    assert check(spec, context=ctx) == check(spec)  # the same diagnostics as a fresh context
    assert ctx.state_space is not None and explorations == [1, 1]
    with pytest.raises(ValueError):
        check(load(MINI), context=ctx)  # another spec
    with pytest.raises(ValueError):
        check(spec, 10, context=ctx)  # the context has its own cap


def test_the_checks_space_is_reused_only_when_the_caps_would_explore_the_same() -> None:
    c = Compilation(MINI)
    space, machine = c.state_space, c.machine
    assert space is not None and space.complete
    deepest = max(space.depth)
    assert reusable_space(space, machine, *caps(Options())) is space
    assert reusable_space(space, machine, *caps(Options(max_depth=deepest))) is space
    assert reusable_space(space, machine, *caps(Options(max_depth=deepest - 1))) is None
    assert reusable_space(space, machine, *caps(Options(max_states=len(space)))) is space
    assert reusable_space(space, machine, *caps(Options(max_states=len(space) - 1))) is None
    assert reusable_space(space, machine, *caps(Options(per_page_cap=len(space)))) is space
    assert reusable_space(space, machine, *caps(Options(per_page_cap=10))) is None
    assert reusable_space(space, machine, *caps(Options(engine="native"))) is None
    assert reusable_space(space, Compilation(MINI).machine, *caps(Options())) is None  # another machine's moves
    assert reusable_space(None, machine, *caps(Options())) is None


def test_a_reused_space_is_the_one_the_caps_explore() -> None:
    c = Compilation(MINI)
    space = c.state_space
    assert space is not None
    again = explore(c.machine, max_states=2_000_000, max_depth=max(space.depth))
    assert (again.states, again.parent, again.move, again.depth, again.complete) == \
        (space.states, space.parent, space.move, space.depth, space.complete)


@pytest.mark.parametrize(("args", "reused"), [([], True), (["--max-depth", "3"], False)])
def test_enumerate_explores_once_and_writes_the_same_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], reused: bool) -> None:
    reference = tmp_path / "reference"
    opts = Options(seed=5, negatives=True, max_depth=int(args[1]) if args else 25)
    enumerate_spec(MINI, reference, opts)
    explored: list[int] = []
    real = fsmc.compilation.explore

    def counted(*a: Any, **kw: Any) -> Any:
        explored.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(fsmc.compilation, "explore", counted)
    out = tmp_path / "cli"
    assert main(["enumerate", str(MINI), "-o", str(out), "--seed", "5", "--negatives", *args]) == 0
    assert explored == ([] if reused else [1])
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
