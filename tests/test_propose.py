"""fsmc propose against the local stand-in through the real clients: the proposer errs twice and the improver is
shown fsmc's diagnostics as `fsmc check` prints them; a rerun is answered from the cache with the same bytes;
a spec that never comes clean, a reply without JSON or text, no key and a wrong base URL each end with a clear
message and a non-zero exit, the transcript and ledger kept, and no spec written."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from fsmc.cli import main
from fsmc.formats import load
from fsmc.propose import Budget, ProfileError, read_profile, validate
from fsmc.propose.reference import EXAMPLE
from fsmc.testing.standin import Reply, StandIn

ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
       "FSMC_LLM_PROVIDER", "FSMC_LLM_MODEL", "FSMC_LLM_CACHE", "FSMC_PRICES")
MISSING_RESET = EXAMPLE.replace("    genre := g\n    page_no := 1\n", "    genre := g\n")  # E310
UNKNOWN_NAME = EXAMPLE.replace("require len(loans) > 0\n", "require len(loanz) > 0\n")  # E104
DESCRIPTION = "a town library: browse books by genre, hold up to two, borrow them"


def spec_reply(text: str) -> str:
    return json.dumps({"spec": text})


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # the cache goes to ./.fsmc-cache/llm
    return tmp_path


def propose(server: StandIn | None, *extra: str, provider: str = "openai", url: str | None = None) -> int:
    if url is None:
        assert server is not None
        url = server.openai_url if provider == "openai" else server.url
    return main(["propose", DESCRIPTION, "-o", "specs/library.fsm", "--provider", provider, "--model", "gpt-4o-mini",
                 "--base-url", url, "--retries", "0", *extra])


def transcript(path: str = "specs/library.transcript.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def no_output(root: Path) -> bool:
    """Neither the spec nor a temporary file of it was written."""
    return not any(p.name.startswith(("library.fsm", ".library.fsm", "library.json")) for p in root.rglob("*"))


def test_the_reference_example_is_clean() -> None:
    verdict = validate(EXAMPLE, "library.fsm")
    assert verdict.clean and verdict.states == 207 and verdict.report == ""


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_errs_twice_then_succeeds_and_the_improver_sees_the_diagnostics(
        provider: str, in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = [spec_reply(MISSING_RESET), spec_reply(UNKNOWN_NAME), spec_reply(EXAMPLE)]
    with StandIn(script) as server:
        assert propose(server, provider=provider) == 0
    assert Path("specs/library.fsm").read_text(encoding="utf-8") == EXAMPLE
    first, second, third = (r.texts[-1] for r in server.requests)
    assert DESCRIPTION in first and "This is the spec so far" not in first
    # the improver is shown each spec and fsmc's diagnostics exactly as `fsmc check` prints them
    for asked, spec in ((second, MISSING_RESET), (third, UNKNOWN_NAME)):
        report = validate(spec, "specs/library.fsm").report
        assert report in asked and spec.rstrip() in asked
    assert "specs/library.fsm:36:5: error[E310]" in second and "hint: add `page_no := 1`" in second
    assert "specs/library.fsm:73:17: error[E104]: unknown name 'loanz'" in third
    rounds = transcript()[1:]
    assert [(r["round"], r["kind"], r["clean"]) for r in rounds] == [(1, "propose", False), (2, "improve", False),
                                                                   (3, "improve", True)]
    assert rounds[0]["diagnostics"][0]["code"] == "E310" and rounds[2]["states"] == 207
    err = capsys.readouterr().err
    assert "round 1 (propose): 1 error, 0 warnings" in err and "clean after 3 rounds" in err
    assert "3 made, 0 from the cache" in err


def test_a_rerun_is_free_and_byte_identical_and_no_cache_asks_again(in_tmp: Path) -> None:
    script = [spec_reply(MISSING_RESET), spec_reply(EXAMPLE)] * 2
    with StandIn(script) as server:
        assert propose(server) == 0
        spec, kept = Path("specs/library.fsm").read_bytes(), Path("specs/library.transcript.jsonl").read_bytes()
        assert propose(server) == 0
        assert len(server.requests) == 2  # the rerun asked nothing
        assert Path("specs/library.fsm").read_bytes() == spec
        assert Path("specs/library.transcript.jsonl").read_bytes() == kept
        assert propose(server, "--no-cache") == 0
        assert len(server.requests) == 4
    ledger = [json.loads(line) for line in Path("specs/library.ledger.jsonl").read_text().splitlines()]
    assert [e["cached"] for e in ledger] == [False, False, True, True, False, False]
    assert all(e["cost_usd"] is not None for e in ledger)


def test_never_clean_exits_1_keeping_transcript_and_ledger(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn([spec_reply(MISSING_RESET)] * 3) as server:
        assert propose(server, "--rounds", "3") == 1
    assert no_output(in_tmp)
    assert len(transcript()) == 4 and not transcript()[-1]["clean"]
    assert len(Path("specs/library.ledger.jsonl").read_text().splitlines()) == 3
    err = capsys.readouterr().err
    assert "error[E310]" in err and "specs/library.fsm: not written: no clean spec after 3 rounds" in err


def test_a_reply_without_json_uses_up_its_round_and_is_said_why(in_tmp: Path) -> None:
    with StandIn([Reply('{"spec": "site library {', finish="length"), spec_reply(EXAMPLE)]) as server:
        assert propose(server) == 0
    assert "could not be used: the reply is no valid JSON" in server.requests[1].texts[-1]
    assert "cut off at the token limit" in transcript()[1]["error"]


def test_a_fenced_spec_is_read_from_a_server_without_structured_output(in_tmp: Path) -> None:
    with StandIn([f"Here it is:\n```fsm\n{EXAMPLE}```\n"]) as server:
        assert propose(server) == 0
    assert Path("specs/library.fsm").read_text() == EXAMPLE


def test_a_reply_without_text_stops_with_exit_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn([spec_reply(MISSING_RESET), Reply(None)]) as server:
        assert propose(server) == 1
    assert "replied without any text" in capsys.readouterr().err and no_output(in_tmp)
    assert "replied without any text" in transcript()[-1]["stopped"]
    assert Path("specs/library.ledger.jsonl").exists()


def test_rate_limits_past_the_retries_stop_with_exit_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with StandIn([Reply("slow down", status=429, headers={"retry-after": "0"})] * 2) as server:
        assert propose(server, "--retries", "1") == 1
    assert "answered 429" in capsys.readouterr().err and no_output(in_tmp)


def test_no_key_exits_2(capsys: pytest.CaptureFixture[str], in_tmp: Path) -> None:
    assert main(["propose", DESCRIPTION, "-o", "specs/library.fsm", "--provider", "gemini"]) == 2
    err = capsys.readouterr().err
    assert "no API key for gemini: set GEMINI_API_KEY or GOOGLE_API_KEY" in err and "Traceback" not in err
    assert no_output(in_tmp)


def test_a_wrong_base_url_exits_1(capsys: pytest.CaptureFixture[str], in_tmp: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert propose(None, url=f"http://127.0.0.1:{port}/v1") == 1
    err = capsys.readouterr().err
    assert "cannot reach http://127.0.0.1" in err and "--base-url or OPENAI_BASE_URL" in err and no_output(in_tmp)
    assert "stopped" in transcript()[-1]


def test_to_fsm_json_writes_autowebworlds_format(in_tmp: Path) -> None:
    with StandIn([spec_reply(EXAMPLE)]) as server:
        assert main(["propose", DESCRIPTION, "-o", "specs/library.json", "--to", "fsm-json",
                     "--base-url", server.openai_url, "--model", "gpt-4o-mini"]) == 0
    data = json.loads(Path("specs/library.json").read_text())
    assert data["meta"]["initial_page_id"] == "catalogue"
    assert {p.name for p in load("specs/library.json").pages} == {"catalogue", "receipt"}


def test_a_profile_sets_the_budgets(in_tmp: Path) -> None:
    with StandIn([spec_reply(EXAMPLE)] * 2) as server:
        assert main(["propose", "-o", "specs/library.fsm", "--profile", "domain=library,difficulty=easy,pages=1",
                     "--rounds", "2", "--base-url", server.openai_url]) == 1
    assert "A library website of easy difficulty" in server.requests[0].texts[-1]
    assert "error[P003]: the spec has 2 pages; the budget is 1" in server.requests[1].texts[-1]


def test_profiles_are_read_from_text_and_files(in_tmp: Path) -> None:
    assert read_profile("domain=recipes, difficulty=hard, actions=12").actions == 12
    Path("p.toml").write_text('domain = "recipes"\npages = 3\n')
    assert read_profile("p.toml").pages == 3
    Path("p.json").write_text('{"domain": "recipes", "difficulty": "extreme"}')
    for bad, said in (("p.json", "difficulty 'extreme'"), ("difficulty=easy", "needs a domain"),
                      ("domain=x,pages=two", "whole number"), ("domain=x,colour=red", "unknown key"),
                      ("missing.toml", "cannot read")):
        with pytest.raises(ProfileError, match=said):
            read_profile(bad)


def test_a_bad_profile_exits_2_and_no_task_64(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["propose", "-o", "x.fsm", "--profile", "pages=3"]) == 2
    assert main(["propose", "-o", "x.fsm"]) == 64  # a usage error
    err = capsys.readouterr().err
    assert "needs a domain" in err and "say what to propose" in err


def test_a_spec_fsmc_check_calls_ok_is_said_so_with_what_propose_needs_more(
        in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_tasks = EXAMPLE[:EXAMPLE.index("task borrow")]
    with StandIn([spec_reply(no_tasks)] * 3) as server:
        assert propose(server, "--rounds", "3") == 1
    assert len(server.requests) == 3  # the third round's request was the second's again: asked anew, not cached
    err = " ".join(capsys.readouterr().err.split())
    assert "0 errors, 0 warnings" in err and "propose needs P002: the spec has no task" in err
    assert "`fsmc check` calls the last spec ok, but propose needs what is said above" in err


def test_the_state_budget_and_a_missing_task_are_diagnostics() -> None:
    verdict = validate(EXAMPLE, "l.fsm", Budget(states=100))
    assert [d.code for d in verdict.diagnostics] == ["P001"] and not verdict.clean
    no_tasks = EXAMPLE[:EXAMPLE.index("task borrow")]
    assert "P002" in {d.code for d in validate(no_tasks, "l.fsm").diagnostics}
