"""Benchmark: the share of exported trajectories that complete in the live environment, per spec and format.

    python bench/dataset_env.py                          # shop, flights and mail: every kept trajectory
    python bench/dataset_env.py --specs shop --limit 200 # the first 200 trajectories of the shop

For each spec: enumerate (default options), build, replay, export in every format; then every trajectory of
each format, read back from its Parquet (`fsmc.export.readback`), is acted out through an `fsmc.env` environment
from its task's reset with its exported actions only. A trajectory completes when it earns reward 1 exactly at its
last action with nothing put back (`fsmc.env.demonstrate`); the bench also counts the steps whose dataset view is
not byte-equal to the environment's observation. Formats whose action sequences are equal are acted out once (the
environment is deterministic) and the table says so. Goal: 100 %, 0 differing views.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc import load  # noqa: E402
from fsmc.codegen import build_site  # noqa: E402
from fsmc.enumerate import Options, enumerate_spec  # noqa: E402
from fsmc.env import EnvPool  # noqa: E402
from fsmc.env.demonstrate import Outcome, act_out  # noqa: E402
from fsmc.export import FORMATS, export  # noqa: E402
from fsmc.export.datasets import agent_steps, read_kept  # noqa: E402
from fsmc.export.readback import demonstrations  # noqa: E402
from fsmc.replay import replay  # noqa: E402


def prepare(spec: str, work: Path, limit: int | None) -> tuple[Path, Path, Path, float]:
    """(dist, enumerate output, replay folder, replay seconds) of one spec."""
    path = ROOT / "specs" / f"{spec}.fsm"
    dist = build_site(load(path), work / "sites").dist
    out = work / "out" / spec
    enumerate_spec(path, out, Options())
    data = work / "data" / spec
    began = time.perf_counter()
    replay(out, dist, data, workers=3, limit=limit)
    return dist, out, data, time.perf_counter() - began


async def act_all(dist: Path, out: Path, data: Path, taught: dict[str, Any], envs: int) -> dict[str, Outcome]:
    kept = {t["id"]: t for t in read_kept(data)}
    queue = list(taught.items())
    outcomes: dict[str, Outcome] = {}

    async def worker(env: Any) -> None:
        while queue:
            tid, demo = queue.pop()
            views = [(data / step["screenshot"]).read_bytes() for _, step in agent_steps(kept[tid])]
            outcomes[tid] = await act_out(env, demo.task, demo.actions, views)

    async with EnvPool.of(dist, out, n=envs, max_steps=200) as pool:
        await asyncio.gather(*(worker(env) for env in pool.envs))
    return outcomes


def measure(spec: str, work: Path, limit: int | None, envs: int) -> list[dict[str, Any]]:
    dist, out, data, seconds = prepare(spec, work, limit)
    rows: list[dict[str, Any]] = []
    acted: dict[str, dict[str, Outcome]] = {}  # by the JSON of a format's action sequences
    for fmt in FORMATS:
        ds = work / "ds" / f"{spec}-{fmt}"
        export(data, fmt, ds)
        taught = demonstrations(ds)
        key = json.dumps({k: v.actions for k, v in taught.items()}, sort_keys=True)
        began = time.perf_counter()
        if key not in acted:
            acted[key] = asyncio.run(act_all(dist, out, data, taught, envs))
        outcomes = acted[key]
        steps = sum(o.steps for o in outcomes.values())
        rows.append({"spec": spec, "format": fmt, "trajectories": len(taught),
                     "complete": sum(o.ok for o in outcomes.values()), "steps": steps,
                     "views_differing": sum(o.views_differing for o in outcomes.values()),
                     "same_as": next((r["format"] for r in rows if r["key"] == key), None), "key": key,
                     "act_s": time.perf_counter() - began, "replay_s": seconds,
                     "failures": [f"{k}: {o.failure}" for k, o in outcomes.items() if not o.ok][:3]})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", nargs="+", default=["shop", "flights", "mail"])
    ap.add_argument("--limit", type=int, help="replay only the first N trajectories of each spec")
    ap.add_argument("--envs", type=int, default=2, help="environments acting at once (default 2)")
    ap.add_argument("--work", type=Path, help="where the outputs go (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        rows = [r for spec in args.specs for r in measure(spec, work, args.limit, args.envs)]
    print(f"{'spec':8} {'format':15} {'trajectories':>12} {'complete':>9} {'share':>8} {'steps':>7} "
          f"{'views differing':>15}  acted out")
    for r in rows:
        share = 100 * r["complete"] / r["trajectories"] if r["trajectories"] else float("nan")
        how = f"as {r['same_as']} (the same actions)" if r["same_as"] else f"{r['act_s']:.0f} s"
        print(f"{r['spec']:8} {r['format']:15} {r['trajectories']:>12,} {r['complete']:>9,} {share:>7.2f}% "
              f"{r['steps']:>7,} {r['views_differing']:>15,}  {how}")
        for f in r["failures"]:
            print(f"    {f}")
    total = [r for r in rows if not r["same_as"]]
    done = sum(r["complete"] for r in total)
    count = sum(r["trajectories"] for r in total)
    print(f"all: {done:,}/{count:,} trajectories complete in the environment "
          f"({100 * done / max(1, count):.2f} %), {sum(r['views_differing'] for r in total):,} views differing")


if __name__ == "__main__":
    main()
