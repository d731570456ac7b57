"""A capture folder as it lies on disk: capture.warc.gz, manifest.json, rules.toml and screens/, read back whole.

    captures/NAME/
      capture.warc.gz   every HTTP exchange, in order (WARC: any archive tool opens it)
      manifest.json     what was captured: start URL, origin, pages (URL, status, depth, the link that led there,
                        the screenshot), counts by status, requests refused, the rules' digest, the browser
      rules.toml        the normalisation rules it was made with
      screens/          each page's view as it was captured (PNG), the reference offline views are compared with

A folder is written under a temporary name beside its destination and renamed into place when complete,
so a capture that fails or is interrupted leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from fsmc.archive.routes import Recording
from fsmc.archive.rules import RULES_FILE, Rules, RulesError, load_rules, parse
from fsmc.archive.warc import WARC_FILE, ArchiveError, read_exchanges
from fsmc.errors import EXIT_ERRORS, EXIT_UNREADABLE, FsmcError

MANIFEST = "manifest.json"
SCREENS = "screens"


class CaptureError(FsmcError):
    """A capture that cannot be made or read; the message says which URL, file or request, and what to do.

    `unreadable`: the input itself is wrong (no such capture, an unreachable URL), not the work done on it.
    """

    def __init__(self, message: str, *, unreadable: bool = False):
        super().__init__(message, exit_code=EXIT_UNREADABLE if unreadable else EXIT_ERRORS)


@dataclass(frozen=True)
class Page:
    """A captured page: where it is, how it was reached, and its view when captured."""

    url: str
    status: int
    depth: int
    screenshot: str | None
    sha256: str | None
    parent: str | None = None  # the page whose link led here
    href: str | None = None  # that link's href, as written in the page

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Page:
        return cls(d["url"], d["status"], d["depth"], d.get("screenshot"), d.get("sha256"), d.get("from"), d.get("href"))


class CaptureFolder:
    """A finished capture, read lazily: its manifest first (cheap), the archive when it is needed."""

    def __init__(self, path: str | Path, extra_rules: str | Path | None = None):
        self.path = Path(path)
        if not (self.path / MANIFEST).is_file() or not (self.path / WARC_FILE).is_file():
            raise CaptureError(f"{self.path}: no capture there (looked for {MANIFEST} and {WARC_FILE}); "
                               "make one with `fsmc capture URL -o FOLDER`", unreadable=True)
        try:
            self.manifest: dict[str, Any] = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
            self.origin: str = self.manifest["origin"]
            self.pages = tuple(Page.from_json(p) for p in self.manifest["pages"])
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
            raise CaptureError(f"{self.path / MANIFEST}: not a capture manifest ({type(err).__name__}: {err})",
                               unreadable=True) from None
        self._extra = extra_rules

    @cached_property
    def rules(self) -> Rules:
        try:
            kept = self.path / RULES_FILE
            base = parse(kept.read_text(encoding="utf-8"), str(kept)) if kept.is_file() else None
            return load_rules(self._extra, base)
        except RulesError as err:
            raise CaptureError(str(err), unreadable=True) from None

    @cached_property
    def recording(self) -> Recording:
        """Every exchange of the archive; CaptureError naming the request for an archive that is incomplete."""
        try:
            return Recording(read_exchanges(self.path / WARC_FILE), self.rules)
        except ArchiveError as err:
            raise CaptureError(str(err), unreadable=True) from None

    def fingerprint_files(self) -> Iterator[Path]:
        yield from (self.path / name for name in (WARC_FILE, RULES_FILE) if (self.path / name).is_file())


@contextmanager
def folder_in_progress(dest: Path, *, replace: bool = False) -> Iterator[Path]:
    """A temporary folder beside `dest`, renamed to `dest` when the block ends without error, removed otherwise."""
    if dest.exists() and not replace:
        raise CaptureError(f"{dest}: already exists: choose another folder, or pass --force to replace it",
                           unreadable=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        yield work
        old = dest.parent / f".{dest.name}.old-{os.getpid()}"
        if dest.exists():
            os.replace(dest, old)
        os.replace(work, dest)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
