"""`fsmc serve-env`: the real server on 127.0.0.1 through the clients; clear errors, leases, isolation, no leaks."""

from __future__ import annotations

import asyncio
import base64
import re
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from fsmc.env import EpisodeEnded, InvalidAction, OffScreen, Site, UnknownSite, UnknownTask
from fsmc.env import server as server_module
from fsmc.env.client import AsyncRemoteEnv, RemoteEnv, SessionGone
from fsmc.env.server import Sessions, Settings, _register, check_host
from fsmc.env.serving import ServerThread

NOWHERE = {"action": "click", "coordinate": [2, 715]}
TIMEOUT = 60  # seconds for a request: creating a session took longer than httpx's default of 5 on a loaded machine


# Short enough for the reaping test to wait it out, long enough that a busy client's next request, queued behind four
# other sessions' screenshots on a loaded 2-core machine, still finds its session (at 2 s one did not, once in three runs)
LEASE_S = 6.0


@pytest.fixture(scope="module")
def server(shop_site: Path, shop_out: Path) -> Iterator[str]:
    settings = Settings(lease_s=LEASE_S, max_steps=3, max_sessions=6)
    with ServerThread([Site.load(shop_site, shop_out)], settings) as url:
        yield url


def gauges(url: str) -> dict[str, float]:
    text = httpx.get(f"{url}/metrics", timeout=TIMEOUT).text
    return {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if "{" not in line}


def test_health_metrics_and_sites(server: str) -> None:
    assert httpx.get(f"{server}/health", timeout=TIMEOUT).json()["status"] == "ok"
    assert "buy/p01" in httpx.get(f"{server}/sites", timeout=TIMEOUT).json()["shop"]["tasks"]
    assert "fsmc_env_sessions" in httpx.get(f"{server}/metrics", timeout=TIMEOUT).text


def test_an_episode_through_the_sync_client(server: str) -> None:
    env = RemoteEnv(server, "shop", observe=("url", "axtree_ids"))
    try:
        obs, info = env.reset(options={"task": "buy/p01"})
        assert obs["screenshot"].shape == (720, 1280, 3) and obs["url"] == "/#/home" and info["task"] == "buy/p01"
        assert obs["goal"] == info["instruction"] == "Buy the Ridgeline Waterproof Shell Jacket."
        cart = next(line for line in obs["axtree_ids"].splitlines() if 'button "Cart' in line)
        assert re.search(r"\[ref=e\d+\].*\[box=\d+,\d+,\d+,\d+\]", cart), cart  # an element id and its box in pixels
        results = [env.step(NOWHERE) for _ in range(3)]
        assert [r[0]["last_action_error"] for r in results] == ["", "", ""]
        assert [r[3] for r in results] == [False, False, True]  # truncated at max_steps
        with pytest.raises(EpisodeEnded):
            env.step(NOWHERE)
        env.reset(options={"task": "buy/p02"})  # the session goes on with another task
        assert env.step(NOWHERE)[4]["task"] == "buy/p02"
    finally:
        env.close()


def test_bad_requests_get_clear_errors_and_leave_the_session_intact(server: str) -> None:
    env = RemoteEnv(server, "shop")
    try:
        with pytest.raises(UnknownTask):
            env.reset(options={"task": "no/such"})
        assert env.session is None
        env.reset(options={"task": "buy/p01"})
        for bad, kind in (({"action": "click", "coordinate": [5000, 5]}, OffScreen), ({"action": "fly"}, InvalidAction),
                          ({"action": "type", "coordinate": [1, 1]}, InvalidAction)):
            with pytest.raises(kind):
                env.step(bad)
        response = httpx.post(f"{server}/sessions/{env.session}/step", content=b"{not json", timeout=TIMEOUT)
        assert response.status_code == 400 and response.json()["error"] == "malformed_json"
        response = httpx.post(f"{server}/sessions/{env.session}/step", content=b"click('a51')",  # BrowserGym's
                              timeout=TIMEOUT)
        assert response.status_code == 400 and response.json()["error"] == "malformed_json"
        assert '{"action": "click", "coordinate": [640, 360]}' in response.json()["message"]
        assert "fsmc.browsergym" in response.json()["message"]
        assert env.step(NOWHERE)[4]["step"] == 1  # nothing above counted as a step
    finally:
        env.close()
    with pytest.raises(UnknownSite):
        RemoteEnv(server, "nosuchsite").reset()
    for response in (httpx.post(f"{server}/sessions/nope/step", json=NOWHERE, timeout=TIMEOUT),
                     httpx.delete(f"{server}/sessions/nope", timeout=TIMEOUT)):
        assert response.status_code == 404 and "traceback" not in response.text.lower()


