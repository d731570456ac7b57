"""`fsmc replay`: execute enumerated trajectories in Chromium through a built site; keep the ones that hold."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fsmc.backends import IMAGE_FORMATS
from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, Failure, Unreadable, Usage, each_site, given, shown, writing

NAME = "replay"
HELP = "Replay the trajectories of OUT/ in Chromium through a built site, grounding every step; write DATA/."
DESCRIPTION = HELP + """

Every atomic GUI operation finds its element by data-testid, scrolls it into view when needed, takes
its bounding box and acts at its centre with the mouse and keyboard. Each step is recorded with the
screenshot before it (1280x720), pixel and normalised coordinates, the element's box and the URL;
after each move the site's state must equal the semantics' state. A trajectory is kept only if every
step executed and every state matched; rejected ones are counted by reason in DATA/report.json.

Without --site, the backend the spec declares is used: `backend app "SIDECAR.toml"` starts a cloned
application (a real web application, e.g. Django's admin), resets it by restoring its database before
every trajectory and reads its state from the database after every move (docs/language.md, Backends).

With --app WEB, the site is another generator's: an AutoWebWorld app folder (web/: package.json, src/ with
its FSM runtime and its pinia store `signature`) of the world OUT was enumerated from. fsmc builds it with
Vite (npm installs what fsmc's own packages lack, once, in a cache), serves it on 127.0.0.1, acts every
trajectory out from a fresh page with the world's own selectors, reads the runtime's signature as the state
after every move, and reports how many trajectories execute and how many agree with the semantics, and,
for each that does not, the first move whose state differs (variable, found, expected).

Each distinct transition is proven once through the UI and reused by every trajectory that takes it.
Interrupt at any time (Ctrl-C, or a kill) and run the same command again: finished trajectories are
not redone and the result is the same as an uninterrupted run's.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("out", nargs="?", help="an `fsmc enumerate` output folder (default: every site of the project, "
                                                "each with its folders)")
    parser.add_argument("--site", help="the built site: generated_sites/<site>, its dist/, or its name (with OUT; "
                                       "left out: the backend the spec declares)")
    parser.add_argument("--app", metavar="WEB", help="an AutoWebWorld app folder (web/) of OUT's world: build it, act "
                                                      "the trajectories out on it and report how many execute and agree")
    parser.add_argument("-o", "--data", help="folder for the replayed data (resumed if it exists; needed with OUT)")
    parser.add_argument("--workers", type=int, help="browser pages working at once (default: two per core)")
    parser.add_argument("--limit", type=int, help="replay only the first N trajectories")
    parser.add_argument("--image-format", choices=tuple(IMAGE_FORMATS),
                        help="screenshot encoding: jpeg (default, quality 90: faster and smaller) or png (lossless)")
    parser.add_argument("--restart", action="store_true", help="discard what DATA holds and start over")


@contextmanager
def progress(total_hint: str) -> Iterator[Callable[[Any], None]]:
    """A progress bar on a terminal; otherwise a plain line every few seconds."""
    start = time.perf_counter()
    if sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(TextColumn(total_hint), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
                      TimeRemainingColumn(), transient=True) as bar:
            task = bar.add_task("replay", total=None, info="")

            def show(stats: Any) -> None:
                done = stats.kept + sum(stats.rejected.values())
                rate = stats.steps / max(1e-9, time.perf_counter() - start)
                bar.update(task, total=stats.trajectories, completed=done,
                           info=f"{rate:,.0f} steps/s, {sum(stats.rejected.values())} rejected")

            yield show
        return
    last = [start]

    def line(stats: Any) -> None:
        done = stats.kept + sum(stats.rejected.values())
        now = time.perf_counter()
        if now - last[0] >= 10 or done == stats.trajectories:
            last[0] = now
            print(f"{total_hint}: {done:,}/{stats.trajectories:,} trajectories, {stats.steps:,} steps, "
                  f"{sum(stats.rejected.values())} rejected", file=sys.stderr, flush=True)

    yield line


