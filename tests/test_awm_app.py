"""Another generator's site as a backend: an AutoWebWorld-shaped app folder, built, acted on and verified by fsmc.

tests/fixtures/awm_app/web is a small app of our own in the shape AutoWebWorld publishes (package.json, fsm.json,
src/fsm/FSMRuntime.js, a pinia store `signature`, a router, one .vue per page, and no index.html, main.js or App.vue,
as their folders come; a list of notes from src/stores/initial_data.js whose rows carry their id as a class beside the
world's abstract selector, and whose search matches a note by its title). fsmc enumerates its world, builds the
folder, acts every trajectory out on it with the world's selectors and compares the runtime's signature with the
semantics after every move; a copy whose page sets the wrong field is caught and named; folders that are not such
an app, or do not build, are clear errors.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fsmc import Compilation
from fsmc.cli import main
from fsmc.codegen.awm_app import read_app_folder
from fsmc.enumerate import Options, enumerate_spec

WEB = Path(__file__).resolve().parent / "fixtures" / "awm_app" / "web"
TRAJECTORIES = 13  # one per page the world reaches, and one per note and way of finding it


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Builds go to a cache of the module's own."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("out")
    enumerate_spec(Compilation(str(WEB / "fsm.json")), folder, Options())
    return folder


def app_copy(tmp_path: Path, page: str, old: str, new: str) -> Path:
    """The fixture app with one page changed."""
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    path = web / "src" / "pages" / page
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return web


def verify(out: Path, web: Path, data: Path, capsys: pytest.CaptureFixture[str], *limit: str) -> tuple[int, dict[str, Any], str]:
    code = main(["replay", str(out), "--app", str(web), "-o", str(data), "--workers", "2", *limit])
    report = json.loads((data / "report.json").read_text(encoding="utf-8"))
    return code, report["agreement"], capsys.readouterr().out


def test_the_packages_an_app_needs_are_those_its_sources_import() -> None:
    app = read_app_folder(WEB)
    assert app.packages() == {"@vitejs/plugin-vue": "^6.0.0", "pinia": "^3.0.4", "vite": "^8.0.0", "vue": "^3.5.0",
                              "vue-router": "^4.6.5"}
    assert not app.tailwind and not app.persisted


def test_every_trajectory_executes_and_agrees(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found, printed = verify(out, WEB, tmp_path / "data", capsys)
    assert (code, found) == (0, {"trajectories": TRAJECTORIES, "executed": TRAJECTORIES, "agree": TRAJECTORIES,
                                 "disagreements": []})
    assert f"{TRAJECTORIES}/{TRAJECTORIES} trajectories execute, {TRAJECTORIES}/{TRAJECTORIES} agree" in printed
    kept = [json.loads(line) for line in (tmp_path / "data" / "trajectories.jsonl").read_text().splitlines()]
    typed = {(s["selector"], s["text"]) for t in kept for s in t["steps"] if s["op"] == "type"}
    assert typed == {('[data-testid="search-input"], [id="search-input"]', "groceries"),  # their `#search-input`
                     ('[data-testid="note-title"], [id="note-title"]', "Pay rent"),
                     *(('[data-testid="notes-search"], [id="notes-search"]', title)  # a note is searched by its title
                       for title in ("Dentist at nine", "Book club picks", "Tax papers"))}


def test_an_item_is_found_by_its_title_and_opened_on_its_own_row(out: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The world's selector of a row (`#note-list .note-row-filtered`) names every row the filter left: the one
    clicked is the row that carries the trajectory's note (`data-id-n-2`); a search types the note's title, by which
    their list finds it, so that the row it marks as matched is that note's."""
    code, found, _ = verify(out, WEB, tmp_path / "data", capsys, "--limit", "7")  # the 7th opens n-2 by the filter
    kept = {t["id"]: t for t in map(json.loads, (tmp_path / "data" / "trajectories.jsonl").read_text().splitlines())}
    assert (code, found["agree"]) == (0, 7)
    opened = [(s["op"], s["selector"], s.get("text"), s["element"]) for t in ("open_note_detail#1", "open_note_detail#2")
              for s in kept[t]["steps"] if s["op"] != "press" and s["url"] == "/notes"]
    assert opened == [("type", '[data-testid="notes-search"], [id="notes-search"]', "Book club picks", "Find a note"),
                      ("click", "#note-list .note-row-matched", None, "Book club picks"),  # the one row it marks
                      ("click", '[data-testid="filter-pinned"], [id="filter-pinned"]', None, "Pinned"),
                      ("click", "#note-list .note-row-filtered.data-id-n-2", None, "Book club picks")]  # of three


