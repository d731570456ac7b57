"""The output folder: written whole into a hidden sibling, then swapped into place, so OUT is never half-written.

A run that is killed leaves OUT as it was (the previous complete output, or nothing) and a hidden
`.OUT.tmp-PID` sibling, which the next run into OUT removes once process PID is gone.

Files: bfs.json (AutoWebWorld shape), trajectories.jsonl, tasks.jsonl, manifest.json. Nothing in
them depends on time, paths of temporary files or hash seeds: the same inputs give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from fsmc import ir
from fsmc.errors import FsmcError
from fsmc.source import Source, recall

FILES = ("bfs.json", "trajectories.jsonl", "tasks.jsonl", "manifest.json")


class OutputError(FsmcError):
    """The output folder cannot be written (the message says why and what to do)."""


def dumps_line(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def dumps_doc(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _spec_bytes(path: str | Path | Source) -> bytes:
    """The bytes of the spec file as they were read and parsed (fsmc.source.recall), else read now."""
    if isinstance(path, Source):
        return path.data
    source = recall(str(path))
    if source is not None:
        return source.data
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def spec_digest(path: str | Path | Source | None, spec: ir.Spec) -> str:
    """sha256 of the spec file's bytes and of every table's rows (data loaded from other files included)."""
    h = hashlib.sha256()
    if path is not None:
        h.update(_spec_bytes(path))
    for t in spec.tables:
        h.update(b"\0table\0" + t.name.encode())
        h.update(json.dumps([list(r) for r in t.rows], ensure_ascii=False).encode())
    return h.hexdigest()


PROJECT_MARKERS = ("fsmc.toml", "pyproject.toml")


def project_root(start: str | Path) -> Path | None:
    """The nearest folder from `start` upwards that holds fsmc.toml or pyproject.toml."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        if any((folder / m).is_file() for m in PROJECT_MARKERS):
            return folder
    return None


def spec_reference(spec: str | Path, out: str | Path) -> str:
    """How manifest.json names the spec, the same in every checkout: relative to its project
    (the folder holding fsmc.toml or pyproject.toml), else to the output folder's parent."""
    path = Path(spec).resolve()
    base = project_root(path.parent) or Path(out).resolve().parent
    return Path(os.path.relpath(path, base)).as_posix()


def resolve_spec(recorded: str, out: str | Path) -> Path:
    """The spec file a manifest names: looked up from OUT's project, the current folder's project, OUT's
    parent and the current folder, in that order (an absolute path, from older outputs, as it is)."""
    if Path(recorded).is_absolute():
        return Path(recorded)
    out = Path(out).resolve()
    bases = [project_root(out.parent), project_root(Path.cwd()), out.parent, Path.cwd()]
    for base in bases:
        if base is not None and (base / recorded).is_file():
            return base / recorded
    return Path(recorded)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class OutDir:
    """`with OutDir(out) as d: d.open(name) ...; d.commit()` — OUT appears complete or not at all."""

    def __init__(self, final: str | Path):
        self.final = Path(final)
        self.tmp = self.final.parent / f".{self.final.name}.tmp-{os.getpid()}"
        self._files: dict[str, IO[str]] = {}

    def prepare(self) -> None:
        """Refuse a folder that is not an output and remove what killed runs left, before any work is done."""
        self._refuse_foreign()
        try:
            self.final.parent.mkdir(parents=True, exist_ok=True)
            self._remove_stale()
        except OSError as err:
            raise OutputError(f"cannot create {self.final}: {err.strerror or err}") from None

    def __enter__(self) -> OutDir:
        self._refuse_foreign()
        try:
            self.final.parent.mkdir(parents=True, exist_ok=True)
            self._remove_stale()
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp.mkdir()
        except OSError as err:
            raise OutputError(f"cannot create {self.final}: {err.strerror or err}") from None
        return self

    def _refuse_foreign(self) -> None:
        f = self.final
        if f.exists() and not f.is_dir():
            raise OutputError(f"{f} exists and is not a folder; choose another output folder")
        if f.is_dir() and any(f.iterdir()) and not (f / "manifest.json").exists():
            raise OutputError(f"{f} is not empty and holds no manifest.json from `fsmc enumerate`; "
                              "choose a new or empty folder (it is replaced as a whole)")

    def _remove_stale(self) -> None:
        """Remove the hidden siblings that killed runs into the same OUT left behind."""
        for p in self.final.parent.glob(f".{self.final.name}.*-*"):
            kind, _, pid = p.name[len(self.final.name) + 2:].partition("-")
            if kind in ("tmp", "old") and pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(p, ignore_errors=True)

    def open(self, name: str) -> IO[str]:
        fh = open(self.tmp / name, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 - closed in commit/exit
        self._files[name] = fh
        return fh

    def write(self, name: str, text: str) -> None:
        (self.tmp / name).write_text(text, encoding="utf-8", newline="\n")

    def path(self, name: str) -> Path:
        return self.tmp / name

    def _close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def commit(self) -> None:
        self._close()
        old = self.final.parent / f".{self.final.name}.old-{os.getpid()}"
        try:
            if self.final.exists():
                os.replace(self.final, old)
            os.replace(self.tmp, self.final)
        except OSError as err:
            raise OutputError(f"cannot move the output into {self.final}: {err.strerror or err}") from None
        shutil.rmtree(old, ignore_errors=True)

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self._close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def gui_kind(action: ir.Action) -> str:
    """AutoWebWorld's action `name`: the kind of interaction (click, type, search, select)."""
    ops = [g.op for g in action.gui]
    if "type" in ops:
        return "search" if "press" in ops else "type"
    return "select" if "select" in ops else "click"


def access_method(moves: list[dict[str, Any]]) -> str:
    """How a path reaches its target, in AutoWebWorld's terms: search, filter, scroll or direct."""
    ops = {op["op"] for m in moves for op in m["gui"]}
    if "type" in ops:
        return "search"
    if ops & {"select", "drag"}:
        return "filter"
    if ops & {"scroll_until_visible", "repeat_click"}:
        return "scroll"
    return "direct"


def bfs_path(spec: ir.Spec, record: dict[str, Any]) -> dict[str, Any]:
    """One trajectory record as a path of bfs.json."""
    actions = []
    for m in record["moves"]:
        act = spec.page(m["page"]).actions
        action = next(a for a in act if a.name == m["action"])
        aid = f"{m['page']}.{m['action']}"
        actions.append({"id": aid, "name": gui_kind(action), "from": m["page"], "to": m["state"]["page"],
                        "params": m["args"]})
    return {"actions": actions, "id_seq": [a["id"] for a in actions], "access_method": access_method(record["moves"])}