def test_abandoned_sessions_are_reaped_and_say_so(server: str) -> None:
    """Waits for the reaper's work itself, not for a guess of when it is done: on a loaded machine it comes late."""
    env = RemoteEnv(server, "shop")
    before = gauges(server)
    asked = time.monotonic()  # the lease starts after this: when the server has answered the reset
    env.reset(options={"task": "buy/p01"})
    contexts = gauges(server)["fsmc_env_browser_contexts"]
    assert contexts == before["fsmc_env_browser_contexts"] + 1
    deadline = time.monotonic() + 120
    while gauges(server)["fsmc_env_browser_contexts"] == contexts and time.monotonic() < deadline:
        time.sleep(0.1)
    reaped = time.monotonic() - asked
    after = gauges(server)
    assert after["fsmc_env_browser_contexts"] == contexts - 1  # its context closed by the reaper, without a request
    assert after["fsmc_env_sessions_reaped_total"] == before["fsmc_env_sessions_reaped_total"] + 1
    assert reaped >= LEASE_S  # not before its lease ran out
    with pytest.raises(SessionGone, match="expired"):
        env.step(NOWHERE)
    env.close()


class _Clock:
    """time.monotonic for the server, moved on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _SlowEnv:
    """An environment whose every reset or step takes `took` seconds of the clock (the reaper passes meanwhile)."""

    def __init__(self, clock: _Clock, sessions: Sessions, took: float) -> None:
        self.clock, self.sessions, self.took, self.closed = clock, sessions, took, False

    async def _slow(self) -> None:
        self.clock.now += self.took
        await self.sessions.reap()

    async def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> tuple[dict, dict]:
        await self._slow()
        return {}, {}

    async def step(self, action: dict[str, object]) -> None:
        await self._slow()
        raise InvalidAction("refused after a long time")

    async def close(self) -> None:
        self.closed = True


def test_a_lease_counts_idle_time_from_the_end_of_each_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first reset or a request longer than the lease neither lets the reaper close the session under it nor leaves
    it expired once answered (on a loaded machine, creating a session took longer than a lease of 2 s)."""
    clock = _Clock()
    monkeypatch.setattr(server_module, "time", SimpleNamespace(monotonic=clock, perf_counter=time.perf_counter))
    pool = SimpleNamespace(site=lambda name: SimpleNamespace(name="shop"), contexts=lambda: 0, pages=lambda: 0)

    async def go() -> None:
        sessions = Sessions(pool, Settings(lease_s=2.0))  # type: ignore[arg-type]
        env = _SlowEnv(clock, sessions, took=10.0)
        session, _, _ = await _register(sessions, env, None, None, {})  # type: ignore[arg-type]
        assert not env.closed and sessions.get(session.id) is session
        with pytest.raises(InvalidAction):
            await sessions.handle(session.id, "step", lambda s: s.env.step({}))
        assert not env.closed and sessions.get(session.id) is session  # refused, yet touched when it ended
        clock.now += 2.5
        await sessions.reap()
        assert env.closed and sessions.reaped == 1  # idle past its lease: reaped

    asyncio.run(go())


def test_concurrent_sessions_share_nothing_and_leave_nothing(server: str) -> None:
    async def one(i: int) -> tuple[dict, list[float]]:
        env = AsyncRemoteEnv(server, "shop", max_steps=50)
        try:
            obs, info = await env.reset(options={"task": "buy/p01"})
            assert obs.screenshot[:2] == b"\xff\xd8"  # a JPEG
            rewards = [(await env.step(NOWHERE if j % 2 else {"action": "scroll", "coordinate": [640, 360]})).reward
                       for j in range(4)]
            return info["state"], rewards
        finally:
            await env.close()

    async def many() -> list[tuple[dict, list[float]]]:
        return list(await asyncio.gather(*(one(i) for i in range(5))))

    before = gauges(server)
    results = asyncio.run(many())
    assert all(r == results[0] for r in results)
    after = gauges(server)
    assert after["fsmc_env_sessions"] == before["fsmc_env_sessions"] == 0
    assert after["fsmc_env_browser_contexts"] == before["fsmc_env_browser_contexts"] == 0
    assert after["fsmc_env_browser_pages"] == 0


def test_the_screenshot_endpoint_and_closing(server: str) -> None:
    created = httpx.post(f"{server}/sessions", json={"site": "shop", "task": "buy/p01"}, timeout=TIMEOUT).json()
    sid = created["session"]
    shot = httpx.get(f"{server}/sessions/{sid}/screenshot", timeout=TIMEOUT)
    assert shot.headers["content-type"] == "image/jpeg" and shot.content == base64.b64decode(created["observation"]["screenshot"])
    assert httpx.delete(f"{server}/sessions/{sid}", timeout=TIMEOUT).json() == {"closed": sid}
    gone = httpx.get(f"{server}/sessions/{sid}/screenshot", timeout=TIMEOUT)
    assert gone.status_code == 410 and gone.json()["error"] == "session_gone"


def test_a_token_is_required_beyond_loopback(shop_site: Path, shop_out: Path) -> None:
    with pytest.raises(ValueError, match="token"):
        check_host("0.0.0.0", None)
    check_host("0.0.0.0", "s3cret")
    with ServerThread([Site.load(shop_site, shop_out)], Settings(token="s3cret")) as url:
        assert httpx.get(f"{url}/health", timeout=TIMEOUT).status_code == 200
        denied = httpx.post(f"{url}/sessions", json={"site": "shop"}, timeout=TIMEOUT)
        assert denied.status_code == 401 and denied.json()["error"] == "unauthorized"
        env = RemoteEnv(url, "shop", token="s3cret")
        env.reset(options={"task": "buy/p01"})
        env.close()
