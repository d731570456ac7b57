"""`fsmc verify`: re-check an `fsmc enumerate` output against its spec; exit 0 when everything holds, 1 otherwise."""

from __future__ import annotations

import argparse
import sys

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, Failure, each_site, reported, shown
from fsmc.diagnostics import SpecError
from fsmc.enumerate.verify import VerifyError, verify_output

NAME = "verify"
HELP = ("Re-check every trajectory of an `fsmc enumerate` output from scratch: preconditions, states, GUI "
        "operations, goals, answers, negatives (exit 0 all hold, 1 on any mismatch, 2 unreadable).")
SHOWN = 200


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="OUT", nargs="?",
                        help="an output folder of `fsmc enumerate` (default: every site's of the project)")
    parser.add_argument("--spec", help="the spec to check against (default: the one the manifest names)")


def run(args: argparse.Namespace) -> int:
    if args.out is None:
        return each_site(args, _verify, lambda site: {"out": shown(site.out), "spec": shown(site.spec)},
                         only_with_spec={"spec": "--spec"})
    return _verify(args)


def _verify(args: argparse.Namespace) -> int:
    try:
        report = verify_output(args.out, args.spec)
    except SpecError as err:
        raise reported(err) from None
    except VerifyError as err:
        raise Failure(f"{args.out}: error: {err}", err) from None
    for m in report.mismatches[:SHOWN]:
        print(f"{args.out}/{m}", file=sys.stderr)
    if len(report.mismatches) > SHOWN:
        print(f"... and {len(report.mismatches) - SHOWN} more", file=sys.stderr)
    verdict = "ok" if report.ok else f"{len(report.mismatches)} mismatches"
    print(f"{args.out}: {report.trajectories:,} trajectories and {report.paths:,} bfs.json paths checked: {verdict}")
    return EXIT_OK if report.ok else EXIT_ERRORS
