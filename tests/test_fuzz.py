"""Fuzz and differential tests of the front end.

The recursive-descent fast path (fsmc/frontend/descent.py) must build exactly lark's IR, spans
included, or give up; `parse()` must turn any text into IR or a SpecError with diagnostics; the
loaders must turn any bytes into IR or a SpecError. Nothing may escape as another exception.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from fsmc import ir
from fsmc.checks import check
from fsmc.diagnostics import SpecError
from fsmc.formats import load, load_text
from fsmc.frontend.builder import IRBuilder
from fsmc.frontend.descent import ATOM_KEYWORDS, LVALUE_KEYWORDS, Bail, parse_fast
from fsmc.frontend.grammar import lark_parser
from fsmc.frontend.parser import parse, parse_lark
from fsmc.printer import expr_to_fsm, to_fsm
from fsmc.testing import specs, synthetic_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "tests" / "fixtures").rglob("*.fsm")) + sorted((ROOT / "specs").glob("*.fsm"))
TEXTS = {path: path.read_text(encoding="utf-8") for path in EXAMPLES}  # read once: Hypothesis replays need the same text
AWW = sorted((ROOT / "tests" / "fixtures" / "autowebworld").glob("*.json"))
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCALE = int(os.environ.get("FSMC_FUZZ_SCALE", "1"))  # e.g. FSMC_FUZZ_SCALE=50 for a long hunt


def fuzz(examples: int) -> settings:
    return settings(FUZZ, max_examples=examples * SCALE)


def _dump(spec: ir.Spec) -> dict[str, Any]:
    """The IR with its spans: `==` on IR nodes ignores them by design, the dump does not."""
    return spec.model_dump()


def fast_or_none(text: str, file: str = "fuzz.fsm", base: Path = ROOT) -> tuple[ir.Spec, IRBuilder] | None:
    """What the fast path builds, with its builder (for the problems it found), or None when it bails."""
    builder = IRBuilder(file, base)
    try:
        return parse_fast(text, builder), builder
    except (Bail, ValueError):  # parse() hands both to lark
        return None


def lark_or_error(text: str, file: str = "fuzz.fsm", base: Path = ROOT) -> ir.Spec | SpecError:
    try:
        return parse_lark(text, file, base)
    except SpecError as err:
        return err


def agree(text: str, file: str = "fuzz.fsm", base: Path = ROOT) -> bool:
    """Assert that the fast path, where it does not bail, gives lark's IR or lark's diagnostics; True if it did not bail."""
    fast = fast_or_none(text, file, base)
    if fast is None:
        return False
    spec, builder = fast
    reference = lark_or_error(text, file, base)
    if isinstance(reference, SpecError):
        if [d.code for d in reference.diagnostics] == ["E004"]:
            return True  # lark's tree transformer recursed too deep on a long `a + b + ...`; parse() refuses it too
        assert builder.problems, f"lark rejects what the fast path accepts: {reference}"
        assert tuple(builder.problems) == reference.diagnostics
    else:
        assert not builder.problems
        assert _dump(spec) == _dump(reference)
    return True


# ---------------------------------------------------------------- (a) valid text: the same IR, spans included


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_path_builds_lark_ir_for_examples(path: Path) -> None:
    assert agree(TEXTS[path], str(path), path.parent), "the fast path bailed on an example"


def test_fast_path_builds_lark_ir_for_synthetic_spec() -> None:
    assert agree(synthetic_spec(200, 2000), "synth.fsm"), "the fast path bailed on the synthetic spec"


@fuzz(60)
@given(specs())
def test_fast_path_builds_lark_ir_for_random_specs(spec: ir.Spec) -> None:
    assert agree(to_fsm(spec)), "the fast path bailed on printed IR"


# Words the printer would print as names, keywords among them: where lark's contextual lexer reads
# a keyword as a name depends on the parser state, which is what the fast path must get right.
KEYWORDS = sorted(t.pattern.value for t in lark_parser().terminals
                  if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_]\w*", t.pattern.value))
NAMES = st.sampled_from(["a", "x_1", "cart", "pages", "len", "Item", *KEYWORDS])
LITERALS = st.one_of(st.integers(-1000, 1000), st.sampled_from([0.5, 2.25, "s", "a b", True, False, None]))


def _extend(children: st.SearchStrategy[ir.Expr]) -> st.SearchStrategy[ir.Expr]:
    ops = st.sampled_from(["and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "contains", "+", "-", "*"])
    return st.one_of(
        st.builds(lambda op, lhs, rhs: ir.Binary(op=op, left=lhs, right=rhs), ops, children, children),
        st.builds(lambda e, op: ir.Unary(op=op, operand=e), children, st.sampled_from(["not", "-"])),
        st.builds(lambda e, f: ir.GetField(obj=e, field=f), children, NAMES),
        st.builds(lambda e, k: ir.Index(obj=e, key=k), children, children),
        st.builds(lambda f, a: ir.Call(func=f, args=tuple(a)), NAMES, st.lists(children, max_size=2)),
        st.lists(children, max_size=2).map(lambda items: ir.SetLit(items=tuple(items))),
    )


EXPRS = st.recursive(st.one_of(LITERALS.map(lambda v: ir.Lit(value=v)), NAMES.map(lambda n: ir.Name(id=n))),
                     _extend, max_leaves=8)
# Every place an expression can stand, `{e}` the expression and `{n}` a name.
CONTEXTS = [
    "page p {{ var {n}: int[0..3] = {e}\n}}",
    "page p {{ action a {{ require {e}\n{n} := {e} }} }}",
    "page p {{ action a {{ {n}[{e}] += {e} {n} -= 1 }} }}",
    "page p {{ action a {{ add {e} to {n} remove {e} from {n} toggle {n} clear {n} }} }}",
    "page p {{ action a {{ require {e} goto {n} carry {n}, {n} gui {{ click \"x\" }} }} }}",
    "page p {{ view v = {n} as {n} where {e} order by {e} desc when {e}, {e} page {n} size 3 }}",
    "page p {{ view v = t as r where {e}\n var {n}: bool = {e} }}",
    "page p {{ view v = t as r order by {e} asc page {n} size 2 action a {{ }} }}",
    "task t(x: ref {n}) on {n} {{ goal {e} instruction \"i\" answer {e} }}",
    # Repeated clauses (E010): both paths report them alike, at the repetition.
    "page p {{ view v = {n} as {n} where {e} where {e} page {n} size 2 order by {e} page {n} size 3 }}",
    "page p {{ action a {{ goto {n} require {e} goto {n} carry {n} goto {n} }} }}",
    "task t {{ goal {e} goal {e} instruction \"i\" answer {e} answer {e} instruction \"j\" }}",
]


@fuzz(300)
@given(st.sampled_from(CONTEXTS), st.lists(EXPRS, min_size=4, max_size=4), st.lists(NAMES, min_size=8, max_size=8))
@example(CONTEXTS[1], [ir.Name(id="x")] * 4, ["page"] * 8)
@example(CONTEXTS[1], [ir.Binary(op="+", left=ir.Name(id="a"), right=ir.Name(id="not"))] * 4, ["a"] * 8)
def test_fast_path_agrees_on_keywords_as_names(context: str, exprs: list[ir.Expr], names: list[str]) -> None:
    es, ns = iter(exprs * 2), iter(names * 2)
    body = re.sub(r"\{e\}|\{n\}", lambda m: expr_to_fsm(next(es)) if m.group() == "{e}" else next(ns),
                  context.format(e="{e}", n="{n}"))
    agree("site s { entry p }\n" + body)


REPEATED = """site s { title "a" entry p title "b" reference "r" entry q terminal p reference "s" terminal q }
page p {
  var c: bool = false
  view v = t as r where c order by r.x where not c page c size 2 page c size 3
  action a { goto p require c goto q carry c gui { click "a" } }
}
task t { goal c instruction "x" goal not c answer c instruction "y" answer r }
"""


def test_fast_path_reports_repeated_clauses_as_lark_does() -> None:
    assert agree(REPEATED), "the fast path bailed on repeated clauses"
    reference = lark_or_error(REPEATED)
    assert isinstance(reference, SpecError)
    assert [d.code for d in reference.diagnostics] == ["E010"] * 10
    assert all(d.notes[0][1] == "first given here" for d in reference.diagnostics)


TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|-?[0-9]+(?:\.[0-9]+)?|:=|\+=|-=|==|!=|<=|>=|\.\.|.', re.S)
# Two tokens that would read as one when glued: words, numbers, strings, two-character operators, a signed number.
GLUES = re.compile(r'[\w."]{2}|==|!=|<=|>=|:=|\+=|-=|\.\.|-\d')
SEPARATORS = st.sampled_from(["", " ", "  ", "\n", "\t", "\r\n", " # note\n", "\n\n  ", "#\n"])


def tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text) if not t.isspace() and not t.startswith("#")]


SMALL = [p for p in EXAMPLES if p.name in ("mini.fsm", "every_construct.fsm", "views.fsm", "pagination.fsm")]


@fuzz(60)
@given(st.sampled_from(SMALL), st.data())
def test_fast_path_agrees_on_any_layout(path: Path, data: st.DataObject) -> None:
    """Spans follow the tokens wherever whitespace and comments put them."""
    toks = tokens(TEXTS[path])
    seps = data.draw(st.lists(SEPARATORS, min_size=len(toks), max_size=len(toks)))
    text = toks[0]
    for prev, sep, tok in zip(toks, seps[1:], toks[1:], strict=False):
        text += (" " if sep == "" and GLUES.fullmatch(prev[-1] + tok[0]) else sep) + tok
    assert agree(text, str(path), path.parent), "the fast path bailed on a valid spec"


# ---------------------------------------------------------------- (b) the keyword sets come from lark's parse table


def _keywords_accepted(state_filter: set[str]) -> set[str]:
    """The keywords lark's contextual lexer reads as keywords in the parser states that accept all of `state_filter`."""
    lark = lark_parser()
    words = {t.name: t.pattern.value for t in lark.terminals
             if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_]\w*", t.pattern.value)}
    states = lark.parser.parser.parser.parse_table.states
    found: set[str] = set()
    for actions in states.values():
        if state_filter <= actions.keys():
            found |= {words[t] for t in actions if t in words}
    return found


def test_atom_keywords_match_the_parse_table() -> None:
    # An expression can start where a NAME and a DECIMAL can: nowhere else is a DECIMAL accepted with a NAME.
    assert _keywords_accepted({"NAME", "DECIMAL"}) == ATOM_KEYWORDS


def test_lvalue_keywords_match_the_parse_table() -> None:
    # An effect's variable can start wherever an action item can, which is wherever `require` can.
    assert _keywords_accepted({"NAME", "REQUIRE"}) == LVALUE_KEYWORDS


# ---------------------------------------------------------------- (c) mutated text: IR or diagnostics, never a crash

VOCABULARY = [*KEYWORDS, "{", "}", "(", ")", "[", "]", ",", ":", ".", "..", "=", ":=", "+=", "-=", "==", "<", ">",
              "?", "-", "+", "*", "#", '"', '"s"', '"{x}"', "0", "-1", "1.5", "99999999999999999999", "x", "p", "\\",
              "\x00", "é", "\u2028", "\ufeff", "\n", "@", "'", "1e5", "0x1"]


def mutate(text: str, data: st.DataObject) -> str:
    """Apply 1-4 random token or character edits."""
    toks = TOKEN.findall(text)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        if not toks:
            toks = [""]
        i = data.draw(st.integers(0, len(toks) - 1))
        kind = data.draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "replace", "char", "truncate"]))
        if kind == "delete":
            del toks[i]
        elif kind == "insert":
            toks.insert(i, data.draw(st.sampled_from(VOCABULARY)))
        elif kind == "duplicate":
            toks.insert(i, toks[i])
        elif kind == "swap" and i + 1 < len(toks):
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        elif kind == "replace":
            toks[i] = data.draw(st.sampled_from(VOCABULARY))
        elif kind == "char" and toks[i]:
            j = data.draw(st.integers(0, len(toks[i]) - 1))
            toks[i] = toks[i][:j] + data.draw(st.characters(codec="utf-8")) + toks[i][j + 1:]
        elif kind == "truncate":
            toks = toks[:i]
    return "".join(toks)


