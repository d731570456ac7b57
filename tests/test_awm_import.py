"""AutoWebWorld worlds as their generator reads them: data fields, clear, value_expr, name-based rules, located errors."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fsmc import ir
from fsmc.compilation import Compilation
from fsmc.diagnostics import SpecError, has_errors
from fsmc.formats import load_text
from fsmc.formats.awm import from_fsm_json, read_fsm_json
from fsmc.printer import expr_to_fsm

FIXTURE = Path(__file__).parent / "fixtures" / "autowebworld" / "conventions_fsm.json"
MEMBERS = FIXTURE.with_name("members_fsm.json")  # a nullable array, append(...) and merge(...) value_exprs


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(FIXTURE.read_text())
    return loaded


@pytest.fixture(scope="module")
def spec(data: dict[str, Any]) -> ir.Spec:
    return from_fsm_json(copy.deepcopy(data), "desk.json")


def _action(spec: ir.Spec, page: str, name: str) -> ir.Action:
    return next(a for a in spec.page(page).actions if a.name == name)


def _requires(spec: ir.Spec, page: str, name: str) -> list[str]:
    return [expr_to_fsm(r) for r in _action(spec, page, name).requires]


def test_array_of_objects_is_a_table_and_a_view_not_state(spec: ir.Spec) -> None:
    table = spec.table("tickets")
    # a ticket's columns (samples.py), among them the keys the value_expr's append names (subject)
    assert [c.name for c in table.columns] == ["id", "subject", "requester", "status", "priority", "description"]
    assert len(table.rows) == 3 and table.rows[0][:2] == ("ticket-1", "Can't reset my password")
    assert [v.name for v in spec.page("NEW_TICKET").views] == ["tickets"]
    assert "tickets" not in {v.name for p in spec.pages for v in p.vars}
    assert _action(spec, "NEW_TICKET", "ACT_SUBMIT_TICKET").effects == ()  # the append changes data only


def _data_world(app: str, fields: list[str], sums: str = "") -> dict[str, Any]:
    """One page showing array<object> fields; a total that `sums` a column of the first, where given."""
    schema: dict[str, str] = {f: "array<object>|null" for f in fields}
    actions = []
    if sums:
        schema["total"] = "number"
        actions.append({"id": "ACT_TOTAL", "name": "click", "is_navigation": False, "from": "LIST", "to": "LIST",
                        "parameters": {}, "preconditions": [], "gui_procedure": [{"op": "click", "selector": "#t"}],
                        "effects": [{"op": "set", "path": "$.total", "value_expr": f"sum($.{fields[0]}[*].{sums})"}]})
    return {"meta": {"app": app, "version": "1", "initial_page_id": "LIST", "terminal_pages": []},
            "pages": [{"id": "LIST", "signature_schema": schema, "actions": actions}]}


def test_invented_rows_are_of_the_fields_kind_in_the_apps_domain() -> None:
    """A world without its app's data gets rows a site of its kind shows (samples.py), the same every time."""
    def rows(app: str, fields: list[str], sums: str = "") -> ir.Spec:
        return from_fsm_json(_data_world(app, fields, sums), "world.json")

    bank = rows("Neobank-Revolut_app", ["accounts"]).table("accounts")
    marketing = rows("Email_SMS_Marketing-Klaviyo_app", ["accounts"]).table("accounts")
    assert [c.name for c in bank.columns][:4] == ["id", "name", "currency", "balance"]
    assert bank.rows[0][:2] == ("account-1", "Main account") and "balance" not in [c.name for c in marketing.columns]
    social = rows("Social Network-Facebook_app", ["friends", "suggested_friends"])
    friends, suggested = (social.table(n) for n in ("friends", "suggested_friends"))
    assert {r[1] for r in friends.rows}.isdisjoint({r[1] for r in suggested.rows})  # two lists, different people
    assert [c.type for c in friends.columns] == ["str", "str", "int", "str"]  # 12 mutual friends: a count
    shop = rows("E_commerce_Storefront-Shopify_app", ["cart_items"], sums="price")
    cart = shop.table("cart_items")
    price = [c.name for c in cart.columns].index("price")
    total = next(a for a in shop.page("LIST").actions if a.name == "ACT_TOTAL").effects[0].value
    assert total == ir.Lit(value=round(sum(r[price] for r in cart.rows)))  # the sum is of the rows shown
    assert rows("Project Management-Asana_app", ["conditions_list", "widgets"]).table("conditions_list").rows[0][1] \
        == "Seasonal allergies"  # a listing word is not the kind: conditions
    assert [c.name for c in rows("x_app", ["widgets"]).table("widgets").columns] == ["id"]  # no kind known: a name
    assert rows("Neobank-Revolut_app", ["accounts"]) == rows("Neobank-Revolut_app", ["accounts"])


