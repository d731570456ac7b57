"""fsmc capture on a real third-party application: datasette over a SQLite file, captured live, then served offline.

The capture is made once (module fixtures) from a datasette started here; datasette is then stopped and
a tripwire server listens on its port, so any request that leaves the browser's route handler is seen.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from datasette_site import Datasette, Tripwire, free_port, zoo_db
from warcio.archiveiterator import ArchiveIterator

from fsmc.archive.rules import parse
from fsmc.backends import PNG, CapturedSite, Op
from fsmc.capture import Options, capture, check, load_rules
from fsmc.cli import main

pytest.importorskip("datasette")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Datasette]:
    site = Datasette(zoo_db(tmp_path_factory.mktemp("db") / "zoo.db"))
    yield site
    site.stop()


FILTER = {"name": "filter", "start": "/zoo/animals",
          "ops": [{"op": "select", "selector": "select[name=_filter_column]", "text": "name"},
                  {"op": "type", "selector": "input[name=_filter_value]", "text": "cat"},
                  {"op": "click", "selector": "form.filters input[type=submit]"}]}


@pytest.fixture(scope="module")
def captured(live: Datasette, tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("captures") / "zoo"
    flows = dest.parent / "flows.json"
    flows.write_text(json.dumps([FILTER]))
    capture(live.url, dest, Options(depth=2, pages=6, flows=flows))
    return dest


@pytest.fixture(scope="module")
def offline(captured: Path, live: Datasette) -> Iterator[Tripwire]:
    """The capture with the live site gone and a tripwire on its port."""
    live.stop()
    tripwire = Tripwire(live.port)
    yield tripwire
    tripwire.shutdown()
    tripwire.server_close()


def test_the_capture_is_a_warc_any_tool_reads_with_a_request_and_response_per_page(captured: Path) -> None:
    manifest = json.loads((captured / "manifest.json").read_text())
    pages = [p["url"] for p in manifest["pages"]]
    assert len(pages) == 6 and pages[0].endswith("/") and any(p.endswith("/zoo/animals") for p in pages)
    assert all(p["status"] == 200 and (captured / p["screenshot"]).is_file() for p in manifest["pages"])
    with (captured / "capture.warc.gz").open("rb") as stream:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"), r.rec_headers.get_header("WARC-Record-ID"),
                    r.rec_headers.get_header("WARC-Concurrent-To")) for r in ArchiveIterator(stream)]
    assert records[0][0] == "warcinfo"
    answered = {rid: uri for kind, uri, rid, _ in records if kind in ("response", "revisit")}
    requests = [(uri, to) for kind, uri, _, to in records if kind == "request"]
    assert len(requests) == manifest["exchanges"] == manifest["responses"] + manifest["revisits"]
    assert all(answered[to] == uri for uri, to in requests)
    for page in pages:
        assert page in {uri for uri, _ in requests}, page
    with (captured / "capture.warc.gz").open("rb") as stream:  # what the page asked each for, as Browsertrix writes it
        kinds = {r.rec_headers.get_header("WARC-Target-URI"): r.rec_headers.get_header("WARC-Resource-Type")
                 for r in ArchiveIterator(stream) if r.rec_type == "request"}
    assert {kinds[page] for page in pages} == {"document"} and {"stylesheet", "script"} <= set(kinds.values())
    assert manifest["revisits"] > 0  # the stylesheet and script, asked again by every page, are stored once
    assert (captured / "rules.toml").is_file() and not list(captured.parent.glob(".zoo.*"))
    [flow] = manifest["flows"]
    assert flow["steps"][-1]["url"] == "/zoo/animals?_sort=id&name__exact=cat"  # where datasette's filter form leads


def test_a_flow_whose_selector_matches_nothing_leaves_no_capture(live: Datasette, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    flows = tmp_path / "flows.json"
    flows.write_text(json.dumps([{**FILTER, "ops": [{"op": "click", "selector": "#no-such-button"}]}]))
    dest = tmp_path / "captures" / "zoo"
    assert main(["capture", live.url, "-o", str(dest), "--pages", "1", "--flows", str(flows)]) == 1
    err = capsys.readouterr().err
    assert "flow 'filter': step 1 (click #no-such-button): 0 elements match selector '#no-such-button'" in err
    assert "on /zoo/animals" in err
    assert not dest.exists() and not dest.parent.exists()  # nor the folder the lock beside it needed


def test_offline_every_page_renders_as_captured_with_no_network(captured: Path, offline: Tripwire) -> None:
    report = check(captured)
    assert report.ok, report.to_json()
    assert report.fidelity == 1.0 and report.misses == 0 and report.blocked == report.escaped == 0
    assert offline.hits == []


def test_offline_episodes_are_deterministic_and_count_misses_and_refusals(captured: Path, offline: Tripwire) -> None:
    async def go() -> dict[str, object]:
        async with CapturedSite(captured, image=PNG) as site:
            episode = await site.open()
            first = await episode.goto("/zoo/animals")
            shot = await episode.screenshot()
            await episode.goto("/zoo")
            again = await episode.goto("/zoo/animals")
            same = await episode.screenshot() == shot
            busted = await episode.goto("/zoo/animals?_=1716000000000")  # a cache buster: the rule drops it
            busted_same = await episode.screenshot() == shot
            misses_before = site.misses
            missing = await episode.goto("/zoo/no_such_table")
            body = await episode.page.content()
            misses = site.misses - misses_before
            refused = await episode.page.evaluate(
                "() => fetch('http://example.com/x').then(() => 'fetched', () => 'refused')")
            async with episode.page.context.expect_page() as popup:  # a new page has no handler: the sink gets it
                await episode.page.evaluate("(url) => { window.open(url); }", episode.start + "zoo")
            await (await popup.value).close()
            state = await episode.reset({"url": "/zoo"})
            await episode.perform(Op("click", 'a[href="/zoo/keepers"]'))
            await episode.settle()
            clicked = await episode.state()
            return {"first": first, "again": again, "same": same, "busted": busted, "busted_same": busted_same,
                    "missing": missing, "body": body, "misses": misses, "refused": refused,
                    "blocked": site.blocked_requests, "escaped": site.escaped, "state": state, "clicked": clicked}

    got = asyncio.run(go())
    assert got["first"] == got["again"] == got["busted"] == 200
    assert got["same"] and got["busted_same"]
    assert got["missing"] == 404 and got["misses"] == 1
    assert "fsmc: not in the capture: GET http://127.0.0.1:" in str(got["body"])
    assert got["refused"] == "refused" and got["escaped"] == 1 and got["blocked"] == 2
    assert got["state"] == {"url": "/zoo", "title": "zoo"}
    assert got["clicked"]["url"] == "/zoo/keepers"  # type: ignore[index]
    assert offline.hits == []


def test_check_from_the_command_line(captured: Path, offline: Tripwire, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capture", "--check", str(captured), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pages"] == report["ok"] == 6 + 3 and report["misses"] == 0 and report["fidelity"] == 1.0


def test_a_capture_with_a_missing_response_is_refused_naming_the_request(captured: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(captured, broken)
    out = io.BytesIO()
    dropped = None
    with (captured / "capture.warc.gz").open("rb") as stream:
        from warcio.warcwriter import WARCWriter

        writer = WARCWriter(out, gzip=True)
        for record in ArchiveIterator(stream):
            if record.rec_type == "response" and "/zoo/keepers" in record.rec_headers.get_header("WARC-Target-URI") \
                    and dropped is None:
                dropped = record.rec_headers.get_header("WARC-Target-URI")
                continue
            writer.write_record(record)
    (broken / "capture.warc.gz").write_bytes(out.getvalue())
    assert main(["capture", "--check", str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"the request GET {dropped} has no response" in err and "Traceback" not in err
    (broken / "capture.warc.gz").write_bytes(gzip.compress(b"not a warc"))
    assert main(["capture", "--check", str(broken)]) == 2
    assert "capture.warc.gz" in capsys.readouterr().err


def test_an_unreachable_url_leaves_no_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    dest = tmp_path / "captures" / "gone"
    assert main(["capture", url, "-o", str(dest)]) == 2
    err = capsys.readouterr().err
    assert f"{url}: cannot reach the site" in err and "ECONNREFUSED" in err and "Traceback" not in err
    assert not dest.exists() and not dest.parent.exists()  # nor the folder the lock beside it needed


def test_rules_drop_volatile_parts_and_a_users_file_extends_them(tmp_path: Path) -> None:
    rules = load_rules()
    assert rules.key("get", "http://h/a?b=2&_=17&a=1#top") == "GET http://h/a?a=1&b=2"
    assert rules.url("http://h/p?utm_source=x&sessionid=9&q=1") == "http://h/p?q=1"
    mine = tmp_path / "mine.toml"
    mine.write_text('drop_params = ["v"]\n[[rewrite]]\npattern = "/build-[0-9a-f]+/"\nreplacement = "/build/"\n')
    extended = load_rules(mine)
    assert extended.url("http://h/build-3fa9/app.js?v=2&t=1") == "http://h/build/app.js"
    assert parse(extended.to_toml()) == extended


def test_a_request_gets_its_first_response_since_the_last_change() -> None:
    from fsmc.archive.routes import Recording
    from fsmc.archive.warc import Exchange

    def page(method: str, url: str, body: bytes) -> Exchange:
        return Exchange(method, f"http://h{url}", 200, (), body)

    recording = Recording([page("GET", "/list", b"v1"), page("GET", "/list?_=2", b"v1 took 3ms"),
                           page("POST", "/add", b"ok"), page("GET", "/list", b"v2"), page("GET", "/list", b"v2 again")],
                          load_rules())
    key = recording.key("GET", "http://h/list?_=9", None)
    assert [recording.answer(key, epoch).body for epoch in (0, 1, 5)] == [b"v1", b"v2", b"v2"]  # type: ignore[union-attr]
    assert recording.answer(recording.key("GET", "http://h/other", None), 0) is None


def test_changes_are_answered_in_the_order_recorded_and_a_forms_csrf_token_is_left_out_of_its_key() -> None:
    from fsmc.archive.routes import Recording
    from fsmc.archive.warc import Exchange

    def x(method: str, url: str, answer: bytes, sent: bytes | None = None) -> Exchange:
        return Exchange(method, f"http://h{url}", 200, (), answer, (), sent)

    lists = [b"", b"a", b"a b", b"a b +1", b"a b +2"]  # the list after each change
    changes = [("/add", b"title=a&csrf_token=T1"), ("/add", b"title=b&csrf_token=T2"), ("/like", None), ("/like", None)]
    recorded = [x("GET", "/list", lists[0])]
    for i, (url, sent) in enumerate(changes):
        recorded += [x("POST", url, b"change %d" % i, sent), x("GET", "/list", lists[i + 1])]
    recording = Recording(recorded, load_rules())

    def respond(method: str, url: str, position: int, sent: bytes | None = None) -> tuple[bytes | None, int]:
        got, after = recording.respond(method, recording.key(method, f"http://h{url}", sent), position)
        return got.body if got else None, after

    # b posted first (with the token its page showed then): the recorded state after b, which holds a too
    assert respond("POST", "/add", 0, b"title=b&csrf_token=T9") == (b"change 1", 2)
    assert respond("GET", "/list", 2) == (b"a b", 2)
    assert [respond("POST", "/like", p) for p in (0, 3, 4)] == [(b"change 2", 3), (b"change 3", 4), (b"change 3", 4)]
    assert respond("GET", "/list", 4) == (b"a b +2", 4)  # past its recordings: the last answer again, nothing moves
    assert respond("POST", "/add", 1, b"title=c&csrf_token=T1") == (None, 1)  # not in the capture: nothing changes
    assert respond("GET", "/list", 0) == (b"", 0)  # a new episode starts at 0: the list as first captured
    assert recording.key("POST", "http://h/j", b'{"a": 1}') != recording.key("POST", "http://h/j", b'{"a": 2}')


# a page whose own scripts fail: at load, and in a timer that runs while fsmc lets time pass (a jQuery plug-in that
# was not loaded: `$(...).tooltip is not a function`)
THROWING = """<!doctype html><html><head><title>{title}</title><script>
window.$ = () => ({{}});
setTimeout(() => {{ $('a').tooltip(); }}, 200);
</script></head><body><h1>{title}</h1><a href="{link}">{link_text}</a>
<script>notDefinedAnywhere();</script><p id="after">The rest of the page still renders.</p></body></html>"""


def test_a_page_whose_own_scripts_throw_is_captured_and_replayed_with_the_errors_recorded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fsmc.browser import SiteServer

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(THROWING.format(title="Home", link="other.html", link_text="Other"))
    (site / "other.html").write_text(THROWING.format(title="Other", link="index.html", link_text="Home"))
    dest = tmp_path / "captures" / "throwing"
    with SiteServer(site) as server:
        assert main(["capture", server.url, "-o", str(dest), "--depth", "1"]) == 0
    err = capsys.readouterr().err
    assert "the page's own script failed: TypeError: $(...).tooltip is not a function" in err
    assert "Traceback" not in err
    manifest = json.loads((dest / "manifest.json").read_text())
    assert len(manifest["pages"]) == 2
    errors = {(e["url"].rsplit("/", 1)[1], e["error"]) for e in manifest["page_errors"]}
    assert errors == {(page, error) for page in ("", "other.html")
                      for error in ("ReferenceError: notDefinedAnywhere is not defined",
                                    "TypeError: $(...).tooltip is not a function")}

    async def replay() -> list[dict[str, object]]:  # offline, the same errors are the page's, not the episode's end
        async with CapturedSite(dest, image=PNG) as captured:
            episode = await captured.open()
            states = [await episode.reset()]
            await episode.perform(Op("click", 'a[href="other.html"]'))
            await episode.settle()
            states.append(await episode.state())
            states.append({"after": await episode.page.inner_text("#after")})
            return states

    home, other, after = asyncio.run(replay())
    assert home["title"] == "Home" and other["title"] == "Other"
    assert after == {"after": "The rest of the page still renders."}
    assert check(dest).fidelity == 1.0


def test_a_stylesheets_picture_that_comes_late_is_in_the_view(tmp_path: Path) -> None:
    """A background image requested only once a timer has styled the page, and served slowly, is in the screenshot."""
    import http.server
    import threading
    import time

    from PIL import Image

    site = tmp_path / "site"
    site.mkdir()
    Image.new("RGB", (64, 64), (200, 20, 20)).save(site / "slow.png")
    (site / "index.html").write_text(
        "<!doctype html><html><head><title>Late</title><style>#hero { width: 300px; height: 200px; }"
        ".ready #hero { background-image: url(slow.png); }</style>"
        "<script>setTimeout(() => document.body.classList.add('ready'), 100);</script></head>"
        "<body><div id='hero'></div></body></html>")

    class Slow(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(site), **kwargs)  # type: ignore[arg-type]

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path.endswith(".png"):
                time.sleep(0.8)
            super().do_GET()

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        manifest = capture(f"http://127.0.0.1:{server.server_address[1]}/", tmp_path / "late", Options(depth=0))
    finally:
        server.shutdown()
        server.server_close()
    shot = Image.open(tmp_path / "late" / manifest["pages"][0]["screenshot"]).convert("RGB")
    assert shot.getpixel((100, 100)) == (200, 20, 20)  # inside #hero, below the body's margin
    assert check(tmp_path / "late").fidelity == 1.0


def test_a_field_focused_on_load_shows_no_caret_in_any_view(tmp_path: Path) -> None:
    """A login page focuses its field as it loads (Django's admin does): the caret blinks on Chromium's own timer, so
    a view showed it or not by chance; captured and offline pages hide it, as generated sites do."""
    from fsmc.browser import SiteServer

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<!doctype html><html><head><title>Sign in</title></head><body><form><label>Username "
        "<input id='user' name='user'></label></form><script>document.getElementById('user').focus()</script>"
        "</body></html>")
    with SiteServer(site) as server:
        capture(server.url, tmp_path / "login", Options(depth=0))

    async def caret() -> list[str]:
        async with CapturedSite(tmp_path / "login", image=PNG) as captured:
            episode = await captured.open()
            await episode.reset()
            return list(await episode.page.evaluate(
                "() => [document.activeElement.id, getComputedStyle(document.activeElement).caretColor]"))

    assert asyncio.run(caret()) == ["user", "rgba(0, 0, 0, 0)"]
    assert [check(tmp_path / "login").fidelity for _ in range(2)] == [1.0, 1.0]
