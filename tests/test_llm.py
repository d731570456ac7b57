"""fsmc.llm through the real `openai` and `google-genai` clients against the local stand-in: both providers,
structured output, the cache (a hit asks nothing and gives the same bytes), retries on 429 and timeouts, the
ledger and prices, and the errors a user meets (no key, a wrong base URL, a refused key, a reply without text)."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from fsmc.llm import Cache, Client, Ledger, LLMError, Message, Prices, Request, Settings, make_provider, open_client
from fsmc.llm.ledger import read_ledger
from fsmc.llm.settings import openai_endpoint
from fsmc.testing.standin import Reply, StandIn

ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
       "FSMC_LLM_PROVIDER", "FSMC_LLM_MODEL", "FSMC_LLM_CACHE", "FSMC_PRICES")
SCHEMA = {"type": "object", "properties": {"spec": {"type": "string"}}, "required": ["spec"],
          "additionalProperties": False}
ASK = Request((Message("system", "You write specs."), Message("user", "A bakery.")), schema=SCHEMA)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def client(server: StandIn, provider: str, tmp: Path, **options: Any) -> Client:
    """A client of the stand-in that waits no real time between attempts (the pauses are recorded instead)."""
    url = server.openai_url if provider == "openai" else server.url
    settings = Settings(provider=provider, model=options.pop("model", "m"), base_url=url, cache_dir=tmp / "cache",
                        ledger=tmp / "ledger.jsonl", **options)
    c = open_client(settings)
    c.pauses = []  # type: ignore[attr-defined]
    c.sleep = c.pauses.append  # type: ignore[attr-defined]
    return c


@pytest.fixture(params=["openai", "gemini"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_both_clients_ask_with_a_schema_and_read_text_and_tokens(provider: str, tmp_path: Path) -> None:
    with StandIn([Reply('{"spec": "site a { entry b }"}', usage=(120, 30))]) as server:
        reply = client(server, provider, tmp_path).complete(ASK)
    assert reply.json() == {"spec": "site a { entry b }"} and (reply.tokens_in, reply.tokens_out) == (120, 30)
    sent = server.requests[0]
    assert sent.texts == ["You write specs.", "A bakery."]
    if provider == "openai":
        assert sent.path == "/v1/chat/completions"
        assert sent.body["response_format"]["json_schema"]["schema"] == SCHEMA
    else:
        assert sent.path.endswith("/models/m:generateContent")
        assert sent.body["generationConfig"]["responseMimeType"] == "application/json"
        assert sent.body["generationConfig"]["responseJsonSchema"] == SCHEMA
        assert sent.body["systemInstruction"]["parts"][0]["text"] == "You write specs."


def test_a_cached_reply_asks_nothing_and_is_the_same_bytes(provider: str, tmp_path: Path) -> None:
    with StandIn(["first answer", "second answer"]) as server:
        first = client(server, provider, tmp_path).complete(ASK)
        again = client(server, provider, tmp_path).complete(ASK)  # a new client: the cache is on disk
        assert len(server.requests) == 1 and again == first
        fresh = client(server, provider, tmp_path, no_cache=True).complete(ASK)
        assert len(server.requests) == 2 and fresh.text == "second answer"
        assert client(server, provider, tmp_path).complete(ASK).text == "second answer"  # --no-cache kept it
    ledger = read_ledger(tmp_path / "ledger.jsonl")
    assert [e["cached"] for e in ledger] == [False, True, False, True]
    assert all(e["cost_usd"] == 0.0 for e in ledger if e["cached"])


def test_a_request_asked_again_on_purpose_is_not_answered_from_its_own_cache(provider: str, tmp_path: Path) -> None:
    """A loop whose retry comes out word for word the same asks the model again (`repeat`); a rerun replays both."""
    with StandIn(["first answer", "second answer"]) as server:
        asking = client(server, provider, tmp_path)
        assert [asking.complete(ASK, repeat=n).text for n in range(2)] == ["first answer", "second answer"]
        rerun = client(server, provider, tmp_path)
        assert [rerun.complete(ASK, repeat=n).text for n in range(2)] == ["first answer", "second answer"]
        assert rerun.complete(ASK).text == "first answer" and len(server.requests) == 2


def test_another_request_is_another_key() -> None:
    other = Request((Message("user", "A bakery!"),), schema=SCHEMA)
    assert ASK.key("openai", "m") != other.key("openai", "m") != other.key("gemini", "m")
    assert ASK.key("openai", "m") == Request(ASK.messages, schema=dict(SCHEMA), purpose="other").key("openai", "m")


def test_a_rate_limit_is_asked_again_after_the_pause_the_server_asks(provider: str, tmp_path: Path) -> None:
    script = [Reply("slow down", status=429, headers={"retry-after": "3"}), Reply("busy", status=503), "ok"]
    with StandIn(script) as server:
        c = client(server, provider, tmp_path, backoff=0.5)
        assert c.complete(ASK).text == "ok"
    assert c.pauses == [3.0, 1.0]  # type: ignore[attr-defined]  # Retry-After, then the backoff doubled
    assert c.ledger.entries[-1]["attempts"] == 3


def test_retries_run_out_with_a_clear_error(provider: str, tmp_path: Path) -> None:
    with StandIn([Reply("slow down", status=429)] * 3) as server, \
            pytest.raises(LLMError, match="answered 429.*3 attempts in all") as err:
        client(server, provider, tmp_path, retries=2).complete(ASK)
    assert err.value.exit_code == 1
    assert read_ledger(tmp_path / "ledger.jsonl")[-1]["error"] == err.value.message


def test_a_timeout_is_asked_again(provider: str, tmp_path: Path) -> None:
    # 1 s for a local reply: on a loaded machine 0.5 s was little more than the stand-in's own time to answer
    with StandIn([Reply("late", delay=2.5), "in time"]) as server:
        c = client(server, provider, tmp_path, timeout=1.0)
        assert c.complete(ASK).text == "in time"
    assert c.ledger.entries[-1]["attempts"] == 2


def test_timeouts_run_out(provider: str, tmp_path: Path) -> None:
    with StandIn([Reply("late", delay=2.5)] * 2) as server, \
            pytest.raises(LLMError, match=r"no reply within 1 s, 2 attempts"):
        client(server, provider, tmp_path, timeout=1.0, retries=1).complete(ASK)


@pytest.mark.parametrize("reply", [Reply('{"spec": "site a {'), Reply('{"spec": "site', finish="length"),
                                   Reply("here is your spec: site a { }")])
def test_malformed_or_truncated_json_is_a_clear_error(provider: str, tmp_path: Path, reply: Reply) -> None:
    with StandIn([reply]) as server:
        answer = client(server, provider, tmp_path).complete(ASK)
    with pytest.raises(LLMError, match="no valid JSON") as err:
        answer.json()
    assert ("cut off at the token limit" in err.value.message) == (reply.finish == "length")
    assert answer.finish == reply.finish


def test_a_reply_without_text_is_an_error(provider: str, tmp_path: Path) -> None:
    with StandIn([Reply(None)]) as server, pytest.raises(LLMError, match="replied without any text"):
        client(server, provider, tmp_path).complete(ASK)


@pytest.mark.parametrize(("status", "said"), [(401, "refused the API key"), (404, "has no model 'm'"),
                                              (400, "refused the request")])
def test_refusals_say_what_to_do(provider: str, tmp_path: Path, status: int, said: str) -> None:
    script = [Reply("nope", status=status)] * 2  # openai asks a 400 again without the schema
    with StandIn(script) as server, pytest.raises(LLMError, match=said):
        client(server, provider, tmp_path).complete(ASK)


def test_a_server_without_json_schema_is_asked_without_it(tmp_path: Path) -> None:
    with StandIn([Reply("response_format is not supported", status=400), '{"spec": "x"}', "plain"]) as server:
        c = client(server, "openai", tmp_path)
        assert c.complete(ASK).json() == {"spec": "x"}
        c.complete(Request((Message("user", "again"),), schema=SCHEMA))
    assert "response_format" in server.requests[0].body
    assert "response_format" not in server.requests[1].body and "response_format" not in server.requests[2].body


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_wrong_base_url_is_a_clear_error(provider: str, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}" + ("/v1" if provider == "openai" else "")
    c = open_client(Settings(provider=provider, model="m", base_url=url, cache_dir=tmp_path))
    with pytest.raises(LLMError, match=r"cannot reach http://127\.0\.0\.1:\d+.*check --base-url") as err:
        c.complete(ASK)
    assert err.value.exit_code == 1


class _Html(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b"<html>a web page, not an API</html>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_base_url_that_is_no_api_is_a_clear_error(provider: str, tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Html)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}" + ("/v1" if provider == "openai" else "")
        c = open_client(Settings(provider=provider, model="m", base_url=url, cache_dir=tmp_path))
        with pytest.raises(LLMError, match="did not answer as .*check --base-url"):
            c.complete(ASK)
    finally:
        server.shutdown()
        server.server_close()


def test_no_key_is_a_settings_error(provider: str) -> None:
    with pytest.raises(LLMError, match="no API key") as err:
        make_provider(Settings(provider=provider))
    assert err.value.exit_code == 2
    variable = "OPENAI_API_KEY" if provider == "openai" else "GEMINI_API_KEY"
    assert variable in err.value.message


def test_the_environment_chooses_provider_model_url_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    monkeypatch.setenv("FSMC_LLM_MODEL", "gemini-2.5-pro")
    p = make_provider(Settings())
    assert (p.name, p.model) == ("gemini", "gemini-2.5-pro")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FSMC_LLM_PROVIDER", "openai")
    p = make_provider(Settings(model="qwen"))  # a server of one's own needs no key
    assert (p.name, p.base_url) == ("openai", "http://127.0.0.1:9/v1")
    assert openai_endpoint() == ("http://127.0.0.1:9/v1", None)  # what fsmc eval uses too
    with pytest.raises(LLMError, match="unknown provider 'claude'"):
        make_provider(Settings(provider="claude"))


def test_prices_default_by_prefix_and_a_user_file_overrides(tmp_path: Path) -> None:
    prices = Prices.load()
    assert prices.cost("gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert prices.cost("my-local-model", 10, 10) is None
    (tmp_path / "prices.toml").write_text('[models."my-local-model"]\ninput = 1.0\noutput = 2.0\n')
    assert Prices.load(tmp_path / "prices.toml").cost("my-local-model", 500_000, 250_000) == pytest.approx(1.0)
    (tmp_path / "bad.toml").write_text('[models."x"]\ninput = "free"\n')
    with pytest.raises(LLMError, match="needs numbers") as err:
        Prices.load(tmp_path / "bad.toml")
    assert err.value.exit_code == 2


def test_the_ledger_prices_each_call(tmp_path: Path) -> None:
    with StandIn([Reply("a", usage=(1000, 100))]) as server:
        c = client(server, "openai", tmp_path, model="gpt-4o-mini")
        c.complete(ASK)
    line = read_ledger(tmp_path / "ledger.jsonl")[0]
    assert line["model"] == "gpt-4o-mini" and (line["tokens_in"], line["tokens_out"]) == (1000, 100)
    assert line["cost_usd"] == pytest.approx((1000 * 0.15 + 100 * 0.60) / 1e6)
    assert Ledger(None, [line]).totals()["cost_usd"] == line["cost_usd"]


def test_a_broken_cache_file_is_asked_again(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    key = ASK.key("openai", "m")
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text("{not json")
    assert cache.get(key) is None


def test_cache_files_hold_the_request_for_a_reader(tmp_path: Path) -> None:
    with StandIn(["x"]) as server:
        client(server, "openai", tmp_path).complete(ASK)
    [entry] = list((tmp_path / "cache").rglob("*.json"))
    data = json.loads(entry.read_text())
    assert data["messages"][1] == ["user", "A bakery."] and data["response"]["text"] == "x"


# ---------------------------------------------------------------- texts: paraphrases and thoughts

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def test_paraphrases_are_kept_only_when_they_name_every_value(tmp_path: Path) -> None:
    from fsmc.enumerate.paraphrases import paraphrase

    candidates = ["Please borrow The Long Field by Ana Ruiz.", "Borrow the long field by Ana Ruiz.",
                  "Get me a novel.", "Please borrow The Long Field by Ana Ruiz.", "Borrow The Long Field by Ana Ruiz."]
    with StandIn([json.dumps({"instructions": candidates})]) as server:
        kept, rejected = paraphrase(client(server, "openai", tmp_path), "Borrow The Long Field by Ana Ruiz.",
                                    ["The Long Field", "Ana Ruiz"], 2)
    assert kept == ["Please borrow The Long Field by Ana Ruiz."] and rejected == 2  # the lower case, the novel
    assert '"The Long Field"; "Ana Ruiz"' in server.requests[0].texts[-1] and "Write 4" in server.requests[0].texts[-1]


def test_an_enumeration_is_paraphrased_beside_its_files(tmp_path: Path) -> None:
    from fsmc import Compilation
    from fsmc.enumerate import enumerate_spec
    from fsmc.enumerate.paraphrases import paraphrase_output, task_values
    from fsmc.propose.reference import EXAMPLE

    c = Compilation("library.fsm", text=EXAMPLE)
    out = tmp_path / "out"
    enumerate_spec(c, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def rewrite(request: Any) -> str:
        instruction = request.texts[-1].split("\n")[0].removeprefix("Instruction: ")
        return json.dumps({"instructions": [f"Could you: {instruction}", "Do the task."]})

    with StandIn(rewrite) as server:
        counts = paraphrase_output(client(server, "openai", tmp_path), out, task_values(c.machine), 1)
    lines = [json.loads(line) for line in (out / "paraphrases.jsonl").read_text().splitlines()]
    assert counts["tasks"] == len(lines) == len(server.requests) and counts["kept"] == counts["tasks"]
    borrow = next(line for line in lines if line["id"] == "borrow/b1")
    assert borrow["values"] == ["The Long Field", "Ana Ruiz"]
    assert borrow["paraphrases"] == ["Could you: Borrow The Long Field by Ana Ruiz."] and borrow["rejected"] == 1
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "paraphrases.jsonl"} == before


def test_fsmc_enumerate_paraphrase_writes_them_and_a_rerun_is_answered_from_the_cache(tmp_path: Path) -> None:
    from fsmc.cli import main
    from fsmc.propose.reference import EXAMPLE

    spec = tmp_path / "library.fsm"
    spec.write_text(EXAMPLE, encoding="utf-8")

    def rewrite(request: Any) -> str:
        instruction = request.texts[-1].split("\n")[0].removeprefix("Instruction: ")
        return json.dumps({"instructions": [f"Please: {instruction}"]})

    def run(out: Path) -> int:
        return main(["enumerate", str(spec), "-o", str(out), "--paraphrase", "1", "--base-url", server.openai_url,
                     "--api-key", "test", "--cache-dir", str(tmp_path / "cache")])

    with StandIn(rewrite) as server:
        assert run(tmp_path / "a") == 0
        asked = len(server.requests)
        assert run(tmp_path / "b") == 0
    assert asked > 0 and len(server.requests) == asked  # the second run asked nothing
    first = (tmp_path / "a" / "paraphrases.jsonl").read_bytes()
    assert first == (tmp_path / "b" / "paraphrases.jsonl").read_bytes()
    lines = [json.loads(line) for line in first.decode().splitlines()]
    assert all(line["paraphrases"] == [f"Please: {line['instruction']}"] for line in lines)
    assert (tmp_path / "a.ledger.jsonl").exists()


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_a_thought_is_written_from_the_screenshot_and_cached(provider: str, tmp_path: Path) -> None:
    from fsmc.export.thoughts import ModelThoughts

    with StandIn(["<think>The genre filter is at the top, so I pick history.</think>"]) as server:
        thoughts = ModelThoughts(client(server, provider, tmp_path))
        args = ("Find a history book.", [{"action": "click", "coordinate": [1, 2]}], {"action": "click"}, PNG)
        first = thoughts(*args)
        assert thoughts(*args) == first == "The genre filter is at the top, so I pick history."
    assert len(server.requests) == 1 and server.requests[0].images == [("image/png", PNG)]
    assert "Next action:" in server.requests[0].texts[-1]


def test_a_replay_gets_a_thought_per_step_under_its_rows_ids(tmp_path: Path) -> None:
    from fsmc.export.thoughts import thoughts_output

    data = tmp_path / "data"
    (data / "screens").mkdir(parents=True)
    (data / "screens" / "a.png").write_bytes(PNG)
    (data / "screens" / "b.png").write_bytes(PNG + b"b")
    steps = [{"op": "click", "x": 5, "y": 6, "screenshot": "screens/a.png", "move": 0},
             {"op": "type", "x": 7, "y": 8, "text": "wool", "screenshot": "screens/b.png", "move": 1}]
    kept = {"id": "t1#0", "status": "kept", "instruction": "Search for wool.", "steps": steps,
            "moves": [{"action": "open"}, {"action": "search"}]}
    rejected = {**kept, "id": "t2#0", "status": "rejected"}
    (data / "trajectories.jsonl").write_text("".join(json.dumps(t) + "\n" for t in (kept, rejected)))
    with StandIn(["I open the search.", "I type wool."]) as server:
        counts = thoughts_output(client(server, "gemini", tmp_path), data)
    assert counts == {"trajectories": 1, "steps": 2}
    lines = [json.loads(line) for line in (data / "thoughts.jsonl").read_text().splitlines()]
    assert lines == [{"id": "t1#0/0", "thought": "I open the search."}, {"id": "t1#0/1", "thought": "I type wool."}]
    assert server.requests[1].images == [("image/png", PNG + b"b")] and '"text": "wool"' in server.requests[1].texts[-1]
