"""`fsmc stats`: goals per type and page, trajectory lengths and states per depth of an `fsmc enumerate` output."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from fsmc.cli.common import EXIT_OK, Failure
from fsmc.enumerate.stats import Stats, StatsError, draw, output_stats

NAME = "stats"
HELP = ("Summarise an `fsmc enumerate` output: goals per type and page, trajectory lengths, states per depth; "
        "printed, and drawn into OUT/stats.png.")
PNG = "stats.png"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="OUT", help="an output folder of `fsmc enumerate`")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("-o", "--png", metavar="PNG", help=f"where to draw the figures (default: OUT/{PNG})")
    where.add_argument("--no-png", action="store_true", help="only print the tables")


def _counter_table(title: str, head: tuple[str, ...], rows: list[tuple[object, ...]]) -> Table:
    table = Table(title=title, title_justify="left")
    for i, h in enumerate(head):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else str(v) for v in row))
    return table


def _sorted(c: Counter[str]) -> list[str]:
    return sorted(c, key=lambda k: (-c[k], k))


def _tables(st: Stats) -> list[Table]:
    kinds = sorted(st.goals_by_kind)
    labels = sorted(st.trajectories_by_label)
    return [
        _counter_table("goals per type", ("type", "goals", "reached", "trajectories"),
                       [(k, st.goals_by_kind[k], st.reached_by_kind[k], st.trajectories_by_kind[k]) for k in kinds]),
        _counter_table("trajectories per label", ("label", "trajectories"),
                       [(k, st.trajectories_by_label[k]) for k in labels]),
        _counter_table("per page", ("page", "states", "goals on it", "trajectories ending on it"),
                       [(p, st.states_per_page.get(p, 0), st.goals_by_page[p], st.final_page[p])
                        for p in [*st.states_per_page, *(p for p in _sorted(st.goals_by_page) if p not in st.states_per_page)]]),
        _counter_table("trajectory lengths", ("moves", "positive trajectories"),
                       [(n, st.lengths[n]) for n in sorted(st.lengths)]),
        _counter_table(f"states per depth ({st.states:,} states{'' if st.complete else ', capped'})",
                       ("depth", "states"), [(d, n) for d, n in enumerate(st.states_per_depth)]),
    ]


def run(args: argparse.Namespace) -> int:
    try:
        st = output_stats(args.out)
    except StatsError as err:
        raise Failure(f"{args.out}: error: {err}", err) from None
    console = Console()
    for table in _tables(st):
        console.print(table)
    if not st.complete:
        console.print(f"partial: the enumeration was capped (max_depth or max_states; see {Path(args.out) / 'manifest.json'}): "
                      "states deeper than the caps, and the goals only they reach, are not counted")
    if args.no_png:
        return EXIT_OK
    png = args.png or str(Path(args.out) / PNG)
    try:
        draw(st, png)
    except OSError as err:
        raise Failure(f"{png}: error: cannot write: {err.strerror or err}") from None
    console.print(f"drawn: {png}")
    return EXIT_OK
