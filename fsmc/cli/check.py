"""`fsmc check`: report every problem in a spec; exit 0 clean, 1 on errors, 2 on unreadable input."""

from __future__ import annotations

import argparse

from fsmc.checks import check
from fsmc.cli.common import exit_code, print_diagnostics
from fsmc.diagnostics import SpecError
from fsmc.frontend import load

NAME = "check"
HELP = "Check a spec and report every problem at once (exit 0 clean, 1 on errors, 2 on unreadable input)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how to print diagnostics")


def run(args: argparse.Namespace) -> int:
    try:
        diagnostics = check(load(args.spec))
    except SpecError as err:  # unreadable (exit 2), or a syntax or data error (exit 1)
        diagnostics = list(err.diagnostics)
    print_diagnostics(diagnostics, args.format)
    if args.format == "text" and not diagnostics:
        print(f"{args.spec}: ok")
    return exit_code(diagnostics)
