"""Many sites at once: one after another, in N local processes, or as tasks on a Ray cluster.

Each site runs whole where it is sent (fsmc.project.pipeline.run_site), so a site's outputs are the same
bytes wherever it ran; on Ray a site's replay may be split further into shards, each a task of its own
(fsmc.project.shards), merged into the same bytes. Ray is imported only when asked for. On a cluster of
several machines every machine must see the project at the same path (a shared file system), since each
writes its sites' folders.
"""

from __future__ import annotations

import logging
import multiprocessing
import socket
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from fsmc.errors import FsmcError
from fsmc.project.config import Site
from fsmc.project.pipeline import SiteResult, run_site, to_stderr

LOCAL = ""  # `fsmc run --ray` without an address: a Ray cluster started on this machine


class ClusterError(FsmcError):
    """Ray is missing or its cluster cannot be reached; the message says what to do."""


def run_sites(sites: tuple[Site, ...], stamps: Path, *, jobs: int = 1, ray: str | None = None) -> list[SiteResult]:
    """Every site's pipeline, results in the sites' order: `jobs` at a time here, or on Ray (`ray`: an address,
    or LOCAL for a cluster of `jobs` CPUs on this machine) when `ray` is not None."""
    width = max((len(s.name) for s in sites), default=0)
    if ray is not None:
        return _on_ray(sites, stamps, width, ray, jobs)
    if jobs <= 1 or len(sites) <= 1:
        return [run_site(s, stamps, width=width) for s in sites]
    # spawn, not fork: the parent may hold threads (a progress display, Chromium's pipes) a fork would copy half-way
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        n = len(sites)
        return list(pool.map(run_site, sites, [stamps] * n, [to_stderr] * n, [width] * n))


def _on_ray(sites: tuple[Site, ...], stamps: Path, width: int, address: str, jobs: int) -> list[SiteResult]:
    ray = _connect(address, jobs)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(run_site)
        # shards pay off only on CPUs the sites leave idle: each shard proves again the transitions it shares
        shards = ray_map if ray.cluster_resources().get("CPU", 1) > len(sites) else None
        return _gather(ray, {task.remote(site, stamps, None, width, shards): site for site in sites}, width)
    finally:
        ray.shutdown()


def _gather(ray: Any, tasks: dict[Any, Site], width: int) -> list[SiteResult]:
    """The sites' results in their order; as each finishes, the lines its run said (returned as data with its result:
    the output Ray forwards from a worker may reach the driver late, or not at all) and a line of verdict."""
    order, results = list(tasks.values()), {}
    pending = list(tasks)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        result: SiteResult = ray.get(done[0])
        results[result.name] = result
        for line in result.lines:
            to_stderr(line)
        verdict = "done" if result.ok else f"failed at {result.failed}: {result.error}"
        to_stderr(f"{result.name:<{width}}  {verdict} ({result.seconds:.1f} s on the cluster)")
    return [results[site.name] for site in order]


def _connect(address: str, jobs: int) -> Any:
    """Ray, connected to the cluster at `address` or to one started here (LOCAL: `jobs` CPUs, or every core)."""
    _reachable(address)
    try:
        import ray
    except ImportError:
        raise ClusterError("--ray needs Ray, which fsmc depends on: pip install 'ray>=2.9'") from None
    options = {"address": address} if address != LOCAL else {"num_cpus": jobs} if jobs > 1 else {}
    try:
        ray.init(**options, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
                 configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {err}") from None
    return ray


def _reachable(address: str, timeout: float = 5.0) -> None:
    """ClusterError at once for a host:port nothing listens on (Ray itself would retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or "/" in host:  # LOCAL, "auto", ray://...: left to Ray
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {err.strerror or err}; start one with "
                           "`ray start --head` there, or leave out the address for a cluster on this machine") from None


def ray_map(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    """fsmc.project.shards.Map on Ray: a task for each call (from inside a site's task: Ray lends that task's CPU
    to its shards while it waits for them)."""
    import ray

    task = ray.remote(num_cpus=1, max_retries=0)(fn)
    return list(ray.get([task.remote(*args) for args in calls]))
