"""fsmc capture and import on a real application that bundles its documentation: Trac (PyPI `Trac`), three tickets.

Captured from its ticket query to depth 1 with a budget that the application's own pages fill: the crawl loads them
before the bundled wiki help that the same page links to; the draft declares Trac's menus once, opens a ticket by one
action over the rows (each row links to its ticket twice, by number and by summary) and names each ticket's page by
its own title.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from trac_site import PYTHON, Trac

from fsmc.capture import Options, capture
from fsmc.capture.importer import import_capture
from fsmc.capture.sitemap import documentation

START = "query?status=!closed&col=summary&order=id"  # the tickets, by number and summary


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    assert PYTHON.is_file(), f"{PYTHON} is missing: scripts/setup.sh installs Trac there"
    root = tmp_path_factory.mktemp("trac")
    trac = Trac(root, ["Printer jams", "Screen flickers", "Mouse sticks"])
    try:
        manifest = capture(trac.url + START, root / "captures" / "desk", Options(depth=1, pages=15))
    finally:
        trac.stop()
    return root, manifest


def test_the_budget_goes_to_the_application_before_its_bundled_documentation(
        captured: tuple[Path, dict[str, object]]) -> None:
    _, manifest = captured
    paths = [urlsplit(p["url"]).path for p in manifest["pages"]]  # type: ignore[attr-defined]
    docs = [documentation(p) for p in paths]
    assert docs == sorted(docs) and 1 <= sum(docs) < 3, paths  # the start page links to six help pages
    assert {"/ticket/1", "/ticket/2", "/ticket/3", "/timeline", "/roadmap"} <= set(paths)


def test_the_draft_models_the_application(captured: tuple[Path, dict[str, object]]) -> None:
    root, _ = captured
    made = import_capture(root / "captures" / "desk", root / "specs" / "desk.fsm")
    text = (root / "specs" / "desk.fsm").read_text(encoding="utf-8")
    menu = ["/timeline", "/roadmap", "/report", "/search", "/about", "/prefs"]
    assert [text.count(rf'a[href=\"{href}\"]"') for href in menu] == [1] * len(menu)
    assert 'action open_ticket_item(id: {"1", "2", "3"})' in text and r'a[href=\"/ticket/{id}\"]"' in text
    tasks = {t.name: t.instruction for t in made.spec.tasks}
    assert tasks["reach_ticket_item_2"] == 'Open the page "#2 (Screen flickers) – Tracker".'
    assert tasks["reach_ticket_item_3"] == 'Open the page "#3 (Mouse sticks) – Tracker".'


def test_pages_that_share_a_title_are_told_apart_by_their_paths() -> None:
    """Trac titles both /wiki and /wiki/WikiStart "Tracker": two tasks may not read the same."""
    from fsmc.capture.importer import draft
    from fsmc.capture.sitemap import Capture, canonical

    pages = {"/": '<title>Home</title><a href="/wiki">Wiki</a> <a href="/wiki/Start">Start</a>',
             "/wiki": '<title>Docs</title><a href="/">Home</a>', "/wiki/Start": '<title>Docs</title><a href="/">Home</a>'}
    made = draft(Capture("desk", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages}), "../captures/desk")
    assert sorted(t.instruction for t in made.spec.tasks) == ['Open the page "Docs" at /wiki.',
                                                             'Open the page "Docs" at /wiki/Start.']


def test_a_query_its_title_does_not_tell_apart_is_reached_by_the_link_that_led_there() -> None:
    """Trac's reports sorted by a column read "Available Reports" sorted or not: the task names the column's link,
    not the query's parameters (`with asc = 1, sort = title`)."""
    from fsmc.capture.importer import draft
    from fsmc.capture.sitemap import Capture, canonical

    pages = {"/": '<title>Home</title><a href="/report">Reports</a>',
             "/report": '<title>Reports</title><a href="/report?sort=title&amp;asc=1">Title</a>',
             "/report?sort=title&asc=1": '<title>Reports</title><a href="/">Home</a>'}
    made = draft(Capture("desk", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages}), "../captures/desk")
    assert sorted(t.instruction for t in made.spec.tasks) == ['On the page "Reports", follow the link "Title".',
                                                             'Open the page "Reports".']
