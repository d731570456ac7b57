"""fsmc import on a real third-party application: datasette captured, a draft spec imported, enumerated and replayed.

The path a user takes: datasette over a small SQLite file is captured live, with the flows beside the example that
submit its filter form (specs/datasette/flows.json), then stopped (a tripwire listens on its port); `fsmc import`
writes a draft spec and the capture's extractors; the draft passes `fsmc check`, is enumerated, and its
trajectories are replayed on the capture offline, each state read through the extractors. The forms' parsing and
what the importer leaves out are tested on pages written here.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from datasette_site import Datasette, Tripwire, zoo_db

from fsmc.capture import Options, capture
from fsmc.capture.dom import read_page
from fsmc.capture.importer import draft
from fsmc.capture.sitemap import Capture, canonical, shape
from fsmc.cli import main
from fsmc.env.pool import EnvPool, Site
from fsmc.printer import to_fsm

BOX_JS = """(css) => { const r = document.querySelector(css).getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }"""

pytest.importorskip("datasette")

ROOT = Path(__file__).resolve().parent.parent
FLOWS = ROOT / "specs" / "datasette" / "flows.json"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Tripwire]]:
    """A project folder with captures/zoo (datasette, captured then stopped) and a tripwire where datasette was."""
    root = tmp_path_factory.mktemp("project")
    live = Datasette(zoo_db(root / "zoo.db"))
    try:
        capture(live.url, root / "captures" / "zoo", Options(depth=2, pages=12, flows=FLOWS))
    finally:
        live.stop()
    tripwire = Tripwire(live.port)
    yield root, tripwire
    tripwire.shutdown()
    tripwire.server_close()


@pytest.fixture(scope="module")
def imported(work: tuple[Path, Tripwire]) -> Path:
    root, _ = work
    spec = root / "specs" / "datasette" / "zoo.fsm"  # where the README's commands put it, as in this repository
    assert main(["import", str(root / "captures" / "zoo"), "-o", str(spec)]) == 0
    return spec


def test_the_draft_has_pages_by_url_template_and_actions_by_link(imported: Path) -> None:
    text = imported.read_text(encoding="utf-8")
    assert 'backend capture "../../captures/zoo"' in text
    assert "page zoo_animals_item" in text and 'var zoo_animals_item_id: {"1", "2", "3", "4"} = "1"' in text
    assert 'action open_zoo_animals_item(id: {"1", "2", "3", "4"})' in text
    assert r'click "a[href=\"/zoo/animals/{id}\"]"' in text  # by the link's target, never by its position
    extract = (imported.parents[2] / "captures" / "zoo" / "extract.toml").read_text(encoding="utf-8")
    assert 'zoo_animals_item = "^/zoo/animals/[^/]+/?$"' in extract and 'zoo_animals_item_id = "url:path/2"' in extract
    assert main(["check", str(imported)]) == 0


def test_query_pages_and_the_submitted_form_become_variables_and_actions(imported: Path) -> None:
    text = imported.read_text(encoding="utf-8")
    assert 'var zoo_animals_sort: {"id", "legs", "name"}? = none' in text  # ?_sort=... seen, and absent
    assert 'var zoo_animals_name_exact: {"cat", "hen"}? = none' in text  # where the filter form's redirect lands
    assert 'action submit_filters(filter_value: {"cat", "hen"}) "Apply {filter_value}"' in text
    assert r'select "select[name=\"_filter_column\"]" "name"' in text  # the same in every flow: a literal
    assert r'type "input[name=\"_filter_value\"]" "{filter_value}"' in text
    assert r'click "input[type=\"submit\"][value=\"Apply\"]"' in text
    assert "zoo_animals_name_exact := filter_value" in text
    assert r'click "a[href=\"/zoo/animals?_sort=name\"]"' in text and 'zoo_animals_sort := "name"' in text
    # the filtered pages link to one animal each: the action is enabled with that id alone
    assert 'zoo_animals_name_exact == "cat" and id == "1" or zoo_animals_name_exact == "hen" and id == "2"' in text
    assert "form.sql (GET /zoo): no submission of it was captured" in text.split("\n\n")[0]  # noted, not imported
    extract = (imported.parents[2] / "captures" / "zoo" / "extract.toml").read_text(encoding="utf-8")
    assert 'zoo_animals_name_exact = "url:param/name__exact"' in extract
    assert 'zoo_animals_sort = "url:param/_sort"' in extract


def _body(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("#")).lstrip("\n")


def test_the_committed_example_is_the_draft_of_this_capture(imported: Path) -> None:
    committed = (ROOT / "specs" / "datasette" / "zoo.fsm").read_text(encoding="utf-8")
    written = imported.read_text(encoding="utf-8")
    assert _body(committed) == _body(written), "re-import the example: see specs/datasette/zoo.fsm's header"
    notes = [line for line in written.splitlines() if line.startswith("#")]
    assert notes and all(line in committed for line in notes)  # what was left out is committed too


def test_the_draft_is_enumerated_and_replayed_offline(imported: Path, work: tuple[Path, Tripwire],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root, tripwire = work
    monkeypatch.chdir(root)  # the output names its spec relative to here: this project's, not the repository's
    out, data = root / "out" / "zoo", root / "data" / "zoo"
    # the spec's own tasks (each query page, each filter submitted) and no derived goals: the same moves, fewer runs
    assert main(["enumerate", str(imported), "-o", str(out), "--max-depth", "3", "--no-derived"]) == 0
    assert main(["replay", str(out), "-o", str(data)]) == 0
    report = json.loads((data / "report.json").read_text())
    assert report["trajectories"] >= 13 and report["kept"] == report["trajectories"], report
    rows = [json.loads(line) for line in (data / "trajectories.jsonl").read_text().splitlines()]
    assert {"/", "/zoo/animals"} <= {s["url"] for r in rows for s in r["steps"]}
    reached = [r["moves"][-1]["state"] for r in rows if r["status"] == "kept"]
    assert {"page": "zoo_animals_item", "vars": {"zoo_animals_item_id": "3"}} in reached  # read off /zoo/animals/3
    filtered = [r for r in rows if r["moves"][-1]["action"] == "submit_filters"]
    assert {r["moves"][-1]["args"]["filter_value"] for r in filtered} == {"cat", "hen"}
    assert all(r["status"] == "kept" for r in filtered)
    hen = next(r["moves"][-1]["state"] for r in filtered if r["moves"][-1]["args"]["filter_value"] == "hen")
    assert hen["vars"]["zoo_animals_name_exact"] == "hen" and hen["vars"]["zoo_animals_sort"] == "id"
    [run] = [json.loads(line) for line in (data / "runs.jsonl").read_text().splitlines()]
    assert run["blocked_requests"] == 0 and tripwire.hits == []  # nothing left the machine


def test_an_environment_on_the_capture_rewards_the_task_by_the_extracted_state(imported: Path,
                                                                             work: tuple[Path, Tripwire],
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root, tripwire = work
    monkeypatch.chdir(root)
    out = root / "out" / "env"
    assert main(["enumerate", str(imported), "-o", str(out), "--max-depth", "3"]) == 0

    async def go() -> list[tuple[float, dict[str, object]]]:
        async with EnvPool([Site.declared(out)]) as pool:
            env = await pool.open()
            await env.reset(options={"task": "reach_zoo_animals_item_3"})
            results = []
            for css in ('a[href="/zoo/animals"]', 'a[href="/zoo/animals/3"]'):
                box = await env.page.evaluate(BOX_JS, css)
                result = await env.step({"action": "click", "coordinate": [round(box["x"]), round(box["y"])]})
                results.append((result.reward, result.info["state"]))
            await env.close()
            return results

    first, second = asyncio.run(go())
    assert first[0] == 0.0 and first[1]["page"] == "zoo_animals"  # type: ignore[index]
    assert second == (1.0, {"page": "zoo_animals_item", "vars": {"zoo_animals_item_id": "3"}})
    assert tripwire.hits == []


def test_an_extractor_that_matches_nothing_stops_replay_naming_it(imported: Path, work: tuple[Path, Tripwire],
                                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = work
    monkeypatch.chdir(tmp_path)
    shutil.copytree(root / "captures" / "zoo", tmp_path / "captures" / "zoo")
    (tmp_path / "specs" / "datasette").mkdir(parents=True)
    shutil.copy(imported, tmp_path / "specs" / "datasette" / "zoo.fsm")
    extract = tmp_path / "captures" / "zoo" / "extract.toml"
    text = extract.read_text(encoding="utf-8")
    extract.write_text(text.replace('zoo_sql = "url:param/sql"', 'zoo_sql = "text:#no-such-id"'))  # the first page
    assert main(["enumerate", str(tmp_path / "specs" / "datasette" / "zoo.fsm"), "-o", str(tmp_path / "out"),
                 "--max-depth", "2", "--no-derived"]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "out"), "-o", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert "`text:#no-such-id` of `zoo_sql`" in err and "matches 0 elements on page zoo (/zoo)" in err
    assert "Traceback" not in err


def test_extractors_that_do_not_fit_the_spec_are_reported_by_check(imported: Path, work: tuple[Path, Tripwire],
                                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(work[0] / "captures" / "zoo", tmp_path / "captures" / "zoo")
    (tmp_path / "specs" / "datasette").mkdir(parents=True)
    shutil.copy(imported, tmp_path / "specs" / "datasette" / "zoo.fsm")
    extract = tmp_path / "captures" / "zoo" / "extract.toml"
    text = extract.read_text(encoding="utf-8").replace('zoo = "^/zoo/?$"\n', "")
    extract.write_text(text.replace('"url:path/2"', '"xpath://h1"'))
    capsys.readouterr()
    assert main(["check", str(tmp_path / "specs" / "datasette" / "zoo.fsm")]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "error[E604]" in out and "`pages` gives no location pattern for zoo" in out
    assert "the extractor of `zoo_animals_item_id` on page zoo_animals_item is 'xpath://h1'" in out


def test_a_missing_or_damaged_capture_writes_nothing(work: tuple[Path, Tripwire], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "specs" / "zoo.fsm"
    assert main(["import", str(tmp_path / "captures" / "none"), "-o", str(spec)]) == 2
    assert "no capture there" in capsys.readouterr().err
    damaged = tmp_path / "captures" / "damaged"
    shutil.copytree(work[0] / "captures" / "zoo", damaged)
    (damaged / "extract.toml").unlink(missing_ok=True)  # written by an import, if one ran before
    (damaged / "manifest.json").write_text("{not json")
    assert main(["import", str(damaged), "-o", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "manifest.json: not a capture manifest" in err and "Traceback" not in err
    shutil.copy(work[0] / "captures" / "zoo" / "manifest.json", damaged / "manifest.json")
    (damaged / "capture.warc.gz").write_bytes(b"not a warc")
    assert main(["import", str(damaged), "-o", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "capture.warc.gz" in err and "Traceback" not in err
    assert not spec.exists() and not (damaged / "extract.toml").exists()


def test_an_existing_spec_is_replaced_only_with_force(imported: Path, work: tuple[Path, Tripwire],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    before = imported.read_bytes()
    assert main(["import", str(work[0] / "captures" / "zoo"), "-o", str(imported)]) == 2
    assert "already exists" in capsys.readouterr().err and imported.read_bytes() == before
    assert main(["import", str(work[0] / "captures" / "zoo"), "-o", str(imported), "--force"]) == 0
    assert imported.read_bytes() == before  # the same capture gives the same draft
    assert "  note: page zoo (/zoo): form.sql (GET /zoo): no submission of it was captured" in capsys.readouterr().out


def test_id_like_segments_are_slots_and_hidden_links_are_marked() -> None:
    assert shape("/zoo/animals/12") == (("zoo", "animals", None), ("12",))
    assert shape("/db/3f2a9c1d7e/rows") == (("db", None, "rows"), ("3f2a9c1d7e",))
    parser = read_page('<title>T</title><details><summary><a href="/menu">Menu</a></summary><a href="/in">In</a></details>'
                       '<nav hidden><a href="/gone">x</a></nav><a href="/shown">Shown</a>')
    assert [(a.href, a.hidden) for a in parser.links] == [("/menu", False), ("/in", True), ("/gone", True),
                                                          ("/shown", False)]
    assert parser.title == "T"


FORM = """<title>Search</title>
<form class="find" action="/search" method="get">
  <select name="kind"><option value="">any</option><option selected> books </option><option>wool</option></select>
  <input name="q" value="socks"><input type="hidden" name="lang" value="en"><input>
  <input type="checkbox" name="exact"><input type="checkbox" name="fuzzy" value="yes" checked>
  <textarea name="note">
