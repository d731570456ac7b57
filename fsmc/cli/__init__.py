"""The `fsmc` command line: a thin layer over the library; each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import importlib
import sys

from fsmc import __version__

# Each module defines NAME, HELP, add_arguments(parser) and run(args) -> int.
COMMANDS = (
    "fsmc.cli.check",
    "fsmc.cli.convert",
    "fsmc.cli.graph",
    "fsmc.cli.schema",
    "fsmc.cli.enumerate",
    "fsmc.cli.verify",
    "fsmc.cli.stats",
    "fsmc.cli.build",
    "fsmc.cli.serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fsmc",
        description="Compile a website spec (.fsm, fsmc IR JSON or AutoWebWorld fsm.json) into verifiable web environments.",
    )
    parser.add_argument("--version", action="version", version=f"fsmc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_name in COMMANDS:
        module = importlib.import_module(module_name)
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
