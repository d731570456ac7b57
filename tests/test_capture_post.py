"""A POST form captured, imported and replayed offline: the recorded changes answered in order, reset at each episode.

A small shopping-list application written here (a list with a quick "add" form that posts back to it, an item page,
a multipart "new item" form with a file input, answered with a redirect to the item created, each posted with a CSRF
token that differs at every rendering) is captured live with three flows that each create an item, then told to
refuse every request (a tripwire in its place). The capture is imported, enumerated and replayed offline: each post
is an action and a task, the archive's recorded posts reached (`posts`) part of the state; episodes see the list
before the posts first, every time.
"""

from __future__ import annotations

import asyncio
import html
import http.server
import json
import secrets
import socket
import threading
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from fsmc.backends import PNG, CapturedSite, Op
from fsmc.capture import Options, capture
from fsmc.capture.importer import draft
from fsmc.capture.sitemap import Capture, Posted, canonical
from fsmc.cli import main
from fsmc.printer import to_fsm


class ShoppingList(http.server.ThreadingHTTPServer):
    """The application: items by id; `/items/new` posts a title and a kind with a fresh CSRF token each time it is
    shown. Once `live` is false it answers nothing but 500, and counts what reached it (`hits`); with `dies` a post
    stops it, the post's connection dropped unanswered."""

    daemon_threads = True

    def __init__(self) -> None:
        self.items = {1: ("Bread", "food"), 2: ("Hammer", "tool")}
        self.tokens: set[str] = set()
        self.live, self.hits, self.dies = True, list[str](), False
        super().__init__(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def page(self, path: str) -> str | None:
        if path == "/":
            return '<title>Shopping</title><h1>Shopping</h1><a href="/items">Items</a>'
        if path == "/items":
            rows = "".join(f'<li><a href="/items/{i}">{html.escape(t)}</a></li>' for i, (t, _) in self.items.items())
            return (f'<title>Items</title><ul>{rows}</ul><a href="/items/new">New item</a> <a href="/">Home</a>'
                    f'<form class="quick" method="post" action="/items">{self._token()}<input name="title">'
                    '<input type="submit" value="Add"></form>')
        if path == "/items/new":
            return ('<title>New item</title><form class="new" method="post" action="/items/new" '
                    f'enctype="multipart/form-data">{self._token()}<input name="title"><input type="file" name="photo">'
                    '<select name="kind"><option>food</option><option>tool</option></select>'
                    '<input type="submit" value="Create"></form><a href="/items">Items</a>')
        number = path.removeprefix("/items/")
        if number.isdigit() and int(number) in self.items:
            title, kind = self.items[int(number)]
            return f'<title>{html.escape(title)}</title><h1>{html.escape(title)}</h1><p>{kind}</p><a href="/items">Items</a>'
        return None

    def _token(self) -> str:
        token = secrets.token_hex(16)
        self.tokens.add(token)
        return f'<input type="hidden" name="csrf_token" value="{token}">'

    def post(self, path: str, fields: dict[str, str]) -> tuple[int, str]:
        """A new item: where it is (303: the item from the new item form, the list from the list's own), or why not
        (403 for a token never shown, 422 for an empty title)."""
        if path not in ("/items/new", "/items") or fields.get("csrf_token") not in self.tokens:
            return 403, ""
        if not fields.get("title"):
            return 422, ""
        number = max(self.items) + 1
        self.items[number] = (fields["title"], fields.get("kind", "food"))
        return 303, f"/items/{number}" if path == "/items/new" else "/items"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: ShoppingList

    def _refused(self) -> bool:
        if not self.server.live:
            self.server.hits.append(f"{self.command} {self.path}")
            self.send_response(500)
            self.end_headers()
        return not self.server.live

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self._refused():
            return
        body = self.server.page(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write((body or "not found").encode())

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        if self.server.dies:
            self.server.shutdown()
            self.server.server_close()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if self._refused():
            return
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, where = self.server.post(self.path, _form(self.headers.get("Content-Type", ""), sent))
        self.send_response(status)
        if where:
            self.send_header("Location", where)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"" if where else f"<title>Refused</title>{status}".encode())

    def log_message(self, *args: object) -> None:
        pass


def _form(kind: str, body: bytes) -> dict[str, str]:
    """A posted form's text fields, URL-encoded or multipart (as the stdlib's email parser reads MIME)."""
    if not kind.startswith("multipart/form-data"):
        return dict(parse_qsl(body.decode(), keep_blank_values=True))
    message = BytesParser(policy=policy.HTTP).parsebytes(f"Content-Type: {kind}\r\n\r\n".encode() + body)
    assert isinstance(message, EmailMessage)
    return {str(part.get_param("name", header="content-disposition")): part.get_content()
            for part in message.iter_parts() if part.get_param("filename", header="content-disposition") is None}


def _new(name: str, title: str | None) -> dict[str, object]:
    """A flow that creates an item (or, with no title, submits the form empty), then opens the list."""
    typed = [{"op": "type", "selector": "input[name=title]", "text": title}] if title else []
    back = [{"op": "click", "selector": 'a[href="/items"]'}] if title else []
    return {"name": name, "start": "/items/new",
            "ops": [*typed, {"op": "click", "selector": "form.new input[type=submit]"}, *back]}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ShoppingList]]:
    """A project folder with captures/shop (two items created by the flows), the application refusing since."""
    root = tmp_path_factory.mktemp("project")
    flows = root / "flows.json"
    salt = {"name": "salt", "start": "/items", "ops": [{"op": "type", "selector": "form.quick input[name=title]",
                                                        "text": "Salt"},
                                                       {"op": "click", "selector": "form.quick input[type=submit]"}]}
    flows.write_text(json.dumps([_new("milk", "Milk"), _new("eggs", "Eggs"), salt]))  # salt: posted on the list
    site = ShoppingList()
    capture(site.url, root / "captures" / "shop", Options(depth=2, pages=8, flows=flows))
    site.live = False
    yield root, site
    site.shutdown()
    site.server_close()