def test_clear_follows_the_current_value(spec: ir.Spec) -> None:
    effects = _action(spec, "HOME", "ACT_OPEN_FILTERED_TICKET").effects
    assert effects == (ir.Effect(op="assign", var="filters_applied", value=ir.Lit(value=False)),  # true → false
                       ir.Effect(op="assign", var="viewport_anchor_id", value=ir.Lit(value=None)))  # string → null


def test_value_expr_has_a_meaning(spec: ir.Spec) -> None:
    def value(name: str) -> Any:
        e = _action(spec, "NEW_TICKET", name).effects[0].value
        assert isinstance(e, ir.Lit)
        return e.value

    assert (value("ACT_TYPE_SUBJECT"), value("ACT_PICK_DUE"), value("ACT_SET_PRIORITY")) == ("Quarterly planning", "NOW",
                                                                                           "high")
    # "{input_text}" names no parameter: a subject a person would type, and the GUI types that same value
    assert [g.text for g in _action(spec, "NEW_TICKET", "ACT_TYPE_SUBJECT").gui] == ["Quarterly planning"]


def test_sample_text_follows_the_fields_name() -> None:
    from fsmc.formats.awm.effects import sample_text

    fields = ("signup_email", "card_cvc", "team_name", "segment_condition_value", "draft_to", "message_recipient",
              "badge_label")
    assert [sample_text(f) for f in fields] == ["alex.morgan@example.com", "123", "My team", "Opened an email this month",
                                                "jamie.lee@example.com", "Jamie Lee", "Badge label one"]


def _with_action(data: dict[str, Any], schema: dict[str, str], action: dict[str, Any]) -> tuple[ir.Spec, list[str]]:
    """The fixture with fields and one more action on NEW_TICKET: the imported spec and its W009 messages."""
    changed = copy.deepcopy(data)
    changed["pages"][1]["signature_schema"].update(schema)
    changed["pages"][1]["actions"].insert(0, {"id": "ACT_EXTRA", "is_navigation": False, "parameters": {},
                                             "gui_procedure": [{"op": "click", "selector": "#extra"}]} | action)
    spec, warnings = read_fsm_json(changed, "extra.json")
    return spec, [d.message for d in warnings]


def _typing(data: dict[str, Any], schema: dict[str, str], params: dict[str, Any], effects: list[dict[str, Any]],
            selector: str = "#repo-name-input") -> tuple[str | None, list[ir.Effect]]:
    """An action typing "{input_text}" (their placeholder naming no parameter): what its GUI types, what it records."""
    spec, _ = _with_action(data, schema, {"parameters": params, "preconditions": [], "effects": effects,
                                          "gui_procedure": [{"op": "click", "selector": selector},
                                                            {"op": "type_text", "selector": selector,
                                                             "text": "{input_text}"}]})
    action = _action(spec, "NEW_TICKET", "ACT_EXTRA")
    return next(g.text for g in action.gui if g.op == "type"), list(action.effects)


def test_typing_a_placeholder_types_what_the_state_records(data: dict[str, Any]) -> None:
    def recorded(effects: list[ir.Effect]) -> Any:
        assert isinstance(effects[0].value, ir.Lit)
        return effects[0].value.value

    # the world records a literal: that is what is typed (of two, the one in the field named like the element)
    typed, effects = _typing(data, {"repo_title": "string|null", "repo_name": "string|null"}, {}, [
        {"op": "set", "path": "$.repo_title", "value": "Roadmap"}, {"op": "set", "path": "$.repo_name", "value": "docs"}])
    assert typed == "docs" and recorded(effects[1:]) == "docs"
    # a parameter whose value is the placeholder itself, or a value holding it: one value a person would type
    typed, effects = _typing(data, {"signup_email": "string|null"}, {"value": "{input_text}"},
                             [{"op": "set", "path": "$.signup_email", "value_ref": "{value}"}], "#signup-email")
    assert typed == recorded(effects) == "alex.morgan@example.com"
    typed, effects = _typing(data, {"campaign_name": "string|null"}, {},
                             [{"op": "set", "path": "$.campaign_name", "value": "Campaign {input_text}"}])
    assert typed == recorded(effects) == "Campaign My campaign"
    # a flag that says something was typed, or a number: the text a person would type there, the number as text
    typed, effects = _typing(data, {"login_email_entered": "boolean"}, {},
                             [{"op": "set", "path": "$.login_email_entered", "value": True}], "#login-email")
    assert typed == "alex.morgan@example.com" and recorded(effects) is True
    typed, effects = _typing(data, {"quantity": "integer>=1"}, {},
                             [{"op": "set", "path": "$.quantity", "value": 2}], "#qty")
    assert typed == "2"


def test_value_expr_joining_boolean_fields(data: dict[str, Any]) -> None:
    spec, _ = _with_action(data, {"ready": "boolean"}, {"preconditions": [], "effects": [
        {"op": "set", "path": "$.ready", "value_expr": "$.captcha_passed && !($.ready || $.captcha_passed)"}]})
    assert expr_to_fsm(_action(spec, "NEW_TICKET", "ACT_EXTRA").effects[0].value) == (
        "captcha_passed == true and not (ready == true or captcha_passed == true)")


