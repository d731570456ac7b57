"""fsmc build --agent against the local stand-in through the real clients: an agent restyles the mini site (a
stylesheet, a page with an SVG that wraps the generated one) and every edit is built and replayed in Chromium; an
edit that drops a control is reverted and the agent is told why; writes outside the custom area are refused;
the turn budget stops a looping agent (through google-genai) with the last good site kept, and the token budget
a run whose reply is no action; a custom area of an earlier run that fails is set aside; no key and a wrong base
URL end with a clear message and a non-zero exit, the site as it was."""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from fsmc import Compilation, load
from fsmc.cli.agent_build import add_agent_arguments, run_agent
from fsmc.cli.common import ended
from fsmc.codegen import build_site, generate
from fsmc.errors import FsmcError
from fsmc.testing.standin import Request, StandIn

MINI = Path(__file__).resolve().parent / "fixtures" / "mini.fsm"
ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
       "FSMC_LLM_PROVIDER", "FSMC_LLM_MODEL", "FSMC_LLM_CACHE", "FSMC_PRICES")
HERO = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">'
        '<rect width="120" height="60" rx="8" fill="#0b6e4f"/><circle cx="30" cy="30" r="14" fill="#f2c14e"/></svg>\n')
HOME = """<script setup>
import Generated from '../../src/pages/HomePage0.vue'
</script>

<template>
  <section class="hero">
    HERO
    <h1>Welcome to Mini Market</h1>
  </section>
  <Generated />
</template>
""".replace("HERO", HERO.strip())
BROKEN_HOME = """<template>
  <section class="hero"><h1>A hero without controls</h1><button data-testid="nav-list" type="button">Browse</button></section>
</template>
"""


def act(tool: str, path: str = "", content: str = "", page: str = "") -> str:
    return json.dumps({"thought": f"now {tool}", "tool": tool, "path": path, "content": content, "page": page})


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # the model cache goes to ./.fsmc-cache/llm
    return tmp_path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini site generated and bundled once; each test takes a copy."""
    return build_site(load(MINI), tmp_path_factory.mktemp("built")).project.root


@pytest.fixture
def site(built: Path, tmp_path: Path) -> Path:
    root = generate(load(MINI), tmp_path / "sites").root  # generated afresh (node_modules linked), dist copied
    shutil.copytree(built / "dist", root / "dist")
    return root


def agent(root: Path, server: StandIn | None, *extra: str, provider: str = "openai", url: str | None = None) -> int:
    """run_agent as `fsmc build --agent` calls it; the sample is the first transition of each of mini's 8 actions."""
    parser = argparse.ArgumentParser()
    add_agent_arguments(parser)
    if url is None and server is not None:
        url = server.openai_url if provider == "openai" else server.url
    where = ["--base-url", url] if url else []
    args = parser.parse_args(["--agent", "gemini-2.5-flash" if provider == "gemini" else "gpt-4o-mini",
                              "--provider", provider, *where, "--retries", "0", "--sample", "8", *extra])
    try:
        return run_agent(args, Compilation(MINI), root)
    except FsmcError as done:  # as the command line ends it: its words on stderr, its exit code
        return ended(done)


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(q for q in folder.rglob("*") if q.is_file()):
        h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_agent_restyles_the_site_and_every_edit_passes_the_conformance_sample(site: Path) -> None:
    script = [act("screenshot", page="home"),
              act("write_file", "custom/style.css", ".site-header { background: #0b6e4f; }\n.hero h1 { color: #0b6e4f; }\n"),
              act("write_file", "custom/pages/home.vue", HOME), act("done", content="a green header and a hero")]
    with StandIn(script) as server:
        assert agent(site, server) == 0
    shot = server.requests[1].images
    assert len(shot) == 1 and shot[0][0] == "image/png" and shot[0][1].startswith(b"\x89PNG")
    for request in server.requests[2:]:
        assert "builds and passes the conformance sample" in request.texts[-1]
    assert "data-testid" in server.requests[0].texts[0] and "join: click join" in server.requests[0].texts[1]
    assets = {p.name: p.read_bytes() for p in (site / "dist" / "assets").iterdir()}
    css = next(data for name, data in assets.items() if name.endswith(".css"))
    assert css.index(b"#0b6e4f") > css.index(b"--accent:")  # the custom rules come after the theme's
    js = next(data for name, data in assets.items() if name.endswith(".js"))
    assert b"Welcome to Mini Market" in js and b"#f2c14e" in js  # the page's copy and its SVG
    log = lines(site / "agent.transcript.jsonl")
    assert log[0]["transcript"] == "fsmc build --agent" and "passes" in log[1]["baseline"]
    assert [t["ok"] for t in log if "turn" in t] == [True] * 4 and log[-1] == {"done": "a green header and a hero"}
    assert len(lines(site / "agent.ledger.jsonl")) == 4


