"""Offline equals online: every exported trajectory, acted out in the live environment with its exported actions only,
earns reward 1 exactly at its last action, and every view a dataset shows is the view the environment shows.

For the shop (the session's replayed sample), flights and mail (samples covering every GUI operation of theirs):
each replay is exported in every format, each format's rows are read back (`fsmc.export.readback`), and each
trajectory's actions are sent to an `fsmc.env` environment from its task's reset. Formats whose action sequences are
equal are acted out once (the environment is deterministic) and the test says the sequences are equal.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, write_sample

from fsmc import load
from fsmc.env import EnvPool
from fsmc.env.demonstrate import act_out
from fsmc.export import FORMATS, export
from fsmc.export.datasets import agent_steps, read_kept
from fsmc.export.readback import demonstrations


def covering(out: Path, size: int) -> list[str]:
    """Lines of positive trajectories that use every GUI operation, a retrieval task among them, then the first others."""
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    positive = [i for i, r in enumerate(records) if r["kind"] == "positive"]
    ops = sorted({g["op"] for i in positive for m in records[i]["moves"] for g in m["gui"]})
    picked = [next(i for i in positive if any(g["op"] == op for m in records[i]["moves"] for g in m["gui"])) for op in ops]
    picked += [i for i in positive if records[i]["answer"] is not None][:1] + positive
    return [lines[i] for i in sorted(list(dict.fromkeys(picked))[:size])]


def replayed(spec: str, tmp: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(site dist, enumerate output, replay) of a sample of the spec's positive trajectories using every GUI op."""
    from fsmc.codegen import build_site
    from fsmc.enumerate import Options, enumerate_spec
    from fsmc.replay import replay

    path = ROOT / "specs" / f"{spec}.fsm"
    dist = build_site(load(path), tmp.mktemp("sites")).dist
    out = tmp.mktemp("enumerated") / spec
    enumerate_spec(path, out, Options(per_goal=1))
    sample = write_sample(out, tmp.mktemp("sample") / "out", covering(out, 10))
    data = tmp.mktemp("replayed") / spec
    replay(sample, dist, data, workers=2)
    return dist, out, data


@pytest.fixture(scope="module")
def cases(shop_site: Path, shop_out: Path, shop_replayed: Path,
          tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, Path]]:
    return {"shop": (shop_site, shop_out, shop_replayed),
            **{spec: replayed(spec, tmp_path_factory) for spec in ("flights", "mail")}}


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def views(data: Path, t: dict[str, Any]) -> list[bytes]:
    """The image the replay recorded before each of the trajectory's agent steps."""
    return [(data / step["screenshot"]).read_bytes() for _, step in agent_steps(t)]


@pytest.mark.parametrize("spec", ["shop", "flights", "mail"])
def test_every_exported_trajectory_earns_reward_one_at_its_last_action(
        spec: str, cases: dict[str, tuple[Path, Path, Path]], loop: asyncio.AbstractEventLoop,
        tmp_path: Path) -> None:
    dist, out, data = cases[spec]
    kept = {t["id"]: t for t in read_kept(data)}
    assert len(kept) >= 5, f"the {spec} sample kept only {len(kept)} trajectories"
    taught = {}
    for fmt in FORMATS:
        export(data, fmt, tmp_path / fmt)
        taught[fmt] = demonstrations(tmp_path / fmt)
        assert set(taught[fmt]) == set(kept), fmt  # every kept trajectory, in every format
    # the formats teach the same actions (each acted out below once)
    reference = taught["sft"]
    for fmt in FORMATS:
        assert {k: v.actions for k, v in taught[fmt].items()} == {k: v.actions for k, v in reference.items()}, fmt
    assert any(a["action"] == "scroll" for d in reference.values() for a in d.actions) or spec != "shop"

    async def check() -> list[str]:
        async with EnvPool.of(dist, out, n=1, max_steps=80) as pool:
            env = pool.envs[0]
            failures = []
            for tid, demo in reference.items():
                assert demo.task == kept[tid]["task_id"]
                outcome = await act_out(env, demo.task, demo.actions, views(data, kept[tid]))
                if not outcome.ok or outcome.views_differing:
                    failures.append(f"{tid}: {outcome}")
            return failures

    assert loop.run_until_complete(check()) == []
