"""The npm packages every site shares: installed once from the lockfile that ships with fsmc's site templates.

Where they go: beside the templates (fsmc/templates/node_modules) when that folder is writable, as in a
checkout or an ordinary install; else, for a read-only install, into a user cache folder keyed by the
lockfile, `${XDG_CACHE_HOME:-~/.cache}/fsmc/npm-<digest>/node_modules`. Never into the wheel.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from fsmc.errors import FsmcError

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
LOCKFILES = ("package.json", "package-lock.json")


class BuildError(FsmcError):
    """A site could not be built; the message says why and what to do."""


def cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fsmc"


def install_root(templates: Path = TEMPLATES) -> Path:
    """The folder `npm ci` runs in: the templates folder itself if it already has the packages or can take them."""
    if (templates / "node_modules").is_dir() or os.access(templates, os.W_OK):
        return templates
    lock = templates / "package-lock.json"
    digest = hashlib.sha256(lock.read_bytes() if lock.is_file() else b"").hexdigest()[:12]
    return cache_home() / f"npm-{digest}"


NODE_MODULES = install_root() / "node_modules"


def vite_bin() -> Path:
    return NODE_MODULES / "vite" / "bin" / "vite.js"


def _installed(modules: Path) -> bool:
    return (modules / "vite" / "package.json").is_file() and (modules / "vue" / "package.json").is_file()


def _copy_lockfiles(templates: Path, root: Path) -> None:
    """A cache folder gets the templates' package.json and lockfile, so `npm ci` there installs the same packages."""
    for name in LOCKFILES:
        if not (templates / name).is_file():
            raise BuildError(f"{templates / name} is missing; it pins the packages every site uses")
        if root != templates:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(templates / name, root / name)


def ensure_node_modules(templates: Path = TEMPLATES) -> Path:
    """The shared node_modules, running `npm ci` first if it is missing; BuildError if it cannot."""
    root = install_root(templates)
    modules = root / "node_modules"
    if _installed(modules):
        return modules
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise BuildError("node and npm are needed to build sites but were not found on PATH; "
                         "install Node.js 20+ (e.g. `apt-get install nodejs npm`)")
    _copy_lockfiles(templates, root)
    try:
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=root, capture_output=True,
                              text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise BuildError(f"`npm ci` in {root} failed: {err}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise BuildError(f"`npm ci` in {root} failed (exit {proc.returncode}):\n{tail}")
    return modules


__all__ = ["NODE_MODULES", "TEMPLATES", "BuildError", "ensure_node_modules", "install_root", "vite_bin"]
