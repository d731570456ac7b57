"""The one root of every failure a command reports, `FsmcError`, and the exit codes it carries.

Like sqlglot's `SqlglotError` and Lark's `LarkError`: each error of fsmc derives from `FsmcError`, whose
`exit_code` says what the failure means to a shell; the command line maps it at its edge, in one place
(`fsmc.cli.exits.ended`).
0 success; 1 errors in the spec or the command's work; 2 unreadable input; 3 an internal error of fsmc (a bug);
64 a usage error (`EX_USAGE` of sysexits.h); 75 the output folder is in use by another fsmc command
(`EX_TEMPFAIL`); 130 interrupted (Ctrl-C); 141 the output pipe was closed.
"""

from __future__ import annotations

EXIT_OK, EXIT_ERRORS, EXIT_UNREADABLE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_USAGE, EXIT_BUSY = 64, 75  # sysexits.h: EX_USAGE, EX_TEMPFAIL
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # 128 + SIGINT, 128 + SIGPIPE, as a shell reports them


class FsmcError(Exception):
    """A failure fsmc reports in words, never as a bug; `exit_code` (1 unless a class or an instance says
    otherwise) is the code a command that ends with it exits with."""

    exit_code: int = EXIT_ERRORS

    def __init__(self, *args: object, exit_code: int | None = None):
        super().__init__(*args)
        if exit_code is not None:
            self.exit_code = exit_code
