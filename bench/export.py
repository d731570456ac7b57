"""Benchmark: the bytes of each export format against the bytes of the distinct screenshots it shows.

    python bench/export.py                      # replays the shop's first 50 trajectories, then exports them
    python bench/export.py --data data/shop     # an existing replay

For each format, the same rows are written twice in the same run: as `datasets`' own writer stores
them (image bytes plain, one copy per row: the baseline) and as `fsmc export` does (one row group per
shard, image bytes dictionary-encoded: each distinct screenshot once per shard). "distinct" is the
bytes of the different screenshots the rows show, read back from the shards themselves.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsmc import load  # noqa: E402
from fsmc.export import FORMATS, export  # noqa: E402
from fsmc.export import writer as writer_module  # noqa: E402
from fsmc.export.writer import export_bytes, features  # noqa: E402


def replayed_sample(work: Path, limit: int, workers: int) -> Path:
    """The shop built, enumerated, and its first `limit` trajectories replayed into work/data."""
    from fsmc.codegen import build_site
    from fsmc.enumerate import Options, enumerate_spec
    from fsmc.replay import replay

    spec = ROOT / "specs" / "shop.fsm"
    dist = build_site(load(spec), work / "sites").dist
    if not (work / "out" / "manifest.json").exists():
        enumerate_spec(spec, work / "out", Options())
    replay(work / "out", dist, work / "data", workers=workers, limit=limit)
    return work / "data"


def distinct_image_bytes(folder: Path) -> tuple[int, int]:
    """(image references, bytes of the distinct images) over an export's shards, one shard in memory at a time."""
    import pyarrow.parquet as pq

    seen: dict[str, int] = {}
    refs = 0
    for shard in sorted((folder / "data").glob("*.parquet")):
        table = pq.read_table(shard)
        column = "images" if "images" in table.column_names else "image"
        for value in table.column(column).to_pylist():
            for image in value if isinstance(value, list) else [value]:
                refs += 1
                seen.setdefault(hashlib.sha256(image["bytes"]).hexdigest(), len(image["bytes"]))
    return refs, sum(seen.values())


def plain_shard(rows: list[dict[str, Any]], path: Path, fmt: str, data_dir: Path) -> None:
    """The baseline: the shard as `datasets`' own writer stores it (image bytes plain, once per row)."""
    from datasets import Dataset

    def load(name: str) -> dict[str, Any]:
        return {"bytes": (data_dir / name).read_bytes(), "path": Path(name).name}

    loaded = [{**r, "images": [load(n) for n in r["images"]]} if "images" in r else {**r, "image": load(r["image"])}
              for r in rows]
    Dataset.from_list(loaded, features=features(fmt)).to_parquet(str(path))


def measure(data: Path, work: Path) -> list[dict[str, Any]]:
    fsmc_shard = writer_module._write_shard
    results = []
    for fmt in FORMATS:
        row: dict[str, Any] = {"format": fmt}
        for how, shard_writer in (("plain", plain_shard), ("fsmc", fsmc_shard)):
            writer_module._write_shard = shard_writer  # type: ignore[assignment]
            start = time.perf_counter()
            counts = export(data, fmt, work / f"{fmt}-{how}")
            row[f"{how}_s"] = time.perf_counter() - start
            row[how] = export_bytes(work / f"{fmt}-{how}")
            row["rows"] = sum(counts.values())
        writer_module._write_shard = fsmc_shard
        row["images"], row["distinct"] = distinct_image_bytes(work / f"{fmt}-fsmc")
        results.append(row)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, help="a folder written by `fsmc replay` (default: replay a sample)")
    parser.add_argument("--limit", type=int, default=50, help="trajectories of the shop to replay (default 50)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the replay and the exports here")
    args = parser.parse_args()

    import datasets

    datasets.disable_progress_bars()
    work = args.keep or Path(tempfile.mkdtemp(prefix="fsmc-bench-export-"))
    data = args.data or replayed_sample(work, args.limit, args.workers)
    kept = sum(json.loads(line)["status"] == "kept" for line in (data / "trajectories.jsonl").open())
    results = measure(data, work)
    mb = 1e6
    print(f"\n{data}: {kept:,} kept trajectories\n")
    print("| format | rows | image refs | distinct screenshots | plain export | × distinct | fsmc export | × distinct |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['format']} | {r['rows']:,} | {r['images']:,} | {r['distinct'] / mb:.1f} MB | {r['plain'] / mb:.1f} MB | "
              f"{r['plain'] / r['distinct']:.2f}× | {r['fsmc'] / mb:.1f} MB | {r['fsmc'] / r['distinct']:.2f}× |")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
