"""A cloned application's sidecar: the TOML file a spec's `backend app "FILE"` names, read and checked against the spec.

The sidecar says how to run the application and how to read its state; the spec stays about semantics:

    cwd = "."                                   # where the commands run, relative to the sidecar
    python = ".venv/bin/python"                 # optional: the application's own interpreter (its virtual environment)
    setup = ["{python} manage.py migrate"]      # run once before `start`, each to completion
    start = "{python} manage.py runserver 127.0.0.1:{port} --noreload"
    url = "http://127.0.0.1:{port}"             # where the application is served (a path prefix may follow the port)
    ready = "/admin/login/"                     # served (a status below 500, not 404) once the application is up
    home = "/admin/login/"                      # where every episode starts after a reset (default: ready)
    database = "{data}/db.sqlite3"              # the SQLite file a reset restores
    adapter = "module:function"                 # optional: function(db_path) -> {variable: value}
    [env]                                       # added to the commands' environment
    [pages]                                     # page = a regular expression searched in the location's path
    [state]                                     # variable = a SQL query whose one value is the variable's

In the strings `{port}` is a free port fsmc picks, `{data}` a fresh temporary folder for the application's
data (its database lives there; nothing is written beside the sidecar), `{python}` the interpreter `python` names
(relative to the sidecar, or absolute), fsmc's own where none is named. `ready`, `home` and the `pages` patterns are
paths within `url`: an application served under a prefix (`url = "http://127.0.0.1:{port}/tracker"`) is described
as if it were served at the root, and a location outside the prefix is no page of the spec.
`read_sidecar` returns the sidecar and every problem it has, each naming the key, so that the check of
backends reports them all at the declaration and the backend refuses to start on any.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc import ir

KEYS: dict[str, type | tuple[type, ...]] = {"cwd": str, "python": str, "setup": list, "start": str, "url": str, "ready": str, "home": str, "database": str,
        "adapter": str, "ready_timeout": (int, float), "env": dict, "pages": dict, "state": dict}
REQUIRED = ("start", "url", "ready", "database")
_ADAPTER = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass(frozen=True)
class Sidecar:
    """A cloned application's sidecar, read; strings still hold their `{port}`, `{data}`, `{python}` slots."""

    path: Path
    start: str
    url: str
    ready: str
    database: str
    home: str
    cwd: Path
    python: str = sys.executable
    setup: tuple[str, ...] = ()
    adapter: str | None = None
    ready_timeout: float = 60.0
    env: dict[str, str] = field(default_factory=dict)
    pages: tuple[tuple[str, re.Pattern[str]], ...] = ()
    state: dict[str, str] = field(default_factory=dict)

    def page_of(self, path: str) -> str | None:
        """The spec's page a location's path shows: the first pattern that matches."""
        return next((name for name, pattern in self.pages if pattern.search(path)), None)


def _typed(data: dict[str, Any], problems: list[str]) -> None:
    for key, value in data.items():
        if key not in KEYS:
            problems.append(f"unknown key `{key}` (known: {', '.join(KEYS)})")
        elif not isinstance(value, KEYS[key]) or isinstance(value, bool):
            problems.append(f"`{key}` has the wrong type ({type(value).__name__})")
    problems += [f"`{key}` is missing" for key in REQUIRED if key not in data]
    for table in ("env", "pages", "state"):
        if isinstance(data.get(table), dict):
            problems += [f"`{table}.{k}` is not a string" for k, v in data[table].items() if not isinstance(v, str)]
    if isinstance(data.get("setup"), list):
        problems += ["`setup` holds something other than strings" for v in data["setup"] if not isinstance(v, str)][:1]


def read_pages(data: dict[str, Any], spec: ir.Spec, problems: list[str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    names = {p.name for p in spec.pages}
    pages: list[tuple[str, re.Pattern[str]]] = []
    for name, text in data.get("pages", {}).items():
        if name not in names:
            problems.append(f"`pages.{name}` names no page of the spec (its pages: {', '.join(sorted(names))})")
            continue
        try:
            pages.append((name, re.compile(str(text))))
        except re.error as err:
            problems.append(f"`pages.{name}` is not a regular expression: {err}")
    missing = sorted(names - set(data.get("pages", {})))
    if missing:
        problems.append(f"`pages` gives no location pattern for {', '.join(missing)}: every page needs one")
    return tuple(pages)


def _state(data: dict[str, Any], spec: ir.Spec, problems: list[str]) -> None:
    declared = {v.name for v in spec.session} | {v.name for p in spec.pages for v in p.vars}
    state = data.get("state", {})
    problems += [f"`state.{name}` names no variable of the spec" for name in state if name not in declared]
    adapter = data.get("adapter")
    if isinstance(adapter, str) and not _ADAPTER.match(adapter):
        problems.append(f"`adapter` is {adapter!r}, not `module:function`")
    if adapter is None:
        missing = sorted(declared - set(state))
        if missing:
            problems.append(f"no SQL query in `state` and no `adapter` reads {', '.join(missing)}")


KINDS = ("app", "capture")
"""The backends a spec can declare; none declared: the generated site."""


def declared_path(backend: ir.Backend) -> Path:
    """The file or folder a declaration names, relative to the spec that declares it."""
    return Path(backend.span.file).parent / backend.source


def load_toml(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """A TOML file's tables, or why it cannot be read (a sidecar of a cloned application or a capture's extractors)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), []
    except OSError as err:
        return None, [f"cannot read {path}: {err.strerror or err}"]
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        return None, [f"{path} is not TOML: {err}"]


def _python(path: Path, named: Any, problems: list[str]) -> str:
    """The interpreter `{python}` stands for: the one `python` names, relative to the sidecar; else fsmc's own."""
    if not isinstance(named, str):
        return sys.executable
    python = path.parent / named  # an absolute path stays itself
    if not python.is_file() or not os.access(python, os.X_OK):
        problems.append(f"`python` names {python}, which is no executable file (for a virtual environment of the "
                        "application's own: its bin/python)")
    return str(python.absolute())


def read_sidecar(path: Path, spec: ir.Spec) -> tuple[Sidecar | None, list[str]]:
    """The sidecar at `path` and its problems (empty: the sidecar is usable), checked against `spec`."""
    data, problems = load_toml(path)
    if data is None:
        return None, problems
    _typed(data, problems)
    for table in ("pages", "state"):  # the tables' contents are checked where they are tables at all
        if not isinstance(data.get(table, {}), dict):
            data[table] = {}
    pages = read_pages(data, spec, problems)
    _state(data, spec, problems)
    python = _python(path, data.get("python"), problems)
    if problems:
        return None, problems
    sidecar = Sidecar(python=python, path=path, start=data["start"], url=data["url"], ready=data["ready"], database=data["database"],
                      home=data.get("home", data["ready"]), cwd=(path.parent / data.get("cwd", ".")).resolve(),
                      setup=tuple(data.get("setup", ())), adapter=data.get("adapter"),
                      ready_timeout=float(data.get("ready_timeout", 60.0)), env=dict(data.get("env", {})),
                      pages=pages, state=dict(data.get("state", {})))
    return sidecar, []


__all__ = ["KINDS", "Sidecar", "declared_path", "load_toml", "read_pages", "read_sidecar"]
