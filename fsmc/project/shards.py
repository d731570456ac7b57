"""A site's replay split into shards of trajectories, each replayed on its own (a Ray task), then merged.

Replay's result for a trajectory does not depend on which run proved its transitions (a settled view is a
function of its state; resuming rests on the same fact), so the shards' results, gathered into the site's
journal, are what one run would have recorded. `fsmc.replay.replay` then resumes from that journal with
nothing left to do and writes the same files an unsharded run writes. Shards are contiguous runs of the
trajectory file, so the trajectories that share prefixes mostly share a shard.

    DATA/.shards/<k>/out/   manifest.json and the shard's lines of trajectories.jsonl
    DATA/.shards/<k>/data/  the shard's replay (its journal and screenshots), removed once merged
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

from fsmc.atomic import write_atomic

SHARDS = ".shards"

Map = Callable[[Callable[..., Any], list[tuple[Any, ...]]], list[Any]]
"""Runs a function on each tuple of arguments, somewhere (a Ray task each), and returns the results in order."""


def local_map(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    """One call after another, here."""
    return [fn(*args) for args in calls]


def split(out: Path, data: Path, size: int, limit: int | None) -> list[Path]:
    """Write the shards' input folders (the first `limit` trajectories, `size` to a shard); their paths."""
    shutil.rmtree(data / SHARDS, ignore_errors=True)
    folders = []
    with (out / "trajectories.jsonl").open(encoding="utf-8") as f:
        lines = list(islice(f, limit))
    for k, start in enumerate(range(0, len(lines), size)):
        folder = data / SHARDS / f"{k:05d}" / "out"
        folder.mkdir(parents=True)
        shutil.copyfile(out / "manifest.json", folder / "manifest.json")
        write_atomic(folder / "trajectories.jsonl", "".join(lines[start:start + size]).encode("utf-8"))
        folders.append(folder)
    return folders


def replay_shard(out: Path, dist: Path, options: dict[str, Any]) -> int:
    """Replay one shard into the data folder beside its input; how many trajectories it kept."""
    from fsmc.replay import replay

    summary, _ = replay(out, dist, out.parent / "data", restart=True, **options)
    return int(summary["kept"])


def merge(shards: list[Path], data: Path, fingerprint: str) -> None:
    """The shards' results as the site's journal, their screenshots in DATA/screens; the shards removed."""
    from fsmc.replay.engine import SCREENS
    from fsmc.replay.journal import JOURNAL

    screens = data / SCREENS
    screens.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"fingerprint": fingerprint}, sort_keys=True) + "\n"]
    for out in shards:
        done = out.parent / "data"
        lines += (done / JOURNAL).read_text(encoding="utf-8").splitlines(keepends=True)[1:]
        for image in sorted((done / SCREENS).iterdir()):
            if not (screens / image.name).exists():
                shutil.move(image, screens / image.name)
    write_atomic(data / JOURNAL, "".join(lines).encode("utf-8"))
    shutil.rmtree(data / SHARDS)


def replay_sharded(out: Path, dist: Path, data: Path, options: dict[str, Any], size: int, run: Map) -> int:
    """Replay OUT's trajectories in shards of `size` through `run`, leaving DATA/ a journal that holds every
    result; the number of shards (0 and nothing done: too few trajectories to split)."""
    from fsmc.backends import IMAGE_FORMATS, GeneratedSite
    from fsmc.replay.inputs import fingerprint

    limit, image_format = options.get("limit"), options.get("image_format", "jpeg")
    shards = split(out, data, size, limit)
    if len(shards) <= 1:
        shutil.rmtree(data / SHARDS, ignore_errors=True)
        return 0
    shard_options = {k: v for k, v in options.items() if k != "limit"}
    run(replay_shard, [(shard, dist, shard_options) for shard in shards])
    backend = GeneratedSite(dist, image=IMAGE_FORMATS[image_format])
    merge(shards, data, fingerprint(out, backend, {"limit": limit, "image_format": image_format}))
    return len(shards)
