"""Properties of specs: parsed alike by both parsers, printed back, checked, decided exactly (SPIN agreeing), replayable.

`invariant`, `never`, `reachable` and `always ... eventually` (docs/language.md, Properties) are decided by
fsmc/properties/decide.py over the explicit state space; a counterexample is a trajectory record that
`fsmc verify`'s checks accept; SPIN, on the Promela model, must reach the same verdict on every
`always ... eventually`; `fsmc test --site` walks a built site and shrinks a divergence to its shortest walk.
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import load_random_spec
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmc import Compilation, Machine, ir, load, load_text
from fsmc.analysis.conditions import Junction, Leaf, Names, PageTest, condition
from fsmc.checks import CheckContext
from fsmc.checks.properties import properties_check
from fsmc.diagnostics import SpecError
from fsmc.engines import StateSpace
from fsmc.engines.python import explore
from fsmc.enumerate.verify import TrajectoryChecker, VerifyReport
from fsmc.frontend.builder import IRBuilder
from fsmc.frontend.descent import Bail, parse_fast
from fsmc.frontend.parser import parse, parse_lark
from fsmc.printer import expr_to_fsm, to_fsm
from fsmc.properties import run_tests
from fsmc.properties.decide import Verdict, decide
from fsmc.properties.output import counterexample
from fsmc.properties.spin import spin_leads_to
from fsmc.properties.walks import walk_site

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
SPECS = sorted((ROOT / "specs").glob("*.fsm"))

# A counter that can also be flipped: ten states, every kind of verdict.
TOY = """site toy { entry home terminal done }
session { var n: int[0..3] = 0 }
page home {
  var flag: bool = false
  action inc { require n < 3  n += 1  gui { click "inc" } }
  action flip { toggle flag  gui { click "flip" } }
  action go { require n >= 2  goto done  gui { click "go" } }
}
page done { }
"""


def toy(*properties: str) -> Compilation:
    return Compilation(load_text(TOY + "\n".join(properties) + "\n", "toy.fsm"))


def verdicts(c: Compilation) -> list[Verdict]:
    space = c.state_space
    assert isinstance(space, StateSpace) and space.complete
    return decide(c.machine, space, c.ir.properties)


def _dump(spec: ir.Spec) -> dict[str, Any]:
    return spec.model_dump()  # spans included: both parsers must place every node alike


# ---------------------------------------------------------------- the language: both parsers, the printer


TEXTS = [
    "invariant n <= 3",
    "invariant small: n <= 3",
    "never page == home and flag and n == 3",
    "never on: page in {home, done} and not (n > 1)",
    "reachable done",
    "reachable r: page == home and flag",
    "always n == 1 eventually page == done",
    "always named: page != home or flag eventually done\ninvariant x: n >= 0",
    "always eventually: (n == 1) eventually n == 2",
]


@pytest.mark.parametrize("text", TEXTS)
def test_both_parsers_build_the_same_properties(text: str) -> None:
    source = TOY + text + "\n"
    fast = parse_fast(source, IRBuilder("toy.fsm", ROOT))
    assert _dump(fast) == _dump(parse_lark(source, "toy.fsm", ROOT))
    assert fast.properties and all(isinstance(p, ir.Property) for p in fast.properties)


def test_the_ir_of_each_form() -> None:
    spec = parse(TOY + "invariant small: n <= 3\nreachable done\nalways n == 1 eventually done\n", "toy.fsm")
    small, done, leads = spec.properties
    assert (small.kind, small.name, expr_to_fsm(small.cond), small.then) == ("invariant", "small", "n <= 3", None)
    assert (done.kind, done.name, done.cond) == ("reachable", None, ir.Name(id="done"))
    assert leads.then is not None
    assert (leads.kind, expr_to_fsm(leads.cond), expr_to_fsm(leads.then)) == ("leads_to", "n == 1", "done")
    assert small.span.line == TOY.count("\n") + 1 and small.span.col == 1


@pytest.mark.parametrize("text", ["invariant true: n > 1", "never x: y: n", "always a eventually", "reachable",
                                  "invariant n > 1 never", "always a b eventually c"])
def test_malformed_properties_are_located_syntax_errors(text: str) -> None:
    with pytest.raises(SpecError) as err:
        parse(TOY + text + "\n", "toy.fsm")
    d = err.value.diagnostics[0]
    assert d.code == "E001" and d.span.line >= TOY.count("\n") + 1


NAMES = st.sampled_from(["n", "flag", "page", "home", "done", "on", "always", "eventually", "x_1"])
LEAVES = st.one_of(NAMES.map(lambda n: ir.Name(id=n)), st.integers(-3, 3).map(lambda v: ir.Lit(value=v)),
                   st.booleans().map(lambda v: ir.Lit(value=v)))
EXPRS = st.recursive(LEAVES, lambda kids: st.one_of(
    st.builds(lambda op, a, b: ir.Binary(op=op, left=a, right=b),
              st.sampled_from(["and", "or", "==", "!=", "<", "in", "not in", "+"]), kids, kids),
    st.builds(lambda e: ir.Unary(op="not", operand=e), kids),
    st.lists(kids, max_size=2).map(lambda items: ir.SetLit(items=tuple(items)))), max_leaves=6)
PROPERTIES = st.builds(
    lambda kind, name, cond, then: ir.Property(kind=kind, name=name, cond=cond, then=then if kind == "leads_to" else None),
    st.sampled_from(["invariant", "never", "reachable", "leads_to"]),
    st.one_of(st.none(), st.sampled_from(["p", "on", "page", "always", "eventually", "small"])), EXPRS, EXPRS)


@settings(max_examples=150, deadline=None)
@given(st.lists(PROPERTIES, min_size=1, max_size=3))
def test_printed_properties_parse_back_alike_with_both_parsers(props: list[ir.Property]) -> None:
    spec = parse(TOY, "toy.fsm").model_copy(update={"properties": tuple(props)})
    text = to_fsm(spec)
    reference = parse_lark(text, "toy.fsm", ROOT)
    assert reference == spec
    with contextlib.suppress(Bail):  # the fast path gives way to lark where it is unsure, as parse() does
        assert _dump(parse_fast(text, IRBuilder("toy.fsm", ROOT))) == _dump(reference)


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_example_specs_state_properties_that_print_back(path: Path) -> None:
    spec = load(path)
    assert len(spec.properties) >= 3
    assert load_text(to_fsm(spec), str(path)) == spec


# ---------------------------------------------------------------- the checks


def codes(*properties: str) -> list[str]:
    spec = load_text(TOY + "\n".join(properties) + "\n", "toy.fsm")
    return [d.code for d in properties_check(CheckContext(spec))]


@pytest.mark.parametrize(("text", "expected"), [
    ("invariant n + 1", ["E501"]),
    ("reachable flag", ["E502"]),  # a page's variable without its page test
    ("reachable page == home and flag", []),
    ("invariant page != home or flag", []),
    ("never page == nowhere", ["E503"]),
    ("invariant len(page) > 0", ["E502"]),
    ("invariant true", ["E504"]),
    ("never n > 1 and false", ["E504"]),
    ("always false eventually done", ["E504"]),
    ("always done eventually 1 == 1", ["E504"]),
    ("always done eventually n > 1 and n < 0 and false", ["E504"]),
    ("always true eventually done", []),
    ("invariant a: n >= 0\nnever a: n > 5", ["E505"]),
    ("always n == 1 eventually n == 2 or page == done", []),
])
def test_the_properties_check(text: str, expected: list[str]) -> None:
    assert codes(text) == expected


def test_page_tests_scope_the_rest_of_their_conjunction() -> None:
    spec = load_text(TOY, "toy.fsm")
    names = Names.of(spec)
    cond = condition(parse(TOY + "never n > 1 and page == home and flag\n", "t.fsm").properties[0].cond, names)
    assert isinstance(cond, Junction) and isinstance(cond.parts[0], PageTest)  # the scoping test comes first
    assert [p.page for p in cond.parts[1:] if isinstance(p, Leaf)] == ["home", "home"]
    bare = condition(ir.Name(id="done"), names)
    assert bare == PageTest(("done",), False, ir.Name(id="done"))


# ---------------------------------------------------------------- deciding


def test_a_violated_invariant_gives_a_shortest_counterexample_that_verify_accepts() -> None:
    c = toy("invariant n < 2", "never page == home and flag and n == 3")
    invariant, never = verdicts(c)
    assert invariant.holds is False and [m.action.name for m in invariant.moves] == ["inc", "inc"]
    assert never.holds is False and len(never.moves) == 4
    space = c.state_space
    assert isinstance(space, StateSpace)
    first = min(space.depth[i] for i, s in enumerate(space.states) if s[1] >= 2)
    assert len(invariant.moves) == first  # no shorter path breaks it
    assert_verified(c.machine, [counterexample(c.machine, v.prop, i, v.moves, v.loop) for i, v in
                                enumerate([invariant, never])])


def assert_verified(machine: Machine, records: list[dict[str, Any]]) -> None:
    """The records pass `fsmc verify`'s checks of a trajectory line: moves, states, GUI operations, goal."""
    report = VerifyReport()
    checker = TrajectoryChecker(machine, report)
    for n, rec in enumerate(records, 1):
        checker.check(n, json.loads(json.dumps(rec)))
    assert report.mismatches == []


