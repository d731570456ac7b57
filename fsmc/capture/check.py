"""A capture checked offline: every page loaded again from the archive alone, and its view compared with the capture's.

A page passes when its document is served (the status it had), no request of its load missed the
archive, and its offline view is the same PNG, byte for byte, as the view taken while capturing. The
capture's flows are then acted out again, in the same order in the same episode (so repeated requests
get the responses they got then), and the view after each operation compared the same way.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsmc.archive.folder import CaptureFolder
from fsmc.backends.protocol import PNG, EpisodeFailure
from fsmc.capture.flows import Flow, act_out

if TYPE_CHECKING:
    from fsmc.backends.captured import PageEpisode


@dataclass(frozen=True)
class PageCheck:
    url: str
    status: int | None  # offline; None when the page did not load (or for a flow's step)
    expected: int | None
    misses: int  # requests of this page's load the archive had no response for
    same_view: bool
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == self.expected and self.misses == 0 and self.same_view


@dataclass(frozen=True)
class Report:
    pages: tuple[PageCheck, ...]
    missed: tuple[str, ...]  # the first requests that missed, as keys (`GET http://…`)
    blocked: int  # requests refused for leaving the origin
    escaped: int  # the pages' requests that got past the handlers to the sink (refused there)
    background: tuple[str, ...]  # the browser's own requests the sink refused (form autofill and the like)
    seconds: float

    @property
    def fidelity(self) -> float:
        """The share of pages whose offline view equals the captured one."""
        return sum(p.same_view for p in self.pages) / max(1, len(self.pages))

    @property
    def misses(self) -> int:
        return sum(p.misses for p in self.pages)

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.pages) and self.escaped == 0

    def to_json(self) -> dict[str, Any]:
        return {"pages": len(self.pages), "ok": sum(p.ok for p in self.pages), "fidelity": round(self.fidelity, 4),
                "misses": self.misses, "misses_per_page": round(self.misses / max(1, len(self.pages)), 3),
                "blocked": self.blocked, "escaped": self.escaped, "background": dict(Counter(self.background)), "missed": list(self.missed), "seconds": round(self.seconds, 2),
                "failed_pages": [p.__dict__ for p in self.pages if not p.ok]}


def check(folder: str | Path | CaptureFolder, *, rules: str | Path | None = None,
          screens: str | Path | None = None) -> Report:
    """Load every page of the capture offline, in capture order, in one episode; `screens`: write the views there."""
    capture = folder if isinstance(folder, CaptureFolder) else CaptureFolder(folder, rules)
    return asyncio.run(_check(capture, Path(screens) if screens else None))


async def _check(capture: CaptureFolder, screens: Path | None) -> Report:
    from fsmc.backends.captured import CapturedSite

    loop = asyncio.get_running_loop()
    began = loop.time()
    results = []
    async with CapturedSite(capture, image=PNG) as site:
        episode = await site.open()
        routes = episode.routes
        if screens is not None:
            screens.mkdir(parents=True, exist_ok=True)
        for i, page in enumerate(capture.pages):
            before = routes.tally.misses
            try:
                status, error = await episode.goto(page.url), ""
                shot = await episode.screenshot()
            except EpisodeFailure as failure:
                status, error, shot = None, failure.detail, b""
            if screens is not None and shot:
                (screens / f"{i:04d}.png").write_bytes(shot)
            same = bool(shot) and hashlib.sha256(shot).hexdigest() == page.sha256
            results.append(PageCheck(page.url, status, page.status, routes.tally.misses - before, same, error))
        for number, flow in enumerate(capture.manifest.get("flows", [])):
            results += await _flow(episode, flow, screens, number)
        blocked, escaped, background = routes.tally.blocked, site.escaped, tuple(site.background)
        missed = tuple(routes.tally.missed_urls)
    return Report(tuple(results), missed, blocked, escaped, background, loop.time() - began)


async def _flow(episode: PageEpisode, recorded: dict[str, Any], screens: Path | None, number: int) -> list[PageCheck]:
    """The flow acted out again: a check per operation, or one saying where it stopped."""
    flow = Flow.from_json(recorded, f"flow {recorded.get('name')!r}")
    before = episode.routes.tally.misses
    try:
        views = await act_out(episode, flow)
    except EpisodeFailure as failure:
        return [PageCheck(f"flow {flow.name!r}", None, None, episode.routes.tally.misses - before, False, failure.detail)]
    checks = []
    for i, ((_, location, shot), step) in enumerate(zip(views, recorded["steps"], strict=True)):
        if screens is not None:
            (screens / f"flow-{number:02d}-{i:02d}.png").write_bytes(shot)
        same = hashlib.sha256(shot).hexdigest() == step["sha256"]
        checks.append(PageCheck(f"{location} (flow {flow.name!r}, {step['op']} {step['selector'] or ''})".rstrip(),
                                None, None, episode.routes.tally.misses - before, same))
        before = episode.routes.tally.misses
    return checks
