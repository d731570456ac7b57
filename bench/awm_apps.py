"""Benchmark: AutoWebWorld's own apps verified by fsmc: per world, how many trajectories execute and agree.

    python bench/awm_apps.py /work/awm-apps/*/web            # every app folder given (each holds its fsm.json)
    python bench/awm_apps.py APP/web --limit 50 --workers 2

For each app folder (`web/`, as AutoWebWorld publishes it beside a world), the world in its fsm.json is enumerated
by fsmc (its items are the app's own rows, `fsmc.formats.awm.data`), the folder is built with Vite and served, and
every trajectory is acted out on it (`fsmc replay OUT --app WEB`): executed (every GUI operation found its element
on their page), agree (the runtime's signature equals the semantics' state after every move), and the most common
first difference. A folder that cannot be built is reported with the reason, and the next one is tried.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc import Compilation  # noqa: E402
from fsmc.codegen.awm_app import AppFolderError, BuildError  # noqa: E402
from fsmc.enumerate import Options, enumerate_spec  # noqa: E402
from fsmc.replay import replay  # noqa: E402


def _shape(difference: str) -> str:
    """A difference without its values: `x = "a" (expected null)` → `x`, so that alike ones are counted together."""
    return "; ".join(part.split(" = ")[0] for part in difference.split("; "))


def verify(web: Path, limit: int | None, workers: int) -> str:
    with tempfile.TemporaryDirectory(prefix="fsmc-awm-") as tmp:
        out, data = Path(tmp) / "out", Path(tmp) / "data"
        enumerate_spec(Compilation(str(web / "fsm.json")), out, Options())
        start = time.perf_counter()
        try:
            summary, _ = replay(out, None, data, app=web, limit=limit, workers=workers)
        except (AppFolderError, BuildError) as err:
            return "not built: " + " ".join(str(err).split())[:300]
        found = summary["agreement"]
        reasons = {r: n for r, n in summary["rejected_by_reason"].items() if n and r != "state_diverged"}
        common = collections.Counter(_shape(d["difference"]) for d in found["disagreements"]).most_common(3)
        results = [json.loads(line) for line in (data / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()]
        stops = collections.Counter(r["detail"].split(", on ")[0] for r in results
                                    if r["status"] != "kept" and not r.get("executed") and r["reason"] != "state_diverged")
        return (f"{found['executed']}/{found['trajectories']} execute, {found['agree']}/{found['trajectories']} agree"
                f" ({time.perf_counter() - start:.0f} s); not executed: {reasons or 'none'}, most often at "
                f"{stops.most_common(3) or 'none'}; most common first differences: {common or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("apps", nargs="+", type=Path, help="AutoWebWorld app folders (web/, with fsm.json)")
    parser.add_argument("--limit", type=int, help="the first N trajectories of each world")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC: python bench/awm_apps.py "
          + " ".join(sys.argv[1:]))
    for web in args.apps:
        print(f"{web.parent.name}: {verify(web, args.limit, args.workers)}", flush=True)


if __name__ == "__main__":
    main()
