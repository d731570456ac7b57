"""A cloned application as a backend: a real web application started as a process, reset by restoring its database.

`ClonedApp` reads the sidecar a spec's `backend app "FILE"` names (`fsmc.backends.sidecar`), runs its setup
commands in a fresh data folder, starts the application on a free port (its output to `app.log` there),
waits until `ready` answers, and copies the SQLite database once (the snapshot). An episode's `reset`
restores the snapshot into the live file with SQLite's backup API (milliseconds; the application opens
its connections per request, so it sees the restored data at once), forgets the browser's cookies and
loads `home`. Its `state` is the page whose pattern matches the location and the variables read from
the database: one SQL query per variable, or a Python `module:function(db_path)` returning them.

The pages are the live site's, pinned and kept on its origin as `LiveSite`'s are, and acted on with
CSS selectors (`SelectorActor`): the spec's GUI procedures name the application's own elements. A cloned
application cannot jump to an arbitrary state: `reset` reaches the initial one alone, so replay acts
every trajectory out from there, one episode at a time (one database).
"""

from __future__ import annotations

import asyncio
import importlib
import os
import shlex
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fsmc import ir
from fsmc.backends.captured import FromStartEpisode, LiveSite, PageEpisode
from fsmc.backends.protocol import JPEG, Backend, BackendError, EpisodeFailure, Hasher, ImageFormat
from fsmc.backends.sidecar import Sidecar, read_sidecar
from fsmc.browser import Chromium

LOG_LINES = 15  # lines of the application's log an error shows
ARRIVE_S = 15.0  # how long a page load an action started may take before the state is read anyway
SETUP_TIMEOUT_S = 300
NOT_SERVED_S = 5.0  # how long an application that answers may answer 404 for `ready` before that is its answer


def free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_LINES:]
    except OSError:
        return ""
    return ("\n  last lines of " + str(log) + ":\n    " + "\n    ".join(lines)) if lines else f" ({log} is empty)"


def _convert(name: str, value: Any, t: ir.Type) -> Any:
    """A value read from the database in the variable's JSON form (SQLite has no booleans)."""
    base = t.inner if isinstance(t, ir.OptionalType) else t
    if value is None:
        return None
    if isinstance(base, ir.BoolType):
        if value not in (0, 1):
            raise BackendError(f"the state query of `{name}` gave {value!r}, not a bool (0 or 1)")
        return bool(value)
    if isinstance(base, ir.IntType):
        return int(value)
    return value


class AppEpisode(FromStartEpisode):
    """One page of the application in a context of its own."""

    start_is = "its initial state (its database snapshot)"

    def __init__(self, app: ClonedApp, inner: PageEpisode):
        super().__init__(inner)
        self.app = app

    async def restart(self) -> None:
        """The database restored from its snapshot."""
        await asyncio.to_thread(self.app.restore)

    def home(self) -> str:
        return self.app.home

    async def state(self) -> dict[str, Any]:
        await self.inner.arrive(ARRIVE_S)
        return await asyncio.to_thread(self.app.read_state, self.inner.actor.location().split("?")[0].split("#")[0])


