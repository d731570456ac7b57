"""A spec acted out on a capture (`backend capture "FOLDER"`): the captured site, its state read by extractors.

`CapturedSpec` serves the capture offline as `CapturedSite` does, and reads an episode's state the way the spec
declares it: the page whose `[pages]` pattern matches the location, and each of that page's variables through its
extractor (`fsmc.backends.extractors`: URL parts, form values, element text, the recorded posts reached). A capture cannot jump to an arbitrary
state (it holds the pages it was shown, not the ways to reach any state), so every episode starts from the capture's
start page after a reset, and replay acts each trajectory out from there, as it does on a cloned application.
An extractor that matches no element, or several, stops the run naming the variable, the selector and the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.archive.routes import OfflineRoutes
from fsmc.backends.captured import CapturedSite, FromStartEpisode, PageEpisode
from fsmc.backends.extractors import EXTRACT_FILE, Extractors, convert, from_location, read_extractors
from fsmc.backends.protocol import JPEG, Backend, BackendError, EpisodeFailure, Hasher, ImageFormat
from fsmc.browser import Chromium

ELEMENT_JS = """(sel) => {
  const found = document.querySelectorAll(sel);
  if (found.length !== 1) return {count: found.length};
  const el = found[0];
  return {count: 1, text: (el.innerText ?? el.textContent ?? '').trim(), value: 'value' in el ? String(el.value) : null};
}"""


class CapturedSpecEpisode(FromStartEpisode):
    """One page of the capture, its state read through the extractors."""

    start_is = "the capture's start page"

    def __init__(self, owner: CapturedSpec, inner: PageEpisode):
        super().__init__(inner)
        self.owner = owner

    async def restart(self) -> None:
        """The capture's start page as first served: the archive's responses from their beginning."""
        if isinstance(self.inner.routes, OfflineRoutes):
            self.inner.routes.restart()

    def home(self) -> str:
        return self.inner.start

    async def _element(self, var: str, extractor: str, page: str, location: str) -> str | None:
        kind, _, selector = extractor.partition(":")
        found = await self.inner.page.evaluate(ELEMENT_JS, selector)
        if found["count"] != 1:
            raise BackendError(f"the extractor `{extractor}` of `{var}` ({self.owner.extractors.path}) matches "
                               f"{found['count']} elements on page {page} ({location}); it must match exactly one")
        if kind == "value" and found["value"] is None:
            raise BackendError(f"the extractor `{extractor}` of `{var}` ({self.owner.extractors.path}) matches an "
                               f"element with no value on page {page} ({location}): use text:CSS")
        value: str = found[kind]
        return value

    async def state(self) -> dict[str, Any]:
        await self.inner.arrive()  # a load an agent's click started (the env acts outside `perform`)
        location = self.inner.actor.location()
        path = location.split("?")[0].split("#")[0]
        page = self.owner.extractors.page_of(path)
        if page is None:
            raise EpisodeFailure("state_diverged", f"the location {location} is no page of the spec (no pattern of "
                                 f"`pages` in {self.owner.extractors.path.name} matches it)")
        values: dict[str, Any] = {}
        for var, extractor in self.owner.extractors.state[page].items():
            if extractor == "default":
                values[var] = self.owner.defaults.get(var)
                continue
            if extractor == "changes":  # the archive's own state: how far along its recorded changes the episode is
                assert isinstance(self.inner.routes, OfflineRoutes), "a capture's episodes are answered offline"
                values[var] = self.inner.routes.epoch
                continue
            raw = (from_location(extractor, location) if extractor.startswith("url:")
                   else await self._element(var, extractor, page, location))
            values[var] = convert(raw, self.owner.types[var])
        return {"page": page, "vars": values}

class CapturedSpec(Backend):
    """The capture `folder` served offline for the spec `spec`, whose state its `extract.toml` reads."""

    jumps = False

    def __init__(self, folder: str | Path, spec: ir.Spec, *, extractors: Extractors | None = None,
                 image: ImageFormat = JPEG, chromium: Chromium | None = None):
        self.image = image
        self.site = CapturedSite(folder, image=image, chromium=chromium)
        if extractors is None:
            extractors, problems = read_extractors(Path(folder) / EXTRACT_FILE, spec)
            if extractors is None:
                raise BackendError(f"{Path(folder) / EXTRACT_FILE}: " + "; ".join(problems))
        self.extractors = extractors
        variables = [*spec.session, *(v for p in spec.pages for v in p.vars)]
        self.types = {v.name: v.type for v in variables}
        self.defaults = {v.name: v.default.value for v in variables if isinstance(v.default, ir.Lit)}

    @property
    def blocked_requests(self) -> int:
        return self.site.blocked_requests

    @property
    def misses(self) -> int:
        return self.site.misses

    def fingerprint(self, h: Hasher) -> None:
        self.site.fingerprint(h)
        h.update(self.extractors.path.read_bytes())

    async def start(self) -> None:
        await self.site.start()

    async def open(self) -> CapturedSpecEpisode:
        return CapturedSpecEpisode(self, await self.site.open())

    async def adopt(self, page: Any) -> CapturedSpecEpisode:
        """An episode on a page opened elsewhere (`CapturedSite.adopt`); `start_pages` first, not `start`."""
        return CapturedSpecEpisode(self, await self.site.adopt(page))

    def start_pages(self) -> None:
        """What pages opened elsewhere need: the archive, read (and checked). No browser is started."""
        self.site.capture.recording  # noqa: B018 - read (and check) the archive before any page asks for it

    async def close(self) -> None:
        await self.site.close()


__all__ = ["CapturedSpec", "CapturedSpecEpisode"]
