"""Benchmark: fsmc replay against a naive replay loop on the same trajectories, in the same run.

    python bench/replay.py                       # the shop's whole trajectory set (naive on a sample)
    python bench/replay.py --limit 200 --naive 50

The naive loop is what a first script would do: a new browser context per trajectory, and for every
atomic operation `page.screenshot()` then a Playwright action on the selector (`page.click`, `fill`,
`press`, `hover`, `select_option`, `drag_to`, with their actionability waits), checking the state
after every move. It shares nothing between trajectories, so its cost per step does not depend on
the set: it is measured on a sample of `--naive` trajectories spread over the set. fsmc replay runs
on the whole set (`--limit`). Both count dataset steps the same way: one screenshot-and-action pair.
Prints steps per second, ms per step, the ratio, and a bare screenshot's time as the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc import load  # noqa: E402
from fsmc.backends import GeneratedSite  # noqa: E402
from fsmc.browser import Isolation, SiteServer, launch, open_site  # noqa: E402
from fsmc.codegen import build_site  # noqa: E402
from fsmc.enumerate import Options, enumerate_spec  # noqa: E402
from fsmc.replay import replay  # noqa: E402


async def naive_op(page: Any, op: dict[str, Any]) -> int:
    """One operation the straightforward way; returns the screenshots (dataset steps) it took."""
    sel = f'[data-testid="{op.get("selector")}"]'
    kind = op["op"]
    if kind == "wait":
        await page.wait_for_timeout(min(op.get("limit") or 0, 100))
        return 0
    if kind == "repeat_click":
        taken = 0
        until = page.locator(f'[data-testid="{op["until"]}"]')
        for _ in range(op.get("limit") or 1):
            if await until.is_visible():
                break
            await page.screenshot()
            await page.click(sel)
            taken += 1
        return taken
    await page.screenshot()
    if kind == "click":
        await page.click(sel)
    elif kind == "type":
        await page.fill(sel, op.get("text") or "")
    elif kind == "press":
        await page.press(sel, op.get("text") or "Enter")
    elif kind == "hover":
        await page.hover(sel)
    elif kind == "select":
        await page.select_option(sel, value=op.get("text") or "")
    elif kind == "drag":
        await page.drag_and_drop(sel, f'[data-testid="{op["text"]}"]')
    elif kind == "scroll_until_visible":
        await page.locator(sel).scroll_into_view_if_needed()
    return 1


async def naive(dist: Path, trajectories: list[dict[str, Any]]) -> tuple[int, int, float]:
    """(steps, trajectories matched, seconds) of the naive loop."""
    from playwright.async_api import async_playwright

    steps = ok = 0
    with SiteServer(dist) as server:
        async with async_playwright() as pw:
            browser = await launch(pw)
            isolation = Isolation(server.url.rstrip("/"))
            start = time.perf_counter()
            for t in trajectories:
                page = await open_site(browser, server.url, isolation, fake_time=False)
                good = True
                for m in t["moves"]:
                    for op in m["gui"]:
                        steps += await naive_op(page, op)
                    if await page.evaluate("() => window.__fsmc.state()") != m["state"]:
                        good = False
                        break
                ok += good
                await page.context.close()
            seconds = time.perf_counter() - start
            await browser.close()
    return steps, ok, seconds


async def screenshot_floor(dist: Path, n: int = 40) -> tuple[float, float]:
    """Median ms of a bare CDP screenshot (JPEG, what fsmc takes) and of Playwright's page.screenshot()."""
    async with GeneratedSite(dist) as site:
        episode = await site.open()
        cdp, pw_shot = [], []
        for _ in range(n):
            t0 = time.perf_counter()
            await episode.screenshot()
            t1 = time.perf_counter()
            await episode.page.screenshot()
            cdp.append(t1 - t0)
            pw_shot.append(time.perf_counter() - t1)
    return statistics.median(cdp) * 1000, statistics.median(pw_shot) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default=str(ROOT / "specs" / "shop.fsm"))
    parser.add_argument("--limit", type=int, help="fsmc replays the first N trajectories (default: all)")
    parser.add_argument("--naive", type=int, default=60, help="trajectories in the naive loop's sample (default 60)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--keep", help="keep the built site, trajectories and replay here")
    args = parser.parse_args()

    work = Path(args.keep or tempfile.mkdtemp(prefix="fsmc-bench-replay-"))
    spec = load(args.spec)
    print(f"building and enumerating {args.spec} in {work}", flush=True)
    dist = build_site(spec, work / "sites").dist
    out = work / "out"
    if not (out / "manifest.json").exists():
        enumerate_spec(args.spec, out, Options())
    records = [json.loads(x) for x in (out / "trajectories.jsonl").read_text().splitlines()][: args.limit]
    stride = max(1, len(records) // max(1, args.naive))
    sample = records[::stride][: args.naive]

    floor_cdp, floor_pw = asyncio.run(screenshot_floor(dist))
    print(f"naive loop on {len(sample)} of {len(records)} trajectories …", flush=True)
    n_steps, n_ok, n_s = asyncio.run(naive(dist, sample))
    data = work / "data"
    shutil.rmtree(data, ignore_errors=True)
    print(f"fsmc replay on {len(records)} trajectories with {args.workers} pages …", flush=True)
    summary, stats = replay(out, dist, data, workers=args.workers, limit=args.limit)
    f_steps, f_s = summary["steps"], stats.seconds

    naive_rate, fsmc_rate = n_steps / n_s, f_steps / f_s
    print(f"\nnaive: {n_ok}/{len(sample)} trajectories matched; fsmc: {summary['kept']}/{summary['trajectories']} kept, "
          f"{stats.transitions:,} distinct transitions proven, {stats.screenshots:,} screenshots taken")
    print("\n| replay | trajectories | dataset steps | seconds | steps/s | ms/step | speed vs naive |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| naive loop (sample) | {len(sample):,} | {n_steps:,} | {n_s:.1f} | {naive_rate:.1f} | "
          f"{1000 / naive_rate:.1f} | 1.00× |")
    print(f"| fsmc replay, {args.workers} pages | {len(records):,} | {f_steps:,} | {f_s:.1f} | {fsmc_rate:.1f} | "
          f"{1000 / fsmc_rate:.1f} | {fsmc_rate / naive_rate:.2f}× |")
    print(f"\nfloor: a bare screenshot takes {floor_cdp:.1f} ms through CDP (JPEG), {floor_pw:.1f} ms with "
          f"page.screenshot(); one screenshot per step would cap a single page at {1000 / floor_cdp:.0f} steps/s")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
