"""What the agent's tools do to a generated project, and the guard on every edit.

An edit (a write or a delete in the custom area) is kept only if the project still builds with Vite, every
file outside the custom area is byte for byte what it was, and the conformance sample passes in Chromium.
Otherwise the custom area and dist/ are put back as they were before the edit, and the error is what the
tool answers. dist/ is therefore always the last good build: the one before an edit is moved aside while
the edit is built and checked, and moved back if the edit is refused (or the run is interrupted).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsmc.agent import area
from fsmc.agent.sample import Browser, Sample
from fsmc.codegen import BuildError, bundle
from fsmc.semantics import Machine

MAX_READ = 20_000  # characters of a file read_file shows
MAX_FAILURES = 6  # failed transitions listed in a tool result
BACKUP = ".fsmc-agent"


@dataclass(frozen=True)
class Result:
    """A tool's answer to the agent: its text, an image for screenshots, and whether an edit was refused."""

    text: str
    image: bytes | None = None
    reverted: bool = False
    ok: bool = True


class Workspace:
    """The project at `root`, its conformance sample and the run's browser."""

    def __init__(self, root: Path, machine: Machine, sample: Sample, browser: Browser):
        self.root, self.machine, self.sample, self.browser = root, machine, sample, browser
        self.dist = root / "dist"
        self.protected: dict[str, str] = {}
        self.edits = 0  # edits kept
        self.ready = False  # hooked, built and checked

    def baseline(self) -> str | None:
        """Hook the custom area in, build, and check the sample: why the starting site is not good, or None. On
        failure dist/ and the custom area are put back as they were. From here on the files outside the custom
        area are protected by their hashes."""
        error = self._guarded(lambda: area.install_hooks(self.root), self._check_baseline)
        self.ready = error is None
        return error

    def _check_baseline(self) -> str | None:
        try:
            bundle(self.root)
        except BuildError as err:
            return f"the build failed: {err}"
        self.protected = area.protected_hashes(self.root)
        failures = self.browser.check(self.dist, self.sample.transitions)
        return self._failed(failures) if failures else None

    # ---------------------------------------------------------------- read-only tools
    def list_files(self) -> Result:
        return Result("\n".join(area.listing(self.root)))

    def read_file(self, rel: str) -> Result:
        try:
            text = area.readable_path(self.root, rel).read_text(encoding="utf-8", errors="replace")
        except area.AreaError as err:
            return Result(str(err), ok=False)
        if len(text) > MAX_READ:
            text = text[:MAX_READ] + f"\n… (cut: {len(text):,} characters in all)"
        return Result(text)

    def screenshot(self, page: str) -> Result:
        state = self.sample.pages.get(page)
        if state is None:
            return Result(f"no page {page!r}; the pages: {', '.join(self.sample.pages)}", ok=False)
        image = self.browser.screenshot(self.dist, state)
        return Result(f"the page {page!r} at 1280×720, in {self.machine.to_json(state)}", image=image)

    def conformance(self) -> Result:
        failures = self.browser.check(self.dist, self.sample.transitions)
        if failures:
            return Result(self._failed(failures), ok=False)
        return Result(f"the built site passes the conformance sample ({len(self.sample.transitions)} transitions)")

    def build(self) -> Result:
        """Vite again on the current files (every edit is built already: this only says how the build stands)."""
        return self._edit(lambda: None, "built")

    # ---------------------------------------------------------------- edits
    def write_file(self, rel: str, content: str) -> Result:
        try:
            path = area.custom_path(self.root, rel)
            area.check_content(rel, content)
        except area.AreaError as err:
            return Result(f"refused: {err}", ok=False)
        if len(area.snapshot(self.root)) >= area.MAX_FILES and not path.exists():
            return Result(f"refused: the custom area holds {area.MAX_FILES} files at most", ok=False)

        def write() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")

        return self._edit(write, f"wrote {rel}")

    def delete_file(self, rel: str) -> Result:
        try:
            path = area.custom_path(self.root, rel)
        except area.AreaError as err:
            return Result(f"refused: {err}", ok=False)
        if not path.is_file():
            return Result(f"refused: {rel} does not exist", ok=False)
        return self._edit(path.unlink, f"deleted {rel}")

    def _edit(self, change: Callable[[], object], done: str) -> Result:
        error = self._guarded(change, self._verify)
        if error is not None:
            return Result(f"reverted: {error}\nThe custom area and the site are as they were before this edit.",
                          reverted=True, ok=False)
        if done != "built":
            self.edits += 1
        return Result(f"{done}: the site builds and passes the conformance sample "
                      f"({len(self.sample.transitions)} transitions)")

    def _guarded(self, change: Callable[[], object], verify: Callable[[], str | None]) -> str | None:
        """`change`, then `verify` (why not to keep it, or None), with the last good dist/ moved aside meanwhile;
        on a refusal, or anything raised (an interrupt too), the custom area and dist/ are put back."""
        before = area.snapshot(self.root)
        backup = self.root / BACKUP / "dist"
        self._drop_backup()
        backup.parent.mkdir(parents=True, exist_ok=True)
        if self.dist.is_dir():
            self.dist.rename(backup)
        try:
            change()
            error = verify()
        except BaseException:
            self._put_back(before, backup)
            raise
        if error is not None:
            self._put_back(before, backup)
        else:
            self._drop_backup()
        return error

    def _verify(self) -> str | None:
        """Why the project as it now is must not be kept, or None."""
        for rel, data in area.snapshot(self.root).items():
            try:
                area.check_content(rel, data.decode("utf-8", errors="replace"))
            except area.AreaError as err:
                return str(err)
        try:
            bundle(self.root)
        except BuildError as err:
            return f"the build failed: {err}"
        touched = area.changed(self.protected, area.protected_hashes(self.root))
        if touched:
            return f"files outside {area.CUSTOM}/ changed (the runtime, the harness and the generated pages are " \
                   f"not yours to change): {', '.join(touched[:10])}"
        failures = self.browser.check(self.dist, self.sample.transitions)
        return self._failed(failures) if failures else None

    def _failed(self, failures: list[str]) -> str:
        shown = failures[:MAX_FAILURES] + ([f"… and {len(failures) - MAX_FAILURES} more"]
                                           if len(failures) > MAX_FAILURES else [])
        return (f"the conformance sample failed on {len(failures)} of {len(self.sample.transitions)} transitions "
                "(every control a GUI procedure names must stay, visible and clickable, with its data-testid):\n"
                + "\n".join(f"  {f}" for f in shown))

    def _put_back(self, files: dict[str, bytes], backup: Path) -> None:
        area.restore(self.root, files)
        if backup.is_dir():
            shutil.rmtree(self.dist, ignore_errors=True)
            backup.rename(self.dist)
        self._drop_backup()

    def _drop_backup(self) -> None:
        shutil.rmtree(self.root / BACKUP, ignore_errors=True)
