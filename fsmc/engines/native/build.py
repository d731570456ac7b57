"""Compiles generated C into a shared library with gcc, cached by the hash of the source and flags."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from fsmc.errors import FsmcError

CFLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11", "-w")


class NativeError(FsmcError):
    """The native explorer could not be built or run (no compiler, a failed build, a run-time error)."""


def cache_dir() -> Path:
    """$FSMC_CACHE_DIR, else $XDG_CACHE_HOME/fsmc/native, else ~/.cache/fsmc/native."""
    if os.environ.get("FSMC_CACHE_DIR"):
        return Path(os.environ["FSMC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fsmc" / "native"


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise NativeError("no C compiler found (install gcc, or set CC); use the python engine instead")
    return cc


def build_library(source: str, where: Path | None = None) -> Path:
    """The path of a shared library built from `source`, compiling it only if it is not cached yet."""
    cc = compiler()
    digest = hashlib.sha256("\0".join([source, cc, *CFLAGS]).encode()).hexdigest()[:24]
    folder = where or cache_dir()
    lib = folder / f"fsmc_{digest}.so"
    if lib.exists():
        return lib
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise NativeError(f"cannot create the cache folder {folder}: {e}") from e
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        c_file, out = Path(tmp) / "explorer.c", Path(tmp) / "explorer.so"
        c_file.write_text(source)
        try:
            run = subprocess.run([cc, *CFLAGS, "-o", str(out), str(c_file)], capture_output=True, text=True,
                                 timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise NativeError(f"running {cc} failed: {e}") from e
        if run.returncode != 0:
            (folder / f"fsmc_{digest}.failed.c").write_text(source)
            raise NativeError(f"{cc} could not compile the generated explorer (a bug in fsmc; source kept at "
                              f"{folder / f'fsmc_{digest}.failed.c'}):\n{run.stderr[-2000:]}")
        os.replace(out, lib)
    return lib