def test_value_expr_summing_a_column_of_data(data: dict[str, Any]) -> None:
    spec, warnings = _with_action(data, {"total": "number"}, {"preconditions": [], "effects": [
        {"op": "set", "path": "$.total", "value_expr": "sum($.tickets[*].cost)"}]})
    assert _action(spec, "NEW_TICKET", "ACT_EXTRA").effects[0].value == ir.Lit(value=60)
    table = spec.table("tickets")
    cost = [c.name for c in table.columns].index("cost")
    assert table.columns[cost].type == "num" and [r[cost] for r in table.rows] == [10, 20, 30]
    assert any("sum of column c over x's 3 fixed sample rows" in m for m in warnings)


def test_conditions_on_data_no_action_fills_never_hold(data: dict[str, Any]) -> None:
    """bfs_action.py: an array<object>|null field only a value_expr writes stays null, so length_gt never holds
    (walmart's checkout on an empty cart); its table's sample rows do not count."""
    some = {"path": "$.tickets", "cond": "length_gt", "value": 0}
    spec, warnings = _with_action(data, {}, {"preconditions": [some], "effects": []})
    assert "ACT_EXTRA" not in {a.name for a in spec.page("NEW_TICKET").actions}  # never enabled: left out
    assert any("no action fills is decided as bfs_action.py decides it" in m for m in warnings)
    assert any(m.startswith("pages[1].actions[0]: action 'NEW_TICKET.ACT_EXTRA' is never enabled") and "left out" in m
               for m in warnings)


def test_conditions_on_data_an_action_fills_are_decided_against_its_rows(data: dict[str, Any]) -> None:
    changed = copy.deepcopy(data)
    changed["pages"][1]["actions"][-1]["effects"] = [{"op": "append_unique", "path": "$.tickets", "value": "t-1"}]
    some = {"path": "$.tickets", "cond": "length_gt", "value": 0}
    spec, warnings = _with_action(changed, {}, {"preconditions": [some], "effects": []})
    assert _requires(spec, "NEW_TICKET", "ACT_EXTRA") == []  # three rows: more than 0
    assert any("decided against the 3 fixed rows" in m for m in warnings)
    spec, warnings = _with_action(changed, {}, {"preconditions": [some | {"value": 3}], "effects": []})
    assert "ACT_EXTRA" not in {a.name for a in spec.page("NEW_TICKET").actions}


def test_interceptor_field_gates_the_page(spec: ir.Spec) -> None:
    assert _requires(spec, "HOME", "ACT_ALLOW_LOCATION") == []
    assert _requires(spec, "HOME", "ACT_FILTER_OPEN") == ["location_permission_granted != none"]


def test_captcha_waits_for_the_fields_the_submit_needs(spec: ir.Spec) -> None:
    assert _requires(spec, "NEW_TICKET", "ACT_SOLVE_CAPTCHA") == ["subject != none", "due != none"]


def test_gui_is_normalised(spec: ir.Spec, data: dict[str, Any]) -> None:
    gui = _action(spec, "NEW_TICKET", "ACT_TYPE_SUBJECT").gui
    assert [(g.op, g.selector, g.text) for g in gui] == [("type", "subject", "Quarterly planning")]
    changed = copy.deepcopy(data)
    changed["pages"][1]["actions"][1]["gui_procedure"] = [{"op": "key_press", "selector": "#due", "key": "Ctrl+A"}]
    due = _action(from_fsm_json(changed, "keys.json"), "NEW_TICKET", "ACT_PICK_DUE")
    assert due.gui[0].text == "Control+A"


def test_unreachable_terminal_is_a_warning_naming_what_blocks_it(data: dict[str, Any]) -> None:
    spec, warnings = read_fsm_json(copy.deepcopy(data), "desk.json")
    assert spec.site.terminals == ("TICKET_SENT",)
    notes = [d.message for d in warnings if "cannot be reached" in d.message]
    assert notes == ["meta.terminal_pages[1]: terminal page 'ARCHIVE_DONE' cannot be reached (no page links to it or "
                     "to the pages that lead to it (ARCHIVE) from outside them); it is imported as a page that is not "
                     "terminal"]
    linked = copy.deepcopy(data)  # now linked, but behind a precondition that never holds
    linked["pages"][0]["actions"].append({"id": "ACT_GO_ARCHIVE", "is_navigation": True, "to": "ARCHIVE", "effects": [],
                                          "gui_procedure": [{"op": "click", "selector": "#nav-archive"}]})
    _, warnings = read_fsm_json(linked, "linked.json")
    assert any("'ARCHIVE.ACT_ARCHIVE_ALL' is never enabled: `archive_ready == true` never holds on 'ARCHIVE'"
               in d.message for d in warnings)


