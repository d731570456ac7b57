"""Keywords as names: exactly the words the parser would misread where a name is used are refused at the declaration.

Every keyword of the grammar is tried in every place a declared name is used; the words that fail (or
read as something else) there must be the reserved sets of fsmc/frontend/keywords.py, which the
E113 check refuses at the declaration and which docs/language.md lists. A syntax error caused by
such a word says that it is a keyword and points at the declaration.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from fsmc import SpecError, ir, load_text
from fsmc.checks import CheckContext
from fsmc.checks.keyword_names import keyword_names_check
from fsmc.frontend.grammar import keywords, lark_parser
from fsmc.frontend.keywords import ATOM_KEYWORDS, ITEM_KEYWORDS, LVALUE_KEYWORDS, RESERVED, TYPE_KEYWORDS
from fsmc.frontend.parser import parse_lark

ROOT = Path(__file__).resolve().parent.parent
SITE = "site s { entry p }\n"
KEYWORDS = sorted(keywords())

# Every action item an effect can follow: LALR merges the lookaheads of the contexts an item ends in.
BEFORE = ["", "require c", "require (c)", "require c[1]", "require {c}", "require f(c)", "require c.x", "require 1",
          "require 1.5", 'require "s"', "require true", "require -c", "c := c", "c += 1", "c[1] := 2", "toggle c",
          "clear c", "add c to c", "remove c from c", "goto p", "goto p carry c", "goto p carry c, c",
          'gui { click "a" }', "gui { wait 3 }"]
# Places that take nothing but a name: any word is read as the name there.
NAME_ONLY = ["page p {{ action a {{ toggle {k} clear {k} add c to {k} remove c from {k} }} }}",
             "page p {{ action a {{ goto {k} carry {k}, {k} }} }}",
             "page p {{ view v = {k} as r where r.{k} page {k} size 2 }}",
             "page p {{ var x: ref {k} = c\n action a({k}: ref {k}) {{ }} }}",
             "page {k} {{ var {k}: bool = c\n view {k} = t as {k}\n action {k} {{ }} }}",
             'enum {k} {{ "a" }}\ntable {k}(a: str, {k}: ref {k}) key {k} {{ }}',
             'task {k}({k}: bool) on {k} {{ goal c instruction "i" }}']


def _parses(text: str) -> bool:
    try:
        lark_parser().parse(text)
    except UnexpectedInput:
        return False
    return True


def _fails_as_lvalue(word: str) -> bool:
    return any(not _parses(SITE + f"page p {{ action a {{ {before}\n {word} := c }} }}") for before in BEFORE)


def test_effects_on_exactly_the_lvalue_keywords_fail_somewhere() -> None:
    assert {k for k in KEYWORDS if _fails_as_lvalue(k)} == LVALUE_KEYWORDS


def test_the_item_keywords_fail_as_effects_anywhere() -> None:
    assert {k for k in KEYWORDS if not _parses(SITE + f"page p {{ action a {{ {k} := c }} }}")} == ITEM_KEYWORDS


def _read_as_name(word: str) -> bool:
    try:
        spec = parse_lark(SITE + f"page p {{ action a {{ require {word} == c }} }}", "t.fsm", ROOT)
    except SpecError:
        return False
    return spec.pages[0].actions[0].requires[0].left == ir.Name(id=word)


def test_expressions_read_every_keyword_as_a_name_but_the_atom_keywords() -> None:
    assert {k for k in KEYWORDS if not _read_as_name(k)} == ATOM_KEYWORDS


def _read_as_enum(word: str) -> bool:
    try:
        spec = parse_lark(SITE + f"page p {{ var x: {word} = c }}", "t.fsm", ROOT)
    except SpecError:
        return False
    return spec.pages[0].vars[0].type == ir.NamedType(name=word)


def test_types_read_every_keyword_as_an_enum_but_the_type_keywords() -> None:
    assert {k for k in KEYWORDS if not _read_as_enum(k)} == TYPE_KEYWORDS


@pytest.mark.parametrize("template", NAME_ONLY)
def test_any_keyword_is_a_name_where_only_a_name_can_stand(template: str) -> None:
    assert [k for k in KEYWORDS if not _parses(SITE + template.format(k=k))] == []


_E113 = re.compile(r"`(\w+)` is a keyword of the language; it cannot name (.+): rename it")
KINDS = {"enum": "an enum", "variable": "a variable", "view": "a view", "row": "a view's row", "parameter": "a parameter"}


def test_the_check_refuses_exactly_the_reserved_words() -> None:
    for word in KEYWORDS:
        spec = load_text(SITE + f'enum {word} {{ "a" }}\nsession {{ var {word}: bool = false }}\n'
                         f"page p {{ view {word} = t as {word}\n action a({word}: bool) {{ }} }}\n", "t.fsm")
        found = sorted(_E113.fullmatch(d.message).groups() for d in keyword_names_check(CheckContext(spec)))
        assert found == sorted((word, KINDS[kind]) for kind in KINDS if word in RESERVED[kind]), word


def _syntax_error(text: str) -> tuple[str, str, list[str]]:
    with pytest.raises(SpecError) as err:
        load_text(text, "t.fsm")
    d = err.value.diagnostics[0]
    assert d.code == "E001"
    return d.message, d.hint or "", [f"{span.line}:{span.col} {note}" for span, note in d.notes]


def test_a_keyword_variable_assigned_after_an_expression_is_explained_at_its_declaration() -> None:
    text = SITE + "page p {\n  var to: bool = false\n  var c: bool = false\n  action a { require c\n to := c } }"
    message, hint, notes = _syntax_error(text)
    assert message == "unexpected 'to'"
    assert hint == "`to` is a keyword of the language; it cannot name a variable: rename it"
    assert notes == ["3:7 `to` declared here"]


@pytest.mark.parametrize(("text", "hint"), [
    ("page p { action a { goto := c } }", "`goto` is a keyword of the language; it cannot name a variable: rename it"),
    ('enum set { "a" }\npage p { var x: set = "a" }',
     "`set` is a keyword of the language; it cannot name an enum: rename it"),
    ("page p { var not: bool = false\n action a { require not } }",
     "`not` is a keyword of the language; it cannot name a variable: rename it"),
    ("page p { action a { require c where } }", "`where` is a keyword of the language, not a name; expected a name"),
])
def test_syntax_errors_say_when_a_keyword_stands_for_a_name(text: str, hint: str) -> None:
    assert _syntax_error(SITE + text)[1].startswith(hint)


def test_other_syntax_errors_list_what_was_expected() -> None:
    message, hint, notes = _syntax_error(SITE + "page p { action a { x := 1 + } }")
    assert (message, hint, notes) == ("unexpected '}'", "expected a name, a number, a string, '(', '-', '{'", [])


def test_language_doc_lists_the_reserved_words() -> None:
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Reserved words"):]
    section = section[:section.index("\n## ")]
    rows = {line.split("|")[1].strip(): set(re.findall(r"`(\w+)`", line.split("|")[2]))
            for line in section.splitlines() if line.startswith("| a")}
    assert rows == {"a variable (session or page)": set(RESERVED["variable"]),
                    "a parameter, a view, a view's row (`as ROW`)": set(RESERVED["parameter"]),
                    "an enum": set(RESERVED["enum"])}
