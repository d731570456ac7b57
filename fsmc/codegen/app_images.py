"""A world's own pictures: rows whose picture column names a file of the app folder's public/ show that file.

AutoWebWorld keeps, beside each world, its app's data and images: a row of `web/src/stores/initial_data.js`
names its picture (`image: '/images/dune.jpg'`, `avatar: '/images/User.jpg'`) and the file lies under
`web/public/`. Where it does, the generated site serves that file at the same path and the row shows it; a row
whose file is missing keeps the generated picture, and a world without an app folder or images is unchanged.
"""

from __future__ import annotations

from pathlib import Path

from fsmc import ir
from fsmc.ir.beside import app_folder

__all__ = ["app_pictures", "picture_column"]

PICTURE_WORDS = ("image", "avatar", "photo", "picture", "cover", "thumbnail", "logo", "img", "icon")
EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".svg")


def picture_column(table: ir.Table) -> int | None:
    """The column whose values name a row's picture file (`image`, `avatar_url`...: a path to an image), if any."""
    for i, c in enumerate(table.columns):
        words = c.name.lower().split("_")
        if any(w in PICTURE_WORDS for w in words) and any(str(r[i]).lower().endswith(EXTENSIONS) for r in table.rows):
            return i
    return None


def app_pictures(spec: ir.Spec) -> dict[str, dict[str, tuple[str, Path]]]:
    """Table → row key → (the path the site serves it at, the file) for each row whose picture the world's app
    folder holds under its public/."""
    folder = app_folder(spec.site.span.file) if spec.site.span.file else None
    if folder is None or not (folder / "public").is_dir():
        return {}
    public = (folder / "public").resolve()
    out: dict[str, dict[str, tuple[str, Path]]] = {}
    for t in spec.tables:
        col, key = picture_column(t), [c.name for c in t.columns].index(t.key)
        if col is None:
            continue
        for r in t.rows:
            path = (public / str(r[col]).lstrip("/")).resolve()
            if path.is_file() and path.is_relative_to(public):  # nothing outside public/ is served
                out.setdefault(t.name, {})[str(r[key])] = (path.relative_to(public).as_posix(), path)
    return out
