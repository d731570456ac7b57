"""How much a built site reads like a website: views measured in Chromium for identifiers shown, thin content,
actions that share a name, and whether text typed into a field stays visible.

A view is put in a state through the site's harness and read by one script (`PROBE_JS`); a typing step is acted
out with the `Actor` as replay does and the page read after it. Nothing here decides how a site looks: it only
measures what fsmc/codegen decided, for bench/realism.py and `fsmc build --screenshots`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.backends.protocol import Capture, EpisodeFailure, Op
from fsmc.backends.site import GeneratedSite, SiteEpisode

THIN_WORDS = 12  # a view whose main content, its controls left aside, has fewer words than this is thin
# What the view says (main content without its controls, headings of the page and chrome), every control's name
# with whether it can be used, and every field's value.
PROBE_JS = r"""() => {
  // words as written, not as styled: a heading in capitals by CSS ("ORDER SUMMARY") is not an identifier
  const asWritten = document.createElement('style');
  asWritten.textContent = '* { text-transform: none !important; }';
  document.head.appendChild(asWritten);
  const vis = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const name = (el) => (el.getAttribute('aria-label') || el.innerText || el.getAttribute('placeholder') || '')
    .replace(/\s+/g, ' ').trim();
  const controls = [...document.querySelectorAll('[data-testid]')].filter(vis).map((el) => ({
    testid: el.getAttribute('data-testid'), name: name(el),
    enabled: !el.disabled && el.getAttribute('aria-disabled') !== 'true',
    role: el.getAttribute('role') || el.tagName.toLowerCase()}));
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  copy.querySelectorAll('button, input, select, textarea, nav, [role=button], [role=checkbox], .hint, .breadcrumbs,'
    + ' h1, .page-title').forEach((e) => e.remove());
  const walk = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walk.nextNode()) parts.push(walk.currentNode.nodeValue);
  const content = parts.join(' ').replace(/\s+/g, ' ').trim();
  const values = [...document.querySelectorAll('input, textarea')].map((e) => e.value);
  const text = document.body.innerText;
  asWritten.remove();
  return {text, content, controls, values};
}"""


# The value of the field with a testid, or null where the move took the field away (a sign-in form once signed in).
FIELD_JS = """(tid) => {
  const el = document.querySelector(`[data-testid="${CSS.escape(tid)}"]`);
  return el ? (el.value ?? el.innerText ?? '') : null;
}"""


@dataclass
class ViewReport:
    """What one view showed."""

    state: dict[str, Any]
    identifiers: list[str] = field(default_factory=list)  # identifiers of the spec found in its text or names
    words: int = 0  # words of content besides controls
    duplicates: list[str] = field(default_factory=list)  # accessible names two usable controls share

    @property
    def thin(self) -> bool:
        return self.words < THIN_WORDS


@dataclass
class TypedReport:
    """One typing step: the text typed, and whether the view showed it once typed and still shows it after the move
    in every field that is still there (a move that signs in or leads elsewhere takes its form away, as on any site)."""

    action: str
    text: str
    visible: bool


@dataclass
class Realism:
    """The figures of one site: views reached, those showing identifiers, thin ones, those with duplicate names."""

    views: list[ViewReport] = field(default_factory=list)
    typed: list[TypedReport] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        n = len(self.views)
        typed_ok = sum(t.visible for t in self.typed)
        return {"views": n, "identifier_views": sum(bool(v.identifiers) for v in self.views),
                "typed": len(self.typed), "typed_visible": typed_ok,
                "thin_views": sum(v.thin for v in self.views),
                "thin_pct": round(100 * sum(v.thin for v in self.views) / n, 1) if n else 0.0,
                "duplicate_views": sum(bool(v.duplicates) for v in self.views),
                "identifiers_seen": sorted({i for v in self.views for i in v.identifiers})[:12],
                "duplicates_seen": sorted({d for v in self.views for d in v.duplicates})[:12],
                "thin_pages": sorted({str(v.state.get("page")) for v in self.views if v.thin})[:12]}


# ---------------------------------------------------------------- identifiers of a spec
_CODE = re.compile(r"_|^#|\w\.\w|^[A-Z0-9]+(?:-[A-Z0-9]+)+$|^[a-z0-9]+(?:-[a-z0-9]+)+$|[a-z][A-Z]")


def spec_identifiers(spec: ir.Spec, selectors: Iterable[str] = ()) -> set[str]:
    """Names of the spec written as code (`ACT_NEW_PR_SUBMIT`, `repo-search-input`, `inboxFolder`) and the
    rendered selectors a trajectory used: none of them should ever be read on a page."""
    names: set[str] = {spec.site.name}
    for page in spec.pages:
        names.add(page.name)
        names |= {v.name for v in page.vars} | {v.name for v in page.views}
        for a in page.actions:
            names |= {a.name} | {p.name for p in a.params}
            names |= {op.selector for op in a.gui if op.selector and "{" not in op.selector}
    names |= {v.name for v in spec.session} | {t.name for t in spec.tables}
    names |= {c.name for t in spec.tables for c in t.columns}
    names |= set(selectors)
    return {n for n in names if len(n) > 2 and _CODE.search(n)}


def identifiers_in(text: str, identifiers: set[str]) -> list[str]:
    """The identifiers a text shows as they are, or ALL_CAPS ones with spaces for their underscores ("ACT GO")."""
    found = []
    for ident in identifiers:
        forms = [ident]
        if ident.upper() == ident and re.search(r"[A-Z]", ident):
            forms.append(re.sub(r"[_-]+", " ", ident))
        if any(re.search(r"(?<![\w-])" + re.escape(f) + r"(?![\w-])", text) for f in forms):
            found.append(ident)
    return sorted(found)


def duplicate_names(controls: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, int] = {}
    for c in controls:
        if c["enabled"] and c["name"]:
            seen[c["name"].lower()] = seen.get(c["name"].lower(), 0) + 1
    return sorted(n for n, k in seen.items() if k > 1)


# ---------------------------------------------------------------- measuring
async def _view(episode: SiteEpisode, state: Mapping[str, Any], identifiers: set[str]) -> ViewReport:
    await episode.reset(state)
    seen = await episode.page.evaluate(PROBE_JS)
    names = " \n ".join(c["name"] for c in seen["controls"])
    return ViewReport(dict(state), identifiers_in(seen["text"] + "\n" + names, identifiers),
                      len(seen["content"].split()), duplicate_names(seen["controls"]))


async def _typed(episode: SiteEpisode, before: Mapping[str, Any], move: Mapping[str, Any]) -> TypedReport | None:
    typed = [g["text"] for g in move["gui"] if g["op"] == "type" and g.get("text")]
    if not typed:
        return None
    await episode.reset(before)
    visible = True
    try:
        for g in move["gui"]:
            await episode.perform(Op.from_json(g), Capture.NONE)
            if g["op"] == "type":
                visible &= g["text"] in await _shown(episode)
        await episode.settle()
    except EpisodeFailure:
        return TypedReport(move["action"], typed[-1], False)
    for g in move["gui"]:  # a field still there after the move keeps showing what was typed into it
        if g["op"] == "type" and g.get("text"):
            held = await episode.page.evaluate(FIELD_JS, g["selector"])
            visible &= held is None or g["text"] in held
    return TypedReport(move["action"], typed[-1], visible)


async def _shown(episode: SiteEpisode) -> str:
    seen = await episode.page.evaluate(PROBE_JS)
    return str(seen["text"]) + "\n" + "\n".join(seen["values"])


async def _measure(dist: Path, views: list[dict[str, Any]], steps: list[tuple[dict[str, Any], dict[str, Any]]],
                   identifiers: set[str]) -> Realism:
    report = Realism()
    async with GeneratedSite(dist) as site:
        episode = await site.open()
        for state in views:
            report.views.append(await _view(episode, state, identifiers))
        for before, move in steps:
            typed = await _typed(episode, before, move)
            if typed is not None:
                report.typed.append(typed)
    return report


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def trajectory_views(trajectories: Iterable[Mapping[str, Any]], limit: int = 400) -> tuple[
        list[dict[str, Any]], list[tuple[dict[str, Any], dict[str, Any]]]]:
    """The distinct states trajectories pass through (first `limit`), and each distinct typing step with the
    state it starts from."""
    views: dict[str, dict[str, Any]] = {}
    steps: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for t in trajectories:
        state = t["initial"]
        for move in t["moves"]:
            if len(views) < limit:
                views.setdefault(_key(state), state)
            if any(g["op"] == "type" for g in move["gui"]) and len(steps) < limit:
                steps.setdefault(_key(state) + _key(move["gui"]), (state, move))
            state = move["state"]
        if len(views) < limit:
            views.setdefault(_key(state), state)
    return list(views.values()), list(steps.values())


def measure(dist: Path, spec: ir.Spec, views: list[dict[str, Any]],
            steps: list[tuple[dict[str, Any], dict[str, Any]]] | None = None) -> Realism:
    """Measure the views (states in the harness's JSON form) and typing steps of a built site's dist/."""
    steps = steps or []
    selectors = {g["selector"] for _, m in steps for g in m["gui"] if g.get("selector")}
    return asyncio.run(_measure(dist, views, steps, spec_identifiers(spec, selectors)))


__all__ = ["THIN_WORDS", "Realism", "TypedReport", "ViewReport", "duplicate_names", "identifiers_in", "measure",
           "spec_identifiers", "trajectory_views"]