def test_decisions_are_warnings_and_the_world_checks_clean() -> None:
    c = Compilation(FIXTURE)
    assert not has_errors(c.diagnostics)
    w009 = [d for d in c.diagnostics if d.code == "W009"]
    assert all(d.severity == "warning" and d.span.line > 1 for d in w009)
    assert any("interceptor" in d.message for d in w009) and any("captcha" in d.message for d in w009)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["pages"][1]["actions"][1]["effects"][0].update(value_expr="$.due + 1"),
     "pages[1].actions[1].effects[0].value_expr: value_expr '$.due + 1' has no meaning in fsmc"),
    (lambda d: d["pages"][1]["actions"][0]["preconditions"].append({"path": "$.tickets", "cond": "eq", "value": []}),
     "pages[1].actions[0].preconditions[0]: cond 'eq' on array<object> field 'tickets'"),
    (lambda d: d["pages"][1]["actions"][3].update(effects=[{"op": "set", "path": "$.captcha_passed",
                                                             "value_expr": "$.captcha_passed && $.subject"}]),
     "pages[1].actions[3].effects[0].value_expr: value_expr '$.captcha_passed && $.subject' is not boolean fields"),
    (lambda d: d["pages"][1]["actions"][1]["effects"][0].update(value_expr="$.captcha_passed && $.captcha_passed"),
     "pages[1].actions[1].effects[0]: value_expr '$.captcha_passed && $.captcha_passed' gives true or false, but "
     "field 'due' is string"),
    (lambda d: d["pages"][0]["actions"][1]["effects"].append({"op": "clear", "path": "$.location_permission_granted"}),
     "pages[0].actions[1].effects[1]: clear on 'location_permission_granted' gives null when it is null"),
])
def test_bad_worlds_give_the_line_of_the_construct(data: dict[str, Any], edit: Any, message: str) -> None:
    broken = copy.deepcopy(data)
    edit(broken)
    text = json.dumps(broken, indent=2)
    with pytest.raises(SpecError) as err:
        load_text(text, "broken.json")
    found = [d for d in err.value.diagnostics if d.message.startswith(message)]
    assert found, [d.message for d in err.value.diagnostics]
    path, shown = found[0].message.split(":")[0], text.splitlines()[found[0].span.line - 1].strip()
    if path.endswith("]"):  # an element: the line where its object opens, after its list's key
        before = text.splitlines()[found[0].span.line - 2]
        assert shown == "{" and (f'"{path.rsplit(".", 1)[-1].split("[")[0]}"' in before or before.strip() == "},")
    else:  # a member: the line of its own key
        assert shown.startswith(f'"{path.rsplit(".", 1)[-1]}"')


def test_nullable_array_starts_empty_and_append_adds_to_it() -> None:
    spec, warnings = read_fsm_json(json.loads(MEMBERS.read_text()), "members.json")
    (member_ids,) = spec.page("ADD_MEMBERS").vars
    assert member_ids.default == ir.SetLit(items=())  # bfs_action.py: null, bfs.py: []
    assert _action(spec, "ADD_MEMBERS", "ACT_ADD_ANY_MEMBER").effects == (
        ir.Effect(op="add", var="member_ids", value=ir.Lit(value="ITEM_ANY")),)  # the object's one member
    assert _requires(spec, "ADD_MEMBERS", "ACT_CREATE_GROUP") == ["len(member_ids) > 0"]
    assert spec.site.terminals == ("GROUP_CREATED",)  # reached: the append completes the form
    messages = [d.message for d in warnings]
    assert any(m.startswith("pages[1].signature_schema.member_ids (and 1 more): a nullable array starts empty")
               for m in messages)
    assert any(m.startswith("pages[1].actions[0].effects[0]: value_expr append($.x, v)") for m in messages)


def test_value_expr_merging_objects_sets_their_one_member() -> None:
    spec, warnings = read_fsm_json(json.loads(MEMBERS.read_text()), "members.json")
    assert _action(spec, "HOME", "ACT_PICK_BIRTHDAY").effects == (
        ir.Effect(op="assign", var="birthday", value=ir.Lit(value="1990-3-7")),)
    assert any(d.message.startswith("pages[0].actions[0].effects[0]: value_expr merge(") for d in warnings)


