"""`fsmc graph`: draw the page graph of a spec (pages, navigating actions, entry and terminal pages)."""

from __future__ import annotations

import argparse
from pathlib import Path

from fsmc.analysis.draw import FORMATS, DrawError, draw
from fsmc.cli.common import EXIT_OK, Failure, compile_spec

NAME = "graph"
HELP = "Draw the page graph of a spec as SVG, PNG, PDF or Graphviz DOT (pages, navigating actions, entry, terminals)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("-o", "--out", "--output", dest="output", help="the picture to write (default: SPEC's name with .svg); "
                                               "its suffix picks the format unless --format is given")
    parser.add_argument("--format", choices=FORMATS, help="picture format (default: from the output's suffix)")
    parser.add_argument("--engine", choices=("matplotlib", "graphviz"), default="matplotlib",
                        help="who lays out and draws: matplotlib (built in, the default) or Graphviz `dot` "
                             "(must be installed)")


def run(args: argparse.Namespace) -> int:
    spec = compile_spec(args.spec).ir
    out = Path(args.output) if args.output else Path(Path(args.spec).stem + ".svg")
    try:
        written = draw(spec, out, args.format, args.engine)
    except (DrawError, OSError) as err:
        raise Failure(f"fsmc graph: {err}") from None
    print(f"wrote {written}")
    return EXIT_OK