class ClonedApp(Backend):
    """The application a sidecar describes, run for the spec `spec` (whose variables its state gives)."""

    jumps = False
    max_episodes = 1

    def __init__(self, sidecar: str | Path | Sidecar, spec: ir.Spec, *, image: ImageFormat = JPEG,
                 chromium: Chromium | None = None):
        if not isinstance(sidecar, Sidecar):
            read, problems = read_sidecar(Path(sidecar), spec)
            if read is None:
                raise BackendError(f"{sidecar}: " + "; ".join(problems))
            sidecar = read
        self.sidecar, self.spec, self.image, self._chromium = sidecar, spec, image, chromium
        self.data: Path | None = None
        self.port = 0
        self.reset_seconds: list[float] = []  # every restore's duration, for the figures
        self._process: subprocess.Popen[bytes] | None = None
        self._site: LiveSite | None = None
        self._adapter: Callable[[str], Mapping[str, Any]] | None = None
        self._types = {v.name: v.type for v in spec.session} | {v.name: v.type for p in spec.pages for v in p.vars}
        self._names = {p.name: [v.name for v in (*spec.session, *p.vars)] for p in spec.pages}

    # ---------------------------------------------------------------- the sidecar's strings
    def _fill(self, text: str) -> str:
        return text.replace("{port}", str(self.port)).replace("{data}", str(self.data)).replace("{python}", self.sidecar.python)

    @property
    def url(self) -> str:
        return self._fill(self.sidecar.url).rstrip("/")

    @property
    def prefix(self) -> str:
        """The path the application is served under (`/tracker` for `http://127.0.0.1:{port}/tracker`), or ''."""
        return urlsplit(self.url).path

    @property
    def home(self) -> str:
        return self.url + self._fill(self.sidecar.home)

    @property
    def database(self) -> Path:
        return Path(self._fill(self.sidecar.database))

    @property
    def log(self) -> Path:
        assert self.data is not None, "start the backend first"
        return self.data / "app.log"

    @property
    def blocked_requests(self) -> int:
        return self._site.blocked_requests if self._site is not None else 0

    def fingerprint(self, h: Hasher) -> None:
        """The sidecar and the files beside it that the application runs (not its data)."""
        h.update(self.sidecar.path.read_bytes())
        for path in sorted(p for p in self.sidecar.cwd.rglob("*") if p.is_file() and p.suffix in (".py", ".html", ".toml")):
            h.update(str(path.relative_to(self.sidecar.cwd)).encode())
            h.update(path.read_bytes())

    # ---------------------------------------------------------------- the process
    def _env(self) -> dict[str, str]:
        return {**os.environ, **{k: self._fill(v) for k, v in self.sidecar.env.items()}}

    def _setup(self) -> None:
        for command in self.sidecar.setup:
            argv = shlex.split(self._fill(command))
            with self.log.open("ab") as log:
                try:
                    done = subprocess.run(argv, cwd=self.sidecar.cwd, env=self._env(), stdout=log, stderr=log,
                                          timeout=SETUP_TIMEOUT_S, check=False)
                except OSError as err:
                    raise BackendError(f"the setup command `{command}` of {self.sidecar.path} cannot run: {err}") from None
            if done.returncode != 0:
                raise BackendError(f"the setup command `{command}` of {self.sidecar.path} failed (exit "
                                   f"{done.returncode}){_tail(self.log)}")

    def _launch(self) -> None:
        argv = shlex.split(self._fill(self.sidecar.start))
        with self.log.open("ab") as log:
            try:
                self._process = subprocess.Popen(argv, cwd=self.sidecar.cwd, env=self._env(), stdout=log,
                                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                 start_new_session=True)
            except OSError as err:
                raise BackendError(f"the application of {self.sidecar.path} cannot start: `{self.sidecar.start}`: "
                                   f"{err}") from None

    @staticmethod
    def _answer(url: str) -> tuple[bool, str]:
        """Whether the application serves `url` (a status below 500 but 404 and 410, which say it serves no such
        path: the wrong prefix), and what came back, for the messages: `404 Not Found`, `connection refused`."""
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - the sidecar's own loopback URL
                status, reason = int(response.status), str(response.reason)
        except urllib.error.HTTPError as err:
            status, reason = err.code, str(err.reason)
        except (urllib.error.URLError, OSError) as err:
            why = getattr(err, "reason", err)
            return False, str(getattr(why, "strerror", None) or why).lower()
        return status < 500 and status not in (404, 410), f"{status} {reason}"

    def _wait_ready(self) -> None:
        """Until `ready` is served, then `home` once; BackendError naming the command, the URL polled and what came
        back where the application exits first, answers neither in time, or serves neither (the wrong prefix)."""
        url, answer = self.url + self._fill(self.sidecar.ready), "nothing yet"
        deadline = time.monotonic() + self.sidecar.ready_timeout
        not_found: float | None = None  # since when the application answers, but not `ready`'s path
        while time.monotonic() < deadline and (not_found is None or time.monotonic() - not_found < NOT_SERVED_S):
            assert self._process is not None
            code = self._process.poll()
            if code is not None:
                raise BackendError(f"the application of {self.sidecar.path} exited (code {code}) before GET {url} "
                                   f"answered (the last answer: {answer}); it was started as "
                                   f"`{self._fill(self.sidecar.start)}`{_tail(self.log)}")
            served, answer = self._answer(url)
            if served:
                self._check_home()
                return
            not_found = (not_found or time.monotonic()) if answer.startswith(("404", "410")) else None
            time.sleep(0.1)
        how = (f"answers, but not at `ready`: GET {url} answered {answer} for {NOT_SERVED_S:g} s" if not_found else
               f"was not ready within {self.sidecar.ready_timeout:g} s: GET {url} answered {answer}")
        raise BackendError(f"the application of {self.sidecar.path} {how}{self._prefix_hint(answer)}; "
                           f"it was started as `{self._fill(self.sidecar.start)}`{_tail(self.log)}")

    def _check_home(self) -> None:
        url = self.home
        served, answer = self._answer(url)
        if not served:
            raise BackendError(f"the application of {self.sidecar.path} is up (`ready` answers) but its home page "
                               f"is not served: GET {url} answered {answer}{self._prefix_hint(answer)}; it was started "
                               f"as `{self._fill(self.sidecar.start)}`")

    def _prefix_hint(self, answer: str) -> str:
        """Why a page may not be found: the application was not started under the prefix `url` gives."""
        if not answer.startswith(("404", "410")):
            return ""
        if self.prefix:
            return (f" (is the application served under {self.prefix}? `url` says so: start it with its own prefix "
                    "option, or take the prefix out of `url`)")
        return " (`ready` and `home` are paths of the application, within `url`)"

    def _snapshot(self) -> None:
        if not self.database.is_file():
            raise BackendError(f"the database {self.database} named by {self.sidecar.path} does not exist once the "
                               f"application is up{_tail(self.log)}")
        self._copy(self.database, self.snapshot)

    @property
    def snapshot(self) -> Path:
        assert self.data is not None, "start the backend first"
        return self.data / "snapshot.sqlite3"

    @staticmethod
    def _copy(source: Path, target: Path) -> None:
        with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
            src.backup(dst)

    def restore(self) -> None:
        """The database as it was when the application came up (SQLite's backup API, into the live file)."""
        start = time.perf_counter()
        self._copy(self.snapshot, self.database)
        self.reset_seconds.append(time.perf_counter() - start)

    def start_app(self) -> None:
        """Setup, start, wait until ready, snapshot: the application without the browser."""
        self.data = Path(tempfile.mkdtemp(prefix="fsmc-app-"))
        self.port = free_port()
        self._setup()
        self._launch()
        self._wait_ready()
        self._snapshot()
        self._load_adapter()
        self._site = LiveSite(self.url + "/", image=self.image, chromium=self._chromium)

    def stop_app(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None
        if self.data is not None and not os.environ.get("FSMC_KEEP_APP_DATA"):
            shutil.rmtree(self.data, ignore_errors=True)

    # ---------------------------------------------------------------- the state
    def _load_adapter(self) -> None:
        if self.sidecar.adapter is None:
            return
        module, _, name = self.sidecar.adapter.partition(":")
        where = [str(self.sidecar.path.parent.resolve()), str(self.sidecar.cwd)]  # the module beside the sidecar or in cwd
        sys.path[:0] = where
        try:
            self._adapter = getattr(importlib.import_module(module), name)
        except Exception as err:  # the user's module: anything may go wrong while importing it
            raise BackendError(f"the adapter {self.sidecar.adapter} of {self.sidecar.path} cannot be loaded: "
                               f"{type(err).__name__}: {err}") from None
        finally:
            for path in where:
                sys.path.remove(path)

    def _read_vars(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if self.sidecar.state:
            uri = self.database.resolve().as_uri() + "?mode=ro"
            with closing(sqlite3.connect(uri, uri=True)) as db:
                for name, query in self.sidecar.state.items():
                    try:
                        row = db.execute(query).fetchone()
                    except sqlite3.Error as err:
                        raise BackendError(f"the state query of `{name}` in {self.sidecar.path} failed: {err} "
                                           f"(the query: {query})") from None
                    values[name] = row[0] if row else None
        if self._adapter is not None:
            try:
                values.update(self._adapter(str(self.database)))
            except Exception as err:  # the user's adapter: anything it raises is reported, never a traceback
                raise BackendError(f"the state adapter {self.sidecar.adapter} of {self.sidecar.path} raised "
                                   f"{type(err).__name__}: {err}") from None
        return values

    def read_state(self, path: str) -> dict[str, Any]:
        """The state shown at the location `path`: its page, and that page's variables from the database."""
        within = path == self.prefix or path.startswith(self.prefix + "/")  # a path within the application's own
        page = self.sidecar.page_of(path[len(self.prefix):] or "/") if within else None
        if page is None:
            raise EpisodeFailure("state_diverged", f"the location {path} is no page of the spec (no pattern of "
                                 f"`pages` in {self.sidecar.path.name} matches it)")
        values = self._read_vars()
        missing = [n for n in self._names[page] if n not in values]
        if missing:
            raise BackendError(f"the state adapter {self.sidecar.adapter} gave no value for {', '.join(missing)}")
        return {"page": page, "vars": {n: _convert(n, values[n], self._types[n]) for n in self._names[page]}}

    # ---------------------------------------------------------------- the protocol
    async def start(self) -> None:
        await asyncio.to_thread(self.start_app)
        assert self._site is not None
        await self._site.start()

    async def open(self) -> AppEpisode:
        assert self._site is not None, "start the backend first"
        return AppEpisode(self, await self._site.open())

    async def adopt(self, page: Any) -> AppEpisode:
        """An episode on a page opened elsewhere (BrowserGym's, `LiveSite.adopt`); `start_app` first, not `start`."""
        assert self._site is not None, "start the application first"
        return AppEpisode(self, await self._site.adopt(page))

    async def close(self) -> None:
        try:
            if self._site is not None:
                await self._site.close()
                self._site = None
        finally:
            self.stop_app()


__all__ = ["AppEpisode", "ClonedApp", "free_port"]
