"""The front end: syntax errors become located diagnostics; spans do not take part in equality."""

from __future__ import annotations

import pytest

from fsmc import SpecError, load_text
from fsmc.diagnostics import render_text


def first_error(text: str) -> str:
    with pytest.raises(SpecError) as err:
        load_text(text, "t.fsm")
    return render_text(err.value.diagnostics, {"t.fsm": text})


def test_syntax_error_points_at_the_token() -> None:
    out = first_error('site s { entry home }\npage home {\n  var x: int[0..3] = \n}\n')
    assert out.splitlines()[0] == "t.fsm:4:1: error[E001]: unexpected '}'"
    assert "4 | }" in out and "^" in out


def test_unclosed_block_reports_end_of_file() -> None:
    out = first_error("site s { entry home }\npage home {\n")
    assert "error[E001]: unexpected end of file" in out


def test_missing_site_block() -> None:
    out = first_error("page home { }")
    assert "error[E007]: the spec has no `site { ... }` block" in out


def test_spans_do_not_affect_equality() -> None:
    a = load_text("site s { entry home }\npage home { var x: bool = false }", "a.fsm")
    b = load_text("site s {\n  entry home\n}\n\n\npage home {\n  var x: bool = false\n}", "b.fsm")
    assert a == b
    assert a.pages[0].vars[0].span.line != b.pages[0].vars[0].span.line


def test_enum_names_resolve_to_choices() -> None:
    spec = load_text('site s { entry home }\nenum E { "a", "b" }\npage home { var x: E = "a" }', "e.fsm")
    t = spec.pages[0].vars[0].type
    assert t.kind == "choice" and t.values == ("a", "b") and t.name == "E"