LIST_JS = "() => [...document.querySelectorAll('li')].map((li) => li.innerText)"


def test_offline_the_posts_are_answered_in_the_order_recorded_and_a_reset_starts_over(
        work: tuple[Path, ShoppingList]) -> None:
    root, site = work

    async def go() -> list[object]:
        seen: list[object] = []
        async with CapturedSite(root / "captures" / "shop", image=PNG) as shop:
            episode = await shop.open()
            for title in ("Milk", "Eggs", "Eggs"):  # Eggs first: the state after its post holds Milk too, as recorded
                await episode.reset({"url": "/items"})
                seen.append(await episode.page.evaluate(LIST_JS))
                await episode.goto("/items/new")
                await episode.perform(Op("type", "input[name=title]", title))
                await episode.perform(Op("click", "form.new input[type=submit]"))
                await episode.settle()
                seen.append((await episode.state())["url"])
                await episode.goto("/items")
                seen.append(await episode.page.evaluate(LIST_JS))
            await episode.perform(Op("type", "form.quick input[name=title]", "Salt"))  # posted on the list, back to it
            await episode.perform(Op("click", "form.quick input[type=submit]"))
            await episode.settle()
            seen.append([(await episode.state())["url"], await episode.page.evaluate(LIST_JS)])
            seen.append(shop.misses)
        return seen

    before = ["Bread", "Hammer"]
    assert asyncio.run(go()) == [before, "/items/3", [*before, "Milk"],  # the page the post's redirect led to
                                 before, "/items/4", [*before, "Milk", "Eggs"],
                                 before, "/items/4", [*before, "Milk", "Eggs"],  # the same capture, the same answers
                                 ["/items", [*before, "Milk", "Eggs", "Salt"]], 0]
    assert site.hits == []


