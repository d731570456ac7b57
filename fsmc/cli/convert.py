"""`fsmc convert`: write a spec in another format (.fsm, fsmc IR JSON, AutoWebWorld fsm.json, ...)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fsmc.atomic import write_atomic
from fsmc.cli.common import EXIT_OK, Failure, compile_spec, reported
from fsmc.diagnostics import SpecError
from fsmc.formats import WRITER_ERRORS, WRITERS

NAME = "convert"
HELP = "Convert a spec to another format: fsm (canonical .fsm text), ir (fsmc IR JSON) or fsm-json (AutoWebWorld)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("--to", required=True, choices=sorted(WRITERS), help="the output format")
    parser.add_argument("-o", "--out", "--output", dest="output", metavar="OUT", help="write here (atomically) instead of to stdout")


def run(args: argparse.Namespace) -> int:
    spec = compile_spec(args.spec).ir
    try:
        text = WRITERS[args.to](spec)
    except SpecError as err:
        raise reported(err) from None
    except WRITER_ERRORS as err:
        raise Failure(f"{args.spec}: error: cannot convert to {args.to}: {err}") from None
    if not args.output:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        write_atomic(Path(args.output), text)
    except OSError as err:
        raise Failure(f"{args.output}: error: cannot write: {err.strerror or err}") from None
    return EXIT_OK
