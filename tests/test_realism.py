"""Sites read as websites from any spec: words from identifiers, copy that fits, and the realism report measured
in Chromium on a spec that gives nothing but identifiers (AutoWebWorld's shape, no titles, labels or data)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fsmc import load
from fsmc.backends.realism import duplicate_names, identifiers_in, measure, spec_identifiers, trajectory_views
from fsmc.codegen.inventory import invented
from fsmc.codegen.present import site_kind, site_title
from fsmc.codegen.words import action_phrase, field_phrase, looks_like_identifier, menu_option, option_phrase, site_name

ROOT = Path(__file__).resolve().parent.parent
AWM = ROOT / "tests" / "fixtures" / "autowebworld"
WEBMAIL = AWM / "webmail_fsm.json"


# ---------------------------------------------------------------- words
@pytest.mark.parametrize(("identifier", "page", "words"), [
    ("ACT_NEW_PR_SUBMIT", "", "Submit new pull request"),
    ("ACT_GO_TO_INBOX", "HOME", "Go to inbox"),
    ("ACT_HOME_GO_REPOS_DIRECT", "HOME", "Go to repositories"),
    ("ACT_REPOS_SORT", "REPOSITORIES_LIST", "Sort repositories"),
    ("ACT_CARD_FREEZE", "CARD_DETAIL", "Freeze card"),
    ("ACT_REPOS_SCROLL_INTO_VIEW", "REPOSITORIES_LIST", "Scroll into view"),
    ("ACT_LOGIN", "", "Sign in"),
])
def test_an_action_reads_verb_first_without_code_words(identifier: str, page: str, words: str) -> None:
    assert action_phrase(identifier, page=page) == words


def test_fields_options_menus_and_names_read_as_words() -> None:
    assert field_phrase("#repo-search-input") == "Search repositories"
    assert field_phrase("inbox-search") == "Search inbox"
    assert option_phrase("ACT_REPOS_FILTER_PRIVATE_CHECKBOX") == "Private"
    assert menu_option("repos-sort-updated-desc", "repos-sort-dropdown") == "Updated, newest first"
    assert site_name("Code_Hosting-GitHub_app") == "GitHub"
    assert site_name("webmail_app") == "Webmail"
    assert looks_like_identifier("ACT_GO") and looks_like_identifier("cookie-accept")
    assert not looks_like_identifier("Go to inbox") and not looks_like_identifier("e.g. wool")


def test_copy_fits_the_kind_of_site_or_is_left_out() -> None:
    assert site_kind(load(ROOT / "specs" / "shop.fsm")) == "shop"
    assert site_kind(load(ROOT / "specs" / "flights.fsm")) == "travel"
    assert site_kind(load(WEBMAIL)) == "mail"
    assert site_kind(load(AWM / "conventions_fsm.json")) == "other"  # a ticket desk: no banner rather than another's
    assert site_title(load(WEBMAIL)) == "Webmail"
    assert site_title(load(ROOT / "specs" / "shop.fsm")) == "Northwind Outfitters"  # the spec's own title stays


def test_a_count_of_stars_is_no_rating_and_a_pictures_path_is_never_text() -> None:
    from fsmc import ir
    from fsmc.codegen.present import column_format

    def table(stars: float, image: str) -> ir.Table:
        columns = (ir.Column(name="id", type="str"), ir.Column(name="stars", type="num"),
                   ir.Column(name="image", type="str"))
        return ir.Table(name="repos", key="id", columns=columns, rows=(("r1", stars, image),))

    assert column_format(table(4.5, "x"), 1) == "rating"  # ★ 4.5
    assert column_format(table(1200, "x"), 1) == "count"  # 1200 stars, not ★ 1200.0
    assert column_format(table(4.5, "/images/repo-1.jpg"), 2) == "hidden"  # shown as the row's picture
    assert column_format(table(4.5, "Blue"), 2) == "text"


def test_the_inventory_says_what_was_invented() -> None:
    ids_only = invented(load(WEBMAIL))
    # the AutoWebWorld importer words a world's page titles itself (fsmc/formats/awm/build.py): the site invents none
    assert (ids_only.named_from_id, ids_only.page_titles, ids_only.action_labels) == (True, 0, 23)
    assert all(p.title and "_" not in p.title for p in load(WEBMAIL).pages)
    assert "no data" in ids_only.summary() and "mail copy" in ids_only.summary()
    assert invented(load(ROOT / "specs" / "shop.fsm")).summary().startswith("no words")


def test_identifiers_are_found_as_written_and_spaced_in_capitals() -> None:
    ids = spec_identifiers(load(WEBMAIL))
    assert {"ACT_ACCEPT_COOKIES", "cookie-accept", "current_user_id"} <= ids and "HOME" not in ids
    assert identifiers_in("ACT ACCEPT COOKIES", ids) == ["ACT_ACCEPT_COOKIES"]
    assert identifiers_in("Accept cookies · Current user", ids) == []
    assert duplicate_names([{"name": "Open", "enabled": True}, {"name": "open", "enabled": True},
                            {"name": "Back", "enabled": False}, {"name": "Back", "enabled": True}]) == ["open"]


# ---------------------------------------------------------------- measured in Chromium
@pytest.fixture(scope="module")
def webmail_built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The ids-only world built, and enumerated."""
    from fsmc.codegen import build_site
    from fsmc.enumerate import Options, enumerate_spec

    work = tmp_path_factory.mktemp("realism")
    enumerate_spec(WEBMAIL, work / "out", Options(per_goal=2))
    return build_site(load(WEBMAIL), work / "sites").dist, work / "out"


