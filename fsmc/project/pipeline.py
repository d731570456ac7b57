"""One site through the whole pipeline, check → enumerate → verify → build → replay → export, by the library's own
functions; a stage whose inputs have not changed since its last success is skipped (fsmc.project.stamps).

Besides each stage's own output, enumerate draws the page graph (OUT/graph.svg) and the statistics
(OUT/stats.png), and replay writes the gallery (DATA/gallery/), which the project's index links to.
A stage that fails ends its site's run with the reason; it never raises, so other sites go on.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc import __version__
from fsmc.compilation import Compilation
from fsmc.diagnostics import SpecError, has_errors, render_text
from fsmc.errors import FsmcError
from fsmc.lock import FolderBusy, output_lock
from fsmc.project.config import Site
from fsmc.project.shards import SHARDS, Map, replay_sharded
from fsmc.project.stamps import Stamps, digest, folder_digest

STAGES = ("check", "enumerate", "verify", "build", "replay", "export")
GRAPH, STATS = "graph.svg", "stats.png"
REPLAY_LOGS = frozenset({"progress.jsonl", "runs.jsonl", SHARDS})  # replay's journal, timings, shards: no results
SPEED_ONLY = ("workers", "shard_size")  # replay options that change how fast it goes, never what it writes
SHARD_SIZE = 200  # trajectories to a replay shard on Ray, unless [replay] shard_size says otherwise
PROGRESS_EVERY = 30.0  # seconds between progress lines of a long replay

Say = Callable[[str], None]


class StageFailed(FsmcError):
    """A stage could not finish; the message says why in one line (diagnostics were printed before)."""


@dataclass
class StageResult:
    stage: str
    seconds: float
    skipped: bool
    note: str = ""


@dataclass
class SiteResult:
    """How far one site got: each stage run or skipped, and the failure that stopped it, if one did."""

    name: str
    stages: list[StageResult] = field(default_factory=list)
    failed: str | None = None  # the stage that failed
    error: str = ""
    pages: int | None = None
    lines: list[str] = field(default_factory=list)  # what the run said, when it ran where no one sees its stderr

    @property
    def ok(self) -> bool:
        return self.failed is None

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages)


def built_site(site: Site) -> Path:
    """Where `fsmc build` puts the site: BUILD/<the name its spec declares>, as its enumeration's manifest records
    it (the project's name for the site before any enumeration)."""
    try:
        declared = json.loads((site.out / "manifest.json").read_text(encoding="utf-8"))["spec"]["site"]
    except (OSError, ValueError, KeyError, TypeError):
        declared = site.name
    return site.build / str(declared)


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class SiteRun:
    """The state one site's stages share: its compilation (read and checked once) and the digests of the
    outputs each stage left, which the later stages' inputs name."""

    def __init__(self, site: Site, stamps: Path, say: Say, shard_map: Map | None = None):
        self.site, self.say, self.shard_map = site, say, shard_map
        self.stamps = Stamps(stamps / site.name)
        self.c = Compilation(os.path.relpath(site.spec, site.root))  # run_site works in the project's folder
        self.outputs: dict[str, str] = {}

    @property
    def spec(self) -> str:
        """The digest of the spec's text and its table files."""
        from fsmc.enumerate import spec_digest

        try:
            return spec_digest(self.c.source, self.c.ir)
        except SpecError as err:
            self._print(err.diagnostics)
            raise StageFailed(f"{self.site.spec.name} cannot be read: {err.diagnostics[0].message}") from None

    @property
    def dist(self) -> Path:
        """The built site's dist/: BUILD/<the name the spec declares>/dist."""
        return self.site.build / self.c.ir.site.name / "dist"

    def _print(self, diagnostics: Any) -> None:
        source = self.c.source
        print(render_text(diagnostics, {source.name: source.text} if source else {}), file=sys.stderr, flush=True)

    # ------------------------------------------------------------ each stage: its inputs, its work, its outputs

    def check(self, resume: bool) -> str:
        found = self.c.diagnostics
        errors = sum(d.severity == "error" for d in found)
        if has_errors(found):
            self._print(found)
            raise StageFailed(f"{errors} error{'s' * (errors != 1)} in {self.site.spec.name} (shown above)")
        warnings = len(found)
        return f"{len(self.c.ir.pages)} pages" + (f", {warnings} warning{'s' * (warnings != 1)}" if warnings else "")

    def enumerate(self, resume: bool) -> str:
        from fsmc.analysis.draw import draw as draw_graph
        from fsmc.enumerate import enumerate_spec
        from fsmc.enumerate.stats import draw as draw_stats
        from fsmc.enumerate.stats import output_stats

        summary = enumerate_spec(self.c, self.site.out, self._options(),
                                 on_note=lambda text: self.say(f"{self.site.name}: note: {text}"))
        draw_stats(output_stats(self.site.out), self.site.out / STATS)
        draw_graph(self.c.ir, self.site.out / GRAPH)
        return f"{summary.states:,} states, {sum(summary.trajectories.values()):,} trajectories"

    def _options(self) -> Any:
        from fsmc.enumerate import Options

        return Options(**self.site.enumerate)

    def verify(self, resume: bool) -> str:
        from fsmc.enumerate import verify_output

        report = verify_output(self.site.out, str(self.site.spec))
        if not report.ok:
            raise StageFailed(f"{len(report.mismatches)} mismatches, the first: {report.mismatches[0]}")
        return f"{report.trajectories:,} trajectories hold"

    def build(self, resume: bool) -> str:
        from fsmc.codegen import build_site

        result = build_site(self.c.ir, self.site.build, self.site.theme)
        return f"{os.path.relpath(result.dist)}"

    def replay(self, resume: bool) -> str:
        from fsmc.export import write_gallery
        from fsmc.replay import replay

        options = {k: v for k, v in self.site.replay.items() if k != "shard_size"}
        shards = 0
        if self.shard_map is not None and not resume:
            size = self.site.replay.get("shard_size", SHARD_SIZE)
            shards = replay_sharded(self.site.out, self.dist, self.site.data, options, size, self.shard_map)
        summary, _ = replay(self.site.out, self.dist, self.site.data, restart=not (resume or shards),
                            on_progress=self._progress(), **options)
        self._keep_logs()
        write_gallery(self.site.data)
        if not summary["kept"]:
            raise StageFailed(f"none of {summary['trajectories']:,} trajectories was kept "
                              f"(see {os.path.relpath(self.site.data / 'report.json')})")
        where = f" in {shards} shards" if shards else ""
        return f"{summary['kept']:,}/{summary['trajectories']:,} kept, {summary['steps']:,} steps{where}"

    def _keep_logs(self) -> None:
        """Replay's journal is done with, and its timings (runs.jsonl) go to the stamps: DATA/ holds only results,
        the same bytes wherever and however it was replayed."""
        data = self.site.data
        (data / "progress.jsonl").unlink(missing_ok=True)
        runs = data / "runs.jsonl"
        if runs.is_file():
            self.stamps.folder.mkdir(parents=True, exist_ok=True)
            with (self.stamps.folder / "replay-runs.jsonl").open("a", encoding="utf-8") as log:
                log.write(runs.read_text(encoding="utf-8"))
            runs.unlink()

    def _progress(self) -> Callable[[Any], None]:
        last = [time.perf_counter()]

        def show(stats: Any) -> None:
            if time.perf_counter() - last[0] >= PROGRESS_EVERY:
                last[0] = time.perf_counter()
                done = stats.kept + sum(stats.rejected.values())
                self.say(f"{self.site.name}: replay: {done:,}/{stats.trajectories:,} trajectories, {stats.steps:,} steps")

        return show

    def export(self, resume: bool) -> str:
        import datasets

        from fsmc.export import export

        datasets.disable_progress_bars()
        options = dict(self.site.export)
        fmt = options.pop("format", "sft")
        counts = export(self.site.data, fmt, self.site.dataset, **options)
        return f"{fmt}, " + ", ".join(f"{n:,} {split} rows" for split, n in counts.items())

    def inputs(self, stage: str) -> dict[str, Any]:
        """What a stage's result depends on, besides fsmc's version."""
        o = self.outputs
        return {
            "check": lambda: {"spec": self.spec},
            "enumerate": lambda: {"spec": self.spec, "options": self._options().to_json()},
            "verify": lambda: {"enumerate": o["enumerate"]},
            "build": lambda: {"spec": self.spec, "theme": self.site.theme},
            "replay": lambda: {"enumerate": o["enumerate"], "build": o["build"],
                               "options": {k: v for k, v in self.site.replay.items() if k not in SPEED_ONLY}},
            "export": lambda: {"replay": o["replay"], "options": self.site.export},
        }[stage]()

    def output(self, stage: str) -> str:
        """The digest of what a stage leaves for the later ones ("" for the stages that only judge)."""
        if stage == "enumerate":
            return folder_digest(self.site.out)
        if stage == "build":
            return folder_digest(self.dist)
        if stage == "replay":
            return folder_digest(self.site.data, REPLAY_LOGS)
        if stage == "export":
            return folder_digest(self.site.dataset)
        return ""

    # ------------------------------------------------------------ running them

    @contextlib.contextmanager
    def _writing(self, stage: str) -> Iterator[None]:
        """The lock of the folder `stage` writes (fsmc.lock), as `fsmc STAGE` takes it: the stage fails at once,
        naming the other writer, while another command writes it."""
        folder = {"enumerate": self.site.out, "build": self.dist.parent, "replay": self.site.data,
                  "export": self.site.dataset}.get(stage)
        if folder is None:
            yield
            return
        try:
            with output_lock(folder, f"fsmc run ({self.site.name}: {stage})") as lock:
                if lock.stale is not None:
                    self.say(f"{self.site.name}: note: took over the lock of {os.path.relpath(folder)} from "
                             f"{lock.stale}, which ended without letting go of it")
                yield
        except FolderBusy as busy:
            raise StageFailed(str(busy)) from None

    def stage(self, stage: str) -> StageResult:
        """Run one stage, or skip it when its stamp names the same inputs and its outputs are as it left them."""
        start = time.perf_counter()
        key = digest({"stage": stage, "fsmc": __version__, **self.inputs(stage)})
        stamp = self.stamps.done(stage)
        if stamp is not None and stamp.get("key") == key and stamp.get("outputs") == self.output(stage):
            self.outputs[stage] = stamp["outputs"]
            return StageResult(stage, time.perf_counter() - start, True, "unchanged")
        resume = self.stamps.pending(stage) == key
        with self._writing(stage):
            self.stamps.begin(stage, key)
            note = getattr(self, stage)(resume)
        self.outputs[stage] = self.output(stage)
        self.stamps.finish(stage, key, self.outputs[stage])
        return StageResult(stage, time.perf_counter() - start, False, note)


def run_site(site: Site, stamps: Path, say: Say | None = to_stderr, width: int = 0,
             shard_map: Map | None = None) -> SiteResult:
    """Every stage of one site in order, in the project's folder; a failing stage ends the site's run and is reported
    in the result. `say` prints each line of progress; None keeps them in the result's `lines` instead (on Ray,
    where a worker's output reaches the driver late or not at all). `shard_map` (on Ray) runs a big replay's
    shards elsewhere."""
    result = SiteResult(site.name)
    say = result.lines.append if say is None else say
    with contextlib.chdir(site.root):
        run = SiteRun(site, stamps, say, shard_map)
        for stage in STAGES:
            if not _stage(run, stage, result, width):
                break
        with contextlib.suppress(SpecError):
            result.pages = len(run.c.ir.pages)
    return result


def _stage(run: SiteRun, stage: str, result: SiteResult, width: int) -> bool:
    """One stage into the result, and a line saying how it went; False when it failed."""
    name = run.site.name
    start = time.perf_counter()
    try:
        done = run.stage(stage)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as err:  # noqa: BLE001 - whatever stops one site is reported, and the others go on
        result.stages.append(StageResult(stage, time.perf_counter() - start, False))
        result.failed, result.error = stage, _reason(err)
        run.say(f"{name:<{width}}  {stage:<9}  failed: {result.error}")
        return False
    result.stages.append(done)
    when = "skipped" if done.skipped else f"{done.seconds:.1f} s"
    run.say(f"{name:<{width}}  {stage:<9}  {when:>8}  {done.note}".rstrip())
    return True


def _reason(err: Exception) -> str:
    """One line saying why a stage failed; FSMC_DEBUG=1 prints the traceback too."""
    if os.environ.get("FSMC_DEBUG") == "1":
        traceback.print_exception(err, file=sys.stderr)
    if isinstance(err, StageFailed):
        return str(err)
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")
