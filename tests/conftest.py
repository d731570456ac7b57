"""Shared fixtures: paths and compiled example specs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fsmc import Machine, load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="session")
def mini_machine() -> Machine:
    return Machine(load(FIXTURES / "mini.fsm"))


# ---------------------------------------------------------------- replay and export: the shop, built and replayed once

SHOP = ROOT / "specs" / "shop.fsm"
SAMPLE_SIZE = 24


def sample_trajectories(out: Path, size: int = SAMPLE_SIZE) -> list[str]:
    """Lines of OUT/trajectories.jsonl covering every GUI operation and both kinds of negatives, then the first others."""
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    picked: list[int] = []
    ops = sorted({g["op"] for r in records for m in r["moves"] for g in m["gui"]})
    for want in ops:
        picked.append(next(i for i, r in enumerate(records) if any(g["op"] == want for m in r["moves"] for g in m["gui"])))
    for label in ("truncated", "disabled_move"):
        picked.append(next(i for i, r in enumerate(records) if r["label"] == label))
    picked.append(next(i for i, r in enumerate(records) if r["answer"] is not None))  # a retrieval task
    # test_replay breaks pick_size and toggle_gift: it needs a trajectory reaching toggle_gift without pick_size
    picked.append(next(i for i, r in enumerate(records)
                       if {"toggle_gift"} <= {m["action"] for m in r["moves"]} and "pick_size" not in
                       {m["action"] for m in r["moves"]}))
    picked += [i for i in range(len(records)) if records[i]["kind"] == "positive"]
    chosen = list(dict.fromkeys(picked))[:size]
    return [lines[i] for i in sorted(chosen)]


def write_sample(out: Path, dest: Path, lines: list[str]) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out / "manifest.json", dest / "manifest.json")
    (dest / "trajectories.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return dest


@pytest.fixture(scope="session")
def shop_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop's built site (its dist/ folder)."""
    from fsmc.codegen import build_site

    return build_site(load(SHOP), tmp_path_factory.mktemp("sites")).dist


@pytest.fixture(scope="session")
def shop_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop enumerated with one alternative per goal and negatives."""
    from fsmc.enumerate import Options, enumerate_spec

    out = tmp_path_factory.mktemp("enumerated") / "shop"
    enumerate_spec(SHOP, out, Options(per_goal=1, negatives=True))
    return out


@pytest.fixture(scope="session")
def shop_sample(shop_out: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An enumerate output folder holding a sample of the shop's trajectories that uses every GUI operation."""
    return write_sample(shop_out, tmp_path_factory.mktemp("sample") / "out", sample_trajectories(shop_out))


@pytest.fixture(scope="session")
def shop_replayed(shop_sample: Path, shop_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample replayed in Chromium, uninterrupted, with two pages at once."""
    from fsmc.replay import replay

    data = tmp_path_factory.mktemp("replayed") / "data"
    replay(shop_sample, shop_site, data, workers=2)
    return data