def _bad_members(edit: Any) -> tuple[str, list[Any]]:
    broken = json.loads(MEMBERS.read_text())
    edit(broken)
    text = json.dumps(broken, indent=2)
    with pytest.raises(SpecError) as err:
        load_text(text, "broken.json")
    return text, err.value.diagnostics


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["pages"][1]["actions"][1]["preconditions"].append({"path": "$.member_ids", "cond": "not_null"}),
     "pages[1].actions[1].preconditions[1]: cond 'not_null' tells null from [] on nullable array 'member_ids'"),
    (lambda d: d["pages"][0]["actions"][0]["effects"][0].update(value_expr='merge({"a": 1}, {"b": 2})'),
     "pages[0].actions[0].effects[0].value_expr: value_expr 'merge({\"a\": 1}, {\"b\": 2})' has no meaning"),
    (lambda d: d["pages"][1]["actions"][0]["effects"][0].update(value_expr='append($.other, "x")'),
     "pages[1].actions[0].effects[0].value_expr: value_expr 'append($.other, \"x\")' has no meaning"),
    (lambda d: d["pages"][0]["actions"][0]["effects"][0].update(value_expr='append($.birthday, "x")'),
     "pages[0].actions[0].effects[0]: append_unique on field 'birthday', which is not an array"),
])
def test_bad_members_worlds_are_located(edit: Any, message: str) -> None:
    text, found = _bad_members(edit)
    hits = [d for d in found if d.message.startswith(message)]
    assert hits, [d.message for d in found]
    assert hits[0].span.line > 1 and text.splitlines()[hits[0].span.line - 1].strip().startswith(("{", '"value_expr"'))


@pytest.fixture
def sites(tmp_path: Path) -> Path:  # named as the browser fixtures are: this test is in the browser layer
    return tmp_path / "sites"


@pytest.mark.parametrize("world", [FIXTURE, MEMBERS, FIXTURE.with_name("shared_menu_fsm.json")],
                         ids=["conventions", "members", "shared_menu"])  # shared_menu: two menus share an element
def test_a_world_goes_through_the_whole_pipeline(world: Path, sites: Path, tmp_path: Path) -> None:
    from fsmc.codegen import build_site
    from fsmc.enumerate.run import enumerate_spec
    from fsmc.replay import replay

    c = Compilation(world)
    assert not has_errors(c.diagnostics)
    enumerate_spec(c, tmp_path / "out")
    build_site(c.ir, sites)
    replay(tmp_path / "out", sites / c.ir.site.name, tmp_path / "data", workers=2)
    report = json.loads((tmp_path / "data" / "report.json").read_text())
    assert report["trajectories"] > 0 and report["kept"] == report["trajectories"], report


GLOBAL_PAGE = FIXTURE.with_name("global_page_fsm.json")  # a field of the global schema that a page declares too


def test_a_global_field_a_page_declares_is_that_pages_variable() -> None:
    """bitbucket's pattern: bfs_action.py reads only the pages' schemas, so the page's interceptor gates its actions."""
    spec, warnings = read_fsm_json(json.loads(GLOBAL_PAGE.read_text()), "code_host.json")
    assert [v.name for v in spec.session] == ["theme"]  # only in the global schema: still the session's
    assert "repo_write_permission" in {v.name for v in spec.page("REPO").vars}
    assert _requires(spec, "REPO", "ACT_CREATE_BRANCH")[0] == "repo_write_permission != none"
    assert _action(spec, "HOME", "ACT_NAV_REPO").carry == ("repo_write_permission",)  # set on HOME, carried in
    assert any(d.message.startswith("meta.global_signature_schema.repo_write_permission: a field of "
                                    "meta.global_signature_schema that a page's signature_schema declares too")
               for d in warnings)


def test_every_reached_page_is_a_task_in_words(spec: ir.Spec) -> None:
    """The entry aside, each page a state reaches is asked for, in words; a terminal's says what its form needs."""
    assert [(t.page, t.instruction) for t in spec.tasks] == [
        ("NEW_TICKET", "Go to the new ticket page on Ticket Desk."),
        ("TICKET_SENT", "On Ticket Desk's new ticket page, set the subject to 'Quarterly planning', fill in the due, "
                        "pass the captcha, then click Submit."),
    ]
    assert all(t.goal == ir.Lit(value=True) and not t.params for t in spec.tasks)


@pytest.mark.parametrize(("t", "ws", "typed", "said"), [
    (ir.BoolType(), ["review", "terms", "accepted"], False, ("accept", "the review terms")),
    (ir.BoolType(), ["launch", "immediately", "checkbox"], False, ("tick", "'Launch immediately'")),
    (ir.BoolType(), ["review", "ready"], False, None),  # the page computes it: the click says it
    (ir.BoolType(), ["is", "liked"], False, ("like", "it")),
    (ir.ChoiceType(values=("has_subject",)), ["subject"], True, ("fill in", "the subject")),  # a stand-in, unsaid
    (ir.ChoiceType(values=("GEN_ID",)), ["title"], True, ("fill in", "the title")),
    (ir.ChoiceType(values=("GEN_ID",)), ["selected", "pr", "id"], False, None),  # the row picked on the way
    (ir.ChoiceType(values=("opened_email",)), ["condition", "type"], False, ("set", "the condition type to 'Opened email'")),
    (ir.ChoiceType(values=("feature-login",)), ["branch", "name", "input"], True, ("set", "the branch name to 'feature-login'")),
    (ir.ChoiceType(values=("jo@example.com",)), ["to"], True, ("set", "the To field to 'jo@example.com'")),
    (ir.ChoiceType(values=("123",)), ["cvv"], True, ("set", "the CVV to '123'")),
])
def test_a_form_field_in_words(t: ir.Type, ws: list[str], typed: bool, said: tuple[str, str] | None) -> None:
    """What a terminal's instruction asks of one field of the form before it: never an id, a stand-in or a flag."""
    from fsmc.formats.awm.tasks import _field

    assert _field(t, ws, typed) == said


