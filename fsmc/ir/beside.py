"""What lies beside a spec's file and belongs to it: an AutoWebWorld world's app folder.

AutoWebWorld publishes, beside each world's `fsm.json`, the app its coding agent generated (`web/`: its data, its
style notes, its pictures); a folder of worlds holds it as `<name>/web/` beside `<name>.json`. The importer reads
its data (fsmc.formats.awm.data), the site generator its pictures and style notes: both find it here.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["app_folder"]


def app_folder(file: str) -> Path | None:
    """The world's app folder, if the file has one: `web/` beside it, `<name>/web/` beside `<name>.json`, or the
    folder the file lies in where that is the app itself (`web/fsm.json` beside `web/src/`, as AutoWebWorld keeps
    a world in its app)."""
    path = Path(file)
    for folder in (path.parent / "web", path.parent / path.stem / "web"):
        if folder.is_dir():
            return folder
    return path.parent if (path.parent / "src").is_dir() else None
