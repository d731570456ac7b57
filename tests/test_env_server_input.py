"""`fsmc serve-env` under malformed input: a 4xx with an error code for every malformed request, the session limit
held under concurrent creates (429 beyond it), a session closed while it steps."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fsmc.env import Site
from fsmc.env.server import Settings
from fsmc.env.serving import ServerThread

LIMIT = 3
NOWHERE = {"action": "click", "coordinate": [2, 715]}


@pytest.fixture(scope="module")
def server(shop_site: Path, shop_out: Path) -> Iterator[str]:
    settings = Settings(lease_s=30.0, max_sessions=LIMIT)
    with ServerThread([Site.load(shop_site, shop_out)], settings) as url:
        yield url


# (method, path, raw body, status, error code); "{sid}" is a live session's id
MALFORMED = [
    ("POST", "/sessions", b"[" * 100_000 + b"]" * 100_000, 400, "malformed_json"),  # RecursionError in json
    ("POST", "/sessions", b'{"site": ' + b"[" * 5_000 + b"]" * 5_000 + b"}", 400, "malformed_json"),
    ("POST", "/sessions", b'{"site": ["shop"]}', 422, "bad_request"),
    ("POST", "/sessions", b'{"site": {"name": "shop"}}', 422, "bad_request"),
    ("POST", "/sessions", b'{"observe": [["url"]]}', 422, "bad_request"),
    ("POST", "/sessions", b'{"observe": [{"url": 1}]}', 422, "bad_request"),
    ("POST", "/sessions", b'{"observe": "url"}', 422, "bad_request"),
    ("POST", "/sessions", b'{"task": ["buy/p01"]}', 422, "bad_request"),
    ("POST", "/sessions", b'{"seed": 1.5}', 422, "bad_request"),
    ("POST", "/sessions", b'{"max_steps": true}', 422, "bad_request"),
    ("POST", "/sessions", b'{"seed": NaN}', 400, "malformed_json"),
    ("POST", "/sessions", b"\xff\xfe{}", 400, "malformed_json"),
    ("POST", "/sessions", b'"a string"', 400, "malformed_json"),
    ("POST", "/sessions/{sid}/step", b'{"action": "click", "coordinate": [NaN, 5]}', 400, "malformed_json"),
    ("POST", "/sessions/{sid}/step", b'{"action": "click", "coordinate": [Infinity, 5]}', 400, "malformed_json"),
    ("POST", "/sessions/{sid}/step", b'{"action": "click", "coordinate": [-Infinity, 5]}', 400, "malformed_json"),
    ("POST", "/sessions/{sid}/reset", b'{"task": {"id": "buy/p01"}}', 422, "bad_request"),
    ("POST", "/sessions/{sid}/reset", b'{"seed": "7"}', 422, "bad_request"),
    ("GET", "/no/such/route", b"", 404, "not_found"),
    ("PUT", "/sessions", b"{}", 405, "method_not_allowed"),
    ("GET", "/sessions/{sid}/step", b"", 405, "method_not_allowed"),
]


def test_every_malformed_request_gets_a_4xx_with_a_code(server: str) -> None:
    with httpx.Client(base_url=server, timeout=60) as client:
        created = client.post("/sessions", json={"site": "shop", "task": "buy/p01"})
        assert created.status_code == 201, created.text
        sid = created.json()["session"]
        try:
            for method, path, raw, status, code in MALFORMED:
                got = client.request(method, path.format(sid=sid), content=raw)
                assert (got.status_code, got.json().get("error")) == (status, code), (method, path, raw[:60], got.text)
                assert got.json()["message"] and "traceback" not in got.text.lower()
            assert client.post(f"/sessions/{sid}/step", json=NOWHERE).json()["info"]["step"] == 1  # still usable
        finally:
            client.delete(f"/sessions/{sid}")


def test_the_session_limit_holds_under_concurrent_creates(server: str) -> None:
    async def create_many(n: int) -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server, timeout=120) as client:
            answers = await asyncio.gather(*(client.post("/sessions", json={"site": "shop"}) for _ in range(n)))
            for a in answers:
                if a.status_code == 201:
                    await client.delete(f"/sessions/{a.json()['session']}")
            return list(answers)

    answers = asyncio.run(create_many(4 * LIMIT))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * LIMIT + [429] * (3 * LIMIT), [a.text[:100] for a in answers]
    assert {a.json()["error"] for a in answers if a.status_code == 429} == {"too_many_sessions"}


def test_a_session_closed_while_it_steps_finishes_the_step(server: str) -> None:
    """The DELETE waits for the step in flight, which ends normally; the session is gone after (410)."""
    async def step_and_delete() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        async with httpx.AsyncClient(base_url=server, timeout=120) as client:
            sid = (await client.post("/sessions", json={"site": "shop", "task": "buy/p01"})).json()["session"]
            stepping = asyncio.create_task(client.post(f"/sessions/{sid}/step", json=NOWHERE))
            await asyncio.sleep(0.05)  # the step under way, most often; either way neither answer may be a 500
            closed = await client.delete(f"/sessions/{sid}")
            stepped = await stepping
            after = await client.post(f"/sessions/{sid}/step", json=NOWHERE)
            return stepped, closed, after

    stepped, closed, after = asyncio.run(step_and_delete())
    assert stepped.status_code in (200, 410), stepped.text  # taken whole, or refused as gone: never a 500
    assert closed.status_code == 200 and closed.json() == {"closed": closed.json()["closed"]}
    assert after.status_code == 410 and after.json()["error"] == "session_gone"
