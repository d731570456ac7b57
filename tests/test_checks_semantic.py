"""The semantic checks (E4xx/W4xx), each run alone on its fixture, plus capped searches and broken machines."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmc import ir
from fsmc.checks import SEMANTIC_CHECKS, Check, CheckContext
from fsmc.checks._requires import contradiction
from fsmc.checks.clamped_effects import clamped_effects_check
from fsmc.checks.constant_vars import constant_vars_check
from fsmc.checks.dead_actions import dead_actions_check
from fsmc.checks.deadlocks import deadlocks_check
from fsmc.checks.exploration import exploration_check
from fsmc.checks.impossible_requires import impossible_requires_check
from fsmc.checks.terminal_exits import terminal_exits_check
from fsmc.checks.unreachable_pages import unreachable_pages_check
from fsmc.checks.unsatisfiable_tasks import unsatisfiable_tasks_check
from fsmc.formats import load, load_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHECKS = FIXTURES / "checks"


def found(c: Check, spec: ir.Spec, cap: int | None = None) -> list[tuple[str, int]]:
    ctx = CheckContext(spec) if cap is None else CheckContext(spec, cap)
    return sorted((d.code, d.span.line) for d in c(ctx))


CASES = [
    (exploration_check, "E400_runtime_error", [("E400", 2)]),
    (unreachable_pages_check, "E401_unreachable_pages", [("E401", 27), ("E401", 31), ("W401", 35)]),
    (impossible_requires_check, "E403_impossible_requires",
     [("E403", 27), ("E403", 31), ("E403", 35), ("E403", 40), ("E403", 44)]),
    (dead_actions_check, "E404_dead_actions", [("E404", 14), ("W405", 20)]),
    (dead_actions_check, "E401_unreachable_pages", [("E404", 19)]),
    (clamped_effects_check, "W406_clamped_effects", [("W406", 18), ("W406", 28), ("W406", 32)]),
    (unsatisfiable_tasks_check, "E407_unsatisfiable_tasks", [("E407", 20), ("W408", 25)]),
    (constant_vars_check, "W409_constant_vars", [("W409", 7), ("W409", 12)]),
    (terminal_exits_check, "W410_terminal_exits", [("W410", 15)]),
    (deadlocks_check, "W411_deadlocks", [("W411", 7)]),
]


@pytest.mark.parametrize(("check", "fixture", "expected"), CASES, ids=[f"{c[1]}-{c[0].__name__}" for c in CASES])
def test_check_alone(check: Check, fixture: str, expected: list[tuple[str, int]]) -> None:
    assert found(check, load(CHECKS / f"{fixture}.fsm")) == expected


@pytest.mark.parametrize("path", sorted(CHECKS.glob("[EW]4*.fsm")), ids=lambda p: p.stem)
def test_fixture_shows_its_code(path: Path) -> None:
    """Each fixture gives the code in its name when all the semantic checks run."""
    ctx = CheckContext(load(path))
    codes = {d.code for c in SEMANTIC_CHECKS for d in c(ctx)}
    assert path.stem.split("_")[0] in codes


def test_mini_is_explored_whole_and_nearly_clean() -> None:
    spec = load(FIXTURES / "mini.fsm")
    ctx = CheckContext(spec)
    diagnostics = [d for c in SEMANTIC_CHECKS for d in c(ctx)]
    assert ctx.state_space is not None and ctx.state_space.complete and len(ctx.state_space) > 20_000
    assert sorted(d.code for d in diagnostics) == ["W406", "W410"]  # cart[i] += 1 clamps; done goes home


CAPPED = """
site capped { entry home terminal far }
page home "Home" {
  var n: int[0..50] = 0
  action up { require n < 50  n += 1  gui { click "up" } }
  action go { require n == 50  goto far  gui { click "go" } }
}
page far "Far" { }
task there on far { goal true  instruction "Go far" }
"""


def test_capped_search_gives_warnings_not_errors() -> None:
    spec = load_text(CAPPED, "capped.fsm")
    codes = sorted(code for c in SEMANTIC_CHECKS for code, _ in found(c, spec, cap=10))
    assert codes == ["W400", "W402", "W404", "W407"]
    assert all(code.startswith("W") for code in codes)
    assert [code for c in SEMANTIC_CHECKS for code, _ in found(c, spec)] == []  # uncapped: all fine


def test_broken_machine_is_one_diagnostic_not_a_traceback() -> None:
    spec = load_text('site b { entry home }\npage home "Home" {\n  action a { ghost := 1  gui { click "a" } }\n}\n')
    codes = [code for c in SEMANTIC_CHECKS for code, _ in found(c, spec)]
    assert codes == ["E400"]


@pytest.mark.parametrize(("requires", "dead"), [
    ("x == 1 or x == 2", False),
    ("x != 1 and x != 2", True),
    ("x > 2", True),
    ("x >= 2 and not (x == 2)", True),
    ("x in {1, 2} and x not in {1}", False),
    ("opt < 3", False),  # none < 3 is not something we can decide statically
    ("1 + 1 == 3", True),
    ("p == 1 and p == 2", True),
    ("p == x", False),
])
def test_contradictions(requires: str, dead: bool) -> None:
    spec = load_text(f"""site s {{ entry home }}
