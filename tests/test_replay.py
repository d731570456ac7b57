"""fsmc replay in Chromium: grounded steps, filtering with reasons, isolation, resuming, and why reuse is sound."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import SHOP, write_sample
from PIL import Image

from fsmc import Machine, load
from fsmc.backends import PNG, Capture, GeneratedSite, Op
from fsmc.browser import VIEWPORT
from fsmc.codegen import bundle, generate
from fsmc.enumerate.trajectories import gui_ops
from fsmc.replay import replay


def results(data: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (data / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]


def test_every_sampled_trajectory_is_kept_with_grounded_steps(shop_replayed: Path, shop_sample: Path) -> None:
    out = results(shop_replayed)
    assert [r["id"] for r in out] == [json.loads(x)["id"] for x in (shop_sample / "trajectories.jsonl").open()]
    assert all(r["status"] == "kept" for r in out), [(r["id"], r.get("detail")) for r in out if r["status"] != "kept"]
    kinds = {s["op"] for r in out for s in r["steps"]}
    assert {"click", "type", "press", "hover", "select", "drag", "scroll"} <= kinds
    for r in out:
        assert {s["move"] for s in r["steps"] if "unavailable" not in s} <= set(range(len(r["moves"])))
        for s in r["steps"]:
            if "unavailable" in s:
                continue
            shot = Image.open(shop_replayed / s["screenshot"])
            assert shot.size == (VIEWPORT["width"], VIEWPORT["height"])
            assert s["url"].startswith("/#/")
            assert 0 <= s["nx"] <= 1 and 0 <= s["ny"] <= 1
            if "bbox" in s:
                x, y, w, h = s["bbox"]
                assert x <= s["x"] <= x + w and y <= s["y"] <= y + h, s
    report = json.loads((shop_replayed / "report.json").read_text())
    assert report["kept"] == len(out) and report["rejected"] == 0
    assert report["steps"] == sum(len(r["steps"]) for r in out)
    referenced = {s["screenshot"] for r in out for s in r["steps"] if "screenshot" in s} | {r["final_screenshot"] for r in out}
    assert {f"screens/{p.name}" for p in (shop_replayed / "screens").iterdir()} == referenced


def test_a_disabled_final_move_changes_nothing(shop_replayed: Path) -> None:
    negative = next(r for r in results(shop_replayed) if r["label"] == "disabled_move")
    assert negative["status"] == "kept"
    assert negative["moves"][-1]["enabled"] is False
    assert negative["moves"][-1]["state"] == (negative["moves"][-2]["state"] if len(negative["moves"]) > 1
                                              else negative["initial"])


def test_each_transition_is_proven_once(shop_replayed: Path) -> None:
    out = results(shop_replayed)
    runs = [json.loads(line) for line in (shop_replayed / "runs.jsonl").read_text().splitlines()]
    distinct = {(json.dumps(r["initial"] if i == 0 else r["moves"][i - 1]["state"], sort_keys=True),
                 m["action"], json.dumps(m["args"], sort_keys=True))
                for r in out for i, m in enumerate(r["moves"])}
    total = sum(len(r["moves"]) for r in out)
    assert runs[-1]["transitions"] == len(distinct) < total


def _break(project: Path, action: str, how: str) -> None:
    """Break one action of a generated site: rename its control (`control`) or drop its effect (`effect`)."""
    runtime = project / "src" / "fsmc" / "runtime.js"
    text = runtime.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if f'name: "{action}"' in x)
    if how == "control":
        sel = re.search(r'sel: \(s, a\) => `([^`$]+)', line) or re.search(r'sel: \(s, a\) => "([^"]+)', line)
        assert sel, line
        broken = line.replace(sel.group(1), sel.group(1).replace("-", "_", 1), 1)
    else:
        step = re.search(r"step: (_STEP_\d+)", line)
        assert step, line
        text = re.sub(rf"function {step.group(1)}\(s, a\) \{{", f"function {step.group(1)}(s, a) {{ return s.slice()", text)
        broken = line
    runtime.write_text(text.replace(line, broken), encoding="utf-8")


def test_a_broken_action_rejects_exactly_the_trajectories_that_use_it(shop_sample: Path, tmp_path: Path) -> None:
    project = generate(load(SHOP), tmp_path / "sites")
    _break(project.root, "pick_size", "control")
    _break(project.root, "toggle_gift", "effect")
    bundle(project.root)
    data = tmp_path / "data"
    replay(shop_sample, project.root, data, workers=2)
    expected = {}
    for r in results(data):
        for m in r["moves"]:
            if m["action"] in ("pick_size", "toggle_gift") and m.get("enabled", True):
                expected[r["id"]] = "element_missing" if m["action"] == "pick_size" else "state_diverged"
                break
    assert set(expected.values()) == {"element_missing", "state_diverged"}, "the sample must use both actions"
    got = {r["id"]: r["reason"] for r in results(data) if r["status"] == "rejected"}
    assert got == expected
    report = json.loads((data / "report.json").read_text())
    assert report["rejected_by_reason"]["element_missing"] == sum(v == "element_missing" for v in expected.values())
    assert "size-option" in report["rejected_examples"]["element_missing"]
    assert "gift = false (expected true)" in report["rejected_examples"]["state_diverged"]


def _journal_lines(data: Path) -> int:
    path = data / "progress.jsonl"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def test_killed_and_resumed_gives_the_same_result(shop_sample: Path, shop_site: Path, shop_replayed: Path,
                                                  tmp_path: Path) -> None:
    data = tmp_path / "data"
    cmd = [sys.executable, "-m", "fsmc.cli", "replay", str(shop_sample), "--site", str(shop_site), "-o", str(data),
           "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while _journal_lines(data) < 6 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the whole group: Python, Playwright's driver and Chromium
    proc.wait()
    finished = _journal_lines(data) - 1
    assert 5 <= finished < len(results(shop_replayed)), "the kill should land mid-run"
    assert not (data / "trajectories.jsonl").exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{finished} trajectories resumed" in done.stdout
    for name in ("trajectories.jsonl", "report.json", "manifest.json"):
        assert (data / name).read_bytes() == (shop_replayed / name).read_bytes(), name
    assert sorted(p.name for p in (data / "screens").iterdir()) == sorted(p.name for p in (shop_replayed / "screens").iterdir())


def test_a_journal_of_other_inputs_is_refused(shop_sample: Path, shop_site: Path, shop_replayed: Path,
                                             tmp_path: Path) -> None:
    lines = (shop_sample / "trajectories.jsonl").read_text().splitlines()
    other = write_sample(shop_sample, tmp_path / "other", lines[:3])
    data = tmp_path / "data"
    data.mkdir()
    (data / "progress.jsonl").write_bytes((shop_replayed / "progress.jsonl").read_bytes())
    run = subprocess.run([sys.executable, "-m", "fsmc.cli", "replay", str(other), "--site", str(shop_site), "-o",
                          str(data)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "replay of other trajectories" in run.stderr and "Traceback" not in run.stderr


def test_bad_inputs_are_reported_without_a_traceback(shop_sample: Path, shop_site: Path, tmp_path: Path) -> None:
    def fsmc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "fsmc.cli", *args], capture_output=True, text=True, timeout=60)

    no_site = fsmc("replay", str(shop_sample), "--site", str(tmp_path / "nowhere"), "-o", str(tmp_path / "d"))
    assert no_site.returncode == 2 and "fsmc build" in no_site.stderr
    not_out = fsmc("replay", str(tmp_path), "--site", str(shop_site), "-o", str(tmp_path / "d"))
    assert not_out.returncode == 2 and "not an `fsmc enumerate` output" in not_out.stderr
    garbled = write_sample(shop_sample, tmp_path / "garbled", ["{not json"])
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>")
    bad = fsmc("replay", str(garbled), "--site", str(site), "-o", str(tmp_path / "d"))
    assert bad.returncode == 2 and "trajectories.jsonl:1: not a trajectory" in bad.stderr
    for run in (no_site, not_out, bad):
        assert "Traceback" not in run.stderr


# ---------------------------------------------------------------- the browser side


async def _views_reached_both_ways(dist: Path, walks: int, seed: int) -> list[tuple[str, bytes, bytes]]:
    """(state, screenshot reached through the UI, screenshot after a jump there) for states of random walks."""
    machine = Machine(load(SHOP))
    rng = random.Random(seed)
    out = []
    async with GeneratedSite(dist, image=PNG) as site:
        episode = await site.open()
        for _ in range(walks):
            state = machine.initial()
            await episode.reset()
            for _ in range(rng.randint(1, 8)):
                move = rng.choice(machine.enabled(state))
                for op in gui_ops(machine, state, move):
                    await episode.perform(Op.from_json(op), Capture.NONE)
                await episode.settle()
                state = machine.step(state, move)
            ui = await episode.screenshot()
            await episode.reset()
            await episode.reset(machine.to_json(state))
            assert await episode.state() == machine.to_json(state)
            out.append((json.dumps(machine.to_json(state)), ui, await episode.screenshot()))
    return out


def test_a_jump_through_the_harness_renders_the_same_pixels_as_the_ui(shop_site: Path) -> None:
    """What makes reusing a state's screenshot across trajectories sound (see fsmc/replay/engine.py)."""
    views = asyncio.run(_views_reached_both_ways(shop_site, walks=14, seed=3))
    pages = {json.loads(state)["page"] for state, _, _ in views}
    assert len(pages) >= 4, pages
    for state, ui, jumped in views:
        assert Image.open(io.BytesIO(ui)).tobytes() == Image.open(io.BytesIO(jumped)).tobytes(), state


