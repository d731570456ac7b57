"""Writes dataset rows as Parquet shards with image features, into a folder `datasets.load_dataset` reads as is.

DS/data/<split>-NNNNN.parquet, DS/README.md (a dataset card whose YAML names the splits) and
DS/fsmc_export.json. The folder is written beside its destination and renamed into place at the
end, so DS/ is either the complete previous export or the complete new one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from fsmc.export.datasets import Row, grounding_mix, grpo_rows, read_kept, sft_rows, split_of

FORMATS = ("sft", "grpo", "grounding")
ROWS_PER_SHARD = 500


def features(fmt: str) -> Any:
    """The explicit schema of a format (the same in every shard, whatever rows a shard happens to hold)."""
    from datasets import Features, Image, List, Value

    message = {"role": Value("string"), "content": List({"type": Value("string"), "text": Value("string")})}
    common = {"id": Value("string"), "task_id": Value("string"), "step": Value("int32")}
    if fmt == "sft":
        return Features({**common, "messages": List(message), "images": List(Image())})
    return Features({**common, "source": Value("string"), "prompt": List(message), "image": Image(),
                     "action_type": Value("string"), "coordinate": List(Value("int32")), "bbox": List(Value("int32")),
                     "to_bbox": List(Value("int32")), "text": Value("string"), "accepted": List(Value("string")), "solution": Value("string")})


def _with_images(row: Row, data_dir: Path) -> Row:
    def load(name: str) -> dict[str, Any]:
        return {"bytes": (data_dir / name).read_bytes(), "path": Path(name).name}

    if "images" in row:
        return {**row, "images": [load(n) for n in row["images"]]}
    return {**row, "image": load(row["image"])}


def _write_split(rows: Iterable[Row], folder: Path, split: str, fmt: str, data_dir: Path) -> int:
    from datasets import Dataset

    count, it = 0, iter(rows)
    while chunk := list(islice(it, ROWS_PER_SHARD)):
        ds = Dataset.from_list([_with_images(r, data_dir) for r in chunk], features=features(fmt))
        ds.to_parquet(str(folder / "data" / f"{split}-{count // ROWS_PER_SHARD:05d}.parquet"))
        count += len(chunk)
    return count


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


def _rows(fmt: str, trajectories: list[dict[str, Any]], grounding_ratio: float, seed: int) -> Iterator[Row]:
    if fmt == "grounding":
        yield from grounding_mix(trajectories, grounding_ratio, seed)
    else:
        make = sft_rows if fmt == "sft" else grpo_rows
        yield from (row for t in trajectories for row in make(t))


def export(data_dir: str | Path, fmt: str, out: str | Path, *, grounding_ratio: float = 0.2, seed: int = 0,
           test_fraction: float = 0.0) -> dict[str, int]:
    """Export a replayed data folder as sft, grpo or grounding; returns the row count of each split."""
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
    counts = {split: _write_split(_rows(fmt, ts, grounding_ratio, seed), tmp, split, fmt, data_dir)
              for split, ts in by_split.items() if ts}
    counts = {split: n for split, n in counts.items() if n}
    if not counts:
        shutil.rmtree(tmp)
        raise ValueError(f"{data_dir}: the kept trajectories have no steps to export")
    (tmp / "README.md").write_text(_card(fmt, counts, fingerprint(tmp)), encoding="utf-8")
    meta = {"format": fmt, "rows": counts, "grounding_ratio": grounding_ratio, "seed": seed,
            "test_fraction": test_fraction, "source": json.loads((data_dir / "manifest.json").read_text())}
    (tmp / "fsmc_export.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return counts
