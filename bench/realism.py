"""Benchmark: how much each built site reads like a website, measured on the views its trajectories reach.

    python bench/realism.py specs/shop.fsm specs/flights.fsm specs/mail.fsm /work/awm-worlds/*.json
    python bench/realism.py specs/datasette/zoo.fsm --work /tmp/realism --views 200 --json realism.json

Each spec is enumerated and built with its `fsmc` commands; the views its trajectories pass through (up to
--views) are put in their state in Chromium and read (fsmc/backends/realism.py), and each distinct typing step is
acted out. One row per site: views, views showing an identifier of the spec, typed values still visible after
the move, thin views (little content besides controls), views where two usable controls share a name, and what
the generator had to invent. Goal: 0 identifiers, every typed value visible, at most 10 % thin, no duplicates.
Exit status 1 when a site misses the goal on identifiers, typed values or duplicate names.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.backends.realism import duplicate_names, identifiers_in, measure, spec_identifiers, trajectory_views
from fsmc.codegen.inventory import invented
from fsmc.compilation import Compilation
from fsmc.diagnostics import SpecError

COLUMNS = ("site", "views", "identifiers", "typed visible", "thin", "duplicates", "invented", "seconds")


def _fsmc(*args: str, timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fsmc", *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


def _trajectories(out: Path) -> list[dict[str, Any]]:
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [t for t in map(json.loads, lines) if t.get("kind", "positive") == "positive"]


def run_spec(path: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One spec enumerated, built and measured; the row says what was found, or why it stopped."""
    name = path.name.removesuffix(".json").removesuffix(".fsm")
    row: dict[str, Any] = {"site": name}
    start = time.perf_counter()
    try:
        spec = Compilation(path).ir  # a captured site's spec reads without its capture (its checks need it)
    except SpecError as err:
        return {**row, "note": f"spec error: {err.diagnostics[0].message[:80]}"}
    if any(b.kind == "capture" for b in spec.backends):
        return {**row, **captured_words(spec), "invented": "nothing: a captured site shows the real app's screens",
                "seconds": round(time.perf_counter() - start, 1)}
    out, sites = work / name / "out", work / "sites"
    for stage in (("enumerate", str(path), "-o", str(out), "--max-depth", str(args.max_depth), "--max-states",
                   str(args.max_states)),
                  ("build", str(path), "--out", str(sites))):
        done = _fsmc(*stage, timeout=args.timeout)
        if done.returncode != 0:
            return {**row, "note": f"{stage[0]} failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:80]}
    views, steps = trajectory_views(_trajectories(out), args.views)
    found = measure(sites / spec.site.name / "dist", spec, views, steps)
    row.update(found.figures(), invented=invented(spec).summary(), seconds=round(time.perf_counter() - start, 1))
    return row


def captured_words(spec: ir.Spec) -> dict[str, Any]:
    """A captured site's screens are the real application's, so what is measured is the imported spec's own words:
    per page, its title and its actions' labels (what tasks and datasets say), for identifiers and repeats."""
    identifiers = spec_identifiers(spec)
    def words(p: ir.Page) -> str:  # a label's placeholders are filled with values where it is shown
        return re.sub(r"\{[^}]*\}", "", " | ".join([p.title or "", *(a.label or "" for a in p.actions)]))

    shown = sum(bool(identifiers_in(words(p), identifiers)) for p in spec.pages)
    repeated = sum(bool(duplicate_names([{"name": a.label or a.name, "enabled": True} for a in p.actions]))
                   for p in spec.pages)
    return {"views": len(spec.pages), "identifier_views": shown, "typed": 0, "typed_visible": 0, "thin_views": 0,
            "thin_pct": "-", "duplicate_views": repeated}


def _cells(row: dict[str, Any]) -> dict[str, str]:
    if "views" not in row:
        return {"site": row["site"], "invented": row.get("note", "")}
    typed = f"{row['typed_visible']}/{row['typed']}" if row["typed"] else "-"
    return {"site": row["site"], "views": str(row["views"]), "identifiers": str(row["identifier_views"]),
            "typed visible": typed, "thin": f"{row['thin_views']} ({row['thin_pct']}%)" if row["thin_pct"] != "-" else "-",
            "duplicates": str(row["duplicate_views"]), "invented": row["invented"], "seconds": str(row["seconds"])}


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = _cells(row)
        lines.append("| " + " | ".join(cells.get(c, "") for c in COLUMNS) + " |")
    return "\n".join(lines)


def meets_goal(row: dict[str, Any]) -> bool:
    return ("views" in row and row["identifier_views"] == 0 and row["typed_visible"] == row["typed"]
            and row["duplicate_views"] == 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", type=Path, help=".fsm, fsmc IR .json or AutoWebWorld fsm.json files")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fsmc-realism"), help="where outputs and sites go")
    parser.add_argument("--views", type=int, default=150, help="views measured per site, at most (default 150)")
    parser.add_argument("--max-depth", type=int, default=14)
    parser.add_argument("--max-states", type=int, default=100_000)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--json", type=Path, help="also write the rows, with what each site showed, to this file")
    args = parser.parse_args(argv)
    rows = []
    for path in args.specs:
        row = run_spec(path, args.work, args)
        rows.append(row)
        print(json.dumps(_cells(row)), flush=True)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0 if all(meets_goal(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
