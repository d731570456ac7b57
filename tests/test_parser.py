"""The front end: syntax errors become located diagnostics; spans do not take part in equality."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from fsmc import SpecError, load, load_text
from fsmc.checks import check
from fsmc.cli.common import exit_code, print_diagnostics
from fsmc.diagnostics import EXCERPT_WIDTH, Diagnostic, render_text
from fsmc.enumerate import spec_digest
from fsmc.ir import Span
from fsmc.source import Source, read_source, recall


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


def test_deep_nesting_is_reported_where_it_happens() -> None:
    # The fast path builds `1 + 1 + ...` without recursion; the IR is still refused before any pass recurses into it.
    out = first_error("site s { entry p }\npage p { var x: bool = false\n  action a { require x == " + " + ".join(["1"] * 500) + " } }\n")
    assert out.startswith("t.fsm:3:") and "error[E004]: an expression or type is nested more than 100 levels deep" in out


def test_nesting_up_to_the_limit_is_fine() -> None:
    spec = load_text("site s { entry p }\npage p { var x: bool = false\n  action a { require " + "not " * 90 + "x } }", "t.fsm")
    assert spec.pages[0].actions[0].requires[0].op == "not"


def test_non_utf8_points_at_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.fsm"
    path.write_bytes('site s { entry p }\npage p "Café" { }\n'.encode("latin-1"))
    with pytest.raises(SpecError) as err:
        read_source(path)
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.col) == ("E002", 2, 12) and "0xe9" in d.message and "Latin-1" in d.message


@pytest.mark.parametrize(("text", "file"), [("[1, 2]", "t.fsm"), ("site s { entry p }", "t.json")])
def test_json_is_recognised_by_bracket_or_suffix(text: str, file: str) -> None:
    with pytest.raises(SpecError) as err:
        load_text(text, file)
    assert err.value.diagnostics[0].code in ("E001", "E002") and "JSON" in err.value.diagnostics[0].message


def test_long_source_lines_are_cut_around_the_caret() -> None:
    line = "x" * 500 + "BAD" + "y" * 500
    d = Diagnostic("E001", "bad", Span(file="t.fsm", line=1, col=501, end_line=1, end_col=504))
    excerpt = render_text([d], {"t.fsm": line}).splitlines()
    assert excerpt[2].startswith("1 | …x") and excerpt[2].endswith("y…") and "BAD" in excerpt[2]
    assert len(excerpt[2]) <= EXCERPT_WIDTH + 10
    assert excerpt[3].index("^^^") == excerpt[2].index("BAD")


def test_exit_codes_tell_unreadable_from_wrong() -> None:
    span = Span(file="t.fsm", line=1, col=1)
    assert exit_code([]) == 0
    assert exit_code([Diagnostic("W101", "unused", span, severity="warning")]) == 0
    assert exit_code([Diagnostic("E001", "syntax", span)]) == 1
    assert exit_code([Diagnostic("E002", "no such file", span)]) == 2


@pytest.mark.parametrize(("body", "line", "message", "hint"), [
    ("page p { var a: bool = false\n view v = t as r where a\n where not a }", 3,
     "view 'v' has a second `where` clause", "combine the conditions with `and`"),
    ("page p { var n: int[1..2] = 1\n view v = t as r page n size 2\n page n size 3 }", 3,
     "view 'v' has a second `page ... size` clause", "a view is paginated by one variable"),
    ("page p { action a { goto p\n goto q } }\npage q { }", 2, "action 'a' has a second `goto`", "one goto per action"),
])
def test_a_repeated_clause_is_an_error_at_the_repetition(body: str, line: int, message: str, hint: str) -> None:
    with pytest.raises(SpecError) as err:
        load_text("site s { entry p }\n" + body, "t.fsm")
    (d,) = err.value.diagnostics
    assert (d.code, d.message, d.span.line, d.span.col) == ("E010", message, line + 1, 2)
    assert d.hint is not None and d.hint.startswith(hint)
    assert [(span.line, note) for span, note in d.notes] == [(line, "first given here")]


# ---------------------------------------------------------------- a spec is read once


def test_source_positions_round_trip() -> None:
    src = Source("s.fsm", "ab\ncd\r\n\nlast")
    assert src.line_starts == (0, 3, 7, 8)
    assert [src.position(o) for o in (0, 2, 3, 5, 7, 8, 11)] == [(1, 1), (1, 3), (2, 1), (2, 3), (3, 1), (4, 1), (4, 4)]
    assert all(src.offset(*src.position(o)) == o for o in range(len(src.text)))
    assert [src.line(n) for n in range(5)] == ["", "ab", "cd\r", "", "last"]


def test_read_source_keeps_the_bytes_it_read(tmp_path: Path) -> None:
    data = "\ufeffsite s { entry p }\npage p \"Café\" { }\n".encode()
    path = tmp_path / "bom.fsm"
    path.write_bytes(data)
    src = read_source(path)
    assert src.text.startswith("site") and src.bom and src.data == data
    assert src.digest == hashlib.sha256(data).hexdigest()


def test_a_loaded_spec_is_not_read_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Diagnostics, narrowed spans and the digest use the source that was parsed, even once the file is gone."""
    (tmp_path / "rows.json").write_text('[{"id": "a"}]')
    text = 'site s { entry p }\ntable t(id: str) key id = load "rows.json"\npage p {\n  action a { goto nowhere }\n}\n'
    path = tmp_path / "gone.fsm"
    path.write_text(text)
    spec = load(path)
    digest = spec_digest(path, spec)
    path.unlink()
    (tmp_path / "rows.json").unlink()
    assert recall(str(tmp_path / "rows.json")) is not None and spec_digest(path, spec) == digest
    found = [d for d in check(spec) if "nowhere" in d.message]
    assert (found[0].span.line, found[0].span.col) == (4, 19)  # the word, found in the remembered text
    print_diagnostics(found)
    assert "4 |   action a { goto nowhere }" in capsys.readouterr().err
