"""Benchmark: how long `fsmc` takes to start, against a bare `python -c pass` measured in the same run.

    python bench/startup.py              # 15 rounds of each command, interleaved
    python bench/startup.py --rounds 30

Each command runs as a fresh process (`python -m fsmc ...` from the repository root, so the copy here is the one
timed), one after another in turn, so that the load on the machine falls on all alike; the table prints the median
and the fastest wall time of each, its median CPU time (user + system, which another process's load inflates far
less than the wall time), and both as a multiple of a bare interpreter's. `fsmc check` reads a small spec of two
pages written into a temporary folder (the check itself is a few milliseconds; what remains is imports).

The modules' bytecode is cached, as it is for an installed package: the commands run with a PYTHONPYCACHEPREFIX of
their own (a warm-up round writes it, even where PYTHONDONTWRITEBYTECODE is set, which would otherwise compile every
module of fsmc from source at every start, a third of the time). The load average is printed with the table.
"""

from __future__ import annotations

import argparse
import os
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


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds from starting `argv` to its exit; a failed command stops the bench."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"`{' '.join(argv)}` failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "small.fsm"
        spec.write_text(SMALL, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "fsmc --version": [sys.executable, "-m", "fsmc", "--version"],
            "fsmc check small.fsm": [sys.executable, "-m", "fsmc", "check", str(spec)],
        }
        for argv in commands.values():  # the warm-up: writes the bytecode
            timed(argv, env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                w, c = timed(argv, env)
                walls[name].append(w)
                cpus[name].append(c)
    bare_wall, bare_cpu = statistics.median(walls["python -c pass"]), statistics.median(cpus["python -c pass"])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{args.rounds} rounds, load average {load} on {os.cpu_count()} cores")
    print(f"{'command':<22} {'median':>8} {'fastest':>8} {'x python':>9} {'CPU':>8} {'x python':>9}")
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"{name:<22} {wall * 1000:>5.0f} ms {min(walls[name]) * 1000:>5.0f} ms {wall / bare_wall:>8.2f}x "
              f"{cpu * 1000:>5.0f} ms {cpu / bare_cpu:>8.2f}x")


if __name__ == "__main__":
    main()
