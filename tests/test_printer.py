"""The printer: parse(to_fsm(spec)) == spec, canonical text, minimal parentheses, escaped strings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmc import SpecError, ir, load
from fsmc.frontend.parser import parse
from fsmc.printer import PrintError, expr_to_fsm, quote, to_fsm, type_to_fsm

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
ALL_SPECS = sorted(FIXTURES.rglob("*.fsm")) + sorted((ROOT / "specs").glob("*.fsm"))
# Fixtures that deliberately do not parse (a syntax, table-file or repeated-clause error), relative to the root;
# every other spec must round-trip.
BROKEN: frozenset[str] = frozenset({"tests/fixtures/checks/E010_repeated_clauses.fsm"})
SPECS = [p for p in ALL_SPECS if p.relative_to(ROOT).as_posix() not in BROKEN]


def _parse_file(path: Path) -> ir.Spec:
    return parse(path.read_text(encoding="utf-8"), str(path), path.parent)


def test_broken_fixtures_exist_and_do_not_parse() -> None:
    """Keeps BROKEN honest: each entry names a real fixture that still fails to parse."""
    for rel in BROKEN:
        with pytest.raises(SpecError):
            _parse_file(ROOT / rel)


def _require(text: str) -> ir.Expr:
    spec = parse(f"site s {{ entry p }}\npage p {{ action a {{ require {text} }} }}", "e.fsm")
    return spec.pages[0].actions[0].requires[0]


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_round_trip_of_parsed_spec(path: Path) -> None:
    spec = _parse_file(path)
    text = to_fsm(spec)
    assert parse(text, "printed.fsm", path.parent) == spec
    assert to_fsm(parse(text, "printed.fsm", path.parent)) == text  # canonical: printing is idempotent


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_round_trip_of_resolved_spec(path: Path) -> None:
    source = _parse_file(path)
    spec = load(path)
    assert parse(to_fsm(spec), "printed.fsm", path.parent) == source  # enum types print as their names again


def test_layout_is_canonical() -> None:
    spec = parse('site s { entry home terminal a,b }\nenum E{"x","y"}\npage home "H" { var v: E = "x" '
                 'action go(n: int[0..2]) "Go" { require n>0 v:=  "y" goto a gui { click "g-{n}" } } }\n'
                 "page a { } page b { }", "c.fsm")
    assert to_fsm(spec) == (
        'site s {\n  entry home\n  terminal a, b\n}\n\nenum E { "x", "y" }\n\n'
        'page home "H" {\n  var v: E = "x"\n\n  action go(n: int[0..2]) "Go" {\n    require n > 0\n'
        '    v := "y"\n    goto a\n    gui { click "g-{n}" }\n  }\n}\n\npage a { }\n\npage b { }\n'
    )


def test_table_with_a_source_prints_load(tmp_path: Path) -> None:
    (tmp_path / "rows.json").write_text('[{"id": "a", "n": 1}]')
    text = 'site s { entry p }\ntable t(id: str, n: int) key id = load "rows.json"\npage p { }'
    spec = parse(text, str(tmp_path / "s.fsm"), tmp_path)
    assert 'table t(id: str, n: int) key id = load "rows.json"' in to_fsm(spec)
    assert parse(to_fsm(spec), "x.fsm", tmp_path) == spec


@pytest.mark.parametrize(("source", "printed"), [
    ("(a and b) or c", "a and b or c"),
    ("a and (b or c)", "a and (b or c)"),
    ("not (a == b)", "not a == b"),
    ("(not a) == b", "(not a) == b"),
    ("a - (b - c)", "a - (b - c)"),
    ("(a - b) - c", "a - b - c"),
    ("(a + b) * c", "(a + b) * c"),
    ("-(a + b)", "-(a + b)"),
    ("- 3", "-3"),
    ("a - -3", "a - -3"),
    ("(a == b) == c", "(a == b) == c"),
    ("x not in s", "x not in s"),
    ("not x in s", "not x in s"),
    ("(first(v)).size", "first(v).size"),
    ("m[(k)]", "m[k]"),
    ("{ }", "{}"),
    ("{1,2}", "{1, 2}"),
    ("1.50", "1.5"),
    ("0.0000001", "0.0000001"),
])
def test_minimal_parentheses(source: str, printed: str) -> None:
    assert expr_to_fsm(_require(source)) == printed


def test_strings_are_escaped() -> None:
    assert quote('a "b" \\ c\nd\te') == '"a \\"b\\" \\\\ c\\nd\\te"'
    assert _require(quote('a "b" \\ c\nd\te')) == ir.Lit(value='a "b" \\ c\nd\te')


def test_unprintable_values_raise_print_error() -> None:
    with pytest.raises(PrintError):
        expr_to_fsm(ir.Lit(value=float("inf")))
    with pytest.raises(PrintError):
        type_to_fsm(ir.OptionalType(inner=ir.OptionalType(inner=ir.BoolType())))


# ---------------------------------------------------------------- property tests

NAMES = st.sampled_from(["a", "b", "cart", "x_1", "page_no", "Item"])
LITERALS = st.one_of(
    st.integers(-10**12, 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
).map(lambda v: ir.Lit(value=v))
BINOPS = st.sampled_from(["and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "contains", "+", "-", "*"])


def _negatable(e: ir.Expr) -> bool:
    """The parser folds `-` into a numeric literal, so it never builds Unary('-') over one."""
    return not (isinstance(e, ir.Lit) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool))


def _extend(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
    return st.one_of(
        st.builds(lambda op, lhs, rhs: ir.Binary(op=op, left=lhs, right=rhs), BINOPS, children, children),
        st.builds(lambda e: ir.Unary(op="not", operand=e), children),
        children.filter(_negatable).map(lambda e: ir.Unary(op="-", operand=e)),
        st.builds(lambda e, f: ir.GetField(obj=e, field=f), children, NAMES),
        st.builds(lambda e, k: ir.Index(obj=e, key=k), children, children),
        st.builds(lambda f, a: ir.Call(func=f, args=tuple(a)), NAMES, st.lists(children, max_size=3)),
        st.lists(children, max_size=3).map(lambda items: ir.SetLit(items=tuple(items))),
    )


EXPRS = st.recursive(st.one_of(LITERALS, NAMES.map(lambda n: ir.Name(id=n))), _extend, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(EXPRS)
def test_any_expression_round_trips(e: ir.Expr) -> None:
    assert _require(expr_to_fsm(e)) == e


BASE_TYPES = st.one_of(
    st.just(ir.BoolType()),
    st.tuples(st.integers(-50, 50), st.integers(0, 50)).map(lambda t: ir.IntType(lo=t[0], hi=t[0] + t[1])),
    st.lists(st.text(max_size=5), min_size=1, max_size=4).map(lambda v: ir.ChoiceType(values=tuple(v))),
    NAMES.map(lambda n: ir.RefType(table=n)),
    NAMES.map(lambda n: ir.NamedType(name=n)),
)


def _extend_types(children: st.SearchStrategy[ir.Type]) -> st.SearchStrategy[ir.Type]:
    non_optional = children.filter(lambda t: not isinstance(t, ir.OptionalType))
    return st.one_of(
        children.map(lambda t: ir.SetType(elem=t)),
        st.builds(lambda k, v: ir.MapType(key=k, value=v), children, children),
        non_optional.map(lambda t: ir.OptionalType(inner=t)),
    )


@settings(max_examples=200, deadline=None)
@given(st.recursive(BASE_TYPES, _extend_types, max_leaves=5))
def test_any_type_round_trips(t: ir.Type) -> None:
    spec = parse(f"site s {{ entry p }}\npage p {{ var v: {type_to_fsm(t)} = none }}", "t.fsm")
    assert spec.pages[0].vars[0].type == t
