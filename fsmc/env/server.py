"""The environments over HTTP (FastAPI): sessions leased and reaped, per-operation limits, health and metrics.

Every failure is a JSON error `{"error": code, "message": …}` with a 4xx status (5xx only for a fault
of the server itself), never a traceback; a session whose request failed stays usable where it can.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from fsmc.backends.protocol import JPEG, EpisodeFailure, ImageFormat
from fsmc.env.actions import FIELDS, InvalidAction, OffScreen
from fsmc.env.core import DEFAULT_MAX_STEPS, OBSERVABLES, AsyncFsmcEnv, EpisodeEnded, NotReset, Observation
from fsmc.env.pool import EnvPool, Site, TooManyEpisodes, UnknownSite
from fsmc.env.tasks import UnknownTask
from fsmc.errors import FsmcError

LOOPBACK = ("127.0.0.1", "localhost", "::1")
OPERATIONS = ("create", "reset", "step", "screenshot")


BROWSERGYM_ACTION = re.compile(r"^\w+\(.*\)$", re.S)  # click('a51'), fill('b3', "wool"), noop()


class ApiError(FsmcError):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Settings:
    lease_s: float = 120.0  # a session untouched this long is closed
    max_sessions: int = 64
    limits: dict[str, int] = field(default_factory=lambda: {"create": 4, "reset": 8, "step": 8, "screenshot": 8})
    queue_s: float = 30.0  # how long a request may wait for its operation's slot before a 503
    max_steps: int = DEFAULT_MAX_STEPS
    image: ImageFormat = JPEG
    token: str | None = None


@dataclass
class Session:
    id: str
    site: str
    env: AsyncFsmcEnv
    lease_s: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    expires: float = 0.0

    def touch(self) -> None:
        self.expires = time.monotonic() + self.lease_s


class Metrics:
    """Counters and latency sums by operation, in Prometheus' text format."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.seconds: dict[str, float] = {}

    def observe(self, name: str, seconds: float | None = None) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        if seconds is not None:
            self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def render(self, gauges: dict[str, float]) -> str:
        lines = [f'fsmc_env_requests_total{{op="{k}"}} {v}' for k, v in sorted(self.counts.items())]
        lines += [f'fsmc_env_seconds_total{{op="{k}"}} {v:.6f}' for k, v in sorted(self.seconds.items())]
        lines += [f"fsmc_env_{k} {v}" for k, v in sorted(gauges.items())]
        return "\n".join(lines) + "\n"


