"""The command line's exit codes (defined with `fsmc.errors.FsmcError`) and the one place failures become them.

0 success; 1 errors in the spec or the command's work (`fsmc check` finds an error, a build fails, memory runs out);
2 unreadable input (E002 for a spec: missing, empty, binary, not UTF-8, no spec; for other commands a missing or
unreadable folder); 3 an internal error of fsmc (a bug: please report it); 64 a usage error (an unknown option, a
missing or malformed argument: `EX_USAGE` of sysexits.h, so that it differs from unreadable input); 75 the output
folder is in use by another fsmc command (`EX_TEMPFAIL`: try again when it ends); 130 interrupted (Ctrl-C);
141 the output pipe was closed (`fsmc schema | head`).

A command never chooses a code in an `except` clause: it raises an `FsmcError` (its own words in a `Failure`, whose
code is its cause's or its class's), and `ended` prints it and gives its code, for `main` and for each site of a
project alike.
"""

from __future__ import annotations

import sys

from fsmc.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_BUSY,
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    FsmcError,
)

EPILOG = ("exit codes: 0 success, 1 errors in the spec or a failed command, 2 unreadable input, 3 internal error "
          "(a bug), 64 usage error, 75 the output folder is in use by another fsmc command, 130 interrupted")


class Exit(FsmcError):
    """Ends a command with this exit code; what the user must know has been printed already (its diagnostics)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.exit_code = code


class Failure(FsmcError):
    """A command's failure in its own words (the whole line, e.g. `shop.fsm: error: ...`), with the exit code of
    its cause (the FsmcError it words again) or else of its class: 1 here."""

    def __init__(self, message: str, cause: FsmcError | None = None):
        super().__init__(message)
        if cause is not None:
            self.exit_code = cause.exit_code


class Unreadable(Failure):
    """The input the command was given cannot be read (a missing file or folder, one that is not what it should be)."""

    exit_code = EXIT_UNREADABLE


class Usage(Failure):
    """The command line itself is wrong: an option that goes with another, a value out of range."""

    exit_code = EXIT_USAGE


def ended(err: FsmcError) -> int:
    """Print why a command ended (an Exit has printed it already; any other error fsmc left unworded says
    `fsmc: error: ...`) and return its exit code."""
    if isinstance(err, Failure):
        print(err, file=sys.stderr)
    elif not isinstance(err, Exit):
        print(f"fsmc: error: {err}", file=sys.stderr)
    return err.exit_code


__all__ = ["EPILOG", "EXIT_BROKEN_PIPE", "EXIT_BUSY", "EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK",
           "EXIT_UNREADABLE", "EXIT_USAGE", "Exit", "Failure", "Unreadable", "Usage", "ended"]