def test_a_page_that_sets_the_wrong_field_is_named(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    web = app_copy(tmp_path, "NOTE_NEW.vue", "store.dispatch('ACT_MARK_PRIVATE')", "store.signature.note_pinned = true")
    code, found, printed = verify(out, web, tmp_path / "data", capsys, "--limit", "2")  # the second saves a note
    assert code == 1
    assert (found["trajectories"], found["executed"], found["agree"]) == (2, 2, 1)  # its operations all still ran
    assert found["disagreements"] == [{"trajectory": "open_note_saved#0", "move": 3, "action": "ACT_MARK_PRIVATE",
                                       "difference": "note_private = null (expected true)"}]
    assert "open_note_saved#0: first differs at move 3 (ACT_MARK_PRIVATE): note_private = null (expected true)" in printed


def test_a_folder_that_is_not_such_an_app_is_refused(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "web" / "src").mkdir(parents=True)
    assert main(["replay", str(out), "--app", str(tmp_path / "web"), "-o", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'web'}: not an AutoWebWorld app folder: fsm.json, src/stores/signature.js" in err
    assert "Traceback" not in err


def test_a_file_the_sources_import_but_the_folder_lacks_is_named(out: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    web = app_copy(tmp_path, "HOME.vue", "import { ref } from 'vue';",
                   "import { ref } from 'vue';\nimport DatePicker from '../components/widgets/DatePicker.vue';")
    assert main(["replay", str(out), "--app", str(web), "-o", str(tmp_path / "data")]) == 2
    assert "src/pages/HOME.vue imports ../components/widgets/DatePicker.vue" in capsys.readouterr().err


def test_a_build_that_fails_names_the_command_and_shows_its_log(out: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    web = app_copy(tmp_path, "NOTE_SAVED.vue", "</template>", "</templat>")
    assert main(["replay", str(out), "--app", str(web), "-o", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert f"error: building {web}: `" in err and "vite.js build --config fsmc.vite.config.mjs" in err
    assert "NOTE_SAVED.vue" in err and "Traceback" not in err


def test_a_control_in_a_sidebar_list_is_scrolled_to_by_a_wheel_over_that_list() -> None:
    """Their pages scroll a sidebar's list of their own (slack's channels, `overflow-y-auto` beside a main pane): a wheel
    turned at the centre of the view moves nothing there, so the turn is taken over the list the control lies in."""
    import asyncio

    from playwright.async_api import async_playwright

    from fsmc.backends import Capture, Op
    from fsmc.backends.captured import SelectorActor
    from fsmc.browser.chromium import launch

    page_html = ('<body style="margin:0;display:flex;height:100vh;overflow:hidden">'
                 '<nav id="side" style="width:200px;overflow-y:auto"><div style="height:2000px"></div>'
                 '<button id="far" onclick="this.textContent = \'done\'">Direct messages</button></nav>'
                 '<main style="flex:1">Channel</main></body>')

    async def act() -> tuple[list[tuple[str, tuple[int, int] | None]], str]:
        async with async_playwright() as pw:
            browser = await launch(pw)
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.set_content(page_html)
            steps = await SelectorActor(page, fake_time=False).perform(Op("click", "#far"), Capture.NONE)
            said = await page.inner_text("#far")
            await browser.close()
            return [(s.op, s.point) for s in steps], said

    steps, said = asyncio.run(act())
    assert said == "done" and steps[-1][0] == "click"
    assert steps[:-1] and all(s == ("scroll", (100, 360)) for s in steps[:-1])  # over the sidebar, not at (640, 360)