hi</textarea><input name="off" disabled value="x"><div hidden><input name="later"></div>
  <input type="submit" value="Go"></form>
<form method="POST" action="/login"><input name="user"><button>Sign in</button></form>"""


def test_a_form_is_read_with_the_values_a_browser_submits() -> None:
    page = read_page(FORM)
    find, login = page.forms
    assert (find.method, find.action, login.method, login.describe()) == ("GET", "/search", "POST", "form (POST /login)")
    assert find.data() == [("kind", "books"), ("q", "socks"), ("lang", "en"), ("fuzzy", "yes"), ("note", "hi"),
                           ("later", "")]  # the nameless, unchecked and disabled fields send nothing
    assert find.data({"q": "wool", "lang": "fr", "kind": ""})[:3] == [("kind", ""), ("q", "wool"), ("lang", "en")]
    typed = {f.name: f.typed for f in find.fields if f.name}
    assert typed == {"kind": True, "q": True, "lang": False, "exact": False, "fuzzy": False, "note": True,
                     "off": False, "later": False}  # hidden, checkboxes and disabled fields are not filled in
    assert [f.value() for f in login.fields] == ["", None]


SEARCH = """<title>Search</title><a href="/">home</a>
<form class="find" action="/search"><input name="q"><select name="kind"><option>all</option><option>books</option>
</select><input placeholder="nameless"><input type="submit" value="Go"></form>"""


def _site(pages: dict[str, str], submitted: dict[str, str], source: str | None = None) -> Capture:
    """A capture of `pages` (location → HTML) whose flows submitted `submitted` (request → where it landed), each
    from `source` (by default the request's path)."""
    served = {canonical(loc): loc for loc in pages} | {canonical(r): landing for r, landing in submitted.items()}
    flows = {(source or r.partition("?")[0], landing) for r, landing in submitted.items()}
    return Capture("shop", "http://127.0.0.1:9", "/", pages, served, flows)


def test_a_submitted_form_is_an_action_over_the_combinations_submitted() -> None:
    result = "<title>Results</title><a href=\"/\">home</a>"
    pages = {"/": '<title>Home</title><a href="/search">search</a>', "/search": SEARCH,
             "/search?q=wool&kind=all": result, "/search?q=silk&kind=books": result}
    made = draft(_site(pages, {"/search?q=wool&kind=all": "/search?q=wool&kind=all",
                               "/search?q=silk&kind=books": "/search?q=silk&kind=books"}), "../captures/shop")
    text = to_fsm(made.spec)
    assert 'action submit_find(q: {"silk", "wool"}, kind: {"all", "books"}) "Go {q} {kind}"' in text
    # only the pairs submitted, from the page without a query, where the form is
    assert 'require search_q == none and (q == "silk" and kind == "books" or q == "wool" and kind == "all")' in text
    assert "search_q := q" in text and "search_kind := kind" in text
    assert r'type "input[name=\"q\"]" "{q}"' in text and r'select "select[name=\"kind\"]" "{kind}"' in text
    assert made.notes == ["page search (/search): form.find (GET /search): 1 field(s) without a name (a browser does "
                          "not submit them): ignored"]


def test_what_cannot_be_imported_is_noted_naming_the_page_and_the_form() -> None:
    home = ('<title>Home</title><a href="/list">list</a><form method="post" action="/login"><input name="u">'
            '<input type="submit" value="Sign in"></form><form id="find" action="/find"><input name="q">'
            '<input type="submit" value="Find"></form>')
    listing = ('<title>List</title><a href="/">home</a><form action="/list"><input type="checkbox" name="all">'
               '<input type="submit" value="Show"></form>')
    pages = {"/": home, "/list": listing, "/list?all=on": listing.replace("List", "All")}
    made = draft(_site(pages, {"/list?all=on": "/list?all=on"}), "../captures/shop")
    assert made.notes == [
        "page home (/): form#find (GET /find): no submission of it was captured (submit it in a flow, "
        "`fsmc capture --flows`): left out",
        "page home (/): form (POST /login): no submission of it was captured (submit it in a flow, "
        "`fsmc capture --flows`): left out",
        "page list (/list): form (GET /list): its submissions change all, which no agent can fill in (hidden, a "
        "checkbox or a radio button): left out"]
    assert "submit_" not in to_fsm(made.spec) and made.comments().startswith("# Notes from fsmc import")


def test_query_parameters_that_vary_are_variables_and_a_form_without_a_button_is_submitted_by_enter() -> None:
    box = '<title>Find</title><form action="/find"><input type="search" name="q"><input type="hidden" name="v" value="2">'
    pages = {"/": '<title>Home</title><a href="/find?v=2">find</a>', "/find?v=2": box,
             "/find?v=2&q=wool": box.replace("Find", "Wool"), "/find?v=2&q=silk": box.replace("Find", "Silk"),
             "/find?q=a&q=b": box}
    made = draft(_site(pages, {"/find?q=wool&v=2": "/find?v=2&q=wool", "/find?q=silk&v=2": "/find?v=2&q=silk"},
                       "/find?v=2"), "../captures/shop")
    text = to_fsm(made.spec)
    assert 'var find_q: {"silk", "wool"}? = none' in text and "find_v" not in text  # v never varies: no variable
    assert r'press "input[name=\"q\"]" "Enter"' in text and "find_q := q" in text
    assert made.notes == ["/find?q=a&q=b: a query parameter given twice (the state reads one value of each): left out"]
    assert 'find_q = "url:param/q"' in made.extract_toml()


def test_a_link_that_redirects_leads_where_it_lands_and_locations_no_move_reaches_get_no_task() -> None:
    pages = {"/": '<title>Home</title><a href="/go">go</a>', "/list?x=2": '<title>Two</title><a href="/">home</a>',
             "/list?x=3": "<title>Three</title>"}
    made = draft(_site(pages, {"/go": "/list?x=2"}), "../captures/shop")  # /go answers with a redirect there
    text = to_fsm(made.spec)
    assert 'action open_list_x_2 "go"' in text and r'click "a[href=\"/go\"]"' in text
    assert 'list_x := "2"' in text and "goto list carry list_x" in text
    assert [t.name for t in made.spec.tasks] == ["reach_list", "reach_list_x_2"] and made.left_out == ["/list?x=3"]


def test_a_form_submitted_for_a_search_and_for_a_filter_is_one_action_each_filling_in_both() -> None:
    result = '<title>Results</title><a href="/">home</a>'
    pages = {"/": '<title>Home</title><a href="/search">search</a>', "/search": SEARCH,
             "/search?q=wool&kind=all": result, "/search?q=silk&kind=all": result, "/search?kind=books": result}
    submitted = {"/search?q=wool&kind=all": "/search?q=wool&kind=all", "/search?q=silk&kind=all":
                 "/search?q=silk&kind=all", "/search?q=&kind=books": "/search?kind=books"}  # an empty search dropped
    made = draft(_site(pages, submitted), "../captures/shop")  # so no one action states where q = "" leads
    text = to_fsm(made.spec)
    by_q = text[text.index("action submit_find_q(q: {\"silk\", \"wool\"})"):]
    assert by_q.index(r'type "input[name=\"q\"]" "{q}"') < by_q.index(r'select "select[name=\"kind\"]" "all"') < \
        by_q.index("click")  # the filter put back as the page shows it: no two actions do the same
    by_kind = text[text.index('action submit_find_kind "Go"'):]
    assert by_kind.index(r'type "input[name=\"q\"]" ""') < by_kind.index(r'select "select[name=\"kind\"]" "books"')
    assert 'search_kind := "books"' in by_kind and "search_q := q" in by_q


NAV = '<nav class="main"><a href="/">Home</a> <a href="/list">Tickets</a> <a href="/help">Help</a></nav>'
ROW = ('<tr><td class="id"><a href="/item/{i}">#{i}</a></td><td class="summary"><a href="/item/{i}">{s}</a></td>'
       '<td class="date"><a href="/log?from=2026-01-05T0{i}%3A30%3A00Z&precision=second">11 months ago</a></td></tr>')


def test_an_application_is_drafted_not_its_crawl() -> None:
    rows = "".join(ROW.format(i=i, s=s) for i, s in ((1, "Printer jams"), (2, "Screen flickers")))
    pages = {"/": f"<title>Desk</title>{NAV}", "/list": f"<title>Tickets – Desk</title>{NAV}<table>{rows}</table>",
             "/item/1": f"<title>#1 (Printer jams) – Desk</title>{NAV}",
             "/item/2": f"<title>#2 (Screen flickers) – Desk</title>{NAV}", "/log": f"<title>Log – Desk</title>{NAV}",
             "/log?from=2026-01-05T01%3A30%3A00Z&precision=second": f"<title>Log – Desk</title>{NAV}",
             "/help": f"<title>Help – Desk</title>{NAV}"}
    made = draft(_site(pages, {}), "../captures/desk")
    text = to_fsm(made.spec)
    # the menu on every page: each of its links one action, on the page nearest the entry that shows it
    assert [text.count(rf'click "a[href=\"{href}\"]"') for href in ("/", "/list", "/help")] == [1, 1, 1]
    assert made.notes == ["links on nearly every page (shared navigation), each an action of one page alone: / on "
                          "list, /help on home, /list on home"]  # not on help: documentation's links are no actions
    # each row links to its item twice: one action over the items, by the first link a selector tells apart
    assert 'action open_item_item(id: {"1", "2"}) "#{id}"' in text and r'click "td.id a[href=\"/item/{id}\"]"' in text
    # a time in the query is no state: the log's states differ by its precision alone
    assert "var log_precision: {\"second\"}? = none" in text and "log_from" not in text
    # each item's task names it by its own title; the page's title is what they share
    tasks = {t.name: t.instruction for t in made.spec.tasks}
    assert tasks["reach_item_item_1"] == 'Open the page "#1 (Printer jams) – Desk".'
    assert tasks["reach_item_item_2"] == 'Open the page "#2 (Screen flickers) – Desk".'
    assert 'page item_item "… – Desk"' in text
