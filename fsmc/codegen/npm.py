"""The npm packages every site shares: installed once into templates/node_modules from the lockfile."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
NODE_MODULES = TEMPLATES / "node_modules"


class BuildError(Exception):
    """A site could not be built; the message says why and what to do."""


def vite_bin() -> Path:
    return NODE_MODULES / "vite" / "bin" / "vite.js"


def ensure_node_modules(templates: Path = TEMPLATES) -> Path:
    """templates/node_modules, running `npm ci` there first if it is missing; BuildError if it cannot."""
    modules = templates / "node_modules"
    if (modules / "vite" / "package.json").is_file() and (modules / "vue" / "package.json").is_file():
        return modules
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise BuildError("node and npm are needed to build sites but were not found on PATH; "
                         "install Node.js 20+ (e.g. `apt-get install nodejs npm`)")
    if not (templates / "package-lock.json").is_file():
        raise BuildError(f"{templates / 'package-lock.json'} is missing; it pins the packages every site uses")
    try:
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=templates, capture_output=True,
                              text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BuildError(f"`npm ci` in {templates} failed: {err}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise BuildError(f"`npm ci` in {templates} failed (exit {proc.returncode}):\n{tail}")
    return modules


__all__ = ["NODE_MODULES", "TEMPLATES", "BuildError", "ensure_node_modules", "vite_bin"]
