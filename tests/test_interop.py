"""Interop: IR JSON and AutoWebWorld fsm.json round trips, the foreign importer, `fsmc convert`."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from fsmc import SpecError, ir, load, load_text
from fsmc.checks import check
from fsmc.cli import main
from fsmc.diagnostics import has_errors
from fsmc.formats import WRITERS, from_fsm_json, from_ir_json, to_fsm_json, to_ir_json
from fsmc.frontend.parser import parse
from fsmc.printer import expr_to_fsm, to_fsm

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
AWW = FIXTURES / "autowebworld"
SPECS = [FIXTURES / "mini.fsm", FIXTURES / "printer" / "every_construct.fsm", *sorted((ROOT / "specs").glob("*.fsm"))]
spec_ids = [p.name for p in SPECS]


def _through_json(data: Any) -> Any:
    return json.loads(json.dumps(data))


# ---------------------------------------------------------------- IR JSON


@pytest.mark.parametrize("path", SPECS, ids=spec_ids)
def test_ir_json_round_trip(path: Path) -> None:
    spec = load(path)
    text = to_ir_json(spec)
    assert from_ir_json(text) == spec
    assert load_text(text, "ir.json") == spec
    assert to_ir_json(from_ir_json(text)) == text  # deterministic, stable bytes


def test_ir_json_drops_spans_unless_asked() -> None:
    spec = load(FIXTURES / "mini.fsm")
    assert '"span"' not in to_ir_json(spec)
    kept = from_ir_json(to_ir_json(spec, spans=True))
    assert kept.pages[1].actions[0].span == spec.pages[1].actions[0].span
    assert kept.pages[1].actions[0].span.line > 0


def test_ir_json_that_is_not_ir_is_reported() -> None:
    with pytest.raises(SpecError) as err:
        from_ir_json('{"site": {"name": "s"}}', "bad.json")
    assert err.value.diagnostics[0].code == "E005"
    assert err.value.diagnostics[0].message.startswith("not a valid fsmc IR: site.entry")


def test_each_reader_reads_its_format_and_load_picks_by_content(tmp_path: Path) -> None:
    spec = load(FIXTURES / "mini.fsm")
    with pytest.raises(SpecError) as err:
        from_ir_json(WRITERS["fsm-json"](spec), "awm.json")  # an fsm.json is no IR
    assert err.value.diagnostics[0].code == "E002"
    for fmt in ("ir", "fsm-json", "fsm"):
        path = tmp_path / f"spec.{fmt}"  # no .json suffix: the content decides
        path.write_text(WRITERS[fmt](spec))
        assert load(path) == spec


# ---------------------------------------------------------------- fsm.json written by fsmc


@pytest.mark.parametrize("path", SPECS, ids=spec_ids)
def test_fsm_json_round_trip(path: Path) -> None:
    spec = load(path)
    data = _through_json(to_fsm_json(spec))
    assert from_fsm_json(data, "x.json") == spec
    assert load_text(json.dumps(data), "x.json") == spec
    assert to_fsm_json(spec) == to_fsm_json(spec)


def test_fsm_json_has_their_shape() -> None:
    data = to_fsm_json(load(FIXTURES / "mini.fsm"))
    meta = data["meta"]
    assert {k: meta[k] for k in ("app", "version", "initial_page_id", "terminal_pages")} == {
        "app": "mini", "version": "1.0", "initial_page_id": "home", "terminal_pages": ["done"]}
    assert meta["global_signature_schema"] == {"cart": "object", "seen": "array<string>", "member": "boolean"}
    page = data["pages"][1]
    assert page["id"] == "list"
    assert page["signature_schema"] == {"brand": "string|null", "sort": "string", "pg": "integer>=1"}
    assert page["signature"] == {"brand": None, "sort": "relevance", "pg": 1}
    assert data["nav_skeleton"] == [
        {"from": "home", "to": "list", "via": "home.browse"},
        {"from": "list", "to": "done", "via": "list.checkout"},
        {"from": "done", "to": "home", "via": "done.again"},
    ]


def _action(data: dict[str, Any], action_id: str) -> dict[str, Any]:
    return next(a for p in data["pages"] for a in p["actions"] if a["id"] == action_id)


def test_fsm_json_native_conditions_and_effects() -> None:
    data = to_fsm_json(load(FIXTURES / "mini.fsm"))
    join = _action(data, "home.join")
    assert join["preconditions"] == [{"path": "$.member", "cond": "eq", "value": False}]
    assert join["effects"] == [] and join["x_fsmc"]["untranslated"] == ["toggle member"]
    filt = _action(data, "list.filter")
    assert filt["parameters"] == {"b": [None, "acme", "bolt"]}
    assert filt["preconditions"] == [{"path": "$.brand", "cond": "neq", "value": "{b}"}]
    assert filt["effects"] == [{"op": "set", "path": "$.brand", "value_ref": "{b}"},
                               {"op": "set", "path": "$.pg", "value": 1}]
    assert filt["gui_procedure"] == [{"op": "select", "selector": '[data-testid="brand-filter"]', "value": "{b}"}]
    nxt = _action(data, "list.next")
    assert nxt["preconditions"] == [] and nxt["x_fsmc"]["untranslated"] == ["require pg < pages(hits)"]
    assert nxt["effects"] == [{"op": "inc", "path": "$.pg", "by": 1}]
    checkout = _action(data, "list.checkout")
    assert checkout["is_navigation"] and checkout["to"] == "done"
    assert checkout["preconditions"] == [{"path": "$.cart", "cond": "length_gt", "value": 0}]


def test_fsm_json_claiming_fsmc_without_copies_is_reported() -> None:
    data = _through_json(to_fsm_json(load(FIXTURES / "mini.fsm")))
    del data["pages"][1]["actions"][2]["x_fsmc"]
    with pytest.raises(SpecError) as err:
        from_fsm_json(data, "x.json")
    d = err.value.diagnostics[0]
    assert (d.code, d.message) == ("E005", "pages[1].actions[2]: has no 'x_fsmc' although meta.x_fsmc says fsmc "
                                           "wrote this file")


# ---------------------------------------------------------------- foreign fsm.json


@pytest.fixture(scope="module")
def webmail() -> ir.Spec:
    return load(AWW / "webmail_fsm.json")


def _vars(spec: ir.Spec, page: str) -> dict[str, ir.Type]:
    return {v.name: v.type for v in spec.page(page).vars}


def test_foreign_import_infers_domains(webmail: ir.Spec) -> None:
    opt, choice = ir.OptionalType, ir.ChoiceType
    assert [v.name for v in webmail.session] == ["dark_mode"]
    assert _vars(webmail, "HOME") == {"cookie_consent_given": opt(inner=ir.BoolType()),
                                      "current_user_id": opt(inner=choice(values=("USER_ANY",)))}
    assert _vars(webmail, "INBOX") == {
        "current_user_id": opt(inner=choice(values=("USER_ANY",))),
        "inbox_folder": choice(values=("inbox", "sent", "archive")),
        "inbox_page": ir.IntType(lo=1, hi=3),
        "inbox_has_searched": ir.BoolType(),
        "matched_email_id": opt(inner=choice(values=("EMAIL_ANY",))),
        "starred_ids": ir.SetType(elem=choice(values=("EMAIL_ANY",))),
        "selected_email_id": opt(inner=choice(values=("EMAIL_ANY",))),  # a carry slot: written by a navigation
    }
    assert _vars(webmail, "COMPOSE")["attachments_count"] == ir.IntType(lo=0, hi=2)
    assert _vars(webmail, "COMPOSE")["compose_subject"] == opt(inner=choice(values=("Quarterly report",)))
    assert webmail.page("INBOX").vars[1].default == ir.Lit(value="inbox")


def test_foreign_import_translates_actions(webmail: ir.Spec) -> None:
    inbox = {a.name: a for a in webmail.page("INBOX").actions}
    assert [expr_to_fsm(r) for r in inbox["ACT_ARCHIVE_VIEW"].requires] == ['inbox_folder in {"inbox", "sent"}']
    assert [expr_to_fsm(r) for r in inbox["ACT_STAR_MATCHED"].requires] == ["matched_email_id != none"]
    assert [expr_to_fsm(r) for r in inbox["ACT_UNSTAR_ALL"].requires] == ["len(starred_ids) > 0"]
    assert inbox["ACT_PREV_PAGE"].effects == (ir.Effect(op="dec", var="inbox_page", value=ir.Lit(value=1)),)
    opened = inbox["ACT_OPEN_MATCHED_EMAIL"]
    assert (opened.goto, opened.carry) == ("EMAIL_DETAIL", ("current_user_id", "matched_email_id", "selected_email_id"))
    assert opened.effects[0] == ir.Effect(op="assign", var="selected_email_id", value=ir.Lit(value="EMAIL_ANY"))
    search = inbox["ACT_SEARCH_EMAIL"]
    assert search.effects[0] == ir.Effect(op="assign", var="matched_email_id", value=ir.Lit(value="EMAIL_ANY"))
    assert [(g.op, g.selector, g.text) for g in search.gui] == [
        ("type", "inbox-search", "EMAIL_ANY"), ("press", "inbox-search", "Enter")]  # `type` focuses: no click first
    send = {a.name: a for a in webmail.page("COMPOSE").actions}["ACT_SEND"]
    assert [expr_to_fsm(r) for r in send.requires] == ["compose_to != none", "current_user_id != none"]


def test_foreign_import_is_a_valid_spec_that_round_trips(webmail: ir.Spec) -> None:
    assert not has_errors(check(webmail))
    assert load_text(to_fsm(webmail), "webmail.fsm") == webmail
    assert from_fsm_json(_through_json(to_fsm_json(webmail)), "again.json") == webmail


def test_foreign_list_parameter_ranges_over_its_values() -> None:
    data = json.loads((AWW / "webmail_fsm.json").read_text())
    sent = data["pages"][1]["actions"][0]
    sent["parameters"] = {"folder": ["sent", "archive"]}
    spec = from_fsm_json(data, "webmail.json")
    action = spec.page("INBOX").actions[0]
    assert action.params == (ir.Param(name="folder", type=ir.ChoiceType(values=("sent", "archive"))),)
    assert action.effects[0] == ir.Effect(op="assign", var="inbox_folder", value=ir.Name(id="folder"))


def test_foreign_unsupported_constructs_are_reported() -> None:
    with pytest.raises(SpecError) as err:
        load(AWW / "unsupported_fsm.json")
    file = str(AWW / "unsupported_fsm.json")
    assert {d.span.file for d in err.value.diagnostics} == {file}
    found = sorted((d.span.line, d.code, d.message) for d in err.value.diagnostics)
    assert found == [  # each at the line of the construct itself
        (13, "E009", "pages[0].signature_schema.search_form: nested objects in a signature are not supported"),
        (24, "E009", "pages[0].actions[0].preconditions[0]: cond 'not_exists' is not accepted: their BFS never "
                     "evaluates it (it is always false there)"),
        (36, "E009", "pages[0].actions[1].effects[0]: cannot bound integer field 'guests': this action changes it by "
                     "1 with no precondition (lt/lte or eq) on it"),
        (47, "E009", "pages[0].actions[2].effects[0]: clear on 'cookie_consent_given' gives null when it is null and "
                     "false otherwise (bfs_action.py), and nothing here says which it is"),
        (58, "E009", "pages[0].actions[3].effects[0].value_expr: value_expr '$.guests * 2' has no meaning in fsmc: it "
                     'takes a parameter "{p}", a JSON literal, a call without arguments such as gen_id(), boolean '
                     "fields joined by && || ! or sum($.x[*].c) over an array<object> field, merge() of objects "
                     "giving one member, or append($.x, v) to x itself"),
        (59, "E009", "pages[0].actions[3].data_effects: data_effects change the data tables, which are fixed in fsmc"),
    ]


@pytest.mark.parametrize(("data", "message"), [
    ({"meta": {"initial_page_id": "H"}, "pages": "x"}, "pages: is not a list"),
    ({"meta": {}, "pages": []}, "meta.initial_page_id: is missing or not a string"),
    ({"meta": {"initial_page_id": "H"}, "pages": [{"id": 3}]}, "pages[0]: is not a page object with a string 'id'"),
    ({"meta": {"initial_page_id": "X"}, "pages": [{"id": "H"}]}, "meta.initial_page_id: 'X' is not the id of a page"),
    ({"meta": {"initial_page_id": "H"}, "pages": [{"id": "H", "signature_schema": {"n": "integer"}, "actions": [
        {"id": "A", "is_navigation": True, "to": "NOWHERE"}]}]}, "pages[0].actions[0].to: navigation target "
                                                                 "'NOWHERE' is not a page"),
    ({"meta": {"initial_page_id": "H"}, "pages": [{"id": "H", "actions": [
        {"id": "A", "effects": [{"op": "set", "path": "$.x", "value": 1}]}]}]},
     "pages[0].actions[0].effects[0]: path $.x is not a field of page 'H' or of meta.global_signature_schema"),
    ({"meta": {"initial_page_id": "H"}, "pages": [{"id": "H", "signature_schema": {"n": "float"}}]},
     "pages[0].signature_schema.n: type 'float' is not one of boolean, integer, number, string, array<...> (|null)"),
    ({"meta": {"initial_page_id": "H"}, "pages": [{"id": "H", "signature_schema": {"n": "number"}, "signature": {
        "n": 2.5}}]}, "pages[0].signature_schema.n: field 'n' is integer but takes 2.5 (fsmc has no fractional "
                      "variables)"),
])
def test_malformed_foreign_files_are_reported(data: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError) as err:
        from_fsm_json(data, "bad.json")
    assert message in [d.message for d in err.value.diagnostics]


def _mutate(data: Any, rng: random.Random) -> Any:
    """The same file with a few values replaced by junk or deleted."""
    data = copy.deepcopy(data)
    junk = [None, 0, -1, 2.5, "", "x", "{p}", "$.x", "$.a.b", [], [1], {}, {"a": 1}, True, "array<string>|null"]
    for _ in range(rng.randint(1, 4)):
        node = data
        while isinstance(node, (dict, list)) and node:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            if isinstance(node[key], (dict, list)) and node[key] and rng.random() < 0.8:
                node = node[key]
                continue
            node[key] = rng.choice(junk)
            break
    return data


def test_broken_files_give_diagnostics_never_tracebacks() -> None:
    rng = random.Random(0)
    sources = [json.loads((AWW / "webmail_fsm.json").read_text()), _through_json(to_fsm_json(load(FIXTURES / "mini.fsm")))]
    for i in range(400):
        try:
            from_fsm_json(_mutate(sources[i % 2], rng), "broken.json")
        except SpecError as err:
            assert err.diagnostics and all(d.code in ("E005", "E009") for d in err.diagnostics)


def test_ours_without_x_fsmc_imports_as_foreign() -> None:
    spec = parse('site s { entry a }\npage a { var n: int[0..3] = 0\n  action up { require n < 3  n += 1 } }', "s.fsm")
    data = _through_json(to_fsm_json(spec))
    del data["meta"]["x_fsmc"]
    foreign = from_fsm_json(data, "s.json")
    assert foreign.page("a").vars[0].type == ir.IntType(lo=0, hi=3)
    assert [expr_to_fsm(r) for r in foreign.page("a").actions[0].requires] == ["n < 3"]


# ---------------------------------------------------------------- fsmc convert


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_convert_to_stdout_and_file(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = FIXTURES / "mini.fsm"
    assert main(["convert", str(src), "--to", fmt]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / f"mini.{fmt}"
    assert main(["convert", str(src), "--to", fmt, "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == printed
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind
    if fmt in ("fsm", "ir", "fsm-json"):
        assert load_text(printed, "back") == load(src)


def test_convert_reports_unreadable_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(tmp_path / "missing.fsm"), "--to", "ir"]) == 2
    assert "error[E002]: no such file" in capsys.readouterr().err


def test_convert_reports_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "such" / "dir.json"
    assert main(["convert", str(FIXTURES / "mini.fsm"), "--to", "ir", "-o", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err