async def _blocked_requests(dist: Path) -> tuple[int, list[str], Any, str, list[str]]:
    async with GeneratedSite(dist) as site:
        page = (await site.open()).page
        outcome = await page.evaluate("""async () => {
            const tries = ['http://example.com/a.png', 'https://cdn.example.org/x.js', 'http://127.0.0.2:9/y'];
            const results = [];
            for (const url of tries) {
              try { await fetch(url); results.push('reached'); } catch (e) { results.push('blocked'); }
            }
            return results;
        }""")
        own = await page.evaluate("async () => (await fetch('/index.html')).status")
        # no route sees a WebSocket: it goes to the context's proxy, the sink, which refuses it
        socket = await page.evaluate("""() => new Promise((done) => {
            const ws = new WebSocket('ws://example.com/live');
            ws.onopen = () => done('open');
            ws.onerror = () => done('refused');
        })""")
        escaped = site.escaped
    return site.blocked_requests, outcome, own, socket, escaped


def test_only_the_site_under_test_is_reachable(shop_site: Path) -> None:
    blocked, outcome, own, socket, escaped = asyncio.run(_blocked_requests(shop_site))
    assert outcome == ["blocked"] * 3 and blocked == 3
    assert own == 200
    assert socket == "refused" and any("example.com" in hit for hit in escaped), escaped


