"""A capture's extractors: how the state a spec declares is read off a captured site's pages (`FOLDER/extract.toml`).

A spec acted out on a capture (`backend capture "captures/zoo"`) reads its state from the page the browser shows,
through the extractors the capture folder's `extract.toml` declares (`fsmc import` writes a first one):

    [pages]                         # page = a regular expression searched in the location's path (first match wins)
    home = "^/$"
    zoo_animals_item = "^/zoo/animals/[^/]+$"

    [state]                         # variable = its extractor, on every page that has the variable
    filter = "url:param/_filter_value"

    [state.zoo_animals]             # on one page only (a page's own table wins over the shared one)
    zoo_animals_item_id = "default"

Extractors: `url:path/N` (the location's N-th path segment, from 0), `url:param/NAME` (a query parameter; none when
absent), `text:CSS` (the text of the one element CSS matches), `value:CSS` (the value of the one form field CSS
matches), `default` (the variable's default: a carry slot, set only by the action that leaves the page), `changes`
(how many of the capture's recorded changes, its posts, the episode has reached: the state the archive answers from,
as `fsmc.archive.routes.Recording` keeps it). The
`[pages]` table is read by the cloned application's reader (`fsmc.backends.sidecar.read_pages`), checked the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from fsmc import ir
from fsmc.backends.sidecar import load_toml, read_pages

EXTRACT_FILE = "extract.toml"
KINDS = ("url:path/", "url:param/", "text:", "value:", "default", "changes")
_PATH = re.compile(r"^url:path/(\d+)$")


@dataclass(frozen=True)
class Extractors:
    """A capture's extractors, read and checked against a spec."""

    path: Path
    pages: tuple[tuple[str, re.Pattern[str]], ...]
    state: dict[str, dict[str, str]]  # page → variable → extractor, for every variable of every page

    def page_of(self, path: str) -> str | None:
        return next((name for name, pattern in self.pages if pattern.search(path)), None)


def _well_formed(text: str) -> bool:
    if text in ("default", "changes") or _PATH.match(text):
        return True
    return any(text.startswith(k) and len(text) > len(k) for k in ("url:param/", "text:", "value:"))


def _state(data: dict[str, Any], spec: ir.Spec, problems: list[str]) -> dict[str, dict[str, str]]:
    table = data.get("state", {})
    if not isinstance(table, dict):
        problems.append("`state` is not a table")
        table = {}
    shared = {k: v for k, v in table.items() if not isinstance(v, dict)}
    pages = {p.name for p in spec.pages}
    problems += [f"`state.{k}` names no page of the spec" for k, v in table.items() if isinstance(v, dict) and k not in pages]
    state: dict[str, dict[str, str]] = {}
    for page in spec.pages:
        own = table.get(page.name, {}) if isinstance(table.get(page.name), dict) else {}
        names = [v.name for v in (*spec.session, *page.vars)]
        problems += [f"`state.{page.name}.{k}` names no variable of page {page.name}" for k in own if k not in names]
        chosen = {n: (own.get(n) if n in own else shared.get(n)) for n in names}
        for var, text in chosen.items():
            if text is None:
                problems.append(f"no extractor reads `{var}` on page {page.name} (give `state.{var}` or "
                                f"`state.{page.name}.{var}`)")
            elif not isinstance(text, str) or not _well_formed(text):
                problems.append(f"the extractor of `{var}` on page {page.name} is {text!r}: write one of "
                                "url:path/N, url:param/NAME, text:CSS, value:CSS, default, changes")
        state[page.name] = {k: v for k, v in chosen.items() if isinstance(v, str)}
    declared = {v.name for v in spec.session} | {v.name for p in spec.pages for v in p.vars}
    problems += [f"`state.{k}` names no variable of the spec" for k in shared if k not in declared]
    return state


def read_extractors(path: Path, spec: ir.Spec) -> tuple[Extractors | None, list[str]]:
    """The extractors at `path` and their problems (empty: usable), checked against `spec`."""
    data, problems = load_toml(path)
    if data is None:
        return None, problems
    problems += [f"unknown key `{k}` (known: pages, state)" for k in data if k not in ("pages", "state")]
    if not isinstance(data.get("pages", {}), dict):
        problems.append("`pages` is not a table")
        data["pages"] = {}
    problems += [f"`pages.{k}` is not a string" for k, v in data.get("pages", {}).items() if not isinstance(v, str)]
    pages = read_pages(data, spec, problems)
    state = _state(data, spec, problems)
    if problems:
        return None, problems
    return Extractors(path, pages, state), []


def from_location(extractor: str, location: str) -> str | None:
    """What a `url:` extractor reads from a location (`/zoo/animals/2?_sort=name`); None where it is absent."""
    parts = urlsplit(location)
    match = _PATH.match(extractor)
    if match:
        segments = [s for s in parts.path.split("/") if s]
        index = int(match.group(1))
        return unquote(segments[index]) if index < len(segments) else None
    values = parse_qs(parts.query, keep_blank_values=True).get(extractor.removeprefix("url:param/"))
    return values[0] if values else None


def convert(value: str | None, t: ir.Type) -> Any:
    """An extracted string in the variable's JSON form (ints and bools from their text)."""
    base = t.inner if isinstance(t, ir.OptionalType) else t
    if value is None:
        return None
    if isinstance(base, ir.IntType):
        return int(value) if re.fullmatch(r"-?\d+", value.strip()) else value
    if isinstance(base, ir.BoolType):
        return value.strip().lower() in ("1", "true", "on", "yes")
    return value


__all__ = ["EXTRACT_FILE", "Extractors", "convert", "from_location", "read_extractors"]
