"""What a careful user tried: files written with the user's umask, and more of the command line's edges."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"


@pytest.mark.parametrize(("umask", "mode"), [("022", 0o644), ("027", 0o640)])
def test_convert_writes_with_the_users_umask(tmp_path: Path, umask: str, mode: int) -> None:
    out = tmp_path / "mini.ir.json"
    argv = [sys.executable, "-m", "fsmc", "convert", str(MINI), "--to", "ir", "-o", str(out)]
    done = subprocess.run(["sh", "-c", f'umask {umask} && exec "$@"', "sh", *argv], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode  # was 0600, the temporary file's mode
