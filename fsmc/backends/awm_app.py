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
element with that id or that data-testid; any other selector is CSS as the world wrote it. Their GUI names one
abstract item, where fsmc's trajectories name the row they mean, and both are acted as the world means them:
- an item's own element (`<selector>-<key>`, as the import names it) is the world's selector where that finds one
  element, and where it finds several (`.repo-row-visible`: every row) the one that carries the item: the key as an
  attribute's value or at the end of a class (their apps mark rows `data-id-<key>` or `data-id="<key>"`), on the
  element, inside it or around it;
- an item's key typed into a field (a search that records the item) is typed as the item's name, by which their
  pages find it (`LABELS`: the table's `name`, `title`… column, else the key itself).
Variables of the spec that the world does not declare (the importer's `access_method`) are `unread`: their runtime
cannot hold them, and replay takes them as the semantics have them.
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
from fsmc.backends.protocol import JPEG, Backend, BackendError, Capture, EpisodeFailure, Hasher, ImageFormat, Op, Step
from fsmc.browser import Chromium, SiteServer
from fsmc.types.domains import strip_optional

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
# Which of the elements a selector finds is the item's: the one carrying its key (`key`) as a class ending in `-key`
# or an attribute's value, on itself, else inside, else around it. Null where the selector finds one element or none.
ROW_JS = r"""([sel, key]) => {
  let all;
  try { all = [...document.querySelectorAll(sel)]; } catch (e) { return null; }
  if (all.length < 2) return null;
  const quoted = '"' + key.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const mark = (el) => {
    for (const c of el.classList) if (c === key || c.endsWith('-' + key)) return '.' + CSS.escape(c);
    for (const a of el.attributes) if (a.name !== 'class' && a.value === key) return `[${CSS.escape(a.name)}=${quoted}]`;
    return null;
  };
  const around = (el) => { for (let a = el.parentElement; a; a = a.parentElement) { const m = mark(a); if (m) return m; } };
  const ways = [['self', mark], ['inside', (el) => [...el.querySelectorAll('*')].map(mark).find(Boolean)],
                ['around', around]];
  for (const [on, find] of ways) for (const el of all) { const m = find(el); if (m) return {on, mark: m}; }
  return {on: null, count: all.length};
}"""
ARRIVE_S = 5.0  # how long a navigation the last action started (a page's chunk loading) may take to finish
LABELS = ("name", "title", "label", "subject", "headline")  # the columns a row is found by, in this order
_TESTID = re.compile(r"[A-Za-z][\w-]*")


_ITEM = re.compile(r"(.+)-\{\w+\}")  # the import's selector of an item's own element: `<selector>-{item}`


def item_selectors(spec: ir.Spec) -> tuple[str, ...]:
    """The world's selectors the import extended to name an item's own element, longest first."""
    found = {m.group(1) for p in spec.pages for a in p.actions for op in a.gui
             if op.selector and (m := _ITEM.fullmatch(op.selector))}
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def item_of(selector: str | None, items: tuple[str, ...]) -> tuple[str, str] | None:
    """(the world's selector, the item's key) of an item's own element `<selector>-<key>`; None for any other."""
    if selector is None or selector in items:
        return None
    world = next((s for s in items if selector.startswith(s + "-")), None)
    return None if world is None else (world, selector[len(world) + 1:])


def label_column(table: ir.Table) -> int:
    """The column a row is found by: a text column named as `LABELS` (or `<x>_name`, `<x>_title`…), else the key."""
    names = [c.name for c in table.columns]
    text = [n for i, n in enumerate(names) if all(isinstance(r[i], str) and r[i] for r in table.rows)]
    wanted = [*LABELS, *(n for w in LABELS for n in text if n.endswith("_" + w))]
    return names.index(next((n for n in wanted if n in text), table.key))


def typed_items(spec: ir.Spec) -> dict[str, dict[str, str]]:
    """For each field that an action types one of a table's keys into (`{item}`): each key, and the item's name."""
    names: dict[str, dict[str, str]] = {}
    for t in spec.tables:
        key, label = [c.name for c in t.columns].index(t.key), label_column(t)
        names[t.name] = {str(r[key]): str(r[label]) for r in t.rows}
    out: dict[str, dict[str, str]] = {}
    for a in (a for p in spec.pages for a in p.actions):
        for op in a.gui:
            p = next((p for p in a.params if op.op == "type" and op.text == "{" + p.name + "}"), None)
            values = getattr(strip_optional(p.type), "values", ()) if p is not None else ()
            table = next((n for n, keys in names.items() if values and set(values) <= set(keys)), None)
            if table is not None and op.selector:
                out[op.selector] = names[table]
    return out


def their_selector(selector: str | None, items: tuple[str, ...] = ()) -> str | None:
    """The element a selector of the world names in their DOM: a data-testid value finds its id or its data-testid;
    an item's own element (`<selector>-<key>`, `items`) is the world's selector as written."""
    if selector is None:
        return None
    if selector not in items:
        selector = next((s for s in items if selector.startswith(s + "-")), selector)
    return f'[data-testid="{selector}"], [id="{selector}"]' if _TESTID.fullmatch(selector) else selector


def their_op(op: Op, items: tuple[str, ...] = (), typed: dict[str, dict[str, str]] | None = None) -> Op:
    """The operation on their page: their selectors; an item's key typed (`typed`, `typed_items`) as its name."""
    text = their_selector(op.text, items) if op.op == "drag" else op.text
    if op.op == "type" and op.selector is not None and text is not None:
        text = (typed or {}).get(op.selector, {}).get(text, text)
    return dataclasses.replace(op, selector=their_selector(op.selector, items), until=their_selector(op.until, items),
                               text=text)


def row_selector(selector: str, key: str, found: dict[str, Any]) -> str:
    """The world's selector narrowed to the element `ROW_JS` found carrying the item `key`; a failure if none does."""
    if found["on"] is None:
        raise EpisodeFailure("element_missing", f"{found['count']} elements match selector {selector!r} and none is "
                             f"the item {key!r} (none carries it as an attribute's value or at the end of a class, as "
                             f"`data-id-{key}`)")
    base = f":is({selector})" if "," in selector else selector
    return {"self": f"{base}{found['mark']}", "inside": f"{base}:has({found['mark']})",
            "around": f"{base}:is({found['mark']} *)"}[found["on"]]


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
        theirs, item = their_op(op, self.app.items, self.app.typed), item_of(op.selector, self.app.items)
        if item is not None and theirs.selector is not None:
            found = await self.inner.page.evaluate(ROW_JS, [theirs.selector, item[1]])
            if found is not None:
                try:
                    theirs = dataclasses.replace(theirs, selector=row_selector(theirs.selector, item[1], found))
                except EpisodeFailure as failure:
                    raise EpisodeFailure(failure.reason, f"{failure.detail}, on {self.actor.location()}") from None
        return await super().perform(theirs, capture)

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
                 chromium: Chromium | None = None, unread: frozenset[str] = frozenset()):
        self.dist, self.image, self.name, self.unread = Path(dist), image, name, unread
        self._chromium = chromium
        self._vars = {p.name: [v.name for v in (*spec.session, *p.vars)] for p in spec.pages}
        self.items, self.typed = item_selectors(spec), typed_items(spec)
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


__all__ = ["AwmApp", "AwmAppEpisode", "item_of", "item_selectors", "label_column", "row_selector", "their_op",
           "their_selector", "typed_items"]
