"""Profile: where `fsmc replay`'s time goes, per browser call and per process, on a sample of the shop.

    python bench/replay_profile.py                 # the shop's first 60 trajectories, 3 pages
    python bench/replay_profile.py --limit 100 --workers 4 --cprofile

Every Playwright call replay makes (evaluate, mouse, keyboard, clock, CDP screenshot …) is timed
where it is awaited; with several pages at once these awaits overlap, so their sum exceeds the wall
time. CPU seconds are counted per process (this Python, Playwright's node driver, Chromium's
processes by type), so the table shows whether the run waits on the renderer or on the machine:
CPU seconds per step × steps ÷ cores is the wall time a run cannot go below on this machine.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc import load  # noqa: E402
from fsmc.codegen import build_site  # noqa: E402
from fsmc.enumerate import Options, enumerate_spec  # noqa: E402
from fsmc.replay import replay  # noqa: E402

CALLS: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])


def _timed(name: str, fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await fn(*args, **kwargs)
        finally:
            CALLS[name][0] += 1
            CALLS[name][1] += time.perf_counter() - start
    return wrapper


def _evaluate_name(fn: Any) -> Any:
    """page.evaluate, named by which script it runs (the actor's and the harness's are module constants)."""
    from fsmc.backends import actor, site

    names = {getattr(mod, n): n for mod in (actor, site) for n in dir(mod) if n.endswith("_JS")}

    @functools.wraps(fn)
    async def wrapper(self: Any, expression: str, *args: Any, **kwargs: Any) -> Any:
        return await _timed(f"evaluate {names.get(expression, 'other')}", fn)(self, expression, *args, **kwargs)
    return wrapper


def instrument() -> None:
    """Time every Playwright call replay makes, by name."""
    from playwright.async_api import CDPSession, Keyboard, Mouse, Page
    from playwright.async_api._generated import Clock

    Page.evaluate = _evaluate_name(Page.evaluate)  # type: ignore[method-assign]
    for cls, names in ((Page, ("select_option", "focus", "goto")), (Mouse, ("click", "move", "down", "up", "wheel")),
                       (Keyboard, ("press", "insert_text")), (Clock, ("run_for",))):
        for n in names:
            setattr(cls, n, _timed(f"{cls.__name__.lower()}.{n}", getattr(cls, n)))
    original = CDPSession.send

    async def send(self: Any, method: str, params: Any = None) -> Any:
        return await _timed(f"cdp {method}", original)(self, method, params)
    CDPSession.send = send  # type: ignore[method-assign,assignment]


def process_cpu() -> dict[str, float]:
    """CPU seconds (user + system) of this process and its descendants, grouped by kind."""
    import psutil

    me = psutil.Process()
    out: dict[str, float] = defaultdict(float)
    t = me.cpu_times()
    out["python (fsmc, asyncio, playwright client)"] += t.user + t.system
    for child in me.children(recursive=True):
        try:
            cmd = child.cmdline()
            t = child.cpu_times()
        except psutil.Error:
            continue
        kind = next((a.split("=", 1)[1] for a in cmd if a.startswith("--type=")), None)
        if "node" in os.path.basename(cmd[0] if cmd else ""):
            name = "node (playwright driver)"
        elif kind:
            name = f"chromium {kind}"
        else:
            name = "chromium browser"
        out[name] += t.user + t.system
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=60, help="trajectories of the shop to replay (default 60)")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--work", type=Path, help="reuse (or keep) the built site and the enumeration here")
    parser.add_argument("--cprofile", action="store_true", help="also print the Python side's top functions")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="fsmc-bench-profile-"))
    spec = ROOT / "specs" / "shop.fsm"
    dist = build_site(load(spec), work / "sites").dist
    if not (work / "out" / "manifest.json").exists():
        enumerate_spec(spec, work / "out", Options())
    data = work / "profile-data"
    shutil.rmtree(data, ignore_errors=True)
    instrument()

    cpu_at_end: dict[str, float] = {}
    from fsmc.backends import GeneratedSite

    close = GeneratedSite.close

    async def measured_close(self: Any) -> None:   # children are gone once the backend closes: read them first
        cpu_at_end.update(process_cpu())
        await close(self)
    GeneratedSite.close = measured_close  # type: ignore[method-assign]

    profiler = cProfile.Profile() if args.cprofile else None
    cpu_before = process_cpu()
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    summary, stats = replay(work / "out", dist, data, workers=args.workers, limit=args.limit)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    steps = summary["steps"]

    print(f"\n{summary['kept']}/{summary['trajectories']} kept, {steps:,} dataset steps, {stats.transitions:,} "
          f"transitions proven, {stats.screenshots:,} screenshots taken ({summary['screenshots']:,} distinct), "
          f"{stats.jumps:,} jumps; {args.workers} pages; {wall:.1f} s wall, {steps / wall:.1f} steps/s\n")
    print("| call | calls | awaited s (all pages) | ms per call | per dataset step |")
    print("|---|---:|---:|---:|---:|")
    for name, (n, s) in sorted(CALLS.items(), key=lambda kv: -kv[1][1]):
        print(f"| {name} | {int(n):,} | {s:.1f} | {1000 * s / n:.1f} | {1000 * s / steps:.1f} ms |")
    cpu = {k: cpu_at_end.get(k, 0.0) - cpu_before.get(k, 0.0) for k in cpu_at_end}
    total = sum(cpu.values())
    cores = os.cpu_count() or 1
    print("\n| process | CPU s | ms per step | share |\n|---|---:|---:|---:|")
    for name, s in sorted(cpu.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {s:.1f} | {1000 * s / steps:.1f} | {s / total:.0%} |")
    print(f"| all | {total:.1f} | {1000 * total / steps:.1f} | 100% |")
    print(f"\nCPU-bound floor on {cores} cores: {total / cores:.1f} s for this sample "
          f"({steps * cores / total:.0f} steps/s); measured {wall:.1f} s ({steps / wall:.1f} steps/s); "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    (work / "profile.json").write_text(json.dumps({"calls": CALLS, "cpu": cpu, "wall": wall, "steps": steps}))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
