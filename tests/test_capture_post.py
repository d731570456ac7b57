"""A POST form captured, imported and replayed offline: the recorded changes answered in order, reset at each episode.

A small shopping-list application written here (a list, an item page, a "new item" form posted with a CSRF token
that differs at every rendering, answered with a redirect to the item created) is captured live with two flows
that each create an item, then told to refuse every request (a tripwire in its place). The capture is imported,
enumerated and replayed offline; episodes on it see the list before the posts first, every time.
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
            return f'<title>Items</title><ul>{rows}</ul><a href="/items/new">New item</a> <a href="/">Home</a>'
        if path == "/items/new":
            token = secrets.token_hex(16)
            self.tokens.add(token)
            return ('<title>New item</title><form class="new" method="post" action="/items/new">'
                    f'<input type="hidden" name="csrf_token" value="{token}"><input name="title">'
                    '<select name="kind"><option>food</option><option>tool</option></select>'
                    '<input type="submit" value="Create"></form><a href="/items">Items</a>')
        number = path.removeprefix("/items/")
        if number.isdigit() and int(number) in self.items:
            title, kind = self.items[int(number)]
            return f'<title>{html.escape(title)}</title><h1>{html.escape(title)}</h1><p>{kind}</p><a href="/items">Items</a>'
        return None

    def post(self, path: str, fields: dict[str, str]) -> tuple[int, str]:
        """A new item: where it is (303), or why not (403 for a token never shown, 422 for an empty title)."""
        if path != "/items/new" or fields.get("csrf_token") not in self.tokens:
            return 403, ""
        if not fields.get("title"):
            return 422, ""
        number = max(self.items) + 1
        self.items[number] = (fields["title"], fields.get("kind", "food"))
        return 303, f"/items/{number}"


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
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        status, where = self.server.post(self.path, dict(parse_qsl(sent, keep_blank_values=True)))
        self.send_response(status)
        if where:
            self.send_header("Location", where)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"" if where else f"<title>Refused</title>{status}".encode())

    def log_message(self, *args: object) -> None:
        pass


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
    flows.write_text(json.dumps([_new("milk", "Milk"), _new("eggs", "Eggs")]))
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
            seen.append(shop.misses)
        return seen

    before = ["Bread", "Hammer"]
    assert asyncio.run(go()) == [before, "/items/3", [*before, "Milk"],  # the page the post's redirect led to
                                 before, "/items/4", [*before, "Milk", "Eggs"],
                                 before, "/items/4", [*before, "Milk", "Eggs"], 0]  # the same capture, the same answers
    assert site.hits == []


def test_a_posted_form_is_imported_as_an_action_and_its_trajectories_are_kept_offline(
        work: tuple[Path, ShoppingList], monkeypatch: pytest.MonkeyPatch) -> None:
    root, site = work
    monkeypatch.chdir(root)
    spec = root / "specs" / "shop.fsm"
    assert main(["import", str(root / "captures" / "shop"), "-o", str(spec)]) == 0
    text = spec.read_text(encoding="utf-8")
    assert "only GET forms" not in text
    for title, number in (("milk", 3), ("eggs", 4)):  # each post made its own item: one action each, as recorded
        start = text.index(f'action submit_new_{title} "Create {title.capitalize()}"')
        action = text[start:text.index("\n  }\n", start)]
        assert action.index(rf'type "input[name=\"title\"]" "{title.capitalize()}"') < \
            action.index(r'click "input[type=\"submit\"][value=\"Create\"]"')
        assert f'items_item_id := "{number}"' in action and "goto items_item" in action
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


def test_posts_that_land_alike_are_one_action_with_a_parameter_and_the_pages_own_fields_are_left_alone() -> None:
    pages = {"/": '<title>Notes</title><a href="/notes/new">new</a>', "/notes/new": NOTE,
             "/notes": '<title>All notes</title><a href="/">home</a>'}
    posted = [Posted("/notes/new", (("csrf_token", token), ("body", body), ("tag", "work"), ("_save", "Save")), "/notes")
              for token, body in (("B", "hi"), ("C", "yo"))]  # each from a rendering of its own: a token of its own
    made = draft(Capture("notes", "http://127.0.0.1:9", "/", pages, {canonical(p): p for p in pages},
                         {("/notes/new", "/notes")}, posted), "../captures/notes")
    text = to_fsm(made.spec)
    assert 'action submit_notes_new(body: {"hi", "yo"}) "Save {body}"' in text and "goto notes" in text
    assert r'type "textarea[name=\"body\"]" "{body}"' in text and "tag" not in text and "csrf" not in text
    assert r'click "input[type=\"submit\"][value=\"Save\"]"' in text
    assert made.notes == []
