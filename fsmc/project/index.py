"""What a run of a project made: one row of figures per site (read from the stages' outputs) and an HTML index
linking each site's gallery, statistics and page graph. The index holds no timings, so the same inputs give
the same index."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from fsmc.atomic import write_atomic
from fsmc.project.config import Project, Site
from fsmc.project.pipeline import GRAPH, STATS, SiteResult

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "project"
COLUMNS = ("site", "pages", "states", "goals", "trajectories", "kept", "steps", "time", "status")


def _json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def site_row(site: Site, result: SiteResult) -> dict[str, Any]:
    """The site's figures from the outputs of the stages that hold this run (a failed stage's older outputs do not)."""
    done = {s.stage for s in result.stages} - ({result.failed} if result.failed else set())
    row: dict[str, Any] = {"site": site.name, "pages": result.pages, "time": f"{result.seconds:.1f} s",
                           "status": "ok" if result.ok else f"failed: {result.failed}: {result.error}"}
    if "enumerate" in done:
        counts = _json(site.out / "manifest.json").get("counts", {})
        row.update(states=counts.get("states"), goals=sum(counts.get("goals", {}).values()),
                   trajectories=counts.get("trajectories"))
    if "replay" in done:
        report = _json(site.data / "report.json")
        total = report.get("trajectories") or 0
        row.update(kept=f"{100 * report.get('kept', 0) / total:.1f}%" if total else "-", steps=report.get("steps"))
    short = partial(site, done)
    if result.ok and short:
        row["status"] = f"ok, partial: {'; '.join(short)}"
    return row


def partial(site: Site, done: set[str]) -> list[str]:
    """What this run left out on purpose, as its outputs record it: states beyond the enumeration's caps, trajectories
    beyond the replay's `limit` (a "kept 100.0 %" of those replayed is not of all)."""
    said = []
    if "enumerate" in done:
        manifest = _json(site.out / "manifest.json")
        if manifest.get("counts", {}).get("complete") is False:
            options = manifest.get("options", {})
            caps = ", ".join(f"{k} {options[k]:,}" for k in ("max_depth", "max_states") if options.get(k) is not None)
            said.append(f"states capped ({caps})")
    if "replay" in done:
        limit = _json(site.data / "manifest.json").get("options", {}).get("limit")
        total = _json(site.out / "manifest.json").get("counts", {}).get("trajectories")
        if isinstance(limit, int) and isinstance(total, int) and limit < total:
            said.append(f"replayed {limit:,} of {total:,} trajectories (limit {limit:,})")
    return said


def cells(row: dict[str, Any], columns: tuple[str, ...] = COLUMNS) -> list[str]:
    """The row as text, column by column: numbers with thousands separators, "-" where a stage did not get that far."""
    return [f"{v:,}" if isinstance(v, int) else "-" if v is None else str(v) for v in (row.get(c) for c in columns)]


def _links(site: Site, result: SiteResult, base: Path) -> dict[str, str]:
    done = {s.stage for s in result.stages} - ({result.failed} if result.failed else set())
    wanted = {"gallery": ("replay", site.data / "gallery" / "index.html"), "stats": ("enumerate", site.out / STATS),
              "page graph": ("enumerate", site.out / GRAPH), "dataset": ("export", site.dataset / "README.md")}
    return {name: Path(os.path.relpath(path, base)).as_posix()
            for name, (stage, path) in wanted.items() if stage in done and path.is_file()}


def write_index(project: Project, sites: tuple[Site, ...], results: list[SiteResult]) -> Path:
    """PROJECT's index.html (where [paths] index says): a row per site with its figures and links."""
    base = project.index.parent
    columns = tuple(c for c in COLUMNS if c != "time")
    rows = [{"cells": cells(site_row(site, result), columns), "status": "ok" if result.ok else "failed",
             "links": _links(site, result, base)} for site, result in zip(sites, results, strict=True)]
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    html = env.get_template("index.html.j2").render(title=f"fsmc project {project.root.name}", rows=rows,
                                                    columns=columns)
    base.mkdir(parents=True, exist_ok=True)
    write_atomic(project.index, html)
    return project.index