@pytest.mark.parametrize(("text", "holds"), [
    ("invariant small: n <= 3", True),
    ("never page == done and n < 2", True),
    ("never page == done and n == 3", False),
    ("reachable done", True),
    ("reachable page == home and flag and n == 3", True),
    ("reachable page == done and n == 1", False),
    ("always done eventually n >= 2", True),
    ("always n == 3 eventually page == done", False),  # one can flip for ever instead of going
    ("always page == home and n == 3 eventually page == done or (page == home and flag)", True),  # no way round
])
def test_verdicts(text: str, holds: bool) -> None:
    (verdict,) = verdicts(toy(text))
    assert verdict.holds is holds


def test_a_leads_to_counterexample_is_a_lasso_or_a_dead_end() -> None:
    c = toy("always n == 1 eventually page == done", "always page == home eventually n == 3")
    loop, dead = verdicts(c)
    assert [m.action.name for m in loop.moves] == ["inc", "flip", "flip"] and loop.loop == 1
    assert loop.holds is False
    assert [m.action.name for m in dead.moves] == ["flip", "flip"] and dead.loop == 0  # round from the start
    dead_end = toy("always n >= 2 eventually page == home")
    (v,) = verdicts(dead_end)
    assert v.holds is False and v.loop is None and v.moves[-1].action.name == "go"  # stuck on done, which has no move
    records = [counterexample(c.machine, p.prop, i, p.moves, p.loop) for i, p in enumerate([loop, dead])]
    assert_verified(c.machine, records)
    assert records[0]["loop"] == 1 and records[0]["label"] == "alternative"


