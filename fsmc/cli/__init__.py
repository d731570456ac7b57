"""The `fsmc` command line: a thin layer over the library; each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import NoReturn

from fsmc import __version__
from fsmc.cli.exits import EPILOG, EXIT_BROKEN_PIPE, EXIT_ERRORS, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, ended
from fsmc.errors import FsmcError

# Each module defines NAME, HELP, add_arguments(parser) and run(args) -> int; its NAME is the key here.
COMMANDS = {
    "check": "fsmc.cli.check",
    "convert": "fsmc.cli.convert",
    "graph": "fsmc.cli.graph",
    "schema": "fsmc.cli.schema",
    "enumerate": "fsmc.cli.enumerate",
    "verify": "fsmc.cli.verify",
    "test": "fsmc.cli.test",
    "stats": "fsmc.cli.stats",
    "build": "fsmc.cli.build",
    "serve": "fsmc.cli.serve",
    "replay": "fsmc.cli.replay",
    "export": "fsmc.cli.export",
    "view": "fsmc.cli.view",
    "serve-env": "fsmc.cli.serve_env",
    "eval": "fsmc.cli.eval",
    "capture": "fsmc.cli.capture",
    "import": "fsmc.cli.import_",
    "propose": "fsmc.cli.propose",
    "init": "fsmc.cli.init",
    "run": "fsmc.cli.run",
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its own exit code for usage errors (64), which differs from unreadable input (2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of the command line; given `argv`, only the command it names is imported (a fast start: `fsmc
    --version` imports no command, `fsmc check` only what checking needs). Without a command, all are, for --help."""
    parser = _Parser(
        prog="fsmc", epilog=EPILOG,
        description="Compile a website spec (.fsm, fsmc IR JSON or AutoWebWorld fsm.json) into verifiable web environments.",
    )
    parser.add_argument("--version", action="version", version=f"fsmc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    chosen = _chosen(argv)
    for name, module_name in COMMANDS.items():
        if chosen is not None and name != chosen:
            sub.add_parser(name)  # known by name, so that the chosen command parses alone
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP, epilog=EPILOG)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def _chosen(argv: list[str] | None) -> str | None:
    """The command `argv` names ("" for none needed: `fsmc --version`), or None when every command must be known."""
    words = sys.argv[1:] if argv is None else argv
    for word in words:
        if word == "--version":
            return ""
        if word in ("-h", "--help") or not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run one command; exit codes are listed in fsmc/cli/exits.py. Never a traceback, unless FSMC_DEBUG=1."""
    try:
        args = build_parser(argv).parse_args(argv)
        code: int = args.run(args)
    except FsmcError as err:  # every failure a command reports: its words, and the code its class carries
        return ended(err)
    except KeyboardInterrupt:
        _quiet_asyncio()
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


def _quiet_asyncio() -> None:
    """After Ctrl-C, the futures the interrupted event loops leave behind (a replay's, Playwright's) are collected
    with their exceptions never retrieved; asyncio would log each ("Future exception was never retrieved") over the
    one line that says the command was interrupted."""
    import logging

    logging.getLogger("asyncio").disabled = True


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that flushing it at exit does not raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured by a test)
        pass


if __name__ == "__main__":
    sys.exit(main())
