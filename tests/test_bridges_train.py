"""TRL's environment_factory over fsmc's OpenEnv server: one GRPO step of a tiny model on the shop, its tool calls
acted out by the environments.

A model with random weights calls no tool, so no step of an environment would ever be part of training: the tiny model
is first taught (a few supervised steps, here) to answer every task by calling the `answer` tool with "6". GRPO then
samples that call on two tasks, the environments behind OpenEnv act it out, and the rewards are theirs: 1 where 6 is
the answer (waterproof), 0 where it is not (wool).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # train/ is a folder of scripts beside the package, not an installed module

from train.tiny import tiny_chat_model_and_tokenizer  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")  # TRL's and transformers'

PROMPT = "Use the tools to do the task.\n"
TASKS = ("count_matches/waterproof", "count_matches/wool")   # 6 products match "waterproof", 9 match "wool"
CALL = {"type": "function", "function": {"name": "answer", "arguments": {"text": "6"}}}


def render(tokenizer: Any, tools: list[Any], content: str) -> tuple[str, str]:
    """The prompt as TRL renders it for generation, and the completion that calls `answer("6")` after it."""
    messages = [{"role": "user", "content": content}]
    prompt = tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=False)
    whole = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": "", "tool_calls": [CALL]}],
                                          tools=tools, tokenize=False)
    assert whole.startswith(prompt)
    return prompt, whole[len(prompt):].rstrip("\n")


def teach(model: Any, tokenizer: Any, pairs: list[tuple[str, str]], steps: int = 40) -> None:
    """Supervised steps on the completions alone (the prompt's tokens carry no loss), from the random weights."""
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    examples = []
    for prompt, completion in pairs:
        p, c = (tokenizer(t, add_special_tokens=False).input_ids for t in (prompt, completion))
        ids = torch.tensor([p + c])
        labels = ids.clone()
        labels[0, :len(p)] = -100
        examples.append((ids, labels))
    model.train()
    for _ in range(steps):
        for ids, labels in examples:
            model(input_ids=ids, labels=labels).loss.backward()
            optimizer.step()
            optimizer.zero_grad()


def greedy(model: Any, tokenizer: Any, prompt: str) -> str:
    ids = tokenizer(prompt, add_special_tokens=False, return_tensors="pt").input_ids
    out = model.generate(ids, max_new_tokens=64, do_sample=False)
    return str(tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=False))


def test_one_grpo_step_acts_in_environments_served_by_openenv(shop_site: Path, shop_out: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             request: pytest.FixtureRequest) -> None:
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from fsmc.bridges.openenv import BrowserTools, create_openenv_app
    from fsmc.env.serving import ServerThread

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # a model this small gains nothing from threads, and a busy machine loses much to them
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": PROMPT}], "task": t} for t in TASKS])
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=64, use_cpu=True, report_to=[], logging_steps=1, learning_rate=1e-3,
                      max_tool_calling_iterations=1, save_strategy="no", seed=0, shuffle_dataset=False)
    envs: list[BrowserTools] = []
    with ServerThread([], app=create_openenv_app(shop_site, shop_out, observe=("url",), max_steps=3)) as url:
        def factory() -> BrowserTools:
            envs.append(BrowserTools(url))
            return envs[-1]

        with BrowserTools(url) as first:   # what each example's reset adds to its prompt
            shown = [first.reset(task=t) for t in TASKS]
        model, tokenizer = tiny_chat_model_and_tokenizer([PROMPT + s for s in shown])
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, train_dataset=data,
                              environment_factory=factory)
        assert {t.__name__ for t in trainer.tools} == {"click", "type_text", "press_key", "scroll", "answer"}
        pairs = [render(tokenizer, trainer.tools, PROMPT + s) for s in shown]
        teach(model, tokenizer, pairs)
        assert [greedy(model, tokenizer, p) for p, _ in pairs] == [c for _, c in pairs]   # it calls the tool now
        trainer.train()
        states = [env.client.state() for env in envs]
        rewards = [env.get_reward() for env in envs]
        for env in envs:
            env.__exit__()
    log = trainer.state.log_history[0]
    assert trainer.state.global_step == 1 and len(envs) == 4
    # each environment was reset to its example's task and took the answer as a step of the training loop
    assert sorted((s.task, s.step_count, s.done) for s in states) == sorted((t, 1, True) for t in TASKS for _ in "ab")
    assert sorted(zip((s.task for s in states), rewards, strict=True)) == [(TASKS[0], 1.0)] * 2 + [(TASKS[1], 0.0)] * 2
    assert log["rewards/BrowserTools/mean"] == 0.5   # the environments' rewards, which differ between the tasks