def test_a_capped_space_decides_only_what_it_can() -> None:
    c = toy("invariant n < 2", "invariant n <= 3", "reachable n == 1", "always n == 1 eventually done")
    space = c.explore("python", max_states=3, max_depth=None)
    assert isinstance(space, StateSpace) and not space.complete
    assert [v.holds for v in decide(c.machine, space, c.ir.properties)] == [None, None, True, None]


# ---------------------------------------------------------------- SPIN agrees


LEADS_TO_MINI = [
    "always page == list and len(hits) == 2 eventually page == done",
    "always len(cart) > 0 eventually page == done",
    "always page == done eventually len(cart) > 0",
    "always page == list and sort == \"price_asc\" and first(hits) == \"a1\" eventually member",
    "always member and page == home eventually page in {list, done}",
    "always page == done eventually page == home",
]



RANDOM_CONDITIONS = ["f", "not f", "len(s) == 2", "sum(m) > 2", "page == p0 and k == 2", "page == p1",
                     "page == p0 and len(v) > 0", "page != p0 or c == none", "x in s"]


def _random_leads_to(seed: int) -> str:
    rng = random.Random(seed)
    text = load_random_spec()(seed)
    conditions = [c.replace("x in s", '"x" in s') for c in RANDOM_CONDITIONS if "p1" not in c or "page p1" in text]
    return text + "\n" + "\n".join(f"always {rng.choice(conditions)} eventually {rng.choice(conditions)}"
                                   for _ in range(4)) + "\n"


def _agree(spec: ir.Spec) -> list[bool]:
    """fsmc's verdict on each `always ... eventually`, after asserting that SPIN's is the same."""
    machine = Machine(spec)
    space = explore(machine, max_states=100_000)
    assert space.complete
    found = []
    for v in decide(machine, space, spec.properties):
        assert spin_leads_to(machine, v.prop, len(space)) is v.holds, v.prop
        found.append(bool(v.holds))
    return found


def test_spin_agrees_on_the_toy_and_mini() -> None:
    toy_found = _agree(toy("always n == 1 eventually page == done", "always done eventually n >= 2",
                           "always n >= 2 eventually page == home", "always page == home and n == 3 eventually done").ir)
    mini_found = _agree(load_text(MINI.read_text() + "\n" + "\n".join(LEADS_TO_MINI) + "\n", str(MINI)))
    assert True in toy_found + mini_found and False in toy_found + mini_found


@pytest.mark.parametrize("seed", [7, 99, 1014, 12345])
def test_spin_agrees_on_random_specs(seed: int) -> None:
    assert _agree(load_text(_random_leads_to(seed), f"rnd{seed}.fsm"))


def test_spin_agrees_on_flights() -> None:
    text = (ROOT / "specs" / "flights.fsm").read_text() + (
        "\nalways page == payment and card != none eventually confirmation"
        "\nalways page == confirmation eventually page == confirmation and len(party) > 0\n")
    spec = load_text(text, str(ROOT / "specs" / "flights-leads.fsm"))
    assert not Compilation(spec).static_diagnostics
    assert _agree(spec.model_copy(update={"properties": spec.properties[-2:]})) == [False, True]


