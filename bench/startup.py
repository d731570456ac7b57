"""Benchmark: how long `fsmc` takes to start, against a bare `python -c pass` measured in the same run.

    python bench/startup.py              # 15 rounds of each command, interleaved
    python bench/startup.py --rounds 30

Each command runs as a fresh process (`python -m fsmc ...` from the repository root, so the copy here is the one
timed), one after another in turn, so that the load on the machine falls on all alike; the table prints the median
and the fastest wall time of each and what fsmc adds to a bare interpreter. `fsmc check` reads a small spec of two
pages written into a temporary folder (the check itself is a few milliseconds; what remains is imports).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = """site small { entry home  terminal done }
page home { var n: int[0..2] = 0  action more { require n < 2  n += 1  gui { click "more" } }
            action finish { goto done gui { click "finish" } } }
page done { }
"""


def wall(argv: list[str]) -> float:
    """Seconds from starting `argv` to its exit; a failed command stops the bench."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "small.fsm"
        spec.write_text(SMALL, encoding="utf-8")
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "fsmc --version": [sys.executable, "-m", "fsmc", "--version"],
            "fsmc check small.fsm": [sys.executable, "-m", "fsmc", "check", str(spec)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                times[name].append(wall(argv))
    bare = statistics.median(times["python -c pass"])
    print(f"{'command':<22} {'median':>8} {'fastest':>8} {'over python':>12}   ({args.rounds} rounds)")
    for name, seen in times.items():
        median = statistics.median(seen)
        print(f"{name:<22} {median * 1000:>6.0f} ms {min(seen) * 1000:>5.0f} ms {(median - bare) * 1000:>9.0f} ms")


if __name__ == "__main__":
    main()
