"""The command line's exit codes and its one way to stop a command (Exit), kept light for a fast start.

0 success; 1 errors in the spec or the command's work (`fsmc check` finds an error, a build fails, memory runs out);
2 unreadable input (E002 for a spec: missing, empty, binary, not UTF-8, no spec; for other commands a missing or
unreadable folder); 3 an internal error of fsmc (a bug: please report it); 64 a usage error (an unknown option, a
missing or malformed argument: `EX_USAGE` of sysexits.h, so that it differs from unreadable input); 75 the output
folder is in use by another fsmc command (`EX_TEMPFAIL`: try again when it ends); 130 interrupted (Ctrl-C);
141 the output pipe was closed (`fsmc schema | head`).
"""

from __future__ import annotations

import sys

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_USAGE, EXIT_BUSY = 64, 75  # sysexits.h: EX_USAGE, EX_TEMPFAIL
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # 128 + SIGINT, 128 + SIGPIPE, as a shell reports them

EPILOG = ("exit codes: 0 success, 1 errors in the spec or a failed command, 2 unreadable input, 3 internal error "
          "(a bug), 64 usage error, 75 the output folder is in use by another fsmc command, 130 interrupted")


class Exit(Exception):
    """Ends a command with this exit code; what the user must know has been printed already."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def fail(message: str, code: int = EXIT_ERRORS) -> Exit:
    """Prints `message` to stderr and returns the Exit to raise: `raise fail(f"{path}: error: ...")`."""
    print(message, file=sys.stderr)
    return Exit(code)
