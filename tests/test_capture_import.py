"""fsmc import on a real third-party application: datasette captured, a draft spec imported, enumerated and replayed.

The path a user takes: datasette over a small SQLite file is captured live, then stopped (a tripwire listens on its
port); `fsmc import` writes a draft spec and the capture's extractors; the draft passes `fsmc check`, is
enumerated, and its trajectories are replayed on the capture offline, each state read through the extractors.
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
from fsmc.capture.importer import _Html, _shape
from fsmc.cli import main
from fsmc.env.pool import EnvPool, Site

BOX_JS = """(css) => { const r = document.querySelector(css).getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }"""

pytest.importorskip("datasette")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Tripwire]]:
    """A project folder with captures/zoo (datasette, captured then stopped) and a tripwire where datasette was."""
    root = tmp_path_factory.mktemp("project")
    live = Datasette(zoo_db(root / "zoo.db"))
    try:
        capture(live.url, root / "captures" / "zoo", Options(depth=2, pages=12))
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
    assert 'zoo_animals_item = "^/zoo/animals/[^/]+$"' in extract and 'zoo_animals_item_id = "url:path/2"' in extract
    assert main(["check", str(imported)]) == 0


def test_the_committed_example_is_the_draft_of_this_capture(imported: Path) -> None:
    committed = (ROOT / "specs" / "datasette" / "zoo.fsm").read_text(encoding="utf-8")
    body = "".join(line for line in committed.splitlines(keepends=True) if not line.startswith("#")).lstrip("\n")
    assert body == imported.read_text(encoding="utf-8"), "re-import the example: see specs/datasette/zoo.fsm's header"


def test_the_draft_is_enumerated_and_replayed_offline(imported: Path, work: tuple[Path, Tripwire],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    root, tripwire = work
    monkeypatch.chdir(root)  # the output names its spec relative to here: this project's, not the repository's
    out, data = root / "out" / "zoo", root / "data" / "zoo"
    assert main(["enumerate", str(imported), "-o", str(out), "--max-depth", "3"]) == 0
    assert main(["replay", str(out), "-o", str(data)]) == 0
    report = json.loads((data / "report.json").read_text())
    assert report["trajectories"] >= 10 and report["kept"] >= 0.99 * report["trajectories"], report
    rows = [json.loads(line) for line in (data / "trajectories.jsonl").read_text().splitlines()]
    assert {"/", "/zoo/animals"} <= {s["url"] for r in rows for s in r["steps"]}
    reached = [r["moves"][-1]["state"] for r in rows if r["status"] == "kept"]
    assert {"page": "zoo_animals_item", "vars": {"zoo_animals_item_id": "3"}} in reached  # read off /zoo/animals/3
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
    extract.write_text(text.replace('zoo_animals_item_id = "url:path/2"', 'zoo_animals_item_id = "text:#no-such-id"'))
    assert main(["enumerate", str(tmp_path / "specs" / "datasette" / "zoo.fsm"), "-o", str(tmp_path / "out"), "--max-depth", "2"]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "out"), "-o", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert "`text:#no-such-id` of `zoo_animals_item_id`" in err and "matches 0 elements on page zoo_animals_item" in err
    assert "Traceback" not in err


def test_extractors_that_do_not_fit_the_spec_are_reported_by_check(imported: Path, work: tuple[Path, Tripwire],
                                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(work[0] / "captures" / "zoo", tmp_path / "captures" / "zoo")
    (tmp_path / "specs" / "datasette").mkdir(parents=True)
    shutil.copy(imported, tmp_path / "specs" / "datasette" / "zoo.fsm")
    extract = tmp_path / "captures" / "zoo" / "extract.toml"
    text = extract.read_text(encoding="utf-8").replace('zoo = "^/zoo$"\n', "")
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
    (damaged / "extract.toml").unlink()
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


def test_id_like_segments_are_slots_and_hidden_links_are_marked() -> None:
    assert _shape("/zoo/animals/12") == (("zoo", "animals", None), ("12",))
    assert _shape("/db/3f2a9c1d7e/rows") == (("db", None, "rows"), ("3f2a9c1d7e",))
    parser = _Html()
    parser.feed('<title>T</title><details><summary><a href="/menu">Menu</a></summary><a href="/in">In</a></details>'
                '<nav hidden><a href="/gone">x</a></nav><a href="/shown">Shown</a>')
    assert [(a.href, a.hidden) for a in parser.links] == [("/menu", False), ("/in", True), ("/gone", True),
                                                          ("/shown", False)]
    assert parser.title == "T"