def test_an_edit_that_drops_a_control_is_reverted_and_the_agent_told_why(site: Path) -> None:
    script = [act("write_file", "custom/pages/home.vue", BROKEN_HOME),
              act("write_file", "src/fsmc/runtime.js", "export const PAGES = []\n"),
              act("write_file", "custom/peek.js", "export const s = () => window.__fsmc.state()\n"),
              act("conformance"), act("done", content="nothing kept")]
    with StandIn(script) as server:
        assert agent(site, server) == 0
    told = [r.texts[-1] for r in server.requests]
    assert "reverted: the conformance sample failed" in told[1]
    assert "element_missing: no element with data-testid='join'" in told[1]
    assert "refused: 'src/fsmc/runtime.js': you may write only inside custom/" in told[2]
    assert "refused: custom/peek.js: mentions '__fsmc'" in told[3]
    assert "the built site passes the conformance sample (8 transitions)" in told[4]  # the good build, put back
    assert not (site / "custom" / "pages").exists() and not (site / ".fsmc-agent").exists()
    assert not any(b"A hero without controls" in p.read_bytes() for p in (site / "dist" / "assets").iterdir())
    assert [t["reverted"] for t in lines(site / "agent.transcript.jsonl") if "turn" in t] == [True] + [False] * 4


def test_the_turn_budget_stops_a_looping_agent_and_keeps_the_last_good_site(
        site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def script(request: Request) -> str:  # a good edit, then looking around for ever (through google-genai)
        first = not any("[turn" in t for t in request.texts)
        return act("write_file", "custom/style.css", "body { background: #fdf6e3; }\n") if first else act("list_files")

    with StandIn(script) as server:
        assert agent(site, server, "--max-turns", "3", provider="gemini") == 1
    assert len(server.requests) == 3 and server.requests[0].provider == "gemini"
    err = capsys.readouterr().err
    assert "stopped: the turn budget is spent (3 turns) before done" in err and "last good build (1 edit kept)" in err
    assert (site / "custom" / "style.css").is_file()
    assert any(b"#fdf6e3" in p.read_bytes() for p in (site / "dist" / "assets").glob("*.css"))
    assert lines(site / "agent.transcript.jsonl")[-1] == {"stopped": "the turn budget is spent (3 turns) before done"}


def test_no_key_exits_2_before_any_work(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = digest(site / "dist")
    assert agent(site, None) == 2
    assert "fsmc build --agent: error: no API key for openai: set OPENAI_API_KEY" in capsys.readouterr().err
    assert digest(site / "dist") == before and not (site / "agent.transcript.jsonl").exists()


def test_a_wrong_base_url_fails_at_once_keeping_transcript_ledger_and_site(
        site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = digest(site / "dist")
    assert agent(site, None, url=f"http://127.0.0.1:{port}/v1") == 1
    err = capsys.readouterr().err
    assert f"error: cannot reach http://127.0.0.1:{port}/v1" in err and "is the last good build" in err
    assert digest(site / "dist") == before and not (site / "custom").exists()  # the call came before any work
    assert "cannot reach" in lines(site / "agent.transcript.jsonl")[-1]["stopped"]
    assert "cannot reach" in lines(site / "agent.ledger.jsonl")[0]["error"]


def test_the_token_budget_stops_the_run_and_a_reply_that_is_no_action_is_explained(
        site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn(["I will restyle it now.", act("list_files")]) as server:
        assert agent(site, server, "--max-tokens", "50") == 1  # the first call alone takes more
    assert len(server.requests) == 1
    assert "stopped: the token budget is spent" in capsys.readouterr().err
    turn = lines(site / "agent.transcript.jsonl")[1]
    assert turn["action"] is None and turn["result"].startswith("your reply is no JSON object")
    assert not (site / "custom").exists()  # no tool ran: the site is as the build left it


def test_a_custom_area_that_fails_from_an_earlier_run_is_set_aside(site: Path) -> None:
    (site / "custom" / "pages").mkdir(parents=True)
    (site / "custom" / "pages" / "home.vue").write_text(BROKEN_HOME, encoding="utf-8")
    with StandIn([act("done", content="started over")]) as server:
        assert agent(site, server) == 0
    assert (site / "custom.rejected" / "pages" / "home.vue").is_file() and not (site / "custom" / "pages").exists()
    baseline = lines(site / "agent.transcript.jsonl")[1]["baseline"]
    assert "set aside as custom.rejected/" in baseline and "data-testid='join'" in baseline
