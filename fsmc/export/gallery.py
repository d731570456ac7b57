"""`fsmc view`: a static HTML gallery of a replay, for a person to look at.

One page per kept trajectory: every step's screenshot with a marker where the action lands and the
target's box, the action, and the state change each move made; an index with every trajectory and
the reasons the rejected ones failed. Decisions here, markup in fsmc/templates/gallery/.
`fsmc eval` renders its episodes with the same pages (`render_gallery`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from fsmc.export.actions import format_action
from fsmc.export.datasets import agent_steps

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "gallery"


def change_lines(changed: dict[str, list[Any]]) -> list[str]:
    """`{"page": [old, new], variable: [old, new]}` (what the environment's steps report) as lines to show."""
    return [f"page: {old} → {new}" if name == "page" else
            f"{name}: {json.dumps(old, ensure_ascii=False)} → {json.dumps(new, ensure_ascii=False)}"
            for name, (old, new) in changed.items()]


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    changed: dict[str, list[Any]] = {"page": [before["page"], after["page"]]} if before["page"] != after["page"] else {}
    names = list(after["vars"]) + [n for n in before["vars"] if n not in after["vars"]]
    for name in names:
        old, new = before["vars"].get(name, "—"), after["vars"].get(name, "—")
        if old != new:
            changed[name] = [old, new]
    return change_lines(changed)


def _steps(t: dict[str, Any], rel: str) -> list[dict[str, Any]]:
    states = [t["initial"]] + [m["state"] for m in t["moves"]]
    out, shown = [], set()
    for action, step in agent_steps(t):
        i = step.get("move", 0)
        first = i not in shown
        shown.add(i)
        move = t["moves"][i] if i < len(t["moves"]) else None
        out.append({
            "label": (move.get("label") or move["action"]) if move else "answer",
            "screenshot": f"{rel}/{step['screenshot']}",
            "marker": action.get("coordinate"),
            "box": step.get("bbox"),
            "action": format_action(action),
            "changes": _changes(states[i], states[i + 1]) if move and first else [],
        })
    return out


def _page_name(trajectory_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", trajectory_id) + ".html"


def write_gallery(data_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the gallery (default DATA/gallery/) and return the path of its index.html."""
    data_dir = Path(data_dir)
    out = Path(out) if out is not None else data_dir / "gallery"
    source = data_dir / "trajectories.jsonl"
    if not source.is_file():
        raise FileNotFoundError(f"{data_dir}: no trajectories.jsonl; run `fsmc replay` first")
    out.mkdir(parents=True, exist_ok=True)
    rel = Path(os.path.relpath(data_dir.resolve(), out.resolve())).as_posix()
    rows, pages = [], {}
    for line in source.read_text(encoding="utf-8").splitlines():
        t = json.loads(line)
        link = _page_name(t["id"]) if t["status"] == "kept" else None
        if link:
            pages[link] = {"t": t, "answer": (t.get("answer") or {}).get("text"), "steps": _steps(t, rel),
                           "final": f"{rel}/{t['final_screenshot']}"}
        rows.append({"id": t["id"], "kind": t.get("kind", "positive"), "instruction": t.get("instruction"),
                     "link": link, "moves": len(t["moves"]), "status": t["status"], "reason": t.get("reason"),
                     "detail": t.get("detail")})
    reasons = Counter(r["reason"] for r in rows if r["status"] != "kept")
    kept = sum(r["status"] == "kept" for r in rows)
    summary = f"{kept} kept, {len(rows) - kept} rejected" + "".join(f" · {r}: {n}" for r, n in sorted(reasons.items()))
    return render_gallery(out, f"fsmc replay of {data_dir.name}", summary, rows, pages)


def render_gallery(out: Path, title: str, summary: str, rows: list[dict[str, Any]], pages: dict[str, dict[str, Any]]) -> Path:
    """The gallery's files: `pages` (file name → the page's trajectory `t`, `steps`, `answer`, `final` screenshot), and
    index.html listing `rows` (id, kind, instruction, link, moves, status, reason, detail) under `summary`.
    `fsmc view` writes a replay's; `fsmc eval` an evaluation's."""
    out.mkdir(parents=True, exist_ok=True)
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    page = env.get_template("trajectory.html.j2")
    for link, context in pages.items():
        (out / link).write_text(page.render(**context), encoding="utf-8")
    index = env.get_template("index.html.j2").render(title=title, summary=summary, trajectories=rows)
    (out / "index.html").write_text(index, encoding="utf-8")
    shutil.copyfile(TEMPLATES / "gallery.css", out / "gallery.css")
    return out / "index.html"
