"""Benchmark: parsing and checking synthetic specs of growing size (fsmc.testing.synth).

    python bench/check.py                       # 20/200 ... 200/2,000 and 1,000/10,000 pages/actions
    python bench/check.py --sizes 200:2000 --repeat 5

For each size: the text's length, the parse with the recursive-descent fast path and with lark alone
(the reference, measured in the same run) and their ratio, the static checks, and the whole
`fsmc check` (load + static + semantic checks). Each figure is the median of --repeat runs. Prints
the table, then a Markdown table to paste into the README.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsmc.checks import CHECKS, CheckContext, check
from fsmc.formats import load_text
from fsmc.frontend.parser import parse, parse_lark
from fsmc.testing import synthetic_spec

SIZES = ((20, 200), (50, 500), (100, 1000), (200, 2000), (1000, 10000))


@dataclass
class Row:
    pages: int
    actions: int
    chars: int
    fast: float
    lark: float
    static: float
    total: float
    problems: int


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def static_checks(spec: object) -> list[object]:
    ctx = CheckContext(spec)  # type: ignore[arg-type]
    return [d for c in CHECKS for d in c(ctx)]


def measure(pages: int, actions: int, repeat: int) -> Row:
    text = synthetic_spec(pages, actions)
    file, base = f"synth_{pages}.fsm", Path.cwd()
    spec = load_text(text, file, base)
    static = median_time(lambda: static_checks(spec), repeat)
    total = median_time(lambda: check(load_text(text, file, base)), repeat)
    return Row(pages, actions, len(text), median_time(lambda: parse(text, file, base), repeat),
               median_time(lambda: parse_lark(text, file, base), repeat), static, total, len(check(spec)))


def table(rows: list[Row]) -> str:
    lines = ["| pages / actions | chars | parse (fast path) | parse (lark) | lark / fast | static checks | `fsmc check` |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.pages:,} / {r.actions:,} | {r.chars:,} | {r.fast:.3f} s | {r.lark:.3f} s | "
                     f"{r.lark / r.fast:.1f}× | {r.static:.3f} s | {r.total:.3f} s |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(f"{p}:{a}" for p, a in SIZES), help="PAGES:ACTIONS,... to measure")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; the median is reported")
    args = ap.parse_args(argv)
    sizes = [tuple(int(x) for x in s.split(":")) for s in args.sizes.split(",")]
    measure(5, 40, 1)  # warm up: lark builds its parse table once per process, imports settle
    rows = []
    for pages, actions in sizes:
        print(f"  {pages} pages / {actions} actions ...", file=sys.stderr, flush=True)
        rows.append(measure(pages, actions, max(1, args.repeat)))
    print(f"{'pages':>6} {'actions':>8} {'chars':>10} {'fast':>8} {'lark':>8} {'ratio':>6} {'static':>8} {'check':>8}")
    for r in rows:
        print(f"{r.pages:>6} {r.actions:>8} {r.chars:>10,} {r.fast:>8.3f} {r.lark:>8.3f} {r.lark / r.fast:>5.1f}x "
              f"{r.static:>8.3f} {r.total:>8.3f}")
    print()
    print(table(rows))
    dirty = [r for r in rows if r.problems]
    for r in dirty:
        print(f"note: the {r.pages}-page spec gave {r.problems} diagnostics; the synthetic specs should be clean",
              file=sys.stderr)
    return 1 if dirty else 0


if __name__ == "__main__":
    sys.exit(main())