def assert_parses_or_reports(text: str, file: str, base: Path) -> None:
    """`parse()` gives lark's IR or diagnostics; the fast path, where it does not bail, agrees with lark."""
    agree(text, file, base)
    try:
        spec = parse(text, file, base)
    except SpecError as err:
        assert err.diagnostics and all(d.code and d.span.file == file for d in err.diagnostics)
        return
    reference = lark_or_error(text, file, base)
    assert isinstance(reference, ir.Spec) and _dump(spec) == _dump(reference)


@fuzz(300)
@given(st.sampled_from(EXAMPLES), st.data())
def test_mutated_specs_parse_or_report(path: Path, data: st.DataObject) -> None:
    assert_parses_or_reports(mutate(TEXTS[path], data), str(path), path.parent)


@fuzz(100)
@given(st.lists(st.sampled_from([*VOCABULARY, " ", "\n"]), max_size=40).map(lambda s: "site s { entry p }\n" + "".join(s)))
def test_token_soup_parses_or_reports(text: str) -> None:
    assert_parses_or_reports(text, "soup.fsm", ROOT)


# ---------------------------------------------------------------- (d) the loaders: any bytes give IR or diagnostics


def _load_bytes(tmp: Path, name: str, data: bytes) -> None:
    path = tmp / name
    path.write_bytes(data)
    try:
        load(path)
    except SpecError as err:
        assert err.diagnostics and all(d.code for d in err.diagnostics)


