"""Benchmark: a captured site offline against the same site live, in the same run; and how faithful the capture is.

    python bench/backends.py                  # datasette over a generated SQLite file, 30 pages, 3 rounds
    python bench/backends.py --pages 12 --rounds 2
    python bench/backends.py --only cloned    # the cloned application's resets alone
    python bench/backends.py --only apps      # three applications imported: actions, trajectories kept, fidelity

The site is datasette (PyPI), started here over a SQLite file of 360 rows in three tables, captured
with `fsmc capture` to depth 2. Two kinds of action, done as an agent does them (`Episode.perform`:
locate the element, act at its centre): a click on the link that led to each captured page (then the
page load it starts), and typing into a table page's filter field (no page load). Action → screenshot
latency runs from the operation to the JPEG screenshot after the settle, on the captured site
(`CapturedSite`, no network) and on the live site (`LiveSite`: the same pinned pages, requests passed
to datasette), each action on one then the other, so that both see the same load on the machine.

Fidelity is the share of captured pages whose offline view (PNG) equals the view taken while capturing,
byte for byte (`fsmc capture --check`), and, for comparison, equals a live view taken now in the same
run (the live site may change between two loads: datasette prints how long its queries took).

Applications imported (`--only apps`): three real applications run here, each captured (`fsmc capture`), imported
(`fsmc import`), its draft enumerated (the spec's own tasks, depth 3) and replayed on the capture offline, and the
capture checked three times (`fsmc capture --check`): datasette over the example's zoo (specs/datasette, its flows),
the Django admin of specs/todo.fsm (from its login page; flows log in, open its lists and add a todo), and Trac 1.6 (PyPI
`Trac`, specs/apps/tracker/.venv) with three tickets, anonymous users allowed to file tickets, from its home page to
depth 2 with 40 pages, as the issue that asked for the figures did, and flows that file a ticket (a POST form) and
search. Per application: the pages captured (of them bundled documentation), the draft's pages and
actions, the share of application actions (neither on nor to a documentation page, and not navigation repeated on
more than half the draft's pages: the same click leading to the same page), trajectories kept offline, and each check's fidelity, with
whether the three checks failed on the same pages.

Reset of a cloned application: the Django todo admin of specs/todo.fsm started by `ClonedApp`; before each
of `--resets` resets a row is written into its database, then the episode is reset. Two figures: the
restore of the database snapshot alone (SQLite's backup API into the live file; the goal is ≤ 100 ms),
and the whole episode reset (restore, cookies forgotten, the home page loaded and settled, the state read).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc.backends import JPEG, PNG, Capture, CapturedSite, ClonedApp, EpisodeFailure, LiveSite, Op  # noqa: E402
from fsmc.browser import Chromium  # noqa: E402
from fsmc.capture import CaptureFolder, Options, capture, check  # noqa: E402

UNIQUE_JS = "(sel) => document.querySelectorAll(sel).length === 1"


def make_db(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("create table species (id integer primary key, name text, legs integer, wild integer)")
    db.executemany("insert into species (name, legs, wild) values (?, ?, ?)",
                   [(f"species {i:03d}", (i * 7) % 9, i % 2) for i in range(200)])
    db.execute("create table keepers (id integer primary key, name text, species_id integer references species(id))")
    db.executemany("insert into keepers (name, species_id) values (?, ?)", [(f"keeper {i}", i * 3 + 1) for i in range(40)])
    db.execute("create table feeds (id integer primary key, keeper_id integer references keepers(id), grams integer)")
    db.executemany("insert into feeds (keeper_id, grams) values (?, ?)", [(i % 40 + 1, 50 + i) for i in range(120)])
    db.commit()
    db.close()
    return path


def start_datasette(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    process = subprocess.Popen([sys.executable, "-m", "datasette", "serve", str(db), "--port", str(port), "--host",
                                "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(150):
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return process, url
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("datasette did not start")


def actions(folder: CaptureFolder) -> list[tuple[str, Op]]:
    """A click on the link that led to each captured page (a page load), and typing into the filter field of each
    table page (no page load): (the page it starts on, the operation)."""
    clicks = [(p.parent, Op("click", f"a[href={json.dumps(p.href)}]")) for p in folder.pages if p.parent and p.href]
    typing = [(p.url, Op("type", "input[name=_filter_value]", "spider")) for p in folder.pages
              if p.url.count("/") == 4 and "?" not in p.url]
    return clicks + typing


async def timed(episode: Any, before: str, op: Op) -> float | None:
    """Milliseconds from the start of `op` on the page `before` to the screenshot after it (None: it failed there)."""
    await episode.reset({"url": before})
    if not await episode.page.evaluate(UNIQUE_JS, op.selector):
        return None
    began = time.perf_counter()
    try:
        await episode.perform(op, Capture.NONE)
        await episode.settle()
    except EpisodeFailure:
        return None
    await episode.screenshot()
    return (time.perf_counter() - began) * 1000


async def latencies(start: str, folder: CaptureFolder, actions: list[tuple[str, Op]],
                    rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]], list[float]]:
    """Each action on the live and the captured site in turn (so both see the same load on the machine), as
    {kind: [ms]} per site; and a bare screenshot's time (the floor)."""
    chromium = Chromium()
    await chromium.start()
    live_ms: dict[str, list[float]] = {}
    off_ms: dict[str, list[float]] = {}
    floor: list[float] = []
    try:
        async with LiveSite(start, image=JPEG, chromium=chromium) as live, \
                CapturedSite(folder, image=JPEG, chromium=chromium) as site:
            episodes = [(await live.open(), live_ms), (await site.open(), off_ms)]
            for _ in range(rounds):
                for before, op in actions:
                    for episode, into in episodes:
                        ms = await timed(episode, before, op)
                        if ms is not None:
                            into.setdefault(op.op, []).append(ms)
            for _ in range(20):
                began = time.perf_counter()
                await episodes[1][0].screenshot()
                floor.append((time.perf_counter() - began) * 1000)
    finally:
        await chromium.close()
    return live_ms, off_ms, floor


