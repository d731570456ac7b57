"""Benchmark: AutoWebWorld worlds through the whole pipeline, check → enumerate → build → replay.

    python bench/worlds.py /work/awm-worlds                 # every *.json in the folder, fsmc's default options
    python bench/worlds.py /work/awm-worlds --theirs theirs.json --work /tmp/w --max-depth 12
    python bench/worlds.py /work/awm-worlds --no-replay    # check and enumerate only: counts and instructions

Each stage runs as its `fsmc` command, as a user would type it; a stage that fails ends that world's row
(the others go on). Prints one row per world as it finishes, then a Markdown table: pages, actions,
states, tasks, the parallel sets (tasks with at least one trajectory: keep one trajectory of each and
these are the distinct ones), trajectories, mean GUI operations a trajectory, the share of the replayed
trajectories replay kept (with --replay-limit, of the first N of each world), errors and W009 warnings,
seconds, and with --theirs the terminals whose shortest step count equals that of AutoWebWorld's generator of
those it reaches (a JSON object: world file name -> terminal page -> [their shortest count or null, ...], as
their bfs_action.py's bfs_with_access_coverage gives it; not part of fsmc); then three example instructions per world, and the totals beside AutoWebWorld's own figures
for its 29 worlds (11,663 verified trajectories, 1,215 distinct, 21.9 steps on average).
Exit status 1 when a world has a check error, keeps under 99 % or differs from their shortest counts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from fsmc.compilation import Compilation
from fsmc.diagnostics import SpecError

COLUMNS = ("world", "pages", "actions", "states", "tasks", "sets", "trajectories", "gui/traj", "kept", "parity", "errors",
           "W009", "seconds", "note")
THEIRS = {"trajectories": 11_663, "sets": 1_215, "gui/traj": 21.9}  # AutoWebWorld's paper, its 29 worlds


@dataclass
class Row:
    world: str
    cells: dict[str, object] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    gui_ops: int = 0
    agree: int = 0  # terminals whose shortest count equals their generator's, of those it reaches
    reached: int = 0

    def ok(self, unreplayed: bool = False) -> bool:
        kept = self.cells.get("kept")
        return self.cells.get("errors") == 0 and (unreplayed or isinstance(kept, str) and float(kept.rstrip("%")) >= 99) \
            and self.agree == self.reached


def _fsmc(*args: str, timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fsmc", *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


def _check(world: Path, row: Row) -> bool:
    try:
        c = Compilation(world)
        spec, found = c.ir, c.diagnostics
    except SpecError as err:
        row.cells.update(errors=len(err.diagnostics), note=err.diagnostics[0].message[:80])
        return False
    errors = [d for d in found if d.severity == "error"]
    row.cells.update(pages=len(spec.pages), actions=sum(len(p.actions) for p in spec.pages), errors=len(errors),
                     W009=sum(d.code == "W009" for d in found))
    if errors:
        row.cells["note"] = errors[0].message[:80]
    return not errors


def _stage(row: Row, name: str, *args: str, timeout: int) -> bool:
    done = _fsmc(*args, timeout=timeout)
    if done.returncode != 0:
        row.cells["note"] = f"{name} failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:80]
    return done.returncode == 0


def run_world(world: Path, work: Path, args: argparse.Namespace) -> Row:
    """One world through check, enumerate, build and replay; the row says how far it got."""
    row, start = Row(world.name.removesuffix(".json").removesuffix(".fsm")), time.perf_counter()
    out, sites, data = work / row.world / "out", work / "sites", work / row.world / "data"
    limit = ["--limit", str(args.replay_limit)] if args.replay_limit else []
    caps = [*(["--max-depth", str(args.max_depth)] if args.max_depth else []),
            *(["--max-states", str(args.max_states)] if args.max_states else [])]
    if _check(world, row) and _stage(row, "enumerate", "enumerate", str(world), "-o", str(out), *caps,
                                     timeout=args.timeout):
        counts = json.loads((out / "manifest.json").read_text())["counts"]
        row.cells.update(states=counts["states"], tasks=sum(counts["goals"].values()))
        _figures(out, row)
        if args.theirs is not None:
            _parity(out, args.theirs.get(world.name, {}), row)
        site = json.loads((out / "manifest.json").read_text())["spec"]["site"]
        if not args.no_replay and _stage(row, "build", "build", str(world), "--out", str(sites), timeout=args.timeout) and \
                _stage(row, "replay", "replay", str(out), "--site", str(sites / site), "-o", str(data), "--restart",
                       "--workers", str(args.workers), *limit, timeout=args.timeout * 3):
            report = json.loads((data / "report.json").read_text())
            total = report["kept"] + report["rejected"]
            row.cells["kept"] = f"{100 * report['kept'] / total:.1f}%" if total else "-"
            if report["rejected"]:
                row.cells["note"] = "; ".join(f"{k}: {v}" for k, v in report["rejected_examples"].items())[:80]
    row.cells["seconds"] = round(time.perf_counter() - start, 1)
    return row


def _figures(out: Path, row: Row) -> None:
    """Trajectories, parallel sets, GUI operations and three example instructions from enumerate's output."""
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    trajectories = [json.loads(line) for line in (out / "trajectories.jsonl").read_text().splitlines()]
    positive = [t for t in trajectories if t["kind"] == "positive"]
    row.gui_ops = sum(len(m["gui"]) for t in positive for m in t["moves"])
    row.cells.update(sets=sum(bool(t["trajectories"]) for t in tasks), trajectories=len(positive),
                     **{"gui/traj": round(row.gui_ops / len(positive), 1) if positive else "-"})
    reached = [t["instruction"] for t in tasks if t["trajectories"]]
    row.examples = sorted(reached, key=lambda text: (-len(text), text))[:3]  # the longest: what a world asks most


