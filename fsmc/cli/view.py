"""`fsmc view`: a static HTML gallery of a replay (screenshots, where each action lands, what it changed)."""

from __future__ import annotations

import argparse
from pathlib import Path

from fsmc.cli.common import EXIT_OK, Unreadable, writing

NAME = "view"
HELP = "Write a static HTML gallery of a replayed data folder: each trajectory's screenshots, actions and state changes."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a folder written by `fsmc replay`")
    parser.add_argument("-o", "--out", help="where to write the gallery (default: DATA/gallery)")


def run(args: argparse.Namespace) -> int:
    from fsmc.export import write_gallery

    try:
        with writing(args.out or Path(args.data) / "gallery", NAME):
            index = write_gallery(args.data, args.out)
    except (FileNotFoundError, KeyError, ValueError) as err:
        raise Unreadable(f"error: {err}") from None
    print(f"gallery: {index} (open it in a browser)")
    return EXIT_OK
