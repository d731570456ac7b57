"""Writes dataset rows as Parquet shards with image features, into a folder `datasets.load_dataset` reads as is.

DS/data/<split>-NNNNN.parquet, DS/README.md (a dataset card whose YAML names the splits) and
DS/fsmc_export.json. The folder is written beside its destination and renamed into place at the
end, so DS/ is either the complete previous export or the complete new one.

Each shard is one row group whose image bytes are dictionary-encoded: a screenshot that many rows
show (every step row of a shared prefix, every trajectory starting on the home page) is stored once
per shard (and read and held once while the shard is written) and the rows hold its index. Readers
decode it transparently, so `datasets` and TRL see ordinary image columns, and an export stays near
the bytes of its distinct screenshots instead of repeating them per row. (`datasets`' own writer keeps image columns plain, for the Hub's chunk-level
deduplication, which a local folder does not have.)
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from fsmc.export.datasets import (
    Row,
    Thoughts,
    grounding_mix,
    grpo_rows,
    read_kept,
    sft_rows,
    split_of,
    trajectory_rows,
)

FORMATS = ("sft", "sft-trajectory", "grpo", "grounding")
ROWS_PER_SHARD = 10_000   # a shard holds its distinct screenshots once, so its memory grows with them, not its rows
DICTIONARY_LIMIT = 1 << 30   # dictionary page bytes before Parquet falls back to plain: above any shard's images


def features(fmt: str) -> Any:
    """The explicit schema of a format (the same in every shard, whatever rows a shard happens to hold)."""
    from datasets import Features, Image, List, Value

    message = {"role": Value("string"), "content": List({"type": Value("string"), "text": Value("string")})}
    common = {"id": Value("string"), "task_id": Value("string"), "step": Value("int32")}
    if fmt == "sft":
        return Features({**common, "messages": List(message), "images": List(Image())})
    if fmt == "sft-trajectory":
        return Features({"id": Value("string"), "task_id": Value("string"), "steps": Value("int32"),
                         "messages": List(message), "images": List(Image())})
    return Features({**common, "source": Value("string"), "prompt": List(message), "image": Image(),
                     "action_type": Value("string"), "coordinate": List(Value("int32")), "bbox": List(Value("int32")),
                     "to_bbox": List(Value("int32")), "text": Value("string"), "accepted": List(Value("string")), "solution": Value("string")})


def _image_names(row: Row) -> list[str]:
    return list(row["images"]) if "images" in row else [row["image"]]


def _image_column(rows: list[Row], data_dir: Path) -> Any:
    """The rows' images as Image storage (struct of bytes and path) whose bytes and paths are dictionary arrays:
    each distinct screenshot read and held once however many rows show it; a list of them for `images`."""
    import pyarrow as pa

    named = [_image_names(r) for r in rows]
    distinct = list(dict.fromkeys(n for names in named for n in names))
    index = {n: i for i, n in enumerate(distinct)}
    refs = pa.array([index[n] for names in named for n in names], pa.int32())
    blobs = pa.array([(data_dir / n).read_bytes() for n in distinct], pa.binary())
    paths = pa.array([Path(n).name for n in distinct], pa.string())
    images = pa.StructArray.from_arrays([pa.DictionaryArray.from_arrays(refs, blobs),
                                         pa.DictionaryArray.from_arrays(refs, paths)], names=["bytes", "path"])
    if "image" in rows[0]:
        return images
    offsets = [0]
    for names in named:
        offsets.append(offsets[-1] + len(names))
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), images)


def _write_shard(rows: list[Row], path: Path, fmt: str, data_dir: Path) -> None:
    """One row group, image bytes dictionary-encoded (each distinct screenshot once), text snappy-compressed.

    The Arrow schema is left out of the file (`store_schema=False`) so that readers see plain image bytes, not
    the dictionary type they were written from; the features `datasets` reads come in its own metadata key."""
    import pyarrow.parquet as pq
    from datasets import Dataset, Features

    feats = features(fmt)
    column = "images" if "images" in rows[0] else "image"
    text = Features({k: v for k, v in feats.items() if k != column})
    table = Dataset.from_list([{k: v for k, v in r.items() if k != column} for r in rows], features=text).data.table
    table = table.add_column(list(feats).index(column), column, _image_column(rows, data_dir))
    with pq.ParquetWriter(str(path), table.schema, compression="snappy", use_dictionary=True,
                          dictionary_pagesize_limit=DICTIONARY_LIMIT, store_schema=False) as writer:
        writer.write_table(table, row_group_size=len(rows))
        writer.add_key_value_metadata({k.decode(): v.decode() for k, v in feats.arrow_schema.metadata.items()})


def _write_split(rows: Iterable[Row], folder: Path, split: str, fmt: str, data_dir: Path) -> int:
    count, it = 0, iter(rows)
    for n, shard in enumerate(iter(lambda: list(islice(it, ROWS_PER_SHARD)), [])):
        _write_shard(shard, folder / "data" / f"{split}-{n:05d}.parquet", fmt, data_dir)
        count += len(shard)
    return count


def export_bytes(folder: str | Path) -> int:
    """Bytes of an export's shards."""
    return sum(shard.stat().st_size for shard in (Path(folder) / "data").glob("*.parquet"))


