"""`EnvPool`: environments over one Chromium, each with a browser context of its own, for one site or several."""

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


class UnknownSite(KeyError):
    """No site of that name in the pool."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class Site:
    """A built site and the tasks of its enumerate output; or, with `backend`, what the spec declares to act on."""

    name: str
    dist: Path | None
    tasks: TaskSet
    backend: Backend | None = None

    @classmethod
    def load(cls, dist: str | Path, out: str | Path, *, spec: str | Path | None = None, name: str | None = None) -> Site:
        found = find_dist(dist)
        if found is None:
            raise FileNotFoundError(f"{dist} is not a built site (no index.html); build it with `fsmc build SPEC`")
        tasks = TaskSet(out, spec=spec)
        return cls(name or tasks.site, found, tasks)

    @classmethod
    def declared(cls, out: str | Path, *, image: ImageFormat = JPEG, name: str | None = None) -> Site:
        """The backend OUT's spec declares (a capture, a cloned application) and the tasks of OUT."""
        from fsmc.replay import declared_backend

        tasks = TaskSet(out)
        return cls(name or tasks.site, None, tasks, declared_backend(Path(out), image))


def _dist(site: Site) -> Path:
    assert site.dist is not None, f"the site {site.name} has neither a built site nor a backend"
    return site.dist


class EnvPool:
    """One Chromium shared by every environment; `open` gives a new environment (a new context) on a site.

    `async with EnvPool.of(dist, out, n=4) as pool:` then `pool.envs` are four environments.
    """

    def __init__(self, sites: list[Site], *, n: int = 0, image: ImageFormat = JPEG, **env_options: Any):
        self.sites = {s.name: s for s in sites}
        self.n, self.env_options = n, env_options
        self.chromium = Chromium()
        self.backends = {s.name: s.backend or GeneratedSite(_dist(s), image=image, chromium=self.chromium) for s in sites}
        self.envs: list[AsyncFsmcEnv] = []
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

    async def start(self) -> None:
        await self.chromium.start()
        for backend in self.backends.values():
            await backend.start()
        self.envs = list(await asyncio.gather(*(self.open() for _ in range(self.n))))

    async def open(self, site: str | None = None, **options: Any) -> AsyncFsmcEnv:
        """A new environment on `site` (the only one when the pool has one), in a browser context of its own."""
        s = self.site(site)
        episode = await self.backends[s.name].open()
        return AsyncFsmcEnv(episode, s.tasks, views=self.views[s.name], **(self.env_options | options))

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
