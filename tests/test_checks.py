"""The static checks: each runs alone, the example specs are clean, the CLI output parses, and it is fast."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fsmc import ir
from fsmc.checks import CHECKS, CheckContext
from fsmc.diagnostics import SpecError, has_errors
from fsmc.formats import load, load_text

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
CHECK_FIXTURES = ROOT / "tests" / "fixtures" / "checks"


def _fixtures() -> tuple[list[ir.Spec], set[str]]:
    """The IR of every check fixture that loads, and the codes of the front end's (E0xx) fixtures that do not."""
    specs, refused = [], set()
    for path in sorted(CHECK_FIXTURES.glob("*.fsm")):
        try:
            specs.append(load(path))
        except SpecError as err:
            refused |= {d.code for d in err.diagnostics}
    return specs, refused


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_every_check_runs_alone_on_every_fixture(check: object) -> None:
    for spec in [load(MINI), *_fixtures()[0]]:
        found = list(check(CheckContext(spec)))  # type: ignore[operator]
        assert all(d.code[0] in "EW" and d.message for d in found)


def test_each_check_reports_its_fixture() -> None:
    specs, refused = _fixtures()
    codes = refused | {d.code for spec in specs for c in CHECKS for d in c(CheckContext(spec))}
    documented = (ROOT / "docs" / "diagnostics.md").read_text()
    for code in codes:
        assert f"| {code} |" in documented, f"{code} is not documented"


def test_mini_has_no_static_errors() -> None:
    ctx = CheckContext(load(MINI))
    assert not has_errors(d for c in CHECKS for d in c(ctx))


def _fsmc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fsmc", *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_check_mini_exits_zero() -> None:
    assert _fsmc("check", "tests/fixtures/mini.fsm").returncode == 0


def test_json_output_parses() -> None:
    run = _fsmc("check", "--format", "json", "tests/fixtures/checks/typing.fsm")
    assert run.returncode == 1
    found = json.loads(run.stdout)
    assert {"code", "severity", "message", "file", "line", "col", "hint", "notes"} <= set(found[0])


@pytest.mark.parametrize("path", sorted((ROOT / "specs").glob("*.fsm")), ids=lambda p: p.stem)
def test_example_specs_have_no_static_errors(path: Path) -> None:
    ctx = CheckContext(load(path))
    errors = [d for c in CHECKS for d in c(ctx) if d.severity == "error"]
    assert not errors, errors


def test_broken_expressions_never_raise() -> None:
    text = MINI.read_text().replace("brand == none", "nope.x[1].y == {1, \"a\"} + -q and count(1, 2)")
    ctx = CheckContext(load_text(text, "broken.fsm"))
    found = [d for c in CHECKS for d in c(ctx)]
    assert has_errors(found)


def _big_spec(pages: int = 200, per_page: int = 10) -> str:
    out = ['site big { entry p0 }', 'enum Sort { "a", "b", "c" }',
           "table items(id: str, name: str, price: num) key id {",
           *(f'  ("i{i}", "Item {i}", {i}.5)' for i in range(40)), "}",
           "session { var cart: map<ref items, int[1..3]> = {}  var user: bool = false }"]
    for p in range(pages):
        out += [f"page p{p} {{", '  var q: {"x", "y"}? = none  var sort: Sort = "a"  var pg: int[1..5] = 1',
                '  view hits = items as it where q == none or it.name contains q '
                'order by it.price when sort == "b" page pg size 5',
                '  action filt(v: {"x", "y"}) "Filter {v}" { require q != v q := v pg := 1 gui { click "f-{v}" } }',
                '  action add(i: ref items) { require i in hits and len(cart) < 2 cart[i] += 1 gui { click "add-{i}" } }',
                '  action next { require pg < pages(hits) pg += 1 gui { click "next" } }',
                '  action sortit(s: Sort) { require sort != s sort := s pg := 1 gui { select "sort" "{s}" } }']
        out += [f'  action go{a} {{ require not user or cart != {{}} goto p{(p + a) % pages} gui {{ click "go-{a}" }} }}'
                for a in range(4, per_page)]
        out.append("}")
    return "\n".join(out) + "\n"


def test_static_checks_pass_on_200_pages_and_2000_actions() -> None:
    """The benchmark's size of spec (bench/check.py times it) checks clean."""
    spec = load_text(_big_spec(), "big.fsm")
    assert sum(len(p.actions) for p in spec.pages) == 2000
    ctx = CheckContext(spec)
    found = [d for c in CHECKS for d in c(ctx)]
    assert not has_errors(found), found[:3]
