"""Progress of long enumerations on stderr: a rich display on a terminal, sparse plain lines otherwise.

Both take `(phase, done, total, depth)` calls. Phases "explore" (and any other name, such as an
engine's in the benchmark) report (expanded, discovered states, depth); "scan" and "write" report
(done, total); "check" has no counts. On a terminal each phase is one rich line with states, depth
and states/s. Elsewhere (a log, a pipe, CI) a phase prints nothing until it has run for `every`
seconds, then one newline-terminated line every `every` seconds and a last one when it ends, so a
short run stays silent and a long one leaves a readable log instead of one line of carriage returns.

    with progress_display("fsmc enumerate") as show:
        enumerate_spec(spec, out, opts, on_phase=show)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

PhaseProgress = Callable[[str, int, int, int], None]
EVERY = 10.0  # seconds between two plain lines


def describe(phase: str, done: int, total: int, depth: int, seconds: float) -> str:
    """What a phase has done so far, in words."""
    if phase == "check":
        return "checking the spec"
    if phase == "scan":
        return f"{done:,}/{total:,} states scanned for goals"
    if phase == "write":
        return f"{done:,}/{total:,} goals written"
    if total == 0:
        return "starting"
    return f"{total:,} states, depth {depth}, {total / max(seconds, 1e-9):,.0f} states/s"


class PlainProgress:
    """Newline-terminated lines, at most one per `every` seconds, only for phases that run that long."""

    def __init__(self, label: str = "", stream: TextIO | None = None, every: float = EVERY,
                 clock: Callable[[], float] = time.monotonic):
        self.prefix = f"{label}: " if label else ""
        self.stream, self.every, self.clock = stream, every, clock
        self.phase: str | None = None
        self.last: tuple[int, int, int] = (0, 0, 0)
        self.start = self.printed = 0.0
        self.shown = False

    def _line(self, text: str) -> None:
        print(f"{self.prefix}{text}", file=self.stream or sys.stderr, flush=True)

    def _end(self) -> None:
        if self.phase is not None and self.shown:
            seconds = self.clock() - self.start
            self._line(f"{self.phase}: done: {describe(self.phase, *self.last, seconds)} ({seconds:.1f}s)")
        self.phase, self.shown = None, False

    def __call__(self, phase: str, done: int, total: int, depth: int) -> None:
        now = self.clock()
        if phase != self.phase:
            self._end()
            self.phase, self.start, self.printed = phase, now, now
        self.last = (done, total, depth)
        if now - self.printed >= self.every:
            self.printed, self.shown = now, True
            self._line(f"{phase}: {describe(phase, done, total, depth, now - self.start)}")

    def close(self) -> None:
        self._end()


class RichProgress:
    """One rich progress line per phase; earlier phases are marked done when a new one starts."""

    def __init__(self, progress: Progress, label: str = ""):
        self.progress, self.label = progress, label
        self.tasks: dict[str, TaskID] = {}
        self.start = time.perf_counter()

    def _begin(self, phase: str, total: int | None) -> None:
        for task in self.tasks.values():
            self.progress.update(task, total=1, completed=1)
        name = f"{self.label} {phase}".strip()
        self.tasks[phase] = self.progress.add_task(name, total=total, info="")
        self.start = time.perf_counter()

    def __call__(self, phase: str, done: int, total: int, depth: int) -> None:
        if phase not in self.tasks:
            self._begin(phase, total if phase in ("scan", "write") else None)
        info = describe(phase, done, total, depth, time.perf_counter() - self.start)
        self.progress.update(self.tasks[phase], completed=done, info=info)


@contextmanager
def progress_display(label: str = "", *, every: float = EVERY, transient: bool = True) -> Iterator[PhaseProgress]:
    """A rich display when stderr is a terminal, else sparse plain lines (see the module docstring)."""
    console = Console(stderr=True)
    if not console.is_terminal:
        plain = PlainProgress(label, every=every)
        try:
            yield plain
        finally:
            plain.close()
        return
    columns = (TextColumn("{task.description:>8}"), BarColumn(), TextColumn("{task.fields[info]}"),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=transient) as progress:
        yield RichProgress(progress, label)
