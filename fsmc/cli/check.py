"""`fsmc check`: report every problem in a spec; exit 0 clean, 1 on errors, 2 on unreadable input."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from fsmc.cli.common import compile_spec, each_site, exit_code, print_diagnostics, shown
from fsmc.diagnostics import has_errors

if TYPE_CHECKING:
    from fsmc.compilation import Compilation

NAME = "check"
HELP = ("Check a spec and report every problem at once, and how many states are reachable (exit 0 clean, 1 on errors, "
        "2 on unreadable input).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?",
                        help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json (default: every spec of the project)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how to print diagnostics")


def run(args: argparse.Namespace) -> int:
    if args.spec is None:
        return each_site(args, _check, lambda site: {"spec": shown(site.spec)})
    return _check(args)


def _check(args: argparse.Namespace) -> int:
    c = compile_spec(args.spec, args.format)
    diagnostics = c.diagnostics
    print_diagnostics(diagnostics, args.format)
    if args.format == "text" and not has_errors(diagnostics):
        warnings = len(diagnostics)
        said = f"ok with {warnings} warning{'s' * (warnings != 1)}" if warnings else "ok"
        print(f"{args.spec}: {said}{_states(c)}")
    return exit_code(diagnostics)


def _states(c: Compilation) -> str:
    """How many states the checks found reachable, as `fsmc enumerate` will meet them ("" when they explored none)."""
    space = c.context.__dict__.get("state_space")  # explored by the semantic checks, if they ran: never explored here
    if space is None:
        return ""
    n = len(space.states)
    if not space.complete:
        return f"; more than {n:,} reachable states (the check stopped there; fsmc enumerate --max-states caps them)"
    return f"; {n:,} reachable states, {max(space.depth, default=0)} moves deep at most"
