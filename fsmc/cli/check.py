"""`fsmc check`: report every problem in a spec; exit 0 clean, 1 on errors, 2 on unreadable input."""

from __future__ import annotations

import argparse

from fsmc.cli.common import compile_spec, each_site, exit_code, print_diagnostics, shown

NAME = "check"
HELP = "Check a spec and report every problem at once (exit 0 clean, 1 on errors, 2 on unreadable input)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?",
                        help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json (default: every spec of the project)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how to print diagnostics")


def run(args: argparse.Namespace) -> int:
    if args.spec is None:
        return each_site(args, _check, lambda site: {"spec": shown(site.spec)})
    return _check(args)


def _check(args: argparse.Namespace) -> int:
    diagnostics = compile_spec(args.spec, args.format).diagnostics
    print_diagnostics(diagnostics, args.format)
    if args.format == "text" and not diagnostics:
        print(f"{args.spec}: ok")
    return exit_code(diagnostics)