def fingerprint(folder: Path) -> str:
    """A digest of the shards' bytes."""
    h = hashlib.sha256()
    for shard in sorted((folder / "data").glob("*.parquet")):
        h.update(shard.name.encode())
        h.update(shard.read_bytes())
    return h.hexdigest()[:16]


def _card(fmt: str, counts: dict[str, int], digest: str) -> str:
    """The dataset card. Its config is named after the contents: `datasets` keys its cache by the folder's name
    and the config, not by the files, so a fixed name would hand back a stale copy of an earlier export."""
    files = "".join(f"  - split: {s}\n    path: data/{s}-*.parquet\n" for s in counts)
    sizes = ", ".join(f"{n:,} {s}" for s, n in counts.items())
    return (f"---\nconfigs:\n- config_name: fsmc-{fmt}-{digest}\n  default: true\n  data_files:\n{files}---\n"
            f"# fsmc {fmt} dataset\n\n{sizes} rows. Made by `fsmc export --format {fmt}` from a replay of "
            "trajectories verified against the site's formal spec.\n\n"
            "```python\nfrom datasets import load_dataset\nds = load_dataset(\"path/to/this/folder\")\n```\n")


def _rows(fmt: str, trajectories: list[dict[str, Any]], grounding_ratio: float, seed: int,
          thoughts: Thoughts) -> Iterator[Row]:
    if fmt == "grounding":
        yield from grounding_mix(trajectories, grounding_ratio, seed)
    elif fmt == "grpo":
        yield from (row for t in trajectories for row in grpo_rows(t))
    else:
        make = {"sft": sft_rows, "sft-trajectory": trajectory_rows}[fmt]
        yield from (row for t in trajectories for row in make(t, thoughts))


def export(data_dir: str | Path, fmt: str, out: str | Path, *, grounding_ratio: float = 0.2, seed: int = 0,
           test_fraction: float = 0.0, thoughts: Thoughts | None = None) -> dict[str, int]:
    """Export a replayed data folder as sft, sft-trajectory, grpo or grounding; returns the row count of each split.
    `thoughts` (row id → text, e.g. a model's from fsmc.export.thoughts.thoughts_output) replace the templated thoughts of sft."""
    data_dir, out = Path(data_dir), Path(out)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    by_split: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    for t in read_kept(data_dir):
        by_split[split_of(t, test_fraction)].append(t)
    if not any(by_split.values()):
        raise ValueError(f"{data_dir}: no kept positive trajectories to export")
    if out.exists() and any(out.iterdir()) and not (out / "fsmc_export.json").is_file():
        raise ValueError(f"{out} exists and is not an fsmc export: choose a new folder (nothing was written)")
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "data").mkdir(parents=True)
    counts = {split: _write_split(_rows(fmt, ts, grounding_ratio, seed, thoughts or {}), tmp, split, fmt, data_dir)
              for split, ts in by_split.items() if ts}
    counts = {split: n for split, n in counts.items() if n}
    if not counts:
        shutil.rmtree(tmp)
        raise ValueError(f"{data_dir}: the kept trajectories have no steps to export")
    (tmp / "README.md").write_text(_card(fmt, counts, fingerprint(tmp)), encoding="utf-8")
    meta = {"format": fmt, "rows": counts, "grounding_ratio": grounding_ratio, "seed": seed,
            "test_fraction": test_fraction, "source": json.loads((data_dir / "manifest.json").read_text())}
    if thoughts:
        meta["thoughts"] = "model"  # the templated ones are the default, not recorded: earlier exports keep their bytes
    (tmp / "fsmc_export.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return counts