def test_a_posted_form_is_imported_as_an_action_and_its_trajectories_are_kept_offline(
        work: tuple[Path, ShoppingList], monkeypatch: pytest.MonkeyPatch) -> None:
    root, site = work
    monkeypatch.chdir(root)
    spec = root / "specs" / "shop.fsm"
    assert main(["import", str(root / "captures" / "shop"), "-o", str(spec)]) == 0
    text = spec.read_text(encoding="utf-8")
    assert "only GET forms" not in text  # the new item form is multipart: its text fields imported, its file noted
    assert "#   page items_new (/items/new): form.new (POST /items/new): its file input(s) photo: fsmc cannot upload " \
        "a file" in text and "photo" not in text.partition("\nsite ")[2]
    for title, number in (("milk", 3), ("eggs", 4)):  # each post made its own item: one action each, as recorded
        start = text.index(f'action submit_new_{title} "Create {title.capitalize()}"')
        action = text[start:text.index("\n  }\n", start)]
        assert action.index(rf'type "input[name=\"title\"]" "{title.capitalize()}"') < \
            action.index(r'click "input[type=\"submit\"][value=\"Create\"]"')
        assert f'items_item_id := "{number}"' in action and "goto items_item" in action
        # answered as recorded while the archive has not gone past it; after it, the archive is just after it
        assert f"require posts <= {number - 3}" in action and f"posts := {number - 2}" in action
    start = text.index('action submit_quick "Add Salt"')  # a post that lands on the page it was posted from
    action = text[start:text.index("\n  }\n", start)]
    assert "require posts <= 2" in action and "posts := 3" in action and "goto" not in action
    assert "session {\n  var posts: int[0..3] = 0\n}" in text
    assert 'task submit_quick on items {\n  goal posts == 3\n  instruction "On the page \\"Items\\", set \\"title\\" to ' \
        '\\"Salt\\", then click \\"Add\\"."' in text  # what to fill in, as for a form only it leads to
    assert 'posts = "changes"' in (root / "captures" / "shop" / "extract.toml").read_text(encoding="utf-8")
    assert "csrf_token" not in text  # the page's own field, never an agent's
    out, data = root / "out", root / "data"
    assert main(["enumerate", str(spec), "-o", str(out), "--max-depth", "4", "--no-derived"]) == 0
    assert main(["replay", str(out), "-o", str(data)]) == 0
    report = json.loads((data / "report.json").read_text())
    assert report["kept"] == report["trajectories"] > 0, report
    rows = [json.loads(line) for line in (data / "trajectories.jsonl").read_text().splitlines()]
    posted = {r["moves"][-1]["state"]["vars"]["items_item_id"] for r in rows
              if r["moves"][-1]["action"].startswith("submit_new")}
    assert posted == {"3", "4"} and all(r["status"] == "kept" for r in rows)
    tasks = {r["goal"].get("task"): (r["moves"][-1]["action"], r["moves"][-1]["state"]) for r in rows if r["id"].endswith("#0")}
    assert tasks["submit_quick"] == ("submit_quick", {"page": "items", "vars": {"items_item_id": "1", "posts": 3}})
    for number, title, posts in ((3, "milk", 1), (4, "eggs", 2)):  # the item a post made: its task says to post it
        assert tasks[f"reach_items_item_{number}"][0] == f"submit_new_{title}"
        assert tasks[f"reach_items_item_{number}"][1]["vars"]["posts"] == posts
    assert site.hits == []


def test_a_flow_whose_post_fails_leaves_no_capture_naming_the_flow_and_the_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = ShoppingList()
    flows = tmp_path / "flows.json"
    dest = tmp_path / "captures" / "shop"
    try:
        flows.write_text(json.dumps([_new("empty", None)]))  # (a form that is missing: tests/test_capture.py)
        assert main(["capture", site.url, "-o", str(dest), "--pages", "1", "--flows", str(flows)]) == 1
    finally:
        site.shutdown()
        site.server_close()
    err = capsys.readouterr().err
    assert "flow 'empty', step 1 (click form.new input[type=submit]): the site answered POST /items/new with 422" \
        in err and "Traceback" not in err
    assert not dest.exists() and not dest.parent.exists()


def test_a_flow_whose_post_gets_no_answer_leaves_no_capture_naming_the_flow_the_step_and_the_url(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = ShoppingList()
    site.dies = True
    flows = tmp_path / "flows.json"
    dest = tmp_path / "captures" / "shop"
    try:
        flows.write_text(json.dumps([_new("milk", "Milk")]))
        assert main(["capture", site.url, "-o", str(dest), "--pages", "1", "--flows", str(flows)]) == 1
    finally:
        site.server_close()
    err = capsys.readouterr().err
    assert f"flow 'milk', step 2 (click form.new input[type=submit]): POST {site.url}items/new failed: " in err
    assert "the site stopped answering" in err and "Traceback" not in err
    assert not dest.exists() and not dest.parent.exists()


NOTE = ('<title>New note</title><form method="post" action="/notes/new"><input type="hidden" name="csrf_token" '
        'value="A"><textarea name="body"></textarea><select name="tag"><option>work</option><option>home</option>'
        '</select><input type="submit" name="_save" value="Save"></form>')


def test_posts_that_land_alike_are_one_action_each_and_the_pages_own_fields_are_left_alone() -> None:
    pages = {"/": '<title>Notes</title><a href="/notes/new">new</a>', "/notes/new": NOTE,
             "/notes": '<title>All notes</title><a href="/">home</a>'}
    posted = [Posted("/notes/new", (("csrf_token", token), ("body", body), ("tag", "work"), ("_save", "Save")), "/notes",
                     epoch, "/notes/new")
              for epoch, token, body in ((0, "B", "hi"), (1, "C", "yo"))]  # each from a rendering of its own: a token
    made = draft(Capture("notes", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages},
                         {("/notes/new", "/notes")}, posted), "../captures/notes")
    text = to_fsm(made.spec)
    for epoch, body in ((0, "hi"), (1, "yo")):  # one action each: each moves the archive on to its own recording
        start = text.index(f'action submit_notes_new_{body} "Save {body}"')
        action = text[start:text.index("\n  }\n", start)]
        assert f"require posts <= {epoch}" in action and f"posts := {epoch + 1}" in action and "goto notes" in action
        assert rf'type "textarea[name=\"body\"]" "{body}"' in action
        assert action.endswith(r'click "input[type=\"submit\"][value=\"Save\"]"' + "\n    }")
    assert "tag" not in text and "csrf" not in text and text.count("action submit") == 2
    assert made.notes == []


