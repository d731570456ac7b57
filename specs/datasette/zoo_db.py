"""The tiny SQLite file the datasette example serves: `python specs/datasette/zoo_db.py captures/zoo.db`.

Two tables, six rows, made here rather than committed; specs/datasette/zoo.fsm is the draft `fsmc import` writes
from a capture of datasette over it (see the README, Captured sites).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path


def make(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("create table animals (id integer primary key, name text, legs integer)")
    db.executemany("insert into animals (name, legs) values (?, ?)", [("cat", 4), ("hen", 2), ("snake", 0), ("spider", 8)])
    db.execute("create table keepers (id integer primary key, name text, animal_id integer references animals(id))")
    db.executemany("insert into keepers (name, animal_id) values (?, ?)", [("Ada", 1), ("Bo", 2)])
    db.commit()
    db.close()
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python specs/datasette/zoo_db.py PATH.db")
    print(make(Path(sys.argv[1])))
