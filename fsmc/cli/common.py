"""Shared pieces of the command line: loading a spec with rendered diagnostics; the exit codes (fsmc/cli/exits.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsmc.cli.exits import (  # noqa: F401 - the exit codes, re-exported for the commands
    EXIT_BROKEN_PIPE,
    EXIT_BUSY,
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    Exit,
    Failure,
    Unreadable,
    Usage,
    ended,
)
from fsmc.diagnostics import Diagnostic, SpecError, has_errors, render_json, render_text
from fsmc.source import read_limited, recall

if TYPE_CHECKING:
    from fsmc.compilation import Compilation
    from fsmc.project import Project, Site


def _shown_text(file: str) -> str | None:
    """The text a diagnostic's excerpt shows: the source that was parsed, else (a file refused as not UTF-8)
    the file read again with its bad bytes replaced; None for a file that cannot be read at all."""
    source = recall(file)
    if source is not None:
        return source.text
    with contextlib.suppress(OSError, ValueError):  # a file fsmc refused to read (FileRefused) is not read to show it
        return read_limited(Path(file)).decode("utf-8", errors="replace")
    return None


def print_diagnostics(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], fmt: str = "text") -> None:
    """The diagnostics on stderr, each with its source line and a caret (`fmt="json"`: as JSON on stdout)."""
    if fmt == "json":
        print(render_json(diagnostics))
        return
    sources: dict[str, str] = {}
    for file in dict.fromkeys(d.span.file for d in diagnostics if d.span.file):
        text = _shown_text(file)
        if text is not None:
            sources[file] = text
    if diagnostics:
        print(render_text(diagnostics, sources), file=sys.stderr)


def exit_code(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> int:
    """0 without errors, else the code of a SpecError of them: 2 for no readable spec (E002), 1 for the rest."""
    return SpecError(diagnostics).exit_code if has_errors(diagnostics) else EXIT_OK


def reported(err: SpecError, fmt: str = "text") -> Exit:
    """Print the diagnostics of a spec that cannot be loaded; the Exit (with their code) to raise then."""
    print_diagnostics(err.diagnostics, fmt)
    return Exit(err.exit_code)


def compile_spec(path: str, fmt: str = "text") -> Compilation:
    """The compilation of the spec at `path` with its IR read, or Exit after printing why it cannot be read:
    2 when the input is no readable spec (E002), 1 when it is a spec with errors (syntax, table files, ...)."""
    from fsmc.compilation import Compilation  # here, not above: `fsmc --version` and `fsmc init` need none of it

    c = Compilation(path)
    try:
        c.ir  # noqa: B018 - the phase that reads and parses
    except SpecError as err:
        raise reported(err, fmt) from None
    return c


def require_clean(c: Compilation, not_done: str, *, static: bool = False) -> None:
    """Exit 1 after printing the spec's errors (the static checks' alone with `static`), if it has any."""
    found = c.static_diagnostics if static else c.diagnostics
    if has_errors(found):
        print_diagnostics(found)
        raise Failure(f"{c.path}: not {not_done}: fix the errors above first (`fsmc check` shows them too)")


def current_project(command: str) -> Project:
    """The project around the current folder (fsmc.toml found upwards); Exit 2 when there is none, 1 when its
    file has problems (each printed with its line)."""
    from fsmc.project import ProjectError, find_project_file, load_project

    file = find_project_file()
    if file is None:
        raise Unreadable(f"fsmc {command}: no SPEC given, and no fsmc.toml here or in a folder above: give a SPEC, "
                         "or run `fsmc init` to start a project")
    try:
        return load_project(file)
    except ProjectError as err:
        raise Failure(str(err), err) from None


def shown(path: Path) -> str:
    """A project path as a user in the current folder would type it."""
    return os.path.relpath(path)


def each_site(args: argparse.Namespace, run_one: Callable[[argparse.Namespace], int],
              fields: Callable[[Site], dict[str, Any]], *, only_with_spec: dict[str, str] | None = None) -> int:
    """Run a command once for every site of the project, with the arguments `fields(site)` gives (its spec, its
    folders, the project's options); the worst exit code of them all. `only_with_spec` maps arguments (attribute →
    flag) that name an output and so make sense only with a SPEC: typed without one, they are refused."""
    command = args.command
    typed = [flag for attr, flag in (only_with_spec or {}).items() if getattr(args, attr, None) is not None]
    if typed:
        raise Usage(f"fsmc {command}: {typed[0]} goes with a SPEC (or OUT); without one, every site of the project is "
                    "done with the folders its project file names")
    worst = EXIT_OK
    for site in current_project(command).sites:
        try:
            code = run_one(argparse.Namespace(**{**vars(args), **fields(site)}))
        except (Exit, Failure) as err:  # what the command said of this site; any other failure ends the run
            code = ended(err)
        worst = max(worst, code)
    return worst


def given(args: argparse.Namespace, names: tuple[str, ...], defaults: dict[str, Any]) -> dict[str, Any]:
    """The options `names` as typed on the command line, over `defaults` (the project's, for a site of a project)."""
    return {**defaults, **{n: getattr(args, n) for n in names if getattr(args, n, None) is not None}}


def positive(text: str) -> int:
    """An argparse type: an integer of 1 or more."""
    return _at_least(text, 1)


def nonnegative(text: str) -> int:
    """An argparse type: an integer of 0 or more."""
    return _at_least(text, 0)


def _at_least(text: str, least: int) -> int:
    value = int(text)
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {least} or more")
    return value


@contextlib.contextmanager
def writing(folder: str | Path, command: str) -> Iterator[None]:
    """Hold the lock of the output folder `folder` while the block writes it (fsmc.lock): Exit 75 at once, naming the
    other writer, when another command writes it now; a lock left by a killed command is taken over with a note."""
    from fsmc.lock import FolderBusy, output_lock

    with contextlib.ExitStack() as stack:
        try:
            lock = stack.enter_context(output_lock(Path(folder), f"fsmc {command}"))
        except FolderBusy as busy:
            raise Failure(f"fsmc {command}: error: {busy}", busy) from None
        except OSError as err:
            raise Failure(f"{folder}: error: cannot write here: {err.strerror or err}") from None
        if lock.stale is not None:
            print(f"{folder}: note: took over the lock of {lock.stale}, which ended without letting go of it",
                  file=sys.stderr)
        yield