def test_a_focused_fields_view_does_not_blink(shop_site: Path) -> None:
    """The caret blinks on Chromium's own timer, which the fake clock does not hold: it is hidden."""
    async def shots() -> set[bytes]:
        async with GeneratedSite(shop_site) as site:
            episode = await site.open()
            await episode.page.evaluate("() => { const i = document.createElement('input'); "
                                        "document.body.prepend(i); i.focus() }")
            seen = set()
            for _ in range(6):  # over 1.5 s of real time: a blinking caret (about 0.5 s a phase) shows both phases
                await asyncio.sleep(0.25)
                seen.add(await episode.screenshot())
            return seen

    assert len(asyncio.run(shots())) == 1


def test_a_step_no_agent_can_take_is_rejected_as_unreproducible(shop_site: Path) -> None:
    """A key pressed in a control without the focus that no click could focus without acting on it, or a wait longer
    than the time that passes after each action: replay refuses them (docs/replay.md, An agent's step)."""
    from fsmc.backends import EpisodeFailure

    async def go() -> list[str]:
        reasons = []
        async with GeneratedSite(shop_site) as site:
            episode = await site.open()
            await episode.reset(None)
            button = await episode.page.evaluate(
                "() => [...document.querySelectorAll('[data-testid]')].find((e) => e.tagName === 'BUTTON')"
                ".getAttribute('data-testid')")
            for op in (Op("press", button, "Enter"), Op("wait", limit=5000)):
                try:
                    await episode.perform(op)
                except EpisodeFailure as failure:
                    reasons.append(failure.reason)
        return reasons

    assert asyncio.run(go()) == ["unreproducible", "unreproducible"]
