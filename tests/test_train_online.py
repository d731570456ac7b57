"""train/grpo_online.py: a GRPO step of a tiny model on episodes acted out in the shop's live environment (Chromium)."""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # train/ is a folder of scripts beside the package, not an installed module

from train import grpo_online  # noqa: E402
from train.common import train_and_save  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning")  # TRL's

TASK = "count_matches/waterproof"   # search for "waterproof", then answer 6: the oracle needs three steps
SCRIPT = ROOT / "train" / "grpo_online.py"


def reply(action: dict[str, Any]) -> list[dict[str, str]]:
    """A completion as TRL passes it for a conversational prompt."""
    return [{"role": "assistant", "content": f"<think>…</think><action>{json.dumps(action)}</action>"}]


def episodes(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / grpo_online.EPISODES).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def trained(shop_site: Path, shop_out: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One optimizer step: a group of two replies, the first acted out by the oracle, the second by the tiny model."""
    out = tmp_path_factory.mktemp("online")
    args = grpo_online.parse_args([
        str(shop_out), "--site", str(shop_site), "--tiny", "--tasks", TASK, "--max-steps", "1", "--batch-size", "2",
        "--num-generations", "2", "--grad-accum", "1", "--max-episode-steps", "5", "--max-rollin", "1",
        "--oracle-rollouts", "1", "--save-steps", "1", "--learning-rate", "1e-3", "--output-dir", str(out)])
    trainer, rollouts = grpo_online.build(args)
    try:
        rollouts.start()
        before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
        train_and_save(trainer, out)
        yield {"trainer": trainer, "rollouts": rollouts, "before": before, "out": out, "args": args}
    finally:
        rollouts.close()


def test_one_step_on_episodes_acted_out_in_the_live_site(trained: dict[str, Any]) -> None:
    import torch
    from safetensors.torch import load_file

    trainer, rollouts, out = trained["trainer"], trained["rollouts"], trained["out"]
    oracle, model = episodes(out)
    assert trainer.state.global_step == 1
    assert (oracle["policy"], model["policy"]) == ("oracle", "model") and oracle["group"] == model["group"] == "0/0"
    assert oracle["task"] == model["task"] == TASK
    assert oracle["rollin_steps"] == model["rollin_steps"] <= 1   # the roll-in: the model's own steps, budget used

    # the oracle's reply: searched and answered in the live page; the reward is the environment's, at the answer only
    assert [s["action"]["action"] for s in oracle["steps"]] == ["type", "key", "answer"]
    assert [s["reward"] for s in oracle["steps"]] == [0.0, 0.0, 1.0] and oracle["steps"][-1]["terminated"]
    assert (oracle["reward"], oracle["success"], oracle["env_steps"]) == (1.0, True, 3)
    assert oracle["state"]["page"] == "search" and oracle["steps"][1]["page"] == "search"
    member_env = rollouts.pool.envs[1]   # the environment of the group's first reply, as the episode left it
    assert member_env.steps == 3 and member_env.done and member_env.state == oracle["state"]

    # the random model's reply holds no action: every step of its budget is spent, nothing is done, reward 0
    assert (model["reward"], model["success"], model["episode_steps"]) == (0.0, False, 5)
    assert model["env_steps"] == sum("reward" in s for s in model["steps"]) + len(model["rollin"])
    assert rollouts.env_steps >= 3

    # what TRL trained on is what the environment gave
    log = trainer.state.log_history[0]
    assert log["rewards/env_reward/mean"] == pytest.approx(0.5) and log["env/success"] == pytest.approx(0.5)
    assert math.isfinite(log["loss"])
    changed = [name for name, p in trainer.model.named_parameters() if not torch.equal(trained["before"][name], p)]
    assert changed

    saved = load_file(out / "checkpoint-1" / "model.safetensors")
    state = trainer.model.state_dict()
    assert any(name in saved and torch.equal(saved[name], state[name]) for name in changed)
    assert (out / "model.safetensors").is_file() and (out / "processor_config.json").is_file()


def test_scripted_replies_earn_exactly_what_the_environment_gives(trained: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rollouts = trained["rollouts"]
    monkeypatch.setattr(trained["args"], "oracle_rollouts", 0)   # every reply is the one given
    task_rows = [{"task_id": TASK, "prompt": []}] * 2

    async def inside_a_loop() -> list[dict[str, Any]]:   # the environments' loop is their own: no clash
        return rollouts.roll_in(task_rows)

    rows = asyncio.run(inside_a_loop())
    assert rows[0]["image"].size == (1280, 720) and rows[0]["group"] == "1/0"
    start = rollouts.starts["1/0"]
    again = rollouts._roll_in("1/0", TASK, rollouts.depth("1/0"))   # the same group and seed: the same roll-in
    assert (again.used, again.prefix, again.state) == (start.used, start.prefix, start.state)
    assert start.used == rows[0]["depth"] and start.prefix == []   # the random model's replies hold no action

    right, wrong = reply({"action": "answer", "text": "6"}), reply({"action": "answer", "text": "7"})
    assert rollouts.env_reward([right, wrong], group=[r["group"] for r in rows], member=[0, 1]) == [1.0, 0.0]

    first = episodes(trained["out"])[0]["steps"][0]["action"]   # the oracle's type into the search box
    rows = rollouts.roll_in(task_rows)
    assert rows[0]["group"] == "1.1/0"   # a second batch at the same optimizer step is a group of its own
    typed = reply(first)
    assert rollouts.env_reward([typed, reply({"action": "fly"})], group=[r["group"] for r in rows],
                               member=[0, 1]) == [0.0, 0.0]
    done, refused = episodes(trained["out"])[-2:]
    assert done["steps"][0]["action"] == first and "error" not in done["steps"][0]
    assert done["env_steps"] >= 1 and done["state"]["page"] == "home"
    assert refused["steps"][0]["action"] is None and "error" in refused["steps"][0]


def scripted(search_box: dict[str, Any]) -> Callable[[list[Any], list[bytes], int], list[str]]:
    """A stand-in for the model that solves TASK from wherever it is: type the query, press Enter, answer."""
    def next_action(prompt: Any) -> dict[str, Any]:
        text = prompt[-1]["content"][-1]["text"]
        if '"key"' in text:
            return {"action": "answer", "text": "6"}
        if '"type"' in text:
            return {"action": "key", "key": "Enter"}
        return search_box

    def generate(prompts: list[Any], screenshots: list[bytes], seed: int) -> list[str]:
        return [f"<action>{json.dumps(next_action(p))}</action>" for p in prompts]

    return generate


def test_a_roll_in_is_acted_again_and_the_final_reward_reaches_the_first_reply(
        trained: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    rollouts, out = trained["rollouts"], trained["out"]
    search_box = episodes(out)[0]["steps"][0]["action"]   # the oracle's type into the search box
    monkeypatch.setattr(trained["args"], "oracle_rollouts", 0)
    monkeypatch.setattr(rollouts, "generate", scripted(search_box))
    monkeypatch.setattr(rollouts, "depth", lambda group: 1)
    rows = rollouts.roll_in([{"task_id": TASK, "prompt": []}] * 2)
    assert '1. {"action":"type"' in rows[0]["prompt"][-1]["content"][-1]["text"]   # the prompt after the roll-in
    enter, wrong = reply({"action": "key", "key": "Enter"}), reply({"action": "answer", "text": "7"})
    assert rollouts.env_reward([enter, wrong], group=[r["group"] for r in rows], member=[0, 1]) == [1.0, 0.0]
    solved, answered = episodes(out)[-2:]
    assert solved["rollin"] == [search_box] and solved["rollin_steps"] == 1
    assert [s["action"]["action"] for s in solved["steps"]] == ["key", "answer"]   # Enter, then the "model" answers
    assert [s["reward"] for s in solved["steps"]] == [0.0, 1.0] and solved["env_steps"] == 3   # roll-in acted again
    assert (answered["reward"], answered["env_steps"], answered["state"]["page"]) == (0.0, 2, "home")

    monkeypatch.setattr(rollouts, "depth", lambda group: 3)   # type, Enter, then the answer would end the episode
    rows = rollouts.roll_in([{"task_id": TASK, "prompt": []}] * 2)
    start = rollouts.starts.pop(rows[0]["group"])
    assert [a["action"] for a in start.prefix] == ["type", "key"] and start.used == 3 and start.state["page"] == "search"


def test_bad_input_is_one_line_and_a_non_zero_exit(shop_site: Path, shop_out: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in [((str(tmp_path / "nowhere"),), "an `fsmc enumerate` output"),
                       ((str(shop_out), "--site", str(tmp_path)), "is not a built site"),
                       ((str(shop_out), "--site", str(shop_site), "--tasks", "buy/*", "no/such-task"), "no task 'no/such")]:
        with pytest.raises(SystemExit) as stop:
            grpo_online.main([*argv, "--tiny", "--output-dir", str(tmp_path)])
        assert isinstance(stop.value.code, str) and stop.value.code.startswith("error: ") and said in stop.value.code
    with pytest.raises(SystemExit) as stop:
        grpo_online.parse_args(["--help"])
    assert stop.value.code == 0 and "--oracle-rollouts" in capsys.readouterr().out

    done = subprocess.run([sys.executable, str(SCRIPT), str(shop_out), "--site", str(tmp_path), "--tiny"],
                          capture_output=True, text=True, cwd=ROOT)   # as a user runs it
    assert done.returncode == 1 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr
