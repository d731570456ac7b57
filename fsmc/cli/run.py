"""`fsmc run`: every site of the project through check → enumerate → verify → build → replay → export."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, Failure, current_project, positive, shown

if TYPE_CHECKING:
    from fsmc.project import Project, Site, SiteResult

NAME = "run"
HELP = ("Take every site of the project (or the SITEs named) through check, enumerate, verify, build, replay and "
        "export, skipping each stage whose inputs have not changed; a summary table and an HTML index at the end.")
DESCRIPTION = HELP + """

A stage is skipped when its inputs (the spec, the options, fsmc's version, the outputs of the stages
before it) have the same content hashes as at its last success and its own outputs are as it left them;
the stamps live in .fsmc/ beside the project file. A site whose stage fails is reported and the other
sites go on; the exit status is then 1.

--ray spreads the sites over a Ray cluster (a local one when no ADDRESS is given); where the cluster has
more CPUs than there are sites, it also splits each site's replay into shards of [replay] shard_size
trajectories (default 200), each a Ray task, merged into the same files a local run writes. On several
machines every machine must see the project at the same path (a shared file system).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("sites", nargs="*", metavar="SITE",
                        help="the sites to run (default: every site of the project)")
    parser.add_argument("-j", "--jobs", type=positive, default=1,
                        help="sites at once in local processes; with --ray and no ADDRESS, the CPUs of the local "
                             "cluster (default 1; with --ray: every core)")
    parser.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                        help="run on a Ray cluster: ADDRESS (host:port, or 'auto' for the one `ray start` made "
                             "here), or a local cluster when none is given")


def run(args: argparse.Namespace) -> int:
    from fsmc.project import LOCAL, ClusterError, ProjectError, run_sites, write_index

    project = current_project(NAME)
    if args.ray and ":" not in args.ray and args.ray in {s.name for s in project.sites}:  # `--ray shop`: a SITE
        args.sites, args.ray = [*args.sites, args.ray], LOCAL
    try:
        sites = project.select(args.sites)
    except ProjectError as err:
        raise Failure(str(err), err) from None
    where = "a local Ray cluster" if args.ray == "" else f"the Ray cluster at {args.ray}" if args.ray else "here"
    print(f"fsmc run: {len(sites)} site{'s' * (len(sites) != 1)} of {shown(project.file)}, on {where}",
          file=sys.stderr, flush=True)
    start = time.perf_counter()
    try:
        results = run_sites(sites, project.stamps, jobs=args.jobs, ray=args.ray)
    except ClusterError as err:
        raise Failure(f"fsmc run: error: {err}", err) from None
    index = write_index(project, sites, results)
    _summary(project, sites, results, time.perf_counter() - start)
    print(f"index: {shown(index)}")
    return EXIT_OK if all(r.ok for r in results) else EXIT_ERRORS


def _summary(project: Project, sites: tuple[Site, ...], results: list[SiteResult], seconds: float) -> None:
    """The table of every site's figures on stdout, then a line saying how many failed."""
    from fsmc.project import COLUMNS, cells, site_row

    found = [site_row(site, result) for site, result in zip(sites, results, strict=True)]
    rows = [cells(row) for row in found]
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
    print()
    for row in (list(COLUMNS), ["-" * w for w in widths], *rows):
        print("  ".join(cell.ljust(w) if i in (0, len(row) - 1) else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    failed = [r.name for r in results if not r.ok]
    partial = [row["site"] for row in found if "partial" in row["status"]]
    skipped = sum(s.skipped for r in results for s in r.stages)
    ran = sum(not s.skipped for r in results for s in r.stages)
    print(f"\n{len(results) - len(failed)} of {len(results)} sites ok"
          + (f", failed: {', '.join(failed)}" if failed else "")
          + (f", partial: {', '.join(partial)} (see the status column)" if partial else "")
          + f"; {ran} stages run, {skipped} skipped as unchanged; {seconds:.1f} s")
