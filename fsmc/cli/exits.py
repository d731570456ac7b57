"""The command line's exit codes (defined with `fsmc.errors.FsmcError`) and its one way to stop a command (Exit).

0 success; 1 errors in the spec or the command's work (`fsmc check` finds an error, a build fails, memory runs out);
2 unreadable input (E002 for a spec: missing, empty, binary, not UTF-8, no spec; for other commands a missing or
unreadable folder); 3 an internal error of fsmc (a bug: please report it); 64 a usage error (an unknown option, a
missing or malformed argument: `EX_USAGE` of sysexits.h, so that it differs from unreadable input); 75 the output
folder is in use by another fsmc command (`EX_TEMPFAIL`: try again when it ends); 130 interrupted (Ctrl-C);
141 the output pipe was closed (`fsmc schema | head`).
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
    """Ends a command with this exit code; what the user must know has been printed already."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = self.exit_code = code


def fail(message: str, code: int = EXIT_ERRORS) -> Exit:
    """Prints `message` to stderr and returns the Exit to raise: `raise fail(f"{path}: error: ...")`."""
    print(message, file=sys.stderr)
    return Exit(code)


__all__ = ["EPILOG", "EXIT_BROKEN_PIPE", "EXIT_BUSY", "EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK",
           "EXIT_UNREADABLE", "EXIT_USAGE", "Exit", "fail"]
