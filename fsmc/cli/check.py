"""`fsmc check`: report every problem in a spec; exit 0 clean, 1 on errors, 2 on unreadable input."""

from __future__ import annotations

import argparse

from fsmc.checks import check
from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE, load_or_report, print_diagnostics
from fsmc.diagnostics import has_errors

NAME = "check"
HELP = "Check a spec and report every problem at once (exit 0 clean, 1 on errors, 2 on unreadable input)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how to print diagnostics")


def run(args: argparse.Namespace) -> int:
    spec = load_or_report(args.spec, args.format)
    if spec is None:
        return EXIT_UNREADABLE
    diagnostics = check(spec)
    print_diagnostics(diagnostics, args.format)
    if args.format == "text" and not diagnostics:
        print(f"{args.spec}: ok")
    return EXIT_ERRORS if has_errors(diagnostics) else EXIT_OK