def _parity(out: Path, theirs: dict[str, list[object]], row: Row) -> None:
    """Of the terminals AutoWebWorld's generator reaches, those whose shortest step count fsmc's bfs.json equals."""
    ours = {t["terminal_page"]: t["shortest_step_count"] for t in json.loads((out / "bfs.json").read_text())["terminals"]}
    reached = {t: v[0] for t, v in theirs.items() if v[0] is not None}
    row.agree, row.reached = sum(ours.get(t) == n for t, n in reached.items()), len(reached)
    row.cells["parity"] = f"{row.agree}/{row.reached}"
    if row.agree < row.reached:
        row.cells["note"] = "; ".join(f"{t}: {ours.get(t)} vs {n}" for t, n in reached.items() if ours.get(t) != n)[:80]


def _totals(rows: list[Row]) -> dict[str, object]:
    def total(key: str) -> int:
        return sum(int(v) for r in rows if isinstance(v := r.cells.get(key), int))

    trajectories = total("trajectories")
    parity = f"{sum(r.agree for r in rows)}/{sum(r.reached for r in rows)}" if any(r.reached for r in rows) else ""
    return {"tasks": total("tasks"), "sets": total("sets"), "trajectories": trajectories,
            "gui/traj": round(sum(r.gui_ops for r in rows) / trajectories, 1) if trajectories else "-", "parity": parity}


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="a folder of AutoWebWorld fsm.json files")
    ap.add_argument("--work", type=Path, default=Path("/tmp/fsmc-worlds"), help="where outputs and sites go")
    ap.add_argument("--max-depth", type=int, default=0, help="enumerate's depth cap (default: fsmc's own)")
    ap.add_argument("--max-states", type=int, default=0, help="enumerate's state cap (default: fsmc's own)")
    ap.add_argument("--theirs", type=lambda f: json.loads(Path(f).read_text()), default=None, metavar="JSON",
                    help="AutoWebWorld's shortest counts per world and terminal, for the parity column")
    ap.add_argument("--workers", type=int, default=2, help="replay's browser pages at once (default 2)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds a stage may take (replay: three times)")
    ap.add_argument("--no-replay", action="store_true", help="check and enumerate only: the counts, parity and "
                                                                 "example instructions, without building or replaying")
    ap.add_argument("--replay-limit", type=int, default=0, help="replay only the first N trajectories of each world "
                                                                 "(default: all)")
    args = ap.parse_args()
    rows = []
    for world in sorted(args.folder.glob("*.json")):
        rows.append(run_world(world, args.work, args))
        print("  ".join(f"{k}={rows[-1].cells.get(k, '-')}" for k in COLUMNS[1:]), rows[-1].world, flush=True)
    print()
    print(_line(list(COLUMNS)))
    print(_line(["---"] * len(COLUMNS)))
    for r in rows:
        print(_line([r.world, *(str(r.cells.get(k, "-")) for k in COLUMNS[1:])]))
    totals = _totals(rows)
    print(_line(["**total**", *(str(totals.get(k, "")) for k in COLUMNS[1:])]))
    print(_line(["AutoWebWorld", *(f"{THEIRS[k]:,}" if k in THEIRS else "" for k in COLUMNS[1:])]))
    print()
    for r in rows:
        print(f"{r.world}: " + " | ".join(r.examples))
    return 0 if all(r.ok(args.no_replay) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
