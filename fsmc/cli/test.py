"""`fsmc test`: check the properties a spec states about itself; with --site, walk the built site against the spec."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, Failure, Unreadable, compile_spec, positive, require_clean, writing

if TYPE_CHECKING:
    from fsmc.compilation import Compilation
    from fsmc.enumerate.output import OutDir
    from fsmc.properties import PropertyReport, SiteWalks

NAME = "test"
HELP = ("Check every `invariant`, `never`, `reachable` and `always ... eventually` of a spec over all its "
        "reachable states (exit 0 all hold, 1 on a violation); write each counterexample for `fsmc replay`.")

DESCRIPTION = HELP + """

`invariant` and `never` are checked in every reachable state and `reachable` looked for among them,
breadth-first, so a counterexample is a shortest one. `always A eventually B` fails where, after a
state with A, some path avoids B for ever (round a loop, or stuck where no move is left); fsmc decides
it on the state graph and, where SPIN is installed, SPIN checks it again on the Promela model (they
must agree). One line per property: ok, or violated with the length of its counterexample.

With -o OUT, OUT/trajectories.jsonl holds each counterexample as a trajectory (the format of `fsmc
enumerate`'s) and OUT/manifest.json the verdicts: `fsmc replay OUT --site SITE -o DATA` acts them out
in the browser. With --site, Hypothesis also walks the built site at random (--walks walks of up to
--max-steps moves, drawn from --seed), comparing its state with the spec's after every move; a
divergence is shrunk to a shortest walk and written to OUT as well.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("-o", "--out", metavar="OUT", help="folder for the counterexamples (replaced as a whole)")
    parser.add_argument("--site", help="also walk this built site (generated_sites/<site>, its dist/, or its name)")
    parser.add_argument("--walks", type=positive, default=50, help="random walks on the site (default 50)")
    parser.add_argument("--max-steps", type=positive, default=10, help="moves per walk at most (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the walks (default 0)")
    parser.add_argument("--max-states", type=positive, default=2_000_000,
                        help="states explored at most (default 2,000,000); beyond, what cannot be decided is not")
    parser.add_argument("--no-spin", action="store_true", help="decide `always ... eventually` without SPIN")


def run(args: argparse.Namespace) -> int:
    from fsmc.properties import run_tests

    c = compile_spec(args.spec)
    require_clean(c, "tested")
    site = _site(args)
    if args.out is not None:
        _output(args, lambda out: out.prepare())  # refuse a folder that is no output before the work, not after
    if not c.ir.properties and site is None:
        print(f"{args.spec}: the spec states no properties (see docs/language.md, Properties)")
        return EXIT_OK
    report = run_tests(c, max_states=args.max_states, spin=not args.no_spin, site=site, on_note=_note(args))
    print(f"{args.spec}: {report.states:,} states")
    for result in report.results:
        print(f"  {result.line()}")
    if args.out is not None:
        _write(args, c, report, site is not None)
    elif report.records:
        print("write the counterexamples with -o OUT (then `fsmc replay OUT --site SITE -o DATA` shows them)")
    return EXIT_OK if report.ok else EXIT_ERRORS


def _site(args: argparse.Namespace) -> SiteWalks | None:
    """The walks --site asks for, or Exit 2 when no built site is there."""
    from fsmc.browser import find_dist
    from fsmc.properties import SiteWalks

    if args.site is None:
        return None
    dist = find_dist(args.site)
    if dist is None:
        raise Unreadable(f"{args.site}: error: no built site there (looked for dist/index.html); run `fsmc build` first")
    return SiteWalks(dist, args.walks, args.seed, args.max_steps)


def _output(args: argparse.Namespace, act: Callable[[OutDir], None]) -> None:
    """Act on OUT; Exit 1 with the reason when it cannot be written."""
    from fsmc.enumerate.output import OutDir, OutputError

    try:
        with writing(args.out, NAME):
            act(OutDir(args.out))
    except OutputError as err:
        raise Failure(f"{args.spec}: error: {err}", err) from None


def _write(args: argparse.Namespace, c: Compilation, report: PropertyReport, walked: bool) -> None:
    from fsmc.properties import write_report

    options = {"walks": args.walks if walked else None, "max_steps": args.max_steps if walked else None,
               "seed": args.seed if walked else None, "max_states": args.max_states, "spin": not args.no_spin}
    _output(args, lambda out: write_report(out.final, c, report, options))
    if report.records:
        n = len(report.records)
        print(f"{args.out}: {n} counterexample{'s' if n != 1 else ''}; act them out with "
              f"`fsmc replay {args.out} --site SITE -o DATA`")


def _note(args: argparse.Namespace) -> Callable[[str], None]:
    return lambda text: print(f"{args.spec}: note: {text}", file=sys.stderr, flush=True)
