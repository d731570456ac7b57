"""Clients of `fsmc serve-env` with the local environments' API: `RemoteEnv` (gymnasium's sync calls) and
`AsyncRemoteEnv` (`AsyncFsmcEnv`'s). Errors come back as the local exceptions (InvalidAction, UnknownTask, …)."""

from __future__ import annotations

import base64
from typing import Any

import httpx

from fsmc.env.actions import InvalidAction, OffScreen
from fsmc.env.core import EpisodeEnded, NotReset, Observation, StepResult
from fsmc.env.pool import UnknownSite
from fsmc.env.tasks import UnknownTask
from fsmc.errors import FsmcError


class RemoteError(FsmcError, RuntimeError):
    """The server refused a request; `status` and `code` say why."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


class SessionGone(RemoteError):
    """The session expired or was closed."""


EXCEPTIONS: dict[str, type[Exception]] = {
    "off_screen": OffScreen, "invalid_action": InvalidAction, "unknown_task": UnknownTask, "unknown_site": UnknownSite,
    "episode_ended": EpisodeEnded, "not_reset": NotReset}


def _raise(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    try:
        data = response.json()
        code, message = data["error"], data["message"]
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", response.text[:200]
    if code in EXCEPTIONS:
        raise EXCEPTIONS[code](message)
    raise (SessionGone if code == "session_gone" else RemoteError)(response.status_code, code, message)


def _observation(data: dict[str, Any]) -> Observation:
    return Observation(base64.b64decode(data["screenshot"]), data.get("url"), data.get("axtree"), goal=data.get("goal"),
                       last_action_error=data.get("last_action_error", ""), axtree_ids=data.get("axtree_ids"))


def _create_body(site: str | None, options: dict[str, Any] | None, seed: int | None, max_steps: int | None,
                 observe: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"site": site, "observe": list(observe), "seed": seed, "task": (options or {}).get("task")}
    if max_steps is not None:
        out["max_steps"] = max_steps
    return out


class AsyncRemoteEnv:
    """`AsyncFsmcEnv` over HTTP: the first reset opens a session, later resets reuse it, `close` ends it."""

    def __init__(self, base_url: str, site: str | None = None, *, token: str | None = None, max_steps: int | None = None,
                 observe: tuple[str, ...] = ("screenshot",), timeout: float = 60.0):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=base_url, headers=headers, timeout=timeout)
        self.site, self.max_steps, self.observe = site, max_steps, observe
        self.session: str | None = None

    async def _post(self, path: str, data: dict[str, Any]) -> dict[str, Any]:
        response = await self.http.post(path, json=data)
        _raise(response)
        out: dict[str, Any] = response.json()
        return out

    async def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
                    ) -> tuple[Observation, dict[str, Any]]:
        if self.session is None:
            data = await self._post("/sessions", _create_body(self.site, options, seed, self.max_steps, self.observe))
            self.session = data["session"]
        else:
            data = await self._post(f"/sessions/{self.session}/reset", {"seed": seed, "task": (options or {}).get("task")})
        return _observation(data["observation"]), data["info"]

    async def step(self, action: dict[str, Any]) -> StepResult:
        if self.session is None:
            raise NotReset("call reset before step")
        data = await self._post(f"/sessions/{self.session}/step", action)
        return StepResult(_observation(data["observation"]), data["reward"], data["terminated"], data["truncated"],
                          data["info"])

    async def screenshot(self) -> bytes:
        response = await self.http.get(f"/sessions/{self.session}/screenshot")
        _raise(response)
        return response.content

    async def close(self) -> None:
        if self.session is not None:
            response = await self.http.delete(f"/sessions/{self.session}")
            self.session = None
            if response.status_code not in (404, 410):
                _raise(response)
        await self.http.aclose()


class RemoteEnv:
    """`FsmcEnv`'s sync API over HTTP: observations as {"screenshot": RGB array, …}, the same tuples."""

    def __init__(self, base_url: str, site: str | None = None, *, token: str | None = None, max_steps: int | None = None,
                 observe: tuple[str, ...] = ("screenshot",), timeout: float = 60.0):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.site, self.max_steps = site, max_steps
        self.observe = ("screenshot", *(o for o in observe if o != "screenshot"))
        self.session: str | None = None

    def _post(self, path: str, data: dict[str, Any]) -> dict[str, Any]:
        response = self.http.post(path, json=data)
        _raise(response)
        out: dict[str, Any] = response.json()
        return out

    def _obs(self, data: dict[str, Any]) -> dict[str, Any]:
        from fsmc.env.gym import as_gym

        return as_gym(_observation(data), self.observe)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.session is None:
            data = self._post("/sessions", _create_body(self.site, options, seed, self.max_steps, self.observe))
            self.session = data["session"]
        else:
            data = self._post(f"/sessions/{self.session}/reset", {"seed": seed, "task": (options or {}).get("task")})
        return self._obs(data["observation"]), data["info"]

    def step(self, action: dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.session is None:
            raise NotReset("call reset before step")
        data = self._post(f"/sessions/{self.session}/step", action)
        return self._obs(data["observation"]), data["reward"], data["terminated"], data["truncated"], data["info"]

    def close(self) -> None:
        if self.session is not None:
            response = self.http.delete(f"/sessions/{self.session}")
            self.session = None
            if response.status_code not in (404, 410):
                _raise(response)
        self.http.close()
