"""`fsmc enumerate`: BFS over a spec's states into tasks, verified trajectories, bfs.json and a manifest."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from fsmc.checks import check
from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE, load_or_report, print_diagnostics
from fsmc.diagnostics import has_errors
from fsmc.enumerate import ENGINES, EngineError, Options, OutputError, Summary, enumerate_spec
from fsmc.semantics import CompileError

NAME = "enumerate"
HELP = ("Explore every reachable state breadth-first and write tasks, shortest and alternative trajectories "
        "(and negatives), bfs.json and a manifest to OUT.")

DESCRIPTION = HELP + """

Goals come from the spec's tasks (one per parameter tuple) and, unless --no-derived, from the state
space: each terminal page; each one-element value of a set or map variable a task goal reads (e.g.
"the cart holds exactly 2 x Ridgeline shell"); each filter/sort combination of a page's views.
Each goal gets its shortest trajectory and up to --per-goal others ending in other states, at most
--slack moves longer, drawn with --seed. The same spec, options and seed give byte-identical files.

Writes OUT/trajectories.jsonl (one trajectory a line: moves, the state after each, GUI operations),
OUT/tasks.jsonl (one goal a line), OUT/bfs.json (AutoWebWorld's shape) and OUT/manifest.json (spec
hash, options, counts). Re-check them with `fsmc verify OUT`, summarise them with `fsmc stats OUT`.
"""


def _nonneg(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("-o", "--out", required=True, metavar="OUT", help="output folder (replaced as a whole)")
    parser.add_argument("--max-depth", type=_nonneg, default=25, help="longest trajectory explored (default 25)")
    parser.add_argument("--max-states", type=_nonneg, default=2_000_000, help="states kept at most (default 2,000,000)")
    parser.add_argument("--per-page-cap", type=_nonneg, metavar="N", help="states kept at most per page")
    parser.add_argument("--per-goal", type=_nonneg, default=2, metavar="K",
                        help="other trajectories per goal besides the shortest (default 2)")
    parser.add_argument("--slack", type=_nonneg, default=2,
                        help="how many moves longer than the shortest the others may be (default 2)")
    parser.add_argument("--negatives", action="store_true",
                        help="also write negative trajectories (truncated, or ending with a disabled move)")
    parser.add_argument("--seed", type=int, default=0, help="seed for every choice (default 0)")
    parser.add_argument("--no-derived", action="store_true", help="only the spec's tasks and terminal pages as goals")
    parser.add_argument("--engine", choices=ENGINES, default="python", help="python (reference) or native (generated C, needs gcc; same results, faster search)")


class _Bar:
    """Rich progress on stderr: states, depth and states/s while exploring, then the later phases."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}
        self.start = time.perf_counter()

    def _begin(self, phase: str, total: int | None) -> None:
        for task in self.tasks.values():  # the previous phases are done
            self.progress.update(task, total=1, completed=1)
        self.tasks[phase] = self.progress.add_task(phase, total=total, info="")
        self.start = time.perf_counter()

    def __call__(self, phase: str, done: int, total: int, depth: int) -> None:
        if phase not in self.tasks:
            self._begin(phase, None if phase in ("check", "explore") else total)
        rate = total / max(1e-9, time.perf_counter() - self.start)
        info = {"check": "checking the spec",
                "explore": f"{total:,} states, depth {depth}, {rate:,.0f} states/s",
                "scan": f"{done:,}/{total:,} states scanned for goals",
                "write": f"{done:,}/{total:,} goals written"}[phase]
        self.progress.update(self.tasks[phase], completed=done, info=info)


def _run(args: argparse.Namespace, opts: Options, on_phase: Callable[[str, int, int, int], None] | None) -> int:
    spec = load_or_report(args.spec)
    if spec is None:
        return EXIT_UNREADABLE
    if on_phase is not None:
        on_phase("check", 0, 0, 0)
    diagnostics = check(spec)
    if has_errors(diagnostics):
        print_diagnostics(diagnostics)
        print(f"{args.spec}: not enumerated: fix the errors above (`fsmc check` shows them too)", file=sys.stderr)
        return EXIT_ERRORS
    started = time.perf_counter()
    try:
        summary = enumerate_spec(spec, args.out, opts, spec_path=args.spec, on_phase=on_phase)
    except (EngineError, OutputError) as err:
        print(f"{args.spec}: error: {err}", file=sys.stderr)
        return EXIT_ERRORS
    except CompileError as err:
        print(f"{args.spec}: error: the spec cannot be executed: {err}", file=sys.stderr)
        return EXIT_ERRORS
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - a state beyond what `fsmc check` explored broke an expression
        print(f"{args.spec}: error: evaluating the spec failed beyond the states `fsmc check` explored: "
              f"{type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_ERRORS
    _report(args, summary, time.perf_counter() - started)
    return EXIT_OK


def _report(args: argparse.Namespace, s: Summary, seconds: float) -> None:
    d = s.to_json()
    goals, reached = sum(s.goals.values()), sum(s.reached.values())
    capped = "" if s.complete else " (capped: not every reachable state was explored)"
    print(f"{args.out}: {s.states:,} states to depth {s.max_depth}{capped}; {reached:,}/{goals:,} goals reached; "
          f"{d['trajectories']:,} trajectories in {seconds:.1f}s")


def run(args: argparse.Namespace) -> int:
    opts = Options(max_depth=args.max_depth, max_states=args.max_states, per_page_cap=args.per_page_cap,
                   per_goal=args.per_goal, slack=args.slack, negatives=args.negatives, seed=args.seed,
                   derived=not args.no_derived, engine=args.engine)
    console = Console(stderr=True)
    if not console.is_terminal:
        return _run(args, opts, None)
    columns = (TextColumn("{task.description:>8}"), BarColumn(), TextColumn("{task.fields[info]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        return _run(args, opts, _Bar(progress))