# ---------------------------------------------------------------- fsmc test


def fsmc(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fsmc", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_fsmc_test_reports_each_property_and_writes_replayable_counterexamples(tmp_path: Path) -> None:
    spec = tmp_path / "toy.fsm"
    spec.write_text(TOY + "invariant small: n <= 3\nnever page == home and flag and n == 3\nreachable done\n"
                          "always stuck: n == 1 eventually done\n")
    done = fsmc("test", str(spec), "-o", str(tmp_path / "out"))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1:5] == [
        "  invariant 'small': ok",
        "  `never page == home and flag and n == 3`: violated (a counterexample of 4 moves)",
        "  `reachable done`: ok (first reached in 3 moves)",
        "  always 'stuck': violated (a counterexample of 3 moves, the last 2 round a loop; SPIN agrees)",
    ]
    records = [json.loads(x) for x in (tmp_path / "out" / "trajectories.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["property/never_2", "property/stuck"]
    assert_verified(Machine(load(spec)), records)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"] == {"trajectories": 2} and manifest["spec"]["site"] == "toy"
    first = (tmp_path / "out" / "trajectories.jsonl").read_bytes()
    assert fsmc("test", str(spec), "-o", str(tmp_path / "out")).returncode == 1
    assert (tmp_path / "out" / "trajectories.jsonl").read_bytes() == first  # the same bytes again


def test_fsmc_test_exits_0_when_every_property_holds_and_refuses_bad_ones(tmp_path: Path) -> None:
    good = tmp_path / "good.fsm"
    good.write_text(TOY + "invariant n <= 3\nalways done eventually n >= 2\n")
    done = fsmc("test", str(good), "--no-spin")
    assert done.returncode == 0 and done.stdout.count(": ok") == 2, done.stdout + done.stderr
    bad = tmp_path / "bad.fsm"
    bad.write_text(TOY + "invariant n + 1\n")
    done = fsmc("test", str(bad), "-o", str(tmp_path / "never"))
    assert done.returncode == 1 and "bad.fsm:10:11: error[E501]" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "never").exists()  # no half-written output


def test_the_doc_example_holds_and_its_counterexample_is_as_the_doc_says() -> None:
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    text = doc[doc.index("```fsm spec\n# A newsletter") + len("```fsm spec\n"):]
    text = text[:text.index("```")]
    c = Compilation(load_text(text, str(ROOT / "specs" / "newsletter.fsm")))
    assert all(v.holds for v in verdicts(c))
    c = Compilation(load_text(text + "always agreed_means_done: page == form and agreed eventually thanks\n",
                              str(ROOT / "specs" / "newsletter.fsm")))
    report = run_tests(c)
    assert report.results[-1].line() == ("always 'agreed_means_done': violated (a counterexample of 3 moves, the last 2 "
                                         "round a loop; SPIN agrees)")
    assert [m["action"] for m in report.records[0]["moves"]] == ["agree", "pick", "drop"]
    counter = doc[doc.index("```fsm spec\nsite counter") + len("```fsm spec\n"):]
    counter = counter[:counter.index("```")] + "always presses_end: page == home eventually done\n"
    assert [v.holds for v in verdicts(Compilation(load_text(counter, "counter.fsm")))] == [True]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_the_example_specs_properties_hold(path: Path) -> None:
    report = run_tests(Compilation(path))
    assert report.ok, "\n".join(r.line() for r in report.results)


# ---------------------------------------------------------------- --site: random walks on the built site


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Path:  # named as the browser fixtures are: browser layer
    from fsmc.codegen import build_site

    return build_site(load(MINI), tmp_path_factory.mktemp("sites")).dist


def test_walks_agree_with_the_spec_the_site_was_built_from(sites: Path) -> None:
    report = walk_site(Machine(load(MINI)), sites, walks=8, seed=1, max_steps=8)
    assert report.divergence is None and not report.flaky


def test_a_divergence_is_shrunk_to_a_shortest_walk_and_written(sites: Path, tmp_path: Path) -> None:
    spec = tmp_path / "mini.fsm"  # the site adds one of an item, this spec two
    spec.write_text(MINI.read_text().replace("cart[i] += 1", "cart[i] += 2"))
    done = fsmc("test", str(spec), "--site", str(sites), "--walks", "20", "--seed", "3", "-o", str(tmp_path / "out"))
    assert done.returncode == 1, done.stderr
    assert "diverges after 2 moves: the site shows another state: cart" in done.stdout
    (rec,) = [json.loads(x) for x in (tmp_path / "out" / "trajectories.jsonl").read_text().splitlines()]
    assert rec["id"] == "site" and [m["action"] for m in rec["moves"]] == ["browse", "add"]
    assert_verified(Machine(load(spec)), [rec])
