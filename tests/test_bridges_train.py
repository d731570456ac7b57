"""TRL's environment_factory over fsmc's OpenEnv server: one GRPO step of a tiny random model on the shop."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # train/ is a folder of scripts beside the package, not an installed module

from train.tiny import tiny_chat_model_and_tokenizer  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")  # TRL's and transformers'


def test_one_grpo_step_with_environments_served_by_openenv(shop_site: Path, shop_out: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from fsmc.bridges.openenv import BrowserTools, create_openenv_app
    from fsmc.env.serving import ServerThread

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = tiny_chat_model_and_tokenizer()
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "Use the tools to do the task."}],
                               "task": "buy/p01"}])
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, use_cpu=True, report_to=[], logging_steps=1, learning_rate=1e-3,
                      max_tool_calling_iterations=1, save_strategy="no", seed=0)
    envs: list[BrowserTools] = []
    with ServerThread([], app=create_openenv_app(shop_site, shop_out, observe=("url",), max_steps=3)) as url:
        def factory() -> BrowserTools:
            envs.append(BrowserTools(url))
            return envs[-1]

        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, train_dataset=data,
                              environment_factory=factory)
        assert {t.__name__ for t in trainer.tools} == {"click", "type_text", "press_key", "scroll", "answer"}
        trainer.train()
        states = [env.client.state() for env in envs]
        page = envs[0].click(2, 715)   # a tool call as TRL makes one: through the client, a step of the server's env
        after = envs[0].client.state()
        for env in envs:
            env.__exit__()
    log = trainer.state.log_history[0]
    assert trainer.state.global_step == 1
    assert log["rewards/BrowserTools/mean"] == 0.0   # the environment's reward: the random model did not buy it
    assert len(states) == 2 and all(s.task == "buy/p01" and s.state["page"] == "home" for s in states)
    assert page.startswith("goal: Buy the Ridgeline Waterproof Shell Jacket.\nurl: /#/home")
    assert after.step_count == states[0].step_count + 1
