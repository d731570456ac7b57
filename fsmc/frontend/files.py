"""Reads the files a spec consists of (the spec, its table files) within limits: regular files of bounded size."""

from __future__ import annotations

import stat
from pathlib import Path

MAX_BYTES = 16 * 1024 * 1024


class FileRefused(ValueError):
    """The path exists but is no file fsmc reads: a directory, a device or pipe, or a file over the size limit."""


def read_limited(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; OSError if it cannot be read, FileRefused if it should not.

    A device (/dev/zero) or a named pipe would never end or never start: neither is read.
    """
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise FileRefused("is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise FileRefused("is not a regular file (a device, pipe or socket)")
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        size = max(path.stat().st_size, len(data))
        raise FileRefused(f"file is {size:,} bytes; fsmc reads files of at most {limit:,} bytes")
    return data
