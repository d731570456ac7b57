"""Writing a file whole or not at all: a temporary file beside it, renamed over it at the end."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` (text as UTF-8 with \\n line ends) to `path` so that readers never see half a file; the file gets
    the mode any new file gets (0666 less the user's umask), not the temporary file's private 0600."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@functools.cache
def umask() -> int:
    """The process's umask, read once (reading it means setting it: done before any thread of fsmc writes)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