class Sessions:
    """The live sessions: created on a shared pool, leased, reaped when abandoned, closed with their context."""

    def __init__(self, pool: EnvPool, settings: Settings):
        self.pool, self.settings = pool, settings
        self.live: dict[str, Session] = {}
        self.gone: OrderedDict[str, str] = OrderedDict()  # recently ended sessions and why, for a clear 410
        self.limits = {op: asyncio.Semaphore(n) for op, n in settings.limits.items()}
        self.metrics = Metrics()
        self.reaped = 0
        self.opening = 0  # creates under way: counted with the live sessions against max_sessions

    def reserve(self) -> None:
        """Count a session being created against max_sessions (checked and counted with no await between, so
        concurrent creates cannot all pass the check): a 429 beyond the limit. Call `unreserve` when it is done."""
        if len(self.live) + self.opening >= self.settings.max_sessions:
            raise ApiError(429, "too_many_sessions",
                           f"{self.settings.max_sessions} sessions are open; close one first")
        self.opening += 1

    def unreserve(self) -> None:
        self.opening -= 1

    async def slot(self, op: str, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run `work` within the operation's concurrency limit; a 503 if no slot frees up in time."""
        sem = self.limits[op]
        try:
            await asyncio.wait_for(sem.acquire(), self.settings.queue_s)
        except TimeoutError:
            raise ApiError(503, "busy", f"too many {op} requests at once; try again") from None
        started = time.perf_counter()
        try:
            return await work()
        finally:
            sem.release()
            self.metrics.observe(op, time.perf_counter() - started)

    def get(self, sid: str) -> Session:
        session = self.live.get(sid)
        if session is None:
            if sid in self.gone:
                raise ApiError(410, "session_gone", f"session {sid} {self.gone[sid]}; create a new one")
            raise ApiError(404, "unknown_session", f"no session {sid}")
        if session.expires < time.monotonic():
            raise ApiError(410, "session_gone", f"session {sid} expired (lease {session.lease_s:g} s); create a new one")
        session.touch()
        return session

    async def handle(self, sid: str, op: str, work: Callable[[Session], Awaitable[Any]]) -> Any:
        """One request on a session: one at a time (409 while another runs), within the operation's limit. The lease
        counts idle time: it starts again when the request ends, answered or refused."""
        session = self.get(sid)
        if session.lock.locked():
            raise ApiError(409, "busy_session", f"session {sid} is already handling a request; wait for it")
        async with session.lock:
            try:
                return await self.slot(op, lambda: work(session))
            finally:
                session.touch()

    async def close(self, sid: str, why: str = "was closed") -> bool:
        """Close a session: gone at once for new requests (410), its browser context closed once the request it is
        handling, if any, has ended (a step is never cut off half-way)."""
        session = self.live.pop(sid, None)
        if session is None:
            return False
        self.gone[sid] = why
        while len(self.gone) > 10_000:
            self.gone.popitem(last=False)
        async with session.lock:
            await session.env.close()
        return True

    async def reap(self) -> None:
        """Close every session whose lease ran out (run every few seconds)."""
        now = time.monotonic()
        for sid in [s.id for s in self.live.values() if s.expires < now and not s.lock.locked()]:
            self.reaped += 1
            await self.close(sid, f"expired (lease {self.settings.lease_s:g} s)")

    async def close_all(self) -> None:
        for sid in list(self.live):
            await self.close(sid, "was closed when the server stopped")

    def gauges(self) -> dict[str, float]:
        return {"sessions": len(self.live), "sessions_reaped_total": self.reaped, "browser_contexts": self.pool.contexts(),
                "browser_pages": self.pool.pages()}


def observation_json(obs: Observation, image: ImageFormat) -> dict[str, Any]:
    out: dict[str, Any] = {"screenshot": base64.b64encode(obs.screenshot).decode(), "format": image.name}
    if obs.url is not None:
        out["url"] = obs.url
    if obs.axtree is not None:
        out["axtree"] = obs.axtree
    if obs.axtree_ids is not None:
        out["axtree_ids"] = obs.axtree_ids
    return out | {"goal": obs.goal, "last_action_error": obs.last_action_error}


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object; a 400 for anything else: not JSON, NaN or Infinity (Python's json reads them,
    JSON has no such numbers), nested beyond what Python's parser can follow, or not an object."""
    raw = await request.body()
    if not raw:
        return {}
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        raise ApiError(400, "malformed_json", f"the request body is not JSON: {err}") from None
    except RecursionError:
        raise ApiError(400, "malformed_json", "the request body is nested too deeply") from None
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    return data


ACTION_SHAPE = ('one action as a JSON object, such as {"action": "click", "coordinate": [640, 360]} (kinds: '
                + ", ".join(FIELDS) + "; docs/env.md)")


async def action_body(request: Request) -> dict[str, Any]:
    """A step's body; a 400 that says which shape a step takes (and where BrowserGym's action strings go)."""
    try:
        return await body(request)
    except ApiError as err:
        text = (await request.body()).decode(errors="replace").strip()
        hint = ("; BrowserGym's action strings (click('a51')) go to fsmc.browsergym's tasks (docs/env.md, BrowserGym)"
                if BROWSERGYM_ACTION.match(text) else "")
        raise ApiError(400, err.code, f"{err.message}: a step takes {ACTION_SHAPE}{hint}") from None


def _integer(data: dict[str, Any], key: str, default: int | None) -> int | None:
    value = data.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ApiError(422, "bad_request", f"`{key}` is an integer")
    return value


def _name(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ApiError(422, "bad_request", f"`{key}` is a string")
    return value


def env_options(data: dict[str, Any], settings: Settings) -> tuple[dict[str, Any], int | None, dict[str, Any]]:
    """(options for the environment, seed, reset options) from a create request; a 422 naming the field that is
    not of its type (`site` and `task` strings, `seed` and `max_steps` integers, `observe` a list of names)."""
    observe = data.get("observe", ["screenshot"])
    if not isinstance(observe, list) or not all(isinstance(o, str) and o in OBSERVABLES for o in observe):
        raise ApiError(422, "bad_request", f"`observe` is a list of {', '.join(OBSERVABLES)}")
    max_steps = _integer(data, "max_steps", settings.max_steps)
    if max_steps is None or not 1 <= max_steps <= 10_000:
        raise ApiError(422, "bad_request", "`max_steps` is an integer from 1 to 10000")
    seed, task = _integer(data, "seed", None), _name(data, "task")
    _name(data, "site")
    reset = {"task": task} if task is not None else {}
    return {"observe": tuple(observe), "max_steps": max_steps}, seed, reset


ERRORS: tuple[tuple[type[BaseException], int, str], ...] = (
    (OffScreen, 422, "off_screen"), (InvalidAction, 422, "invalid_action"), (UnknownTask, 404, "unknown_task"),
    (UnknownSite, 404, "unknown_site"), (EpisodeEnded, 409, "episode_ended"), (NotReset, 409, "not_reset"),
    (TooManyEpisodes, 409, "site_busy"), (EpisodeFailure, 502, "episode_failed"))


def error_response(err: BaseException) -> JSONResponse:
    if isinstance(err, ApiError):
        return JSONResponse({"error": err.code, "message": err.message}, status_code=err.status)
    for kind, status, code in ERRORS:
        if isinstance(err, kind):
            return JSONResponse({"error": code, "message": str(err)}, status_code=status)
    return JSONResponse({"error": "internal", "message": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"},
                        status_code=500)


def create_app(sites: list[Site], settings: Settings | None = None) -> FastAPI:
    """The app serving `sites`; its lifespan starts one Chromium and the reaper, and closes every session at the end."""
    settings = settings or Settings()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool = EnvPool(sites, image=settings.image)
        await pool.start()
        sessions = state["sessions"] = Sessions(pool, settings)
        reaper = asyncio.create_task(_reaper(sessions, settings.lease_s))
        try:
            yield
        finally:
            reaper.cancel()
            await sessions.close_all()
            await pool.close()

    app = FastAPI(title="fsmc environments", lifespan=lifespan)
    _routes(app, state, settings)
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if settings.token and request.url.path != "/health":
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {settings.token}".encode()):
                return JSONResponse({"error": "unauthorized", "message": "send `Authorization: Bearer <token>`"},
                                    status_code=401)
        try:
            return await call_next(request)
        except Exception as err:  # an error raised outside the route handlers
            return error_response(err)

    return app


HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type"}


async def _http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
    """Starlette's own errors (no such route, a method a route does not take) in the API's shape, with a code."""
    code = HTTP_CODES.get(err.status_code, "bad_request" if err.status_code < 500 else "internal")
    return JSONResponse({"error": code, "message": f"{request.method} {request.url.path}: {err.detail}"},
                        status_code=err.status_code, headers=getattr(err, "headers", None))


async def _reaper(sessions: Sessions, lease_s: float) -> None:
    while True:
        await asyncio.sleep(max(0.2, min(5.0, lease_s / 4)))
        try:
            await sessions.reap()
        except Exception:  # a context that would not close: try again next round
            continue


def _routes(app: FastAPI, state: dict[str, Any], settings: Settings) -> None:
    def sessions() -> Sessions:
        s: Sessions = state["sessions"]
        return s

    def api(handler: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except Exception as err:
                return error_response(err)

        wrapped.__name__, wrapped.__doc__ = handler.__name__, handler.__doc__
        wrapped.__signature__ = __import__("inspect").signature(handler)  # type: ignore[attr-defined]
        return wrapped

    @app.get("/health")
    async def health() -> dict[str, Any]:
        s = state.get("sessions")
        up = s is not None and s.pool.chromium.browser is not None and s.pool.chromium.browser.is_connected()
        return {"status": "ok" if up else "starting", "sessions": len(s.live) if s else 0}

    @app.get("/metrics")
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(sessions().metrics.render(sessions().gauges()))

    @app.get("/sites")
    async def list_sites() -> dict[str, Any]:
        return {name: {"tasks": [t.id for t in site.tasks]} for name, site in sessions().pool.sites.items()}

    @app.post("/sessions", status_code=201)
    @api
    async def create(request: Request) -> Any:
        data = await body(request)
        options, seed, reset = env_options(data, settings)
        s = sessions()

        async def go() -> tuple[Session, Observation, dict[str, Any]]:
            env = await s.pool.open(data.get("site"), **options)
            return await _register(s, env, data.get("site"), seed, reset)

        s.reserve()
        try:
            session, obs, info = await s.slot("create", go)
        finally:
            s.unreserve()
        return JSONResponse({"session": session.id, "site": session.site, "lease_s": session.lease_s,
                             "observation": observation_json(obs, settings.image), "info": info}, status_code=201)

    @app.post("/sessions/{sid}/reset")
    @api
    async def reset(sid: str, request: Request) -> Any:
        data = await body(request)
        _, seed, options = env_options({k: v for k, v in data.items() if k in ("seed", "task")}, settings)

        async def go(session: Session) -> dict[str, Any]:
            obs, info = await session.env.reset(seed=seed, options=options)
            return {"observation": observation_json(obs, settings.image), "info": info}

        return await sessions().handle(sid, "reset", go)

    @app.post("/sessions/{sid}/step")
    @api
    async def step(sid: str, request: Request) -> Any:
        action = await action_body(request)

        async def go(session: Session) -> dict[str, Any]:
            r = await session.env.step(action)
            return {"observation": observation_json(r.observation, settings.image), "reward": r.reward,
                    "terminated": r.terminated, "truncated": r.truncated, "info": r.info}

        return await sessions().handle(sid, "step", go)

    @app.get("/sessions/{sid}/screenshot")
    @api
    async def screenshot(sid: str) -> Any:
        async def go(session: Session) -> Response:
            shot = await session.env.episode.screenshot()
            return Response(shot, media_type=f"image/{settings.image.name}")

        return await sessions().handle(sid, "screenshot", go)

    @app.delete("/sessions/{sid}")
    @api
    async def close(sid: str) -> Any:
        s = sessions()
        if not await s.close(sid):
            s.get(sid)  # says 410 or 404
        return {"closed": sid}


async def _register(s: Sessions, env: AsyncFsmcEnv, site: str | None, seed: int | None,
                    reset: dict[str, Any]) -> tuple[Session, Observation, dict[str, Any]]:
    session = Session(secrets.token_urlsafe(12), s.pool.site(site).name, env, s.settings.lease_s)
    session.touch()
    s.live[session.id] = session
    try:
        async with session.lock:  # the reaper waits for the first reset as for any request
            obs, info = await env.reset(seed=seed, options=reset)
    except BaseException:
        await s.close(session.id, "failed to start")
        raise
    session.touch()  # its lease starts once it has started: a slow first reset does not use it up
    return session, obs, info


def check_host(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token."""
    if host not in LOOPBACK and not token:
        raise ValueError(f"listening on {host} needs a token (--token or FSMC_ENV_TOKEN): anyone who reaches the "
                         "port could drive the browser")