def test_a_spec_of_identifiers_builds_a_site_without_one_visible(webmail_built: tuple[Path, Path]) -> None:
    dist, out = webmail_built
    trajectories = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    views, steps = trajectory_views(trajectories)
    figures = measure(dist, load(WEBMAIL), views, steps).figures()
    assert figures["views"] >= 8 and figures["typed"] >= 2
    assert figures["identifier_views"] == 0, figures["identifiers_seen"]
    assert figures["typed_visible"] == figures["typed"]  # the field shows what the state recorded of the typing
    assert figures["duplicate_views"] == 0, figures["duplicates_seen"]
    assert figures["thin_pct"] <= 10, figures["thin_pages"]  # reads as a website: content besides its controls


def test_every_control_has_a_role_and_a_name_of_its_own(webmail_built: tuple[Path, Path]) -> None:
    import asyncio

    from fsmc.backends import GeneratedSite
    from fsmc.backends.realism import PROBE_JS

    dist, out = webmail_built
    trajectories = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    views, _ = trajectory_views(trajectories)

    async def probe() -> list[dict[str, str]]:
        seen = []
        async with GeneratedSite(dist) as site:
            episode = await site.open()
            for state in views:
                await episode.reset(state)
                seen += (await episode.page.evaluate(PROBE_JS))["controls"]
        return seen

    controls = asyncio.run(probe())
    assert controls
    assert [c for c in controls if c["role"] in ("span", "div", "article") or not c["name"]] == []