def test_the_button_a_flow_clicked_submits_and_a_post_the_pages_script_sent_is_no_submission() -> None:
    """Trac's ticket form: Preview before Create, and its script posts the form to preview it while it is typed (a
    post that leads nowhere); the action clicks the button the submission sent, and lands where that one did; the
    task to reach what it made says how."""
    form = ('<title>New note</title><form method="post" action="/notes/new"><label for="b">Note:</label>'
            '<textarea id="b" name="body"></textarea>'
            '<input type="submit" name="preview" value="Preview"><input type="submit" name="create" value="Create">'
            '</form>')
    pages = {"/": '<title>Notes</title><a href="/notes/new">new</a>', "/notes/new": form,
             "/notes/1": "<title>Note 1</title><h1>hi</h1>"}
    posted = [Posted("/notes/new", (("body", "hi"), ("preview", "1")), "/notes/new"),  # the script's, while typing
              Posted("/notes/new", (("body", "hi"), ("create", "Create")), "/notes/1")]
    made = draft(Capture("notes", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages},
                         {("/", "/notes/new"), ("/notes/new", "/notes/1")}, posted), "../captures/notes")
    text = to_fsm(made.spec)
    start = text.index('action submit_notes_new "Create hi"')
    action = text[start:text.index("\n  }\n", start)]
    assert r'click "input[type=\"submit\"][value=\"Create\"]"' in action and "goto notes_item" in action
    # only the form leads to the note: its task says what to fill in, by the field's label, and which button
    assert {t.instruction for t in made.spec.tasks} == {
        'Open the page "New note".', 'On the page "New note", set "Note" to "hi", then click "Create".'}


def test_a_move_from_a_location_the_draft_never_reaches_does_not_say_where_an_action_is_enabled() -> None:
    """A query page's "new query" link, shown only on a query that a page outside the draft links to: the action is
    the plain query page's, not one enabled only in a state the draft never reaches (the checks' E404)."""
    from fsmc.compilation import Compilation

    pages = {"/": '<title>Home</title><a href="/query">Query</a>',
             "/query": '<title>Query</title><a href="/about">About</a>',
             "/query?status=open": '<title>Query</title><a href="/query">New query</a> <a href="/about">About</a>',
             "/orphan": '<title>Orphan</title><a href="/query?status=open">Open</a>',
             "/about": '<title>About</title><a href="/">Home</a>'}
    made = draft(Capture("desk", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages}), "../captures/desk")
    text = to_fsm(made.spec).replace('backend capture "../captures/desk"\n', "")  # no capture here: the checks stop at it
    assert [d.code for d in Compilation("desk.fsm", text=text).diagnostics if d.severity == "error"] == []
    assert "/query?status=open" in made.left_out


def test_a_form_on_every_page_that_no_flow_submitted_is_noted_once() -> None:
    search = '<form id="search" action="/search"><input name="q"><input type="submit" value="Search"></form>'
    pages = {"/": f'<title>Home</title>{search}<a href="/a">A</a> <a href="/b">B</a>',
             "/a": f'<title>A</title>{search}<a href="/">Home</a>', "/b": f'<title>B</title>{search}<a href="/">Home</a>'}
    made = draft(Capture("desk", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages}), "../captures/desk")
    assert [n for n in made.notes if "form#search" in n] == [
        "3 pages (home, a, b): form#search (GET /search): no submission of it was captured (submit it in a flow, "
        "`fsmc capture --flows`): left out"]
