"""An AutoWebWorld app as a backend: another generator's site, its state read from its own runtime's signature.

The app's dist/ (built by `fsmc.codegen.awm_app`) is served on loopback and acted on as a live site is: a pinned
context per episode, requests outside the app refused, CSS selectors (`SelectorActor`). Its state is what its
runtime holds: the pinia store `signature` of the Vue app mounted on the page (`__vue_app__` of the `data-v-app`
element): `currentPageId` (else the route's name) is the page, the store's other fields (and those of a
`signature` object within it) the variables, each named as the world's importer names them, so that the state
compares with the semantics' as it is. A field the app does not hold reads as null.

The app cannot be put in an arbitrary state: a reset empties the page's storage (their pinia persists its state
there) and loads the app again, and every trajectory is acted out from the initial state. The GUI operations are
the world's own: a selector fsmc's import made a data-testid value (`#x`, `[data-testid="x"]` → `x`) finds the
element with that id or that data-testid; any other selector is CSS as the world wrote it. Where the import named an
item's own element (`<selector>-{item}`: their GUI names one abstract item), the world's selector is used as written.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.backends.captured import FromStartEpisode, LiveSite, PageEpisode
from fsmc.backends.protocol import JPEG, Backend, BackendError, Capture, Hasher, ImageFormat, Op, Step
from fsmc.browser import Chromium, SiteServer

SIGNATURE_JS = """() => {
  const host = document.querySelector('[data-v-app]');
  const app = host && host.__vue_app__;
  const pinia = app && app.config.globalProperties.$pinia;
  const store = pinia && pinia.state.value.signature;
  if (!store) return {missing: !app ? 'no Vue app is mounted' : !pinia ? 'the Vue app uses no pinia'
                                                               : 'the Vue app has no pinia store named "signature"'};
  const { currentPageId, signature, ...rest } = store;
  const router = app.config.globalProperties.$router;
  const route = router ? router.currentRoute.value.name : null;
  const inner = signature && typeof signature === 'object' && !Array.isArray(signature) ? signature : {};
  return JSON.parse(JSON.stringify({ page: currentPageId ?? route ?? null, route: route ?? null,
                                     fields: { ...rest, ...inner } }));
}"""
ARRIVE_S = 5.0  # how long a navigation the last action started (a page's chunk loading) may take to finish
_TESTID = re.compile(r"[A-Za-z][\w-]*")


_ITEM = re.compile(r"(.+)-\{\w+\}")  # the import's selector of an item's own element: `<selector>-{item}`


def item_selectors(spec: ir.Spec) -> tuple[str, ...]:
    """The world's selectors the import extended to name an item's own element, longest first."""
    found = {m.group(1) for p in spec.pages for a in p.actions for op in a.gui
             if op.selector and (m := _ITEM.fullmatch(op.selector))}
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def their_selector(selector: str | None, items: tuple[str, ...] = ()) -> str | None:
    """The element a selector of the world names in their DOM: a data-testid value finds its id or its data-testid;
    an item's own element (`<selector>-<key>`, `items`) is the world's selector as written."""
    if selector is None:
        return None
    if selector not in items:
        selector = next((s for s in items if selector.startswith(s + "-")), selector)
    return f'[data-testid="{selector}"], [id="{selector}"]' if _TESTID.fullmatch(selector) else selector


def their_op(op: Op, items: tuple[str, ...] = ()) -> Op:
    return dataclasses.replace(op, selector=their_selector(op.selector, items), until=their_selector(op.until, items),
                               text=their_selector(op.text, items) if op.op == "drag" else op.text)


class AwmAppEpisode(FromStartEpisode):
    """One page of the app in a context of its own."""

    start_is = "its initial state (the app loaded with empty storage)"

    def __init__(self, app: AwmApp, inner: PageEpisode):
        super().__init__(inner)
        self.app = app

    async def restart(self) -> None:
        """Their pinia persists its state in the page's storage: emptied before the app is loaded again."""
        if self.inner.page.url.startswith(self.app.url):
            await self.inner.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")

    def home(self) -> str:
        return self.app.url

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        return await super().perform(their_op(op, self.app.items), capture)

    async def _signature(self) -> dict[str, Any]:
        """The runtime's signature once the app is at rest: the page its store names is the route's (a navigation that
        loads the page's code has finished) and two reads agree."""
        deadline, last = time.monotonic() + ARRIVE_S, None
        while True:
            now: dict[str, Any] = await self.inner.page.evaluate(SIGNATURE_JS)
            if "missing" in now:
                raise BackendError(f"{self.app.dist}: cannot read the app's state: {now['missing']}")
            if (now == last and now["page"] == (now["route"] or now["page"])) or time.monotonic() > deadline:
                return now
            last = now
            await asyncio.sleep(0.05)

    async def state(self) -> dict[str, Any]:
        return self.app.state_of(await self._signature())


class AwmApp(Backend):
    """A built AutoWebWorld app (`dist`) acted on for the world `spec`; `name` turns their ids into the spec's names."""

    jumps = False

    def __init__(self, dist: str | Path, spec: ir.Spec, name: Callable[[str], str], *, image: ImageFormat = JPEG,
                 chromium: Chromium | None = None):
        self.dist, self.image, self.name = Path(dist), image, name
        self._chromium = chromium
        self._vars = {p.name: [v.name for v in (*spec.session, *p.vars)] for p in spec.pages}
        self.items = item_selectors(spec)
        self._sets = {v.name for p in spec.pages for v in (*spec.session, *p.vars)
                      if isinstance(v.type.inner if isinstance(v.type, ir.OptionalType) else v.type, ir.SetType)}
        self._server: SiteServer | None = None
        self._site: LiveSite | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the backend first"
        return self._server.url

    @property
    def blocked_requests(self) -> int:
        return self._site.blocked_requests if self._site is not None else 0

    def fingerprint(self, h: Hasher) -> None:
        """Every file of dist/, by its path and bytes."""
        for path in sorted(p for p in self.dist.rglob("*") if p.is_file()):
            h.update(str(path.relative_to(self.dist)).encode())
            h.update(path.read_bytes())

    def state_of(self, signature: dict[str, Any]) -> dict[str, Any]:
        """The runtime's signature as a state of the spec: its page, and that page's variables (null if absent)."""
        page = self.name(signature["page"]) if isinstance(signature["page"], str) else signature["page"]
        fields = {self.name(k): v for k, v in signature["fields"].items()}

        def value(n: str) -> Any:
            v = fields.get(n)
            return sorted(v, key=repr) if n in self._sets and isinstance(v, list) else v

        return {"page": page, "vars": {n: value(n) for n in self._vars.get(page, [])}}

    async def start(self) -> None:
        self._server = SiteServer(self.dist).__enter__()
        self._site = LiveSite(self._server.url, image=self.image, chromium=self._chromium)
        await self._site.start()

    async def open(self) -> AwmAppEpisode:
        assert self._site is not None, "start the backend first"
        return AwmAppEpisode(self, await self._site.open())

    async def close(self) -> None:
        try:
            if self._site is not None:
                await self._site.close()
                self._site = None
        finally:
            if self._server is not None:
                self._server.__exit__(None, None, None)
                self._server = None


__all__ = ["AwmApp", "AwmAppEpisode", "item_selectors", "their_op", "their_selector"]