def test_instructions_are_told_apart() -> None:
    from fsmc.formats.awm.tasks import words

    data = json.loads(GLOBAL_PAGE.read_text())
    data["pages"].append({"id": "BRANCH_CREATED_AGAIN", "signature_schema": {}, "actions": []})
    data["pages"][1]["actions"].append(copy.deepcopy(data["pages"][1]["actions"][2]) | {
        "id": "ACT_CREATE_BRANCH_DIRECT", "to": "BRANCH_CREATED_AGAIN"})  # the same button
    data["meta"]["terminal_pages"].append("BRANCH_CREATED_AGAIN")
    spec, _ = read_fsm_json(data, "code_host.json")
    texts = [t.instruction for t in spec.tasks]
    assert len(set(texts)) == len(texts) == 3
    assert texts[-1].endswith("then click Create (to reach the branch created again page).")
    assert words("PR_CREATE_2FA_SUCCESS") == "PR create 2FA success"


def test_the_tasks_stand_for_the_terminal_goals(tmp_path: Path) -> None:
    """Each page is asked for once (no derived terminal goal beside a terminal's task), bfs.json still lists the
    terminal's paths, and the shortest count is bfs_action.py's (4: the permission interceptor is handled)."""
    from fsmc.enumerate.run import enumerate_spec

    enumerate_spec(Compilation(GLOBAL_PAGE), tmp_path / "out")
    tasks = [json.loads(line) for line in (tmp_path / "out" / "tasks.jsonl").read_text().splitlines()]
    assert [(t["kind"], t["page"]) for t in tasks] == [("task", "REPO"), ("task", "BRANCH_CREATED")]
    (terminal,) = json.loads((tmp_path / "out" / "bfs.json").read_text())["terminals"]
    assert terminal["terminal_page"] == "BRANCH_CREATED" and terminal["shortest_step_count"] == 4


LIBRARY = FIXTURE.parent / "library"  # a world and its app folder (web/: initial_data.js, style.txt, images)
ITEMS = LIBRARY / "fsm.json"  # a list opened by search, filter and scroll: github's pattern


@pytest.fixture(scope="module")
def library() -> ir.Spec:
    return from_fsm_json(json.loads(ITEMS.read_text()), "library.json")  # no app folder there: invented rows


def test_an_item_is_one_of_the_rows_the_page_shows(library: ir.Spec) -> None:
    """Each "{ITEM_ANY}" ranges over the table's keys; the search types the key it records, the click names the row,
    and opening what the search matched (or the scroll showed) opens that very item."""
    ids = tuple(r[0] for r in library.table("books").rows)
    search = _action(library, "BOOKS_LIST", "ACT_BOOKS_SEARCH")
    assert search.params[0].type == ir.ChoiceType(values=ids)
    assert [(g.op, g.text) for g in search.gui] == [("type", "{item_id}"), ("press", "Enter")]
    assert _requires(library, "BOOKS_LIST", "ACT_BOOKS_OPEN_MATCHED")[-1] == "item_id == books_matched_id"
    assert _action(library, "BOOKS_LIST", "ACT_BOOKS_OPEN_FILTERED").gui[-1].selector == "#book-list .row-filtered-{item_id}"
    scroll = _action(library, "BOOKS_LIST", "ACT_BOOKS_SCROLL_INTO_VIEW").gui
    assert [(g.op, g.selector) for g in scroll] == [("scroll_until_visible", "book-list-{item_id}"),
                                                    ("click", "book-list-{item_id}")]


def test_each_item_is_a_task_and_each_access_method_a_trajectory(library: ir.Spec, tmp_path: Path) -> None:
    from fsmc.enumerate.run import enumerate_spec

    assert [t.instruction for t in library.tasks] == [
        "Go to the book detail page on Library.",
        "On Library's book detail page, click Borrow.",
        "Open the first book on Library.", "Open the second book on Library.",  # invented rows: by their place
        "Open the third book on Library."]
    world = tmp_path / "library.json"  # without its app folder
    world.write_text(ITEMS.read_text())
    enumerate_spec(Compilation(world), tmp_path / "out")
    lines = (tmp_path / "out" / "trajectories.jsonl").read_text().splitlines()
    opened = [t for t in map(json.loads, lines) if t["task_id"] == "open_book_detail_books_selected_id_book_2"]
    assert sorted(t["moves"][-1]["state"]["vars"]["access_method"] for t in opened) == ["filter", "scroll", "search"]
    assert {t["moves"][-1]["args"]["item_id"] for t in opened} == {"book-2"}
    tasks = [json.loads(line) for line in (tmp_path / "out" / "tasks.jsonl").read_text().splitlines()]
    assert len({t["instruction"] for t in tasks}) == len(tasks)  # no derived goal repeats an item's task


