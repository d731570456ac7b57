"""fsmc export and fsmc view: datasets that `datasets` loads and TRL reads as they are; a gallery a person can open."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from datasets import load_dataset

from fsmc.export import ACTION_TYPES, FORMATS, SYSTEM_PROMPT, export, parse_action, write_gallery
from fsmc.export.writer import export_bytes


def kept(data: Path) -> list[dict[str, Any]]:
    lines = (data / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [t for t in map(json.loads, lines) if t["status"] == "kept" and t["kind"] == "positive"]


@pytest.fixture(scope="module")
def exported(shop_replayed: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("datasets")
    for fmt in FORMATS:
        export(shop_replayed, fmt, root / fmt, test_fraction=0.25)
    return {fmt: root / fmt for fmt in FORMATS}


def test_sft_rows_are_conversations_with_their_screenshot(exported: dict[str, Path], shop_replayed: Path) -> None:
    ds = load_dataset(str(exported["sft"]))
    assert set(ds) == {"train", "test"}
    rows = [r for split in ds.values() for r in split]
    trajectories = kept(shop_replayed)
    answers = sum(t["answer"] is not None for t in trajectories)
    assert len(rows) == sum(len([s for s in t["steps"] if "unavailable" not in s]) for t in trajectories) + answers
    assert set(ds["train"]["task_id"]).isdisjoint(ds["test"]["task_id"])  # split by task: nothing leaks
    for r in rows:
        roles = [m["role"] for m in r["messages"]]
        assert roles == ["system", "user", "assistant"]
        assert r["messages"][0]["content"][0]["text"] == SYSTEM_PROMPT
        assert [c["type"] for c in r["messages"][1]["content"]] == ["image", "text"]
        assert len(r["images"]) == 1 and r["images"][0].size == (1280, 720)
        reply = r["messages"][2]["content"][0]["text"]
        assert reply.startswith("<think>") and "</think><action>" in reply
        action = parse_action(reply)
        assert action is not None and action["action"] in ACTION_TYPES
    first = next(r for r in rows if r["step"] == 0)
    assert "Previous actions:\nnone" in first["messages"][1]["content"][1]["text"]


def test_sft_rows_go_through_trls_multimodal_preparation(exported: dict[str, Path]) -> None:
    from trl.data_utils import prepare_multimodal_messages

    row = load_dataset(str(exported["sft"]), split="train")[0]
    messages = prepare_multimodal_messages(row["messages"], images=row["images"])
    image_parts = [c for m in messages for c in m["content"] if c["type"] == "image"]
    assert len(image_parts) == 1 and image_parts[0]["image"].size == (1280, 720)


def replies(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"][0]["text"] for m in messages if m["role"] == "assistant"]


def test_sft_trajectory_rows_are_the_step_rows_as_one_conversation(exported: dict[str, Path],
                                                                     shop_replayed: Path) -> None:
    from trl.data_utils import prepare_multimodal_messages

    ds = load_dataset(str(exported["sft-trajectory"]))
    rows = {r["id"]: r for split in ds.values() for r in split}
    assert set(rows) == {t["id"] for t in kept(shop_replayed)}
    steps = load_dataset(str(exported["sft"]))
    by_trajectory: dict[str, list[dict[str, Any]]] = {}
    for r in sorted((r for split in steps.values() for r in split), key=lambda r: r["step"]):
        by_trajectory.setdefault(r["id"].rsplit("/", 1)[0], []).append(r)
    for tid, row in rows.items():
        roles = [m["role"] for m in row["messages"]]
        assert roles == ["system"] + ["user", "assistant"] * row["steps"]
        assert "Task: " in row["messages"][1]["content"][1]["text"]
        assert replies(row["messages"]) == [replies(r["messages"])[0] for r in by_trajectory[tid]]
        assert [im.tobytes() for im in row["images"]] == [r["images"][0].tobytes() for r in by_trajectory[tid]]
    row = next(iter(rows.values()))
    filled = prepare_multimodal_messages(row["messages"], images=row["images"])
    parts = [c for m in filled for c in m["content"] if c["type"] == "image"]
    assert len(parts) == row["steps"] and all(c["image"].size == (1280, 720) for c in parts)


def distinct_screenshot_bytes(folder: Path) -> int:
    import hashlib

    import pyarrow.parquet as pq

    seen: dict[str, int] = {}
    for shard in (folder / "data").glob("*.parquet"):
        table = pq.read_table(shard)
        column = "images" if "images" in table.column_names else "image"
        for value in table.column(column).to_pylist():
            for image in value if isinstance(value, list) else [value]:
                seen[hashlib.sha256(image["bytes"]).hexdigest()] = len(image["bytes"])
    return sum(seen.values())


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_stores_each_screenshot_about_once(exported: dict[str, Path], fmt: str) -> None:
    assert export_bytes(exported[fmt]) <= 2 * distinct_screenshot_bytes(exported[fmt])


def test_grpo_rows_carry_the_ground_truth_reward_functions_read(exported: dict[str, Path]) -> None:
    ds = load_dataset(str(exported["grpo"]))
    rows = [r for split in ds.values() for r in split]
    assert {"prompt", "image", "action_type", "coordinate", "bbox", "text", "accepted", "solution"} <= set(ds["train"].features)
    for r in rows:
        assert r["prompt"][-1]["role"] == "user" and r["image"].size == (1280, 720)
        truth = json.loads(r["solution"])
        assert truth["action"] == r["action_type"]
        if r["action_type"] in ("click", "type", "hover", "select", "drag"):
            x, y, w, h = r["bbox"]
            cx, cy = r["coordinate"]
            assert x <= cx <= x + w and y <= cy <= y + h
        if r["action_type"] == "answer":
            assert r["text"] in r["accepted"]
        else:
            assert r["accepted"] == []
    assert any(r["action_type"] == "answer" for r in rows), "the sample has a retrieval task"


def test_grounding_mix_holds_its_ratio(exported: dict[str, Path], shop_replayed: Path, tmp_path: Path) -> None:
    ds = load_dataset(str(exported["grounding"]), split="train")
    sources = ds["source"]
    share = sources.count("grounding") / len(sources)
    assert abs(share - 0.2) < 0.02
    ground = [r for r in ds if r["source"] == "grounding"]
    assert all(r["action_type"] == "click" and r["prompt"][-1]["content"][1]["text"].startswith("Click on “")
               for r in ground)
    export(shop_replayed, "grounding", tmp_path / "all", grounding_ratio=1.0)
    only = load_dataset(str(tmp_path / "all"), split="train")
    assert set(only["source"]) == {"grounding"}


def test_export_is_deterministic(shop_replayed: Path, exported: dict[str, Path], tmp_path: Path) -> None:
    export(shop_replayed, "grounding", tmp_path / "again", test_fraction=0.25)
    first = sorted((exported["grounding"] / "data").iterdir())
    again = sorted((tmp_path / "again" / "data").iterdir())
    assert [p.name for p in first] == [p.name for p in again]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, again, strict=True))


def test_export_refuses_what_it_cannot_use(shop_replayed: Path, tmp_path: Path) -> None:
    def fsmc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "fsmc.cli", *args], capture_output=True, text=True, timeout=120)

    missing = fsmc("export", str(tmp_path / "nothing"), "--format", "sft", "-o", str(tmp_path / "ds"))
    assert missing.returncode == 2 and "fsmc replay" in missing.stderr
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    clobber = fsmc("export", str(shop_replayed), "--format", "sft", "-o", str(precious))
    assert clobber.returncode == 1 and "not an fsmc export" in clobber.stderr
    assert (precious / "notes.txt").read_text() == "mine"
    ratio = fsmc("export", str(shop_replayed), "--format", "grounding", "--grounding-ratio", "1.5", "-o", str(tmp_path / "x"))
    assert ratio.returncode == 64 and "between 0 and 1" in ratio.stderr  # a usage error
    for run in (missing, clobber, ratio):
        assert "Traceback" not in run.stderr


def test_gallery_shows_every_kept_trajectory(shop_replayed: Path, tmp_path: Path) -> None:
    index = write_gallery(shop_replayed, tmp_path / "gallery")
    html = index.read_text(encoding="utf-8")
    trajectories = [json.loads(x) for x in (shop_replayed / "trajectories.jsonl").read_text().splitlines()]
    pages = sorted(p for p in index.parent.glob("*.html") if p.name != "index.html")
    assert len(pages) == sum(t["status"] == "kept" for t in trajectories)
    for t in trajectories:
        assert t["id"] in html
    page = pages[0].read_text(encoding="utf-8")
    images = [part.split('"')[0] for part in page.split('<img src="')[1:]]
    assert images and all((index.parent / src).resolve().is_file() for src in images)
    assert 'class="marker"' in page and "→" in page  # where the action lands, and what a move changed


def test_export_thoughts_model_writes_each_steps_thought_with_a_model(shop_replayed: Path, exported: dict[str, Path],
                                                                     tmp_path: Path) -> None:
    import shutil

    from fsmc.cli import main
    from fsmc.testing.standin import StandIn

    data = tmp_path / "data"  # thoughts.jsonl goes into the replay's folder: a copy, not the shared fixture
    shutil.copytree(shop_replayed, data)
    thought = "The filter sits above the results, so I use it first."
    with StandIn(lambda request: f"<think>{thought}</think>") as server:
        code = main(["export", str(data), "--format", "sft", "-o", str(tmp_path / "sft"), "--thoughts", "model",
                     "--base-url", server.openai_url, "--api-key", "test", "--cache-dir", str(tmp_path / "cache")])
        asked = server.requests
    assert code == 0
    rows = load_dataset(str(tmp_path / "sft"), split="train")
    templated = {r["id"]: r for split in ("train", "test")
                 for r in load_dataset(str(exported["sft"]), split=split)}
    assert len(rows) == len(templated)
    # one request per distinct step (steps that trajectories share are asked once: the cache), each with its screenshot
    assert 0 < len(asked) <= len(rows) and all(r.images for r in asked)
    for row in rows:
        text = row["messages"][-1]["content"][0]["text"]
        assert text.startswith(f"<think>{thought}</think><action>")
        mine = templated[row["id"]]["messages"][-1]["content"][0]["text"]
        assert text.split("<action>")[1] == mine.split("<action>")[1]  # the same action, another thought
    assert (data / "thoughts.jsonl").is_file()
