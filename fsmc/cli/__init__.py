"""The `fsmc` command line: a thin layer over the library; each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from fsmc import __version__
from fsmc.cli.common import EXIT_BROKEN_PIPE, EXIT_ERRORS, EXIT_INTERNAL, EXIT_INTERRUPTED, Exit

# Each module defines NAME, HELP, add_arguments(parser) and run(args) -> int.
COMMANDS = (
    "fsmc.cli.check",
    "fsmc.cli.convert",
    "fsmc.cli.graph",
    "fsmc.cli.schema",
    "fsmc.cli.enumerate",
    "fsmc.cli.verify",
    "fsmc.cli.test",
    "fsmc.cli.stats",
    "fsmc.cli.build",
    "fsmc.cli.serve",
    "fsmc.cli.replay",
    "fsmc.cli.export",
    "fsmc.cli.view",
    "fsmc.cli.serve_env",
    "fsmc.cli.eval",
    "fsmc.cli.capture",
    "fsmc.cli.import_",
    "fsmc.cli.propose",
    "fsmc.cli.init",
    "fsmc.cli.run",
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
    """Run one command; exit codes are listed in fsmc/cli/common.py. Never a traceback, unless FSMC_DEBUG=1."""
    try:
        args = build_parser().parse_args(argv)
        code: int = args.run(args)
    except Exit as done:  # the command printed why it stops
        return done.code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `fsmc schema | head`: the reader has gone; stop quietly
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except MemoryError:  # too many states, not a bug
        print("fsmc: out of memory: narrow the spec's domains, or lower --max-states or --max-depth", file=sys.stderr)
        return EXIT_ERRORS
    except Exception as err:  # noqa: BLE001 - a bug in fsmc: say so in one line instead of a traceback
        return _internal_error(err)
    return code


def _internal_error(err: Exception) -> int:
    print(f"fsmc: internal error: {type(err).__name__}: {err}", file=sys.stderr)
    if os.environ.get("FSMC_DEBUG") == "1":
        traceback.print_exception(err, file=sys.stderr)
        print("please report this with the command you ran and the traceback above", file=sys.stderr)
    else:
        print("please report this with the command you ran (FSMC_DEBUG=1 shows the traceback)", file=sys.stderr)
    return EXIT_INTERNAL


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that flushing it at exit does not raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured by a test)
        pass


if __name__ == "__main__":
    sys.exit(main())