def test_fsmc_build_prints_what_it_invented(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "fsmc", "build", str(WEBMAIL), "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert 'realism: invented words for the name "Webmail", 23/23 action labels' in done.stdout


# ---------------------------------------------------------------- widgets chosen for AutoWebWorld's shapes
def _world(tmp_path: Path) -> Path:
    """A two-page world in AutoWebWorld's shape: a checkbox that ticks a flag, a drop-down sort, a way on."""
    def act(aid: str, gui: list[dict[str, str]], effects: list[dict[str, object]], to: str = "LIST") -> dict[str, object]:
        return {"id": aid, "name": "click", "is_navigation": to != "LIST", "from": "LIST", "to": to, "parameters": {},
                "preconditions": [], "effects": effects, "gui_procedure": gui}

    world = {"meta": {"app": "Code_Hosting-GitHub_app", "version": "1", "initial_page_id": "LIST",
                      "terminal_pages": ["DONE"]},
             "pages": [{"id": "LIST", "signature_schema": {"private_only": "boolean|null", "sorted": "boolean|null"},
                        "actions": [
                            act("ACT_REPOS_FILTER_PRIVATE_CHECKBOX", [{"op": "click", "selector": "filter-private-checkbox"}],
                                [{"op": "set", "path": "$.private_only", "value": True}]),
                            act("ACT_REPOS_SORT", [{"op": "click", "selector": "repos-sort-dropdown"},
                                                   {"op": "click", "selector": "repos-sort-updated-desc"}],
                                [{"op": "set", "path": "$.sorted", "value": True}]),
                            act("ACT_REPOS_NEW_REPO", [{"op": "click", "selector": "new-repo-button"}], [], "DONE")]},
                       {"id": "DONE", "signature_schema": {}, "actions": []}]}
    path = tmp_path / "world_fsm.json"
    path.write_text(json.dumps(world))
    return path


def test_a_drop_down_is_a_menu_of_options_and_a_checkbox_says_what_it_ticks(tmp_path: Path) -> None:
    from fsmc.codegen.layout import decide_layout

    spec = load(_world(tmp_path))
    placements = decide_layout(spec)[0].placements
    tick, opener, option, new = placements
    assert (tick.role, tick.text) == ("toggle", "Private")
    assert opener.kind == "opener" and opener.role != "modal" and opener.words == "Sort repositories"
    assert option.text == "Updated, newest first" and option.menu == 0
    assert "Confirm" not in {p.text for p in placements}
    assert site_title(spec) == "GitHub" and site_kind(spec) == "code"


def test_a_sign_in_form_names_the_site_and_its_terms(tmp_path: Path) -> None:
    """A form for an account says what it is for, on which site, with the small print such forms carry; any other
    form says what it is, on which site, and what to fill in."""
    from fsmc.codegen.layout import decide_layout

    def typing(page: str, aid: str, selector: str, flag: str) -> dict[str, object]:
        return {"id": aid, "name": "type", "is_navigation": False, "from": page, "to": page, "parameters": {},
                "preconditions": [], "effects": [{"op": "set", "path": f"$.{flag}", "value": True}],
                "gui_procedure": [{"op": "type_text", "selector": selector, "text": "{input_text}"}]}

    world = {"meta": {"app": "E_Commerce_marketplace-JD.COM_app", "version": "1", "initial_page_id": "LOGIN",
                      "terminal_pages": []},
             "pages": [{"id": "LOGIN", "signature_schema": {"user_typed": "boolean|null", "pass_typed": "boolean|null"},
                        "actions": [typing("LOGIN", "ACT_LOGIN_TYPE_USERNAME", "#login-username", "user_typed"),
                                    typing("LOGIN", "ACT_LOGIN_TYPE_PASSWORD", "#login-password", "pass_typed"),
                                    {"id": "ACT_LOGIN_GO_FEEDBACK", "name": "click", "is_navigation": True,
                                     "from": "LOGIN", "to": "FEEDBACK", "parameters": {}, "preconditions": [],
                                     "effects": [], "gui_procedure": [{"op": "click", "selector": "#feedback"}]}]},
                       {"id": "FEEDBACK", "signature_schema": {"typed": "boolean|null"},
                        "actions": [typing("FEEDBACK", "ACT_FEEDBACK_TYPE", "#feedback-comment", "typed")]}]}
    path = tmp_path / "login_fsm.json"
    path.write_text(json.dumps(world))
    login, feedback = decide_layout(load(path))
    assert login.lead == "Sign in to JD.COM with your username and password."
    assert login.note == "By signing in, you agree to JD.COM's Terms of Use and Privacy Notice."
    assert (feedback.lead, feedback.note) == ("Feedback on JD.COM. Fill in feedback comment.", "")


def test_text_typed_for_a_placeholder_is_recorded_and_stays_in_its_field(tmp_path: Path) -> None:
    """Their "{input_text}" names nothing: the importer types one value that the state records (a name), or that a
    flag says was typed (an email): after each move the field still shows it, as the realism report measures."""
    from fsmc.codegen import build_site
    from fsmc.enumerate import Options, enumerate_spec

    def typing(aid: str, selector: str, effect: dict[str, object]) -> dict[str, object]:
        return {"id": aid, "name": "type", "is_navigation": False, "from": "SIGNUP", "to": "SIGNUP", "parameters": {},
                "preconditions": [], "effects": [effect], "gui_procedure": [
                    {"op": "click", "selector": selector}, {"op": "type_text", "selector": selector,
                                                            "text": "{input_text}"}]}

    world = {"meta": {"app": "Music_Streaming-Spotify_app", "version": "1", "initial_page_id": "SIGNUP",
                      "terminal_pages": ["DONE"]},
             "pages": [{"id": "SIGNUP", "signature_schema": {"signup_email_entered": "boolean|null",
                                                             "signup_name": "string|null"}, "actions": [
                 typing("ACT_SIGNUP_TYPE_EMAIL", "#signup-email-input",
                        {"op": "set", "path": "$.signup_email_entered", "value": True}),
                 typing("ACT_SIGNUP_TYPE_NAME", "#signup-name-input",
                        {"op": "set", "path": "$.signup_name", "value": "{input_text}"}),
                 {"id": "ACT_SIGNUP_SUBMIT", "name": "click", "is_navigation": True, "from": "SIGNUP", "to": "DONE",
                  "parameters": {}, "effects": [], "gui_procedure": [{"op": "click", "selector": "#signup-submit"}],
                  "preconditions": [{"path": "$.signup_email_entered", "cond": "eq", "value": True},
                                    {"path": "$.signup_name", "cond": "not_null"}]}]},
                       {"id": "DONE", "signature_schema": {}, "actions": []}]}
    path = tmp_path / "signup_fsm.json"
    path.write_text(json.dumps(world))
    spec = load(path)
    typed = [op.text for p in spec.pages for a in p.actions for op in a.gui if op.op == "type"]
    assert typed == ["alex.morgan@example.com", "My signup"]
    enumerate_spec(path, tmp_path / "out", Options(per_goal=2))
    trajectories = [json.loads(line) for line in (tmp_path / "out" / "trajectories.jsonl").read_text().splitlines()]
    views, steps = trajectory_views(trajectories)
    figures = measure(build_site(spec, tmp_path / "sites").dist, spec, views, steps).figures()
    assert figures["typed"] == 2 and figures["typed_visible"] == 2


def test_style_notes_beside_a_world_give_the_theme_its_colour_and_font(tmp_path: Path) -> None:
    """AutoWebWorld's style.txt (notes of our own here, in their form): the primary buttons' colour and the font
    family reach the site's theme; text on the accent is whichever of white and near-black contrasts more."""
    from fsmc.codegen.site import generate
    from fsmc.codegen.themes import THEMES, with_style_notes

    notes = ("# Visual Design Style Guide\n## Color Scheme\n- **Background**: #ffffff (Card content)\n"
             "- **Primary**: Harbour Blue (`#0B5CAD`) - Used for header, primary buttons, links.\n"
             "## Typography\n- **Font Family**: 'Inter', system-ui, sans-serif.\n")
    world = _world(tmp_path)
    (tmp_path / "style.txt").write_text(notes)
    site = generate(load(world), tmp_path / "sites")
    css = (site.root / "src" / "style.css").read_text()
    assert "--accent: #0b5cad; --accent-text: #ffffff;" in css and "font-family: 'Inter', system-ui, sans-serif," in css
    light = with_style_notes(THEMES["harbor"], "- Brand: #1DB954 (green) - Primary Buttons\n")
    assert (light.accent, light.accent_text, light.font) == ("#1db954", "#111111", THEMES["harbor"].font)
    assert with_style_notes(THEMES["harbor"], "Calm and friendly.\n") == THEMES["harbor"]  # nothing usable: unchanged
    plain = generate(load(world), tmp_path / "chosen", theme="harbor")  # a theme asked for is taken as it is
    assert f"--accent: {THEMES['harbor'].accent};" in (plain.root / "src" / "style.css").read_text()


def test_words_in_capitals_by_css_are_read_as_written() -> None:
    """A heading a theme puts in capitals ("Order summary" shown as ORDER SUMMARY) is not the page id ORDER_SUMMARY."""
    import asyncio

    from playwright.async_api import async_playwright

    from fsmc.backends.realism import PROBE_JS
    from fsmc.browser.chromium import launch

    async def probe() -> dict[str, object]:
        async with async_playwright() as pw:
            browser = await launch(pw)
            page = await browser.new_page()
            await page.set_content('<main><h2 style="text-transform: uppercase">Order summary</h2>'
                                   '<p style="text-transform: uppercase">ACT_GO</p></main>')
            seen: dict[str, object] = await page.evaluate(PROBE_JS)
            await browser.close()
            return seen

    seen = asyncio.run(probe())
    assert identifiers_in(str(seen["text"]), {"ORDER_SUMMARY", "ACT_GO"}) == ["ACT_GO"]  # one written as code still is