async def live_views(start: str, folder: CaptureFolder) -> list[bool]:
    """For each captured page: does its offline view equal its live view, both taken now?"""
    chromium = Chromium()
    await chromium.start()
    try:
        async with LiveSite(start, image=PNG, chromium=chromium) as live, \
                CapturedSite(folder, image=PNG, chromium=chromium) as site:
            a, b = await live.open(), await site.open()
            same = []
            for page in folder.pages:
                await a.goto(page.url)
                await b.goto(page.url)
                same.append(await a.screenshot() == await b.screenshot())
    finally:
        await chromium.close()
    return same


async def cloned_resets(n: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `n` database restores and of `n` whole episode resets of the Django todo admin."""
    from fsmc.formats import load

    spec = load(ROOT / "specs" / "todo.fsm")
    app = ClonedApp(ROOT / "specs" / "apps" / "todo" / "fsmc-backend.toml", spec)
    whole: list[float] = []
    async with app:
        episode = await app.open()
        for i in range(n):
            with sqlite3.connect(app.database) as db:
                db.execute("insert into todos_todo (title, done) values (?, 0)", (f"bench {i}",))
            t = time.perf_counter()
            state = await episode.reset()
            whole.append((time.perf_counter() - t) * 1000)
            assert state["vars"] == {"logged_in": False, "milk": False, "milk_done": False}, state
    return [s * 1000 for s in app.reset_seconds], whole


def print_cloned(n: int) -> None:
    restore, whole = asyncio.run(cloned_resets(n))
    print(f"\nreset of a cloned application (Django {_django()} admin over SQLite, specs/todo.fsm), {n} resets, a row "
          f"written before each; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| reset of a cloned application | n | p50 ms | p95 ms | mean ms |")
    print("|---|---:|---:|---:|---:|")
    for label, xs in (("database snapshot restored", restore), ("episode reset (restore, home page, state)", whole)):
        print(f"| {label} | {len(xs)} | {pct(xs, 0.5):.1f} | {pct(xs, 0.95):.1f} | {statistics.fmean(xs):.1f} |")


DJANGO_FLOWS = [
    {"name": "log in", "start": "/admin/login/",
     "ops": [{"op": "type", "selector": "#id_username", "text": "admin"},
             {"op": "type", "selector": "#id_password", "text": "fsmc-pass"},
             {"op": "click", "selector": "input[type=submit]"}]},
    {"name": "browse", "start": "/admin/",
     "ops": [{"op": "click", "selector": "#content-main th a[href='/admin/todos/todo/']"},
             {"op": "click", "selector": ".object-tools a.addlink"}]},
    {"name": "users", "start": "/admin/",
     "ops": [{"op": "click", "selector": "#content-main th a[href='/admin/auth/user/']"},
             {"op": "click", "selector": "#result_list tbody th a"}]},
    {"name": "add a todo", "start": "/admin/todos/todo/add/",
     "ops": [{"op": "type", "selector": "#id_title", "text": "buy milk"},
             {"op": "click", "selector": "input[name=_save]"}]}]
TRAC_FLOWS = [
    {"name": "file a ticket", "start": "/newticket",
     "ops": [{"op": "type", "selector": "#field-summary", "text": "Keyboard sticks"},
             {"op": "select", "selector": "#field-priority", "text": "critical"},
             {"op": "click", "selector": "#propertyform input[name=submit]"}]},
    {"name": "search", "start": "/",
     "ops": [{"op": "type", "selector": "#proj-search", "text": "printer"},
             {"op": "click", "selector": "#search input[type=submit]"}]}]


def _datasette_app(work: Path) -> tuple[str, Options, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from datasette_site import Datasette, zoo_db

    live = Datasette(zoo_db(work / "zoo.db"))
    return live.url, Options(depth=2, pages=12, flows=ROOT / "specs" / "datasette" / "flows.json"), live.stop


def _django_app(work: Path) -> tuple[str, Options, Any]:
    from fsmc.formats import load

    app = ClonedApp(ROOT / "specs" / "apps" / "todo" / "fsmc-backend.toml", load(ROOT / "specs" / "todo.fsm"))
    app.start_app()
    (work / "flows.json").write_text(json.dumps(DJANGO_FLOWS))
    return app.url + "/admin/login/", Options(depth=2, pages=20, flows=work / "flows.json"), app.stop_app


def _trac_app(work: Path) -> tuple[str, Options, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from trac_site import Trac

    trac = Trac(work, ["Printer jams", "Screen flickers", "Mouse sticks"], permissions=("TICKET_CREATE",))
    (work / "flows.json").write_text(json.dumps(TRAC_FLOWS))
    return trac.url, Options(depth=2, pages=40, flows=work / "flows.json"), trac.stop


def application_share(spec: Any, of_page: dict[str, str]) -> int:
    """The draft's application actions: neither on nor to a documentation page, nor a repeat of navigation declared on
    more than half the draft's pages (the same click leading to the same page: a menu declared on every page)."""
    from fsmc.capture.sitemap import documentation

    doc = {name for name, path in of_page.items() if documentation(path)}
    pages = Counter((a.gui, a.goto) for p in spec.pages for a in p.actions)
    seen: set[tuple[Any, ...]] = set()
    count = 0
    for page in spec.pages:
        for a in page.actions:
            repeated = (a.gui, a.goto) in seen and pages[a.gui, a.goto] > len(spec.pages) / 2
            seen.add((a.gui, a.goto))
            count += not (repeated or page.name in doc or a.goto in doc)
    return count


def imported(name: str, work: Path, start: Any) -> dict[str, Any]:
    """Capture, import, enumerate, replay offline and check three times one application; its figures."""
    from fsmc.capture.importer import import_capture
    from fsmc.capture.sitemap import documentation
    from fsmc.cli import main as fsmc

    url, options, stop = start(work)
    try:
        t = time.perf_counter()
        manifest = capture(url, work / "captures" / name, options)
        capture_s = time.perf_counter() - t
    finally:
        stop()
    paths = [urlsplit(p["url"]).path for p in manifest["pages"]]
    made = import_capture(work / "captures" / name, work / "specs" / f"{name}.fsm")
    pattern = {t.name: "/" + "/".join(s or "1" for s in t.pattern) for t in made.templates}
    actions = sum(len(p.actions) for p in made.spec.pages)
    here = os.getcwd()
    os.chdir(work)
    try:
        code = fsmc(["enumerate", f"specs/{name}.fsm", "-o", f"out/{name}", "--max-depth", "3", "--no-derived"]) \
            or fsmc(["replay", f"out/{name}", "-o", f"data/{name}"])
    finally:
        os.chdir(here)
    done = work / "data" / name / "report.json"  # replay exits 1 when it rejects a trajectory: its report counts
    report = json.loads(done.read_text()) if done.is_file() else {"enumerate_or_replay_failed": code}
    checks = [check(work / "captures" / name) for _ in range(3)]
    return {"name": name, "captured": len(paths), "docs": sum(map(documentation, paths)), "capture_s": capture_s,
            "pages": len(made.spec.pages), "actions": actions, "app": application_share(made.spec, pattern),
            "trajectories": report.get("trajectories", 0), "kept": report.get("kept", 0),
            "fidelity": [c.fidelity for c in checks],
            "same_pages": len({tuple(p.url for p in c.pages if not p.same_view) for c in checks}) == 1}


APPS = {"datasette": _datasette_app, "django_admin": _django_app, "trac": _trac_app}


def print_apps(names: list[str]) -> None:
    rows = []
    for name, start in ((n, APPS[n]) for n in names):
        rows.append(imported(name, Path(tempfile.mkdtemp(prefix=f"fsmc-bench-{name}-")), start))
        print(f"{name}: {rows[-1]}", flush=True)
    print(f"\napplications captured, imported, replayed offline and checked three times; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| application | pages captured (documentation) | draft pages | actions | application actions | "
          "trajectories kept offline | fidelity, three checks | same pages |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        share = r["app"] / max(1, r["actions"])
        kept = f"{r['kept']}/{r['trajectories']}" + (f" ({r['kept'] / r['trajectories']:.0%})" if r["trajectories"] else "")
        print(f"| {r['name']} | {r['captured']} ({r['docs']}) | {r['pages']} | {r['actions']} | {r['app']} "
              f"({share:.0%}) | {kept} | {', '.join(f'{f:.1%}' for f in r['fidelity'])} | "
              f"{'yes' if r['same_pages'] else 'no'} |")


def _django() -> str:
    import django

    return str(django.__version__)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--resets", type=int, default=50, help="resets of the cloned application")
    parser.add_argument("--only", choices=("captured", "cloned", "apps"), help="one part of the benchmark")
    parser.add_argument("--app", action="append", choices=sorted(APPS), help="with --only apps: this one (repeatable)")
    args = parser.parse_args()
    if args.only == "apps":
        print_apps(args.app or list(APPS))
        return
    if args.only != "captured":
        print_cloned(args.resets)
    if args.only == "cloned":
        return
    work = Path(tempfile.mkdtemp(prefix="fsmc-bench-backends-"))
    process, url = start_datasette(make_db(work / "zoo.db"))
    try:
        t = time.perf_counter()
        manifest = capture(url, work / "captures" / "zoo", Options(depth=2, pages=args.pages))
        capture_s = time.perf_counter() - t
        folder = CaptureFolder(work / "captures" / "zoo")
        print(f"captured {len(manifest['pages'])} pages, {manifest['exchanges']} requests in {capture_s:.1f} s", flush=True)
        todo = actions(folder)
        live_ms, off_ms, floor = asyncio.run(latencies(url, folder, todo, args.rounds))
        same_live = asyncio.run(live_views(url, folder))
    finally:
        process.terminate()
        process.wait()
    report = check(folder)  # datasette is gone: offline alone
    n = len(folder.pages)
    print(f"\naction → screenshot on datasette {_version()}: {len(todo)} actions × {args.rounds} rounds, live and "
          f"offline in turn, one headless Chromium, 1280×720 JPEG; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; a bare screenshot: p50 {pct(floor, 0.5):.1f} ms\n")
    print("| action | site | n | p50 ms | p95 ms | mean ms |")
    print("|---|---|---:|---:|---:|---:|")
    for kind, label in (("click", "click a link (page load)"), ("type", "type in a field (no load)")):
        for name, runs in (("live", live_ms), ("captured, offline", off_ms)):
            xs = runs.get(kind, [])
            if xs:
                print(f"| {label} | {name} | {len(xs)} | {pct(xs, 0.5):.1f} | {pct(xs, 0.95):.1f} | "
                      f"{statistics.fmean(xs):.1f} |")
    print("\n| fidelity | pages | equal | share |")
    print("|---|---:|---:|---:|")
    same = sum(p.same_view for p in report.pages)
    print(f"| offline view = view at capture (PNG bytes) | {n} | {same} | {same / n:.1%} |")
    print(f"| offline view = live view now, same run | {n} | {sum(same_live)} | {sum(same_live) / n:.1%} |")
    print(f"\nmisses: {report.misses} in {n} pages ({report.misses / n:.2f} per page); off-site requests refused: "
          f"{report.blocked}; page requests past the handlers: {report.escaped}; the browser's own requests refused "
          f"by the sink: {len(report.background)}; offline check of {n} pages in {report.seconds:.1f} s")


def _version() -> str:
    from datasette.version import __version__

    return str(__version__)


if __name__ == "__main__":
    main()