page home "Home" {{
  var x: int[1..2] = 1
  var opt: int[1..3]? = none
  action a(p: int[1..3]) {{ require {requires}  gui {{ click "a-{{p}}" }} }}
}}
""")
    page = spec.pages[0]
    assert (contradiction(spec, page, page.actions[0]) is not None) == dead


# ---------------------------------------------------------------- properties on random specs

from hypothesis import HealthCheck, given, settings  # noqa: E402

from fsmc.testing import specs  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(specs())
def test_semantic_checks_agree_with_exploration(spec: ir.Spec) -> None:
    """Never a traceback; E403 only for actions that exploration never enables; W406 shows a real clamp."""
    ctx = CheckContext(spec)
    diagnostics = [d for c in SEMANTIC_CHECKS for d in c(ctx)]
    space, machine = ctx.state_space, ctx.machine
    assert space is not None and machine is not None
    for page in spec.pages:
        for action in page.actions:
            if contradiction(spec, page, action) is not None:
                moves = [mv for mv in machine.moves(page.name) if mv.action.name == action.name]
                assert not any(mv.index in space.enabled_moves for mv in moves), (page.name, action.name)
    assert "E400" not in {d.code for d in diagnostics}


from hypothesis import strategies as st  # noqa: E402

_ATOM = st.one_of(
    st.builds(lambda op, c: f"x {op} {c}", st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), st.integers(-1, 5)),
    st.builds(lambda op, c: f"{c} {op} x", st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), st.integers(-1, 5)),
    st.builds(lambda neg, cs: f"x {'not in' if neg else 'in'} {{{', '.join(map(str, cs))}}}", st.booleans(),
              st.lists(st.integers(0, 4), min_size=1, max_size=3)),
    st.sampled_from(["b", "not b", "b == true", "b != true", "true", "false", "1 < 2", "2 < 1"]),
)
_CONJUNCT = st.one_of(_ATOM, st.builds(lambda a, b: f"({a} or {b})", _ATOM, _ATOM),
                      st.builds(lambda a: f"not ({a})", _ATOM))


@settings(max_examples=150, deadline=None)
@given(st.lists(_CONJUNCT, min_size=1, max_size=4))
def test_contradiction_is_exact_on_single_variable_requires(requires: list[str]) -> None:
    """On requires over single variables, E403 fires exactly when no reachable state enables the action."""
    text = f"""site s {{ entry home }}
page home "Home" {{
  var x: int[0..3] = 0
  var b: bool = false
  action set(k: int[0..3]) {{ x := k  gui {{ click "set-{{k}}" }} }}
  action flip {{ toggle b  gui {{ click "flip" }} }}
  action probe {{ {' '.join(f'require {r}' for r in requires)}  gui {{ click "probe" }} }}
}}
"""
    spec = load_text(text)
    page = spec.pages[0]
    ctx = CheckContext(spec)
    assert ctx.machine is not None and ctx.state_space is not None
    probe = ctx.machine.find_move("home", "probe")
    claimed = contradiction(spec, page, page.actions[2]) is not None
    mixed = any(" or " in r and "x" in r and "b" in r for r in requires)  # a disjunction over two names: not analysed
    if claimed:
        assert probe.index not in ctx.state_space.enabled_moves
    elif not mixed:
        assert probe.index in ctx.state_space.enabled_moves
