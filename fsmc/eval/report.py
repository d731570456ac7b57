"""An evaluation's output: results.json (success rates per site and goal type, steps, a row per episode),
episodes.jsonl (each episode's trace) and the gallery (fsmc/export/gallery.py's pages, over these traces)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fsmc.export.actions import format_action
from fsmc.export.gallery import change_lines, render_gallery

RESULTS, EPISODES, GALLERY = "results.json", "episodes.jsonl", "gallery"
ROW_FIELDS = ("episode", "site", "task", "goal_type", "success", "reward", "end", "steps", "failed_steps", "shortest")


def _group(records: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)
    wins = [r for r in records if r["success"]]
    return {"episodes": n, "successes": len(wins), "success_rate": round(len(wins) / n, 4) if n else 0.0,
            "mean_steps": round(sum(r["steps"] for r in records) / n, 3) if n else 0.0,
            "mean_steps_success": round(sum(r["steps"] for r in wins) / len(wins), 3) if wins else None,
            "failed_steps": sum(r["failed_steps"] for r in records)}


def _by(records: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return {k: _group([r for r in records if r[key] == k]) for k in sorted({r[key] for r in records})}


def _usage(records: list[dict[str, Any]]) -> dict[str, int] | None:
    used = [s["usage"] for r in records for s in r["trace"] if s.get("usage")]
    if not used:
        return None
    return {"requests": len(used), **{k: sum(u.get(k, 0) for u in used) for k in ("prompt_tokens", "completion_tokens")}}


def summarize(records: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    """results.json: what was run, the totals, per site and goal type, the tokens used, and a row per episode."""
    results = {**meta, **_group(records), "by_site": _by(records, "site"), "by_goal_type": _by(records, "goal_type"),
               "ends": {e: sum(r["end"] == e for r in records) for e in sorted({r["end"] for r in records})}}
    if usage := _usage(records):
        results["usage"] = usage
    results["rows"] = [{k: r[k] for k in ROW_FIELDS} for r in records]
    return results


def _dump(data: Any, **options: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, **options)


def write_outputs(out: Path, records: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
    results = summarize(records, meta)
    (out / RESULTS).write_text(_dump(results, indent=2) + "\n", encoding="utf-8")
    (out / EPISODES).write_text("".join(_dump(r) + "\n" for r in records), encoding="utf-8")
    title = f"fsmc eval: {meta.get('policy', 'a policy')} on {', '.join(sorted({r['site'] for r in records}))}"
    failed = "".join(f" · {end}: {n}" for end, n in results["ends"].items() if end != "success")
    summary = f"{results['successes']} succeeded, {results['episodes'] - results['successes']} failed{failed}"
    write_gallery(out / GALLERY, records, title, summary)
    return results


# ---------------------------------------------------------------- the gallery: export's pages over the traces

def _label(step: dict[str, Any]) -> str:
    if "error" in step:
        return f"failed: {step['error']}"
    if "answer" in step:
        return "answer " + ("accepted" if step["answer"]["accepted"] else "not accepted")
    return step["move"]["action"] if step.get("move") else "no change"


def _steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"label": _label(s), "screenshot": f"../{s['screenshot']}", "marker": (s.get("action") or {}).get("coordinate"),
             "box": None, "action": format_action(s["action"]) if s.get("action") else (s.get("raw") or "—"),
             "changes": change_lines(s.get("changed") or {})} for s in record["trace"]]


def _page(record: dict[str, Any]) -> dict[str, Any]:
    moves = [s["move"] for s in record["trace"] if s.get("move")]
    answers = [s["answer"]["given"] for s in record["trace"] if "answer" in s]
    t = {"id": f"episode {record['episode']}: {record['task']}", "kind": record["goal_type"],
         "instruction": record["instruction"], "moves": moves}
    return {"t": t, "answer": answers[-1] if answers else None, "steps": _steps(record),
            "final": f"../{record['final_screenshot']}"}


def _page_name(record: dict[str, Any]) -> str:
    return f"{record['episode']:05d}-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", record["task"]) + ".html"


def write_gallery(out: Path, records: Iterable[dict[str, Any]], title: str, summary: str) -> Path:
    """A page per episode (each step's screenshot, where the action landed, what it changed) and an index."""
    rows, pages = [], {}
    for r in records:
        link = _page_name(r)
        pages[link] = _page(r)
        rows.append({"id": f"{r['episode']}: {r['task']}", "kind": r["goal_type"], "instruction": r["instruction"],
                     "link": link, "moves": len(pages[link]["t"]["moves"]), "status": "success" if r["success"] else "failure",
                     "reason": None if r["success"] else r["end"], "detail": None})
    return render_gallery(out, title, summary, rows, pages)