OPTIONS = ("workers", "limit", "image_format")
DEFAULTS = {"workers": max(2, min(8, 2 * (os.cpu_count() or 1)))}


def run(args: argparse.Namespace) -> int:
    from fsmc.project.pipeline import built_site

    if (args.workers is not None and args.workers < 1) or (args.limit is not None and args.limit < 1):
        raise Failure("error: --workers and --limit must be at least 1")
    if args.out is None:
        return each_site(args, _replay, lambda site: {"out": shown(site.out), "site": shown(built_site(site)),
                                                      "data": shown(site.data), "project_options": site.replay},
                         only_with_spec={"site": "--site", "app": "--app", "data": "-o/--data"})
    if args.data is None:
        raise Usage("fsmc replay: -o DATA is needed with OUT")
    if args.site is not None and args.app is not None:
        raise Usage("fsmc replay: --site and --app name two sites; give one")
    return _replay(args)


def _replay(args: argparse.Namespace) -> int:
    """One output folder; the options typed win over the project's (`project_options`) and those over the defaults."""
    from fsmc.browser import BrowserMissing
    from fsmc.codegen.awm_app import AppFolderError, BuildError
    from fsmc.replay import BackendError, InputError, replay

    options = given(args, OPTIONS, {**DEFAULTS, **getattr(args, "project_options", {})})
    try:
        with writing(args.data, NAME), progress(f"fsmc replay {args.data}") as show:
            summary, stats = replay(args.out, args.site, args.data, restart=args.restart, on_progress=show,
                                    app=getattr(args, "app", None), **options)
    except (InputError, FileNotFoundError, AppFolderError) as err:
        raise Unreadable(f"error: {err}") from None
    except (BrowserMissing, BackendError, BuildError) as err:
        raise Failure(f"error: {err}") from None
    _report(args.data, summary, stats)
    if "agreement" in summary:
        return _agreement(args.app, summary["agreement"])
    return EXIT_OK if summary["kept"] else EXIT_ERRORS


SHOWN = 10  # disagreements printed; report.json holds them all


def _agreement(app: str, found: dict[str, Any]) -> int:
    """The verdict on another generator's site: exit 0 when every trajectory executes and agrees."""
    print(f"{app}: {found['executed']:,}/{found['trajectories']:,} trajectories execute, "
          f"{found['agree']:,}/{found['trajectories']:,} agree with the semantics")
    for d in found["disagreements"][:SHOWN]:
        where = "the initial state" if d["move"] is None else f"move {d['move']} ({d['action']})"
        print(f"  {d['trajectory']}: first differs at {where}: {d['difference']}")
    if len(found["disagreements"]) > SHOWN:
        print(f"  … {len(found['disagreements']) - SHOWN:,} more in report.json")
    return EXIT_OK if found["agree"] == found["trajectories"] else EXIT_ERRORS


def _report(data: str, summary: dict[str, Any], stats: Any) -> None:
    reasons = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in summary["rejected_by_reason"].items() if n)
    rate = stats.steps / stats.seconds if stats.seconds else 0.0
    print(f"{data}: {summary['kept']:,}/{summary['trajectories']:,} trajectories kept"
          + (f" ({summary['rejected']:,} rejected: {reasons})" if summary["rejected"] else "")
          + f"; {summary['steps']:,} steps, {summary['screenshots']:,} screenshots")
    print(f"this run: {stats.transitions:,} transitions proven in the browser, {stats.screenshots:,} screenshots, "
          f"{stats.seconds:.1f} s ({rate:,.0f} dataset steps/s)"
          + (f", {stats.resumed:,} trajectories resumed" if stats.resumed else "")
          + (f"; {stats.blocked_requests} requests outside the site blocked" if stats.blocked_requests else ""))
    if stats.view_mismatches:
        print(f"warning: {stats.view_mismatches} of {stats.view_checks} sampled views reached through the UI "
              "differ from the stored view of the same state", file=sys.stderr)
