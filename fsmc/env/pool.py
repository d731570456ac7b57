"""`EnvPool`: environments over one Chromium, each with a browser context of its own, for one site or several.

A site is a built site (the generated one) or the backend its spec declares (a capture, a cloned application),
run in the pool's Chromium. A backend that holds one database (`Backend.max_episodes`) serves that many
environments at once: the pool refuses another (`TooManyEpisodes`) rather than let two episodes share the data.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from fsmc.backends.protocol import JPEG, Backend, ImageFormat
from fsmc.backends.site import GeneratedSite
from fsmc.browser import Chromium, find_dist
from fsmc.env.core import AsyncFsmcEnv
from fsmc.env.tasks import TaskSet
from fsmc.errors import FsmcError


class UnknownSite(FsmcError, KeyError):
    """No site of that name in the pool."""

    def __str__(self) -> str:
        return str(self.args[0])


class TooManyEpisodes(FsmcError, RuntimeError):
    """More environments asked for at once than the site's backend can run (a cloned application: one database)."""


@dataclass
class Site:
    """A built site and the tasks of its enumerate output; or, with `backend`, what to act on instead; or, with
    `on_declared`, the backend the tasks' spec declares (made in the pool's Chromium)."""

    name: str
    dist: Path | None
    tasks: TaskSet
    backend: Backend | None = None
    on_declared: bool = False

    @classmethod
    def load(cls, dist: str | Path, out: str | Path, *, spec: str | Path | None = None, name: str | None = None,
             tasks: TaskSet | None = None) -> Site:
        """The built site `dist` and the tasks of OUT (`tasks`, where they were read already)."""
        found = find_dist(dist)
        if found is None:
            raise FileNotFoundError(f"{dist} is not a built site (no index.html); build it with `fsmc build SPEC`")
        tasks = tasks or TaskSet(out, spec=spec)
        return cls(name or tasks.site, found, tasks)

    @classmethod
    def declared(cls, out: str | Path, *, spec: str | Path | None = None, name: str | None = None,
                tasks: TaskSet | None = None) -> Site:
        """The backend OUT's spec declares (a capture, a cloned application) and the tasks of OUT. Its declaration is
        read now (InputError, BackendError: a sidecar or capture that is missing or wrong); it starts in the pool."""
        from fsmc.replay import open_declared

        tasks = tasks or TaskSet(out, spec=spec)
        if not tasks.machine.spec.backends:
            raise ValueError(f"the spec of {out} declares no backend: name its built site")
        open_declared(tasks.machine.spec, JPEG)
        return cls(name or tasks.site, None, tasks, on_declared=True)

    @classmethod
    def find(cls, out: str | Path, dist: str | Path | None, sites: str | Path, *, spec: str | Path | None = None,
             name: str | None = None) -> Site:
        """The site the CLI means: the built site `dist` if named; else the backend OUT's spec declares, if it
        declares one (as `fsmc replay` without --site); else the built site SITES/<name> (name: the spec's site).
        OUT's tasks are read once."""
        tasks = None
        if dist is None and (Path(out) / "manifest.json").is_file():
            tasks = TaskSet(out, spec=spec)
            if tasks.machine.spec.backends:
                return cls.declared(out, name=name, tasks=tasks)
        if dist is None:
            dist = Path(sites) / (name or (tasks or TaskSet(out, spec=spec)).site)
        return cls.load(dist, out, spec=spec, name=name, tasks=tasks)

    def make_backend(self, image: ImageFormat, chromium: Chromium) -> Backend:
        if self.backend is not None:
            return self.backend
        if self.on_declared:
            from fsmc.replay import open_declared

            return open_declared(self.tasks.machine.spec, image, chromium)
        assert self.dist is not None, f"the site {self.name} has neither a built site nor a backend"
        return GeneratedSite(self.dist, image=image, chromium=chromium)


class EnvPool:
    """One Chromium shared by every environment; `open` gives a new environment (a new context) on a site.

    `async with EnvPool.of(dist, out, n=4) as pool:` then `pool.envs` are four environments.
    """

    def __init__(self, sites: list[Site], *, n: int = 0, image: ImageFormat = JPEG, **env_options: Any):
        self.sites = {s.name: s for s in sites}
        self.n, self.env_options = n, env_options
        self.chromium = Chromium()
        self.backends = {s.name: s.make_backend(image, self.chromium) for s in sites}
        self.envs: list[AsyncFsmcEnv] = []
        self.opened: dict[str, list[AsyncFsmcEnv]] = {s.name: [] for s in sites}
        self._opening = {s.name: 0 for s in sites}  # environments being opened now (their episodes not there yet)
        self.views: dict[str, dict[str, bytes]] = {s.name: {} for s in sites}

    @classmethod
    def of(cls, dist: str | Path, out: str | Path, n: int = 1, **options: Any) -> EnvPool:
        spec = options.pop("spec", None)
        return cls([Site.load(dist, out, spec=spec)], n=n, **options)

    def site(self, name: str | None) -> Site:
        if name is None and len(self.sites) == 1:
            return next(iter(self.sites.values()))
        if name not in self.sites:
            raise UnknownSite(f"no site {name!r}; this pool serves {', '.join(sorted(self.sites))}")
        return self.sites[name]

    def limit(self, site: str | None = None) -> int | None:
        """How many environments the site runs at once (None: any)."""
        limit: int | None = getattr(self.backends[self.site(site).name], "max_episodes", None)
        return limit

    def _room(self, site: Site, wanted: int) -> None:
        limit = self.limit(site.name)
        live = self._opening[site.name] + sum(not env.closed for env in self.opened[site.name])
        if limit is not None and live + wanted > limit:
            backend = type(self.backends[site.name]).__name__
            raise TooManyEpisodes(f"the site {site.name} runs {limit} environment{'s' * (limit != 1)} at a time (its "
                                  f"backend, {backend}, keeps one copy of its data, which more episodes at once would "
                                  f"corrupt): {live} open, {wanted} more asked for; close one first, or run the episodes one "
                                  "after another")

    async def start(self) -> None:
        if self.n:
            self._room(self.site(None), self.n)
        await self.chromium.start()
        for backend in self.backends.values():
            await backend.start()
        self.envs = list(await asyncio.gather(*(self.open() for _ in range(self.n))))

    async def open(self, site: str | None = None, **options: Any) -> AsyncFsmcEnv:
        """A new environment on `site` (the only one when the pool has one), in a browser context of its own;
        TooManyEpisodes where the site's backend runs no more at once."""
        s = self.site(site)
        self._room(s, 1)
        backend = self.backends[s.name]
        self._opening[s.name] += 1
        try:
            episode = await backend.open()
        finally:
            self._opening[s.name] -= 1
        env = AsyncFsmcEnv(episode, s.tasks, views=self.views[s.name], jumps=getattr(backend, "jumps", True),
                           **(self.env_options | options))
        self.opened[s.name] = [e for e in self.opened[s.name] if not e.closed] + [env]
        return env

    def contexts(self) -> int:
        """Browser contexts open now (each environment holds one)."""
        return len(self.chromium.browser.contexts) if self.chromium.browser is not None else 0

    def pages(self) -> int:
        browser = self.chromium.browser
        return sum(len(c.pages) for c in browser.contexts) if browser is not None else 0

    async def close(self) -> None:
        for env in self.envs:
            await env.close()
        for backend in self.backends.values():
            await backend.close()  # each backend closes its file server; the Chromium is ours
        await self.chromium.close()

    async def __aenter__(self) -> Self:
        try:
            await self.start()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()
