"""`fsmc init`: start a project: a documented fsmc.toml and an example spec; never over an existing project."""

from __future__ import annotations

import argparse

from fsmc.cli.common import EXIT_OK, Failure, shown

NAME = "init"
HELP = "Start a project in DIR (default: here): a documented fsmc.toml and specs/example.fsm; `fsmc run` then builds it."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", default=".", help="the project's folder (made if missing; default: here)")


def run(args: argparse.Namespace) -> int:
    from fsmc.project import ProjectError, init_project

    try:
        written = init_project(args.dir)
    except ProjectError as err:
        raise Failure(str(err), err) from None
    except OSError as err:
        raise Failure(f"{args.dir}: error: cannot write the project: {err.strerror or err}") from None
    for path in written:
        print(f"wrote {shown(path)}")
    where = "" if shown(written[0].parent) == "." else f"cd {shown(written[0].parent)} && "
    print(f"next: {where}fsmc run   (check, enumerate, verify, build, replay and export every spec in it)")
    return EXIT_OK
