"""train/: the reward functions on hand-made replies, and SFT and GRPO end to end on a fresh export with a tiny model."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # train/ is a folder of scripts beside the package, not an installed module

from fsmc.export import FORMATS, export, parse_action  # noqa: E402
from train.rewards import (  # noqa: E402
    REWARD_FUNCS,
    action_type_reward,
    coordinate_reward,
    drop_reward,
    format_reward,
    reply_text,
    text_reward,
)

# ---------------------------------------------------------------- rewards on hand-made replies

BOX = [100, 200, 50, 20]   # x 100..150, y 200..220
DROP = [400, 300, 80, 40]   # x 400..480, y 300..340
ROWS: dict[str, dict[str, Any]] = {
    "click": {"action_type": "click", "bbox": BOX, "to_bbox": [], "text": "", "accepted": []},
    "type": {"action_type": "type", "bbox": BOX, "to_bbox": [], "text": "wool", "accepted": []},
    "select": {"action_type": "select", "bbox": BOX, "to_bbox": [], "text": "Visa ending 4242", "accepted": []},
    "drag": {"action_type": "drag", "bbox": BOX, "to_bbox": DROP, "text": "", "accepted": []},
    "key": {"action_type": "key", "bbox": BOX, "to_bbox": [], "text": "Enter", "accepted": []},
    "scroll": {"action_type": "scroll", "bbox": [], "to_bbox": [], "text": "", "accepted": []},
    "answer": {"action_type": "answer", "bbox": [], "to_bbox": [], "text": "9.99",
               "accepted": ["9.99", "$9.99", "9.99 usd"]},
}


def reply(action: dict[str, Any] | str) -> list[dict[str, str]]:
    """A completion as TRL passes it for a conversational prompt."""
    body = action if isinstance(action, str) else json.dumps(action)
    return [{"role": "assistant", "content": f"<think>…</think><action>{body}</action>"}]


def score(fn: Callable[..., list[float | None]], row: str | dict[str, Any], *actions: dict[str, Any] | str
          ) -> list[float | None]:
    """`fn` over replies to one row, called the way GRPOTrainer calls it (one column value per completion)."""
    columns = {key: [value] * len(actions) for key, value in (ROWS[row] if isinstance(row, str) else row).items()}
    return fn(completions=[reply(a) for a in actions], prompts=[[]] * len(actions), **columns)


def click(x: Any, y: Any) -> dict[str, Any]:
    return {"action": "click", "coordinate": [x, y]}


def test_format_reward() -> None:
    assert score(format_reward, "click", click(1, 2), {"action": "answer", "text": "x"}, "{bad json", '{"action":"tap"}',
                 "[1, 2]") == [1.0, 1.0, 0.0, 0.0, 0.0]
    plain = ['<action>{"action":"key","key":"Enter"}</action>', "I click the button", ""]
    assert format_reward(completions=plain) == [1.0, 0.0, 0.0]   # non-conversational completions are strings


def test_action_type_reward() -> None:
    assert score(action_type_reward, "click", click(0, 0), {"action": "hover", "coordinate": [0, 0]}, "nope") == [
        1.0, 0.0, 0.0]
    assert score(action_type_reward, "answer", {"action": "answer", "text": "1"}, click(0, 0)) == [1.0, 0.0]


def test_coordinate_reward_inside_the_box_edges_included() -> None:
    inside, corner, far_corner = click(125, 210), click(100, 200), click(150, 220)
    outside = [click(151, 210), click(125, 199), click(99, 210), click(125, 221)]
    assert score(coordinate_reward, "click", inside, corner, far_corner, *outside) == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_coordinate_reward_for_other_pointed_actions() -> None:
    typed = {"action": "type", "coordinate": [110, 205], "text": "anything"}
    assert score(coordinate_reward, "type", typed, click(110, 205), click(10, 10)) == [1.0, 1.0, 0.0]
    assert score(coordinate_reward, "select", {"action": "select", "coordinate": [149, 219], "value": "x"}) == [1.0]
    assert score(coordinate_reward, "drag", {"action": "drag", "coordinate": [120, 210], "to": [900, 900]},
                 {"action": "drag", "coordinate": [900, 900], "to": [120, 210]}) == [1.0, 0.0]


def test_coordinate_reward_bad_points_and_rows_without_a_target() -> None:
    bad: list[Any] = [{"action": "click"}, {"action": "click", "coordinate": [125]}, click("125", 210),
           {"action": "key", "key": "Enter"}, "not json"]
    assert score(coordinate_reward, "click", *bad) == [0.0] * 5
    for row in ("key", "scroll", "answer"):   # nothing to point at: the reward does not apply
        assert score(coordinate_reward, row, click(125, 210), "not json") == [None, None]


def test_text_reward_typed_selected_and_key() -> None:
    def typed(text: str) -> dict[str, Any]:
        return {"action": "type", "coordinate": [0, 0], "text": text}

    assert score(text_reward, "type", typed("wool"), typed("Wool"), typed("wool "), {"action": "answer", "text": "wool"},
                 "x") == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert score(text_reward, "select", {"action": "select", "coordinate": [0, 0], "value": "Visa ending 4242"},
                 {"action": "select", "coordinate": [0, 0], "text": "Visa ending 4242"}) == [1.0, 0.0]
    assert score(text_reward, "key", {"action": "key", "key": "Enter"}, {"action": "key", "key": "Tab"},
                 {"action": "key"}) == [1.0, 0.0, 0.0]
    for row in ("click", "drag", "scroll"):
        assert score(text_reward, row, click(0, 0)) == [None]


def test_text_reward_answers_match_any_variant_ignoring_case_and_spaces() -> None:
    def answer(text: Any) -> dict[str, Any]:
        return {"action": "answer", "text": text}

    given: list[Any] = ["9.99", "  $9.99 ", "9.99   USD", "9.990", "The price is 9.99", "", 9.99]
    # "9.990" states the same number (a number is accepted in its forms: docs/language.md); a sentence is not
    assert score(text_reward, "answer", *map(answer, given)) == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    named = {"action_type": "answer", "bbox": [], "to_bbox": [], "text": "Lambswool Cardigan", "accepted": []}
    assert score(text_reward, named, answer("lambswool   CARDIGAN"), answer("Cardigan")) == [1.0, 0.0]


def test_drop_reward_judges_where_a_drag_is_released() -> None:
    def drag(to: Any) -> dict[str, Any]:
        return {"action": "drag", "coordinate": [120, 210], "to": to}

    assert score(drop_reward, "drag", drag([400, 300]), drag([480, 340]), drag([481, 320]), drag("far"),
                 click(420, 320)) == [1.0, 1.0, 0.0, 0.0, 0.0]
    for row in ("click", "type", "key", "scroll", "answer"):
        assert score(drop_reward, row, drag([420, 320])) == [None]


def test_reply_text_reads_every_completion_shape() -> None:
    assert reply_text("x") == "x"
    assert reply_text([{"role": "assistant", "content": "y"}]) == "y"
    parts = [{"type": "text", "text": "<action>"}, {"type": "image"}, {"type": "text", "text": "</action>"}]
    assert reply_text([{"role": "assistant", "content": parts}]) == "<action></action>"


def test_scripts_explain_themselves() -> None:
    for script in ("sft.py", "grpo.py"):
        out = subprocess.run([sys.executable, str(ROOT / "train" / script), "--help"], capture_output=True, text=True,
                             check=True).stdout
        assert "usage:" in out and "--tiny" in out and "fsmc export" in out


# ---------------------------------------------------------------- end to end: export the replayed shop sample, train


@pytest.fixture(scope="module")
def exported(shop_replayed: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("train-datasets")
    for fmt in FORMATS:
        export(shop_replayed, fmt, out / fmt)
    return {fmt: out / fmt for fmt in FORMATS}


def ground_truth(folder: Path) -> dict[str, dict[str, Any]]:
    from datasets import load_dataset

    rows = load_dataset(str(folder), split="train").remove_columns(["image", "prompt"])
    return {r["id"]: r for r in rows}


@pytest.mark.parametrize("fmt", ["grpo", "grounding"])
def test_the_solution_of_every_exported_row_earns_every_reward(exported: dict[str, Path], fmt: str) -> None:
    rows = list(ground_truth(exported[fmt]).values())
    columns = {key: [r[key] for r in rows] for key in ("action_type", "bbox", "to_bbox", "text", "accepted")}
    completions = [reply(r["solution"]) for r in rows]
    assert all(parse_action(reply_text(c)) == json.loads(r["solution"]) for c, r in zip(completions, rows, strict=True))
    for fn in REWARD_FUNCS:
        assert {v for v in fn(completions=completions, **columns) if v is not None} == {1.0}, fn.__name__


def tiny_args(script: Any, dataset: Path, out: Path, *extra: str) -> Any:
    return script.parse_args([str(dataset), "--tiny", "--grad-accum", "1", "--output-dir", str(out), *extra])


@pytest.mark.parametrize("fmt", ["sft", "sft-trajectory"])
def test_sft_end_to_end(exported: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    import torch

    from train import sft

    trainer = sft.build(tiny_args(sft, exported[fmt], tmp_path, "--max-steps", "2"))
    row = trainer.train_dataset[0]
    labels = trainer.data_collator([dict(row)])["labels"][0]
    trained_on = trainer.processing_class.tokenizer.decode(labels[labels != -100])
    replies = [m["content"][0]["text"] + "<|im_end|>\n" for m in row["messages"] if m["role"] == "assistant"]
    assert trained_on == "".join(replies)   # the replies only
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    assert trainer.state.global_step == 2 and len(losses) == 2 and all(math.isfinite(v) for v in losses)
    assert any(not torch.equal(before[name], p) for name, p in trainer.model.named_parameters())


def recorded(fn: Callable[..., list[float | None]], calls: list[tuple[str, dict[str, Any], list[Any]]]) -> Any:
    """`fn`, noting the keyword arguments TRL gave it and what it returned."""
    def reward(completions: list[Any], **kwargs: Any) -> list[float | None]:
        rewards = fn(completions, **kwargs)
        calls.append((fn.__name__, kwargs, rewards))
        return rewards

    reward.__name__ = fn.__name__
    return reward


def spread(completions: list[Any], **kwargs: Any) -> list[float | None]:
    """A test-only reward that differs within every group, so that a random model still gets a gradient."""
    return [float(i % 2) for i in range(len(completions))]


@pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning")   # inside TRL
def test_grpo_end_to_end(exported: dict[str, Path], tmp_path: Path) -> None:
    import torch

    from train import grpo

    calls: list[tuple[str, dict[str, Any], list[Any]]] = []
    args = tiny_args(grpo, exported["grpo"], tmp_path, "--max-steps", "1", "--batch-size", "4",
                     "--num-generations", "2", "--learning-rate", "1e-3")
    trainer = grpo.build(args, [recorded(fn, calls) for fn in REWARD_FUNCS] + [spread])
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()

    assert trainer.state.global_step == 1
    assert [name for name, _, _ in calls] == [fn.__name__ for fn in REWARD_FUNCS]
    rows = ground_truth(exported["grpo"])
    for _, kwargs, rewards in calls:
        assert len(kwargs["id"]) == len(rewards) == 4
        for i, row_id in enumerate(kwargs["id"]):   # each completion came with its own row's ground truth
            assert {k: kwargs[k][i] for k in ("action_type", "bbox", "text", "accepted")} == {
                k: rows[row_id][k] for k in ("action_type", "bbox", "text", "accepted")}
    log = trainer.state.log_history[0]
    for name, _, rewards in calls:   # what TRL logged is what our functions returned
        scored = [r for r in rewards if r is not None]
        assert log[f"rewards/{name}/mean"] == (pytest.approx(sum(scored) / len(scored)) if scored else None)
    assert math.isfinite(log["loss"])
    assert any(not torch.equal(before[name], p) for name, p in trainer.model.named_parameters())