def test_the_item_tasks_leave_no_placeholder_goals(tmp_path: Path) -> None:
    """A detail page that a navigation also opens without an item (the field none, as github's repository page)
    derives no "set books selected id to none": the item tasks pin the field row by row, so no value goal adds its
    other values (fsmc.enumerate.goals); no instruction shows a symbol or none, and no two are equal."""
    from fsmc.enumerate.run import enumerate_spec

    data = json.loads(ITEMS.read_text())
    done = next(p for p in data["pages"] if p["id"] == "BORROW_DONE")
    done["actions"] = [{"id": "ACT_BORROW_DONE_BACK", "name": "click", "is_navigation": True, "from": "BORROW_DONE",
                        "to": "BOOK_DETAIL", "parameters": {}, "preconditions": [], "effects": [],
                        "gui_procedure": [{"op": "click", "selector": "#back-to-book"}]}]
    world = tmp_path / "library.json"
    world.write_text(json.dumps(data))
    enumerate_spec(Compilation(world), tmp_path / "out")
    tasks = [json.loads(line) for line in (tmp_path / "out" / "tasks.jsonl").read_text().splitlines()]
    texts = [t["instruction"] for t in tasks]
    assert [t["kind"] for t in tasks] == ["task"] * 5 and len(set(texts)) == len(texts)
    assert not [t for t in texts if re.search(r"ITEM_ANY|GEN_ID|\bNOW\b|\bnone\b|_", t)]


def test_a_path_enters_items_by_one_access_method(tmp_path: Path) -> None:
    """bfs_action.py searches once per access method, the others' entries disabled: a search whose results open
    only by a scroll is no path, so the terminal is 3 steps away by browsing, not 2 (their generator says 3)."""
    from fsmc.enumerate.run import enumerate_spec

    world = FIXTURE.with_name("access_mix_fsm.json")
    spec, warnings = read_fsm_json(json.loads(world.read_text()), str(world))
    assert [v.name for v in spec.session] == ["access_method"]
    assert _requires(spec, "BROWSE_MORE", "BROWSE_MORE_OPEN_ANY_TRIP") == ['access_method != "search"']
    assert any(d.code == "W009" and d.message.startswith("meta.global_signature_schema: access methods")
               for d in warnings)
    enumerate_spec(Compilation(world), tmp_path / "out")
    terminal = json.loads((tmp_path / "out" / "bfs.json").read_text())["terminals"][0]
    assert terminal["shortest_step_count"] == 3
    assert [p["id_seq"][-1] for p in terminal["paths"]] == ["BROWSE_MORE.BROWSE_MORE_OPEN_ANY_TRIP"]


def test_the_app_folder_gives_the_rows(tmp_path: Path) -> None:
    """initial_data.js beside the world: its first rows (scalar members as columns) are the table, items its keys."""
    spec, warnings = read_fsm_json(json.loads(ITEMS.read_text()), str(ITEMS))
    books = spec.table("books")
    assert [c.name for c in books.columns] == ["id", "title", "author", "year", "image"]  # shelf: an object, left out
    assert books.rows[0] == ("bk-101", "Dune", "Frank Herbert", 1965, "/images/dune.jpg")
    assert len(books.rows) == 5  # the sixth is past DATA_ROWS
    assert _action(spec, "BOOKS_LIST", "ACT_BOOKS_SEARCH").params[0].type == ir.ChoiceType(
        values=("bk-101", "bk-102", "bk-103", "bk-104", "bk-105"))
    assert [t.instruction for t in spec.tasks][2:4] == ["Open the book 'Dune' on Library.", "Open the book 'Emma' on Library."]
    assert any("take their rows from the app's initial_data.js" in d.message for d in warnings)
    assert (LIBRARY / "web" / books.rows[0][4].lstrip("/")).exists() is False  # images live under web/public
    assert (LIBRARY / "web" / "public" / books.rows[0][4].lstrip("/")).is_file()


def test_a_world_inside_its_app_folder_takes_its_rows(tmp_path: Path) -> None:
    """AutoWebWorld keeps a world's fsm.json in its app (web/fsm.json beside web/src/): that folder is the app's."""
    app = tmp_path / "web"
    shutil.copytree(LIBRARY / "web", app)
    shutil.copy(ITEMS, app / "fsm.json")
    spec, _ = read_fsm_json(json.loads(ITEMS.read_text()), str(app / "fsm.json"))
    assert spec.table("books").rows[0] == ("bk-101", "Dune", "Frank Herbert", 1965, "/images/dune.jpg")
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(ITEMS, bare / "fsm.json")  # no src/ beside it: no app folder, invented rows
    spec, _ = read_fsm_json(json.loads(ITEMS.read_text()), str(bare / "fsm.json"))
    assert spec.table("books").rows[0][0] != "bk-101"