@fuzz(150)
@given(st.sampled_from(["x.fsm", "x.json", "fsm.json"]), st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_random_bytes_give_diagnostics(tmp_path_factory: pytest.TempPathFactory, name: str, data: bytes) -> None:
    _load_bytes(tmp_path_factory.mktemp("bytes"), name, data)


@fuzz(100)
@given(st.text(max_size=200))
def test_random_text_gives_diagnostics(text: str) -> None:
    for candidate in (text, "{" + text, '{"site": ' + text, '{"meta": {}, "pages": ' + text):
        try:
            load_text(candidate, "x.json")
        except SpecError as err:
            assert err.diagnostics


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=6)


REPLACEMENTS = JSON | st.builds(list) | st.builds(dict) | st.sampled_from(["{x}", "$.x", "$.missing", "", "NaN"])


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _paths(v, (*prefix, i))
    return out


def mutate_json(data: Any, draw: st.DataObject) -> Any:
    """Replace, delete or retype one value somewhere in the document."""
    paths = _paths(data)
    path = draw.draw(st.sampled_from(paths[1:] or paths))
    if not path:
        return draw.draw(JSON)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if draw.draw(st.booleans()):
        parent[path[-1]] = draw.draw(REPLACEMENTS)
    elif isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent.pop(path[-1])
    return data


def _json_documents() -> list[tuple[str, str]]:
    from fsmc.formats.awm import to_fsm_json
    from fsmc.formats.ir_json import to_ir_json

    mini = load(ROOT / "tests" / "fixtures" / "mini.fsm")
    docs = [("ir.json", to_ir_json(mini, spans=True)), ("ours_fsm.json", json.dumps(to_fsm_json(mini)))]
    return docs + [(p.name, p.read_text(encoding="utf-8")) for p in AWW]


DOCUMENTS = _json_documents()


@fuzz(300)
@given(st.sampled_from(DOCUMENTS), st.data())
def test_mutated_json_loads_or_reports(doc: tuple[str, str], data: st.DataObject) -> None:
    name, text = doc
    mutated = json.loads(text)
    for _ in range(data.draw(st.integers(1, 3))):
        mutated = mutate_json(mutated, data)
    assume(isinstance(mutated, dict))
    try:
        load_text(json.dumps(mutated), name)
    except SpecError as err:
        assert err.diagnostics and all(d.code for d in err.diagnostics)


# ---------------------------------------------------------------- what loads, checks: no check may crash on it


@fuzz(50)
@given(st.sampled_from(EXAMPLES), st.data())
def test_mutated_specs_that_load_check_without_crashing(path: Path, data: st.DataObject) -> None:
    try:
        spec = load_text(mutate(TEXTS[path], data), str(path), path.parent)
    except SpecError:
        return
    check(spec, state_cap=300)


@fuzz(50)
@given(st.sampled_from(DOCUMENTS), st.data())
def test_mutated_json_that_loads_checks_without_crashing(doc: tuple[str, str], data: st.DataObject) -> None:
    name, text = doc
    mutated = mutate_json(json.loads(text), data)
    assume(isinstance(mutated, dict))
    try:
        spec = load_text(json.dumps(mutated), name)
    except SpecError:
        return
    check(spec, state_cap=300)
