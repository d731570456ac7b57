"""`fsmc init`: a new project, a documented fsmc.toml and an example spec, from the templates shipped with fsmc."""

from __future__ import annotations

import shutil
from pathlib import Path

from fsmc.project.config import PROJECT_FILE, Problem, ProjectError, find_project_file

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "project"
STARTER = {PROJECT_FILE: "fsmc.toml", "specs/example.fsm": "example.fsm"}  # where each goes → its template


def init_project(folder: str | Path = ".") -> list[Path]:
    """Write fsmc.toml and specs/example.fsm into `folder` (made if missing); the paths written.

    Refuses (ProjectError) a folder that already is a project, or holds a file the starter would overwrite.
    """
    folder = Path(folder).resolve()
    existing = find_project_file(folder)
    if existing is not None and existing.parent == folder:
        raise ProjectError([Problem(existing, 0, 0, "a project is already here; nothing was written")])
    clashes = [folder / name for name in STARTER if (folder / name).exists()]
    if clashes:
        raise ProjectError([Problem(clashes[0], 0, 0, "exists already; `fsmc init` writes nothing over it")])
    written = []
    for name, template in STARTER.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TEMPLATES / template, folder / name)
        written.append(folder / name)
    return written


__all__ = ["init_project"]
