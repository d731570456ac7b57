"""Benchmark: whole sites through `fsmc run` (check → enumerate → verify → build → replay → export), here and on Ray.

    python bench/sites.py                                    # shop, flights, mail and the worlds in /work/awm-worlds
    python bench/sites.py --sites shop flights --max-depth 8 --limit 40
    python bench/sites.py --worlds /work/awm-worlds --sites airtable asana zoom --limit 20

Writes one project naming every site (our specs from specs/, each AutoWebWorld fsm.json of --worlds) with the
caps given, runs it with `fsmc run -j J` in one folder and with `fsmc run --ray -j J` (a local Ray cluster of
J CPUs) in another, as a user would type them, and prints a Markdown table: sites, kept trajectories and dataset
steps per hour, peak memory of the whole process tree (Chromium, Ray's processes and workers included), and the
Ray run's time against the local one's. It also says whether the two runs wrote the same bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
OURS = ("shop", "flights", "mail")
WORLDS = Path("/work/awm-worlds")


@dataclass
class Run:
    mode: str
    seconds: float
    peak_mb: float
    code: int
    sites: int
    ok: int
    kept: int
    steps: int

    def row(self, base: Run) -> list[str]:
        hour = 3600 / self.seconds
        return [self.mode, f"{self.ok}/{self.sites}", f"{self.seconds:.1f}", f"{self.ok * hour:,.0f}",
                f"{self.kept * hour:,.0f}", f"{self.steps * hour:,.0f}", f"{self.peak_mb:,.0f}",
                f"{self.seconds / base.seconds:.2f}×"]


def _specs(names: list[str] | None, worlds: Path) -> dict[str, Path]:
    """The sites to run: our specs, then the worlds (a name each), only `names` when given."""
    found = {n: ROOT / "specs" / f"{n}.fsm" for n in OURS}
    if worlds.is_dir():
        found |= {p.stem: p.resolve() for p in sorted(worlds.glob("*.json"))}
    if names:
        missing = sorted(set(names) - set(found))
        if missing:
            sys.exit(f"no such site: {', '.join(missing)}; known: {', '.join(found)}")
        found = {n: found[n] for n in names}
    return found


def _project(folder: Path, specs: dict[str, Path], args: argparse.Namespace) -> Path:
    folder.mkdir(parents=True)
    lines = [f'[[site]]\nspec = "{path}"\nname = "{name}"\n' for name, path in specs.items()]
    lines.append('[paths]\nbuild = "generated_sites/{site}"\n')  # worlds may declare the same site name
    lines.append(f"[enumerate]\nmax_depth = {args.max_depth}\nmax_states = {args.max_states}\n")
    lines.append(f"[replay]\nshard_size = {args.shard_size}\n" + (f"limit = {args.limit}\n" if args.limit else ""))
    (folder / "fsmc.toml").write_text("\n".join(lines), encoding="utf-8")
    return folder


def _rss(root: psutil.Process) -> int:
    """The resident memory of a process and all its descendants, in bytes."""
    total = 0
    with contextlib.suppress(psutil.Error):
        for p in (root, *root.children(recursive=True)):
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
    return total


def _peak(proc: subprocess.Popen[bytes], peak: list[float]) -> None:
    """The largest resident memory of the process tree, sampled every 0.2 s."""
    try:
        root = psutil.Process(proc.pid)
    except psutil.NoSuchProcess:
        return
    while proc.poll() is None:
        peak[0] = max(peak[0], _rss(root) / 2**20)
        time.sleep(0.2)


def _run(mode: str, folder: Path, args: list[str], sites: int) -> Run:
    log = (folder / "run.log").open("wb")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "fsmc", "run", *args], cwd=folder, stdout=log, stderr=log)
    peak = [0.0]
    watcher = threading.Thread(target=_peak, args=(proc, peak), daemon=True)
    watcher.start()
    code = proc.wait()
    seconds = time.perf_counter() - start
    watcher.join()
    reports = [json.loads(p.read_text()) for p in sorted((folder / "data").glob("*/report.json"))]
    return Run(mode, seconds, peak[0], code, sites, sum(bool(r["kept"]) for r in reports),
               sum(r["kept"] for r in reports), sum(r["steps"] for r in reports))


def _tree(root: Path) -> str:
    """One digest of every file a run wrote (the stamps, with their timings, and the run's log left out)."""
    files = []
    for where, dirs, names in os.walk(root):  # not sorted(os.walk(...)): that walks the whole tree before pruning
        dirs[:] = [d for d in dirs if d not in (".fsmc", "node_modules")]
        files += [Path(where) / n for n in names if n != "run.log"]
    h = hashlib.sha256()
    for path in sorted(files):
        if not path.is_symlink():
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _site_tree(project: Path, name: str) -> list[str]:
    """The digests of one site's folders."""
    folders = ("out/{}", "generated_sites/{}", "data/{}", "datasets/{}-sft")
    return [_tree(project / f.format(name)) if (project / f.format(name)).is_dir() else "-" for f in folders]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sites", nargs="*", help="only these sites (default: every spec and world)")
    parser.add_argument("--worlds", type=Path, default=WORLDS, help=f"AutoWebWorld fsm.json files (default {WORLDS})")
    parser.add_argument("--max-depth", type=int, default=10, help="enumerate's depth cap (default 10)")
    parser.add_argument("--max-states", type=int, default=200_000, help="enumerate's state cap (default 200,000)")
    parser.add_argument("--limit", type=int, default=60, help="trajectories replayed per site (default 60; 0: all)")
    parser.add_argument("--shard-size", type=int, default=200,
                        help="trajectories to a replay shard on Ray (default 200)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="sites at once (default: cores)")
    parser.add_argument("--work", type=Path, help="where the two projects are written (default: a temporary folder)")
    args = parser.parse_args()
    specs = _specs(args.sites, args.worlds)
    work = args.work or Path(tempfile.mkdtemp(prefix="fsmc-sites-"))
    shutil.rmtree(work / "local", ignore_errors=True)
    shutil.rmtree(work / "ray", ignore_errors=True)
    print(f"{len(specs)} sites: {', '.join(specs)}; projects in {work}", file=sys.stderr)
    jobs = ["-j", str(args.jobs)]
    local = _run(f"fsmc run -j {args.jobs}", _project(work / "local" / "p", specs, args), jobs, len(specs))
    ray = _run(f"fsmc run --ray -j {args.jobs}", _project(work / "ray" / "p", specs, args), ["--ray", *jobs],
               len(specs))
    print("| run | sites ok | seconds | sites/hour | kept trajectories/hour | dataset steps/hour | peak memory (MB) "
          "| time vs local |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for run in (local, ray):
        print("| " + " | ".join(run.row(local)) + " |")
    differ = [name for name in specs if _site_tree(work / "local" / "p", name) != _site_tree(work / "ray" / "p", name)]
    same = not differ and _tree(work / "local" / "p") == _tree(work / "ray" / "p")
    print(f"\nRay overhead: {100 * (ray.seconds / local.seconds - 1):+.1f} %; outputs byte-identical: "
          f"{'yes' if same else 'NO'}" + (f" (sites that differ: {', '.join(differ)})" if differ else "")
          + f"; exit codes {local.code}, {ray.code}")
    return 0 if same and local.code == ray.code else 1


if __name__ == "__main__":
    sys.exit(main())