def test_the_app_folder_gives_the_pictures(tmp_path: Path) -> None:
    """Rows whose picture web/public/ holds show that file, served where the app serves it; the others get the
    generated picture; a world without its folder is pictured as before (books have no price: no pictures)."""
    from fsmc.codegen import generate

    spec = Compilation(ITEMS).ir
    root = generate(spec, tmp_path / "sites").root
    for name in ("dune.jpg", "emma.jpg"):
        assert (root / "public" / "images" / name).read_bytes() == (LIBRARY / "web" / "public" / "images" / name).read_bytes()
    data = (root / "src" / "data.js").read_text()
    images = json.loads(data.split("export const IMAGES = ", 1)[1].split("\n", 1)[0])
    assert images["books"]["bk-101"] == "images/dune.jpg" and images["books"]["bk-102"] == "images/emma.jpg"
    assert images["books"]["bk-103"] == "img/books/2.svg"  # Beloved has no picture: a generated one
    alone = tmp_path / "alone.json"
    alone.write_text(ITEMS.read_text())
    bare = generate(Compilation(alone).ir, tmp_path / "bare").root
    assert not (bare / "public" / "images").exists()
    assert "export const IMAGES = {}" in (bare / "src" / "data.js").read_text()


def _library_copy(tmp_path: Path, data: str | None) -> Path:
    world = tmp_path / "library"
    (world / "web" / "src" / "stores").mkdir(parents=True)
    (world / "fsm.json").write_text(ITEMS.read_text())
    if data is not None:
        (world / "web" / "src" / "stores" / "initial_data.js").write_text(data)
    return world / "fsm.json"


def test_an_app_folder_without_data_keeps_invented_rows_with_a_note(tmp_path: Path) -> None:
    spec, warnings = read_fsm_json(json.loads(ITEMS.read_text()), str(_library_copy(tmp_path, None)))
    assert spec.table("books").rows[0][0] == "book-1"
    assert any("has no src/stores/initial_data.js: the array<object> fields keep invented rows" in d.message
               for d in warnings)
    assert any("has no public/ folder of images: rows show generated pictures" in d.message for d in warnings)
    spec, warnings = read_fsm_json(json.loads(ITEMS.read_text()),
                                   str(_library_copy(tmp_path / "other", "export const members = [{ id: 1 }];")))
    assert spec.table("books").rows[0][0] == "book-1"
    assert any("has no list of rows named like 'books'" in d.message for d in warnings)


def test_a_malformed_initial_data_js_is_a_located_error(tmp_path: Path) -> None:
    world = _library_copy(tmp_path, "export const books = [\n  { id: 'bk-1', title: 'Dune' },\n  { id: 'bk-2' title: 'Emma' },\n];\n")
    with pytest.raises(SpecError) as err:
        read_fsm_json(json.loads(ITEMS.read_text()), str(world))
    (d,) = err.value.diagnostics
    assert d.code == "E005" and d.span.file.endswith("initial_data.js") and (d.span.line, d.span.col) == (3, 16)
    assert d.message == "src/stores/initial_data.js: expected '}', found 'title'"


def test_js_data_reads_literals_and_skips_code() -> None:
    from fsmc.formats.js_data import JsDataError, read_js_data

    text = ("// rows\nconst a = { id: 'x', n: -1.5, ok: true, none: null, }; /* note */\n"
            "export function f(x) { return { y: x }; }\nconst b = make(1);\n"
            "export default { a, list: [a, ...[1, 2],], 'q k': `t`, ...{ z: 0 } };\n")
    assert read_js_data(text) == {"a": {"id": "x", "n": -1.5, "ok": True, "none": None},
                                  "default": {"a": {"id": "x", "n": -1.5, "ok": True, "none": None},
                                              "list": [{"id": "x", "n": -1.5, "ok": True, "none": None}, 1, 2],
                                              "q k": "t", "z": 0}}
    assert read_js_data("const r = [{ id: 'x', at: new Date(1), n: 1 + 2, t: `v ${x}`, c: f([2]), ok: 'y' }];") == {
        "r": [{"id": "x", "at": None, "n": None, "t": None, "c": None, "ok": "y"}]}  # code inside a literal: null
    for bad, where in (("const a = [1, 2", "1:16"), ("const a = { b: 'x }", "1:16"), ("const a = { b 'x' }", "1:15")):
        with pytest.raises(JsDataError) as err:
            read_js_data(bad)
        assert str(err.value).startswith(where), err.value
