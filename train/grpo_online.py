"""Reinforce a vision-language model online with TRL's GRPOTrainer: episodes in a built site, rewarded by its semantics.

Each training row is a task of an `fsmc enumerate` output. For each group of --num-generations rows of one
task, the current model first plays the task for a few steps in the live environment (the roll-in, 0 to
--max-rollin steps, drawn with the seed), which puts it in a state of its own making. There TRL samples the
group's replies to the screenshot, the task and the actions so far (the prompt of the sft/grpo exports),
and each reply is acted out in an environment of its own: its action, then the current model again
until the episode ends or uses --max-episode-steps. A reply's reward is what the environment gave from
its action on: 1 when the semantics say the task is done (a retrieval task: answered right), else 0.
The gradient is on the replies only; the roll-in and the rest of the episode are the policy's context
and its value estimate. Every acted-out episode is written to OUTPUT_DIR/episodes.jsonl.

examples:
  fsmc enumerate specs/shop.fsm -o out/shop && fsmc build specs/shop.fsm
  python train/grpo_online.py out/shop --model runs/shop-sft --output-dir runs/shop-online
  python train/grpo_online.py out/shop --model runs/shop-sft --tasks 'buy/*' 'count_matches/*'
  python train/grpo_online.py out/shop --tiny --tasks count_matches/wool --max-steps 1 --batch-size 2 \\
      --num-generations 2 --grad-accum 1 --oracle-rollouts 1 --output-dir /tmp/online-smoke   # offline check
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import functools
import hashlib
import io
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):   # run as `python train/grpo_online.py`: make the `train` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fsmc.browser import find_dist
from fsmc.enumerate.verify import VerifyError
from fsmc.env import AsyncFsmcEnv, EnvPool, InvalidAction, Observation, Site, StepResult, Task, TaskSet
from fsmc.export import SYSTEM_PROMPT, parse_action
from fsmc.export.datasets import user_text
from train.common import config_kwargs, model_and_processor, parser, train_and_save
from train.rewards import format_reward, reply_text

EPISODES = "episodes.jsonl"
Messages = list[dict[str, Any]]
Action = dict[str, Any]


class BadInput(ValueError):
    """Options that name no built site, no enumerate output or no task: said in one line, never a traceback."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = parser(__doc__ or "", dataset=False)
    p.add_argument("out", type=Path, help="an `fsmc enumerate` output folder: the tasks and the spec that judges them")
    p.add_argument("--site", help="the built site: its dist/ folder, its folder or its name under generated_sites/ "
                                  "(default: the name of the output's site)")
    p.add_argument("--spec", type=Path, help="the spec file, where the one the output's manifest names is elsewhere")
    p.add_argument("--tasks", nargs="+", metavar="ID",
                   help="the tasks to train on: ids or shell patterns such as 'buy/*' (default: every task)")
    p.add_argument("--learning-rate", type=float, default=1e-6, help="(default: %(default)s)")
    p.add_argument("--num-generations", type=int, default=8,
                   help="replies sampled per group, each acted out in an environment of its own (default: %(default)s)")
    p.add_argument("--max-episode-steps", type=int, default=10,
                   help="actions an episode may take, roll-in included; a reply without an action counts "
                        "(default: %(default)s)")
    p.add_argument("--max-rollin", type=int, default=None,
                   help="most steps the model plays before its group's replies are sampled; 0 trains first actions "
                        "only (default: --max-episode-steps - 1)")
    p.add_argument("--max-completion-length", type=int, default=None,
                   help="tokens per reply (default: 256; 8 with --tiny, which never stops)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature, replies and episodes alike "
                                                                  "(default: %(default)s)")
    p.add_argument("--format-weight", type=float, default=0.0,
                   help="weight of train/rewards.py's format_reward beside the environment's (default: %(default)s: "
                        "logged, not rewarded)")
    p.add_argument("--save-steps", type=int, default=None, help="save a checkpoint every this many optimizer steps")
    p.add_argument("--oracle-rollouts", type=int, default=0, metavar="K",
                   help="a check of the reward wiring, not training: the first K replies of every group are acted out "
                        "by the oracle (the task's shortest verified trajectory, from the task's start: use with "
                        "--max-rollin 0) instead of the model, and must earn 1")
    args = p.parse_args(argv)
    if args.max_completion_length is None:
        args.max_completion_length = 8 if args.tiny else 256
    if args.max_episode_steps < 1:
        p.error("--max-episode-steps must be at least 1")
    limit = args.max_episode_steps - 1
    args.max_rollin = limit if args.max_rollin is None else min(max(args.max_rollin, 0), limit)
    if not 0 <= args.oracle_rollouts <= args.num_generations:
        p.error("--oracle-rollouts must be between 0 and --num-generations")
    return args


# ---------------------------------------------------------------- what the model sees


def prompt_of(instruction: str, history: list[Action]) -> Messages:
    """The prompt of the sft and grpo exports: the system prompt, then the screenshot, the task and the actions so far."""
    return [{"role": "system", "content": [{"type": "text", "text": SYSTEM_PROMPT}]},
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": user_text(instruction, history)}]}]


def picture(screenshot: bytes) -> Any:
    from PIL import Image

    with Image.open(io.BytesIO(screenshot)) as im:
        return im.convert("RGB")


def derive(*parts: object) -> int:
    """A seed from the run's seed and where we are (step, group, round): the same run draws the same numbers."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:4], "big")


# ---------------------------------------------------------------- episodes


@dataclass
class Start:
    """Where a group's replies are sampled: the task, the roll-in's accepted actions, the state and view they lead to."""

    group: str             # "<optimizer step>/<group in the batch>" ("<step>.<n>/…" for a step's n-th batch)
    task: str
    instruction: str
    prefix: list[Action]
    used: int              # steps of the episode's budget the roll-in used (replies without an action included)
    state: dict[str, Any]
    screenshot: bytes


@dataclass
class Walker:
    """One episode being played in one environment: by the model, or (a wiring check) by the oracle."""

    env: AsyncFsmcEnv
    start: Start
    observation: Observation
    history: list[Action]
    used: int
    member: int
    reply: str
    oracle: Any = None
    reward: float = 0.0
    done: bool = False
    steps: list[dict[str, Any]] = field(default_factory=list)


class Rollouts:
    """The environments (one Chromium, a scout for roll-ins and one per reply of a group) and the episodes in them.

    The environments are async (fsmc.env); they run on an event loop in a thread of their own, so the trainer's
    synchronous calls work the same inside or outside a running loop. The model is the trainer's, bound later.
    """

    def __init__(self, site: Site, args: argparse.Namespace):
        from fsmc.env.gym import LoopThread
        from fsmc.eval.policies import LiveOraclePolicy, Trajectories

        self.site, self.args = site, args
        self.size, self.max_steps = args.num_generations, args.max_episode_steps
        self.pool = EnvPool([site], n=self.size + 1, max_steps=self.max_steps)
        self.loop = LoopThread()
        self.oracle = functools.partial(LiveOraclePolicy, Trajectories())  # roll-ins: no replay at hand
        self.trainer: Any = None
        self.starts: dict[str, Start] = {}
        self.batches: dict[int, int] = {}   # batches rolled in at each optimizer step (several when
        #                                     steps_per_generation < gradient_accumulation_steps)
        self.env_steps = 0     # actions the environments performed, replays included
        self.log = Path(args.output_dir) / EPISODES

    def start(self) -> None:
        self.loop.run(self.pool.start())

    def close(self) -> None:
        try:
            self.loop.run(self.pool.close())
        finally:
            self.loop.stop()

    def together(self, coros: list[Any]) -> list[Any]:
        """Run coroutines at once on the environments' loop and wait for all of them."""
        async def gather() -> list[Any]:
            return list(await asyncio.gather(*coros))

        return self.loop.run(gather())

    def bind(self, trainer: Any) -> None:
        self.trainer = trainer
        tokenizer = getattr(trainer.processing_class, "tokenizer", trainer.processing_class)
        tokenizer.padding_side = "left"   # generation appends to the right end of every prompt

    # ------------------------------------------------ the model as the policy

    def generate(self, prompts: list[Messages], screenshots: list[bytes], seed: int) -> list[str]:
        """The model's replies (sampled as TRL samples them) to prompts, each with its screenshot; seeded, no grad."""
        import torch
        from trl.data_utils import prepare_multimodal_messages
        from trl.models import unwrap_model_for_generation

        trainer = self.trainer
        processor = trainer.processing_class
        images = [picture(s) for s in screenshots]
        texts = [processor.apply_chat_template(prepare_multimodal_messages(p, [im]), add_generation_prompt=True,
                                               tokenize=False) for p, im in zip(prompts, images, strict=True)]
        batch = processor(text=texts, images=images, padding=True, return_tensors="pt").to(trainer.accelerator.device)
        devices = [trainer.accelerator.device] if trainer.accelerator.device.type == "cuda" else []
        # as TRL generates: the model unwrapped (DeepSpeed, FSDP), activation checkpointing off for the while
        with (unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator,
                                          gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs) as model,
              torch.no_grad(), torch.random.fork_rng(devices=devices)):
            torch.manual_seed(seed)
            out = model.generate(**batch, generation_config=self.generation_config(model))
        return list(processor.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True))

    def generation_config(self, model: Any) -> Any:
        found = getattr(self.trainer, "generation_config", None)   # TRL's own (absent when vLLM generates)
        if found is not None:
            return found
        import copy

        config = copy.deepcopy(model.generation_config)
        config.update(max_new_tokens=self.args.max_completion_length, do_sample=self.args.temperature > 0,
                      temperature=self.args.temperature, top_p=1.0, top_k=None)
        return config

    # ------------------------------------------------ acting

    async def _step(self, env: AsyncFsmcEnv, reply: str | None, action: Action | None
                    ) -> tuple[dict[str, Any], StepResult | None]:
        """One step of the budget: the action done by the env, or a reply that holds none (recorded, nothing done)."""
        record: dict[str, Any] = {"reply": reply} if reply is not None else {}
        if action is None:
            return record | {"action": None, "error": "the reply holds no <action>{json}</action>"}, None
        try:
            result = await env.step(action)
        except InvalidAction as err:
            return record | {"action": action, "error": str(err)}, None
        self.env_steps += 1
        record |= {"action": action, "reward": result.reward, "terminated": result.terminated,
                   "truncated": result.truncated, "page": result.info["state"]["page"]}
        if "restored" in result.info:
            record["restored"] = result.info["restored"]
        return record, result

    async def _replay(self, env: AsyncFsmcEnv, start: Start) -> Observation:
        """Reset to the task and do the roll-in's actions again: the same state, or the environment is not deterministic."""
        observation, _ = await env.reset(options={"task": start.task})
        for action in start.prefix:
            result = await env.step(action)
            self.env_steps += 1
            observation = result.observation
        if env.state != start.state:
            raise RuntimeError(f"the roll-in of {start.task} acted again reached another state: {env.state} "
                               f"instead of {start.state}")
        return observation

    def roll_in(self, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows TRL samples replies to: each group's task, at the state the model's own roll-in reached."""
        step, rows = self.trainer.state.global_step, []
        batch = self.batches[step] = self.batches.get(step, -1) + 1
        for k in range(0, len(inputs), self.size):
            group = inputs[k:k + self.size]
            task = group[0]["task_id"]
            if len(group) != self.size or any(r["task_id"] != task for r in group):
                raise RuntimeError("GRPOTrainer should give each task's rows together, --num-generations of them")
            name = f"{step}/{k // self.size}" if not batch else f"{step}.{batch}/{k // self.size}"
            start = self.starts[name] = self._roll_in(name, task, self.depth(name))
            image = picture(start.screenshot)
            rows += [{**row, "prompt": prompt_of(start.instruction, start.prefix), "image": image, "group": name,
                      "member": m, "depth": start.used} for m, row in enumerate(group)]
        return rows

    def depth(self, group: str) -> int:
        """How many steps the model plays before the group's replies: uniform over 0..--max-rollin, seeded."""
        return random.Random(derive(self.args.seed, group, "depth")).randint(0, self.args.max_rollin)

    def _roll_in(self, group: str, task: str, depth: int) -> Start:
        """The model plays `depth` steps in the scout; an action that ends the episode is left out (no state after it)."""
        scout = self.pool.envs[0]
        observation, info = self.loop.run(scout.reset(options={"task": task}))
        start = Start(group, task, info["instruction"], [], 0, scout.state, observation.screenshot)
        for n in range(depth):
            reply = self.generate([prompt_of(start.instruction, start.prefix)], [start.screenshot],
                                  derive(self.args.seed, group, "roll-in", n))[0]
            action = parse_action(reply)
            start.used += 1
            _, result = self.loop.run(self._step(scout, reply, action))
            if result is None or action is None:
                continue
            if result.terminated or result.truncated:
                break
            start.prefix.append(action)
            start.state, start.screenshot = scout.state, result.observation.screenshot
        return start

    def env_reward(self, completions: list[Any], group: list[str], member: list[int], **kwargs: Any) -> list[float]:
        """The environment's reward for each reply: its action and the rest of its episode acted out, 1 on success."""
        rewards = [0.0] * len(completions)
        by_group: dict[str, list[int]] = {}
        for i, name in enumerate(group):
            by_group.setdefault(name, []).append(i)
        walkers: list[Walker] = []
        for name, index in by_group.items():
            played = self._episodes(self.starts.pop(name), [(member[i], reply_text(completions[i])) for i in index])
            for i, w in zip(index, played, strict=True):
                rewards[i] = w.reward
            walkers += played
        self._record(walkers)
        if log_metric := kwargs.get("log_metric"):
            log_metric("env/success", sum(w.reward > 0 for w in walkers) / len(walkers))
            log_metric("env/episode_steps", sum(w.used for w in walkers) / len(walkers))
        return rewards

    def _episodes(self, start: Start, members: list[tuple[int, str]]) -> list[Walker]:
        """Each member's reply acted out from the group's start in an environment of its own, then the episode played on."""
        envs = self.pool.envs[1:1 + len(members)]
        seen = self.together([self._replay(env, start) for env in envs])
        walkers = [Walker(env, start, obs, list(start.prefix), start.used, m, reply)
                   for env, obs, (m, reply) in zip(envs, seen, members, strict=True)]
        for w in walkers:
            if w.member < self.args.oracle_rollouts:
                w.oracle = self.oracle()
                self.loop.run(w.oracle.start(w.env.task, w.env, 0))
        decisions = [self._oracle(w) if w.oracle else (w.reply, parse_action(w.reply)) for w in walkers]
        self._advance(walkers, decisions)
        for n in range(self.max_steps):
            active = [w for w in walkers if not w.done]
            if not active:
                break
            by_model = [w for w in active if w.oracle is None]
            replies = self.generate([prompt_of(start.instruction, w.history) for w in by_model],
                                    [w.observation.screenshot for w in by_model],
                                    derive(self.args.seed, start.group, "episode", n)) if by_model else []
            answers = dict(zip(map(id, by_model), replies, strict=True))
            self._advance(active, [self._oracle(w) if w.oracle else (answers[id(w)], parse_action(answers[id(w)]))
                                   for w in active])
        return walkers

    def _oracle(self, w: Walker) -> tuple[str | None, Action | None]:
        action = self.loop.run(w.oracle.act(w.observation, {}))
        if action is None:
            w.done = True   # the verified trajectory is over
        return None, action

    def _advance(self, walkers: list[Walker], decisions: list[tuple[str | None, Action | None]]) -> None:
        """Every walker that is not done takes its step, all at once; its budget, history and reward follow."""
        todo = [(w, reply, action) for w, (reply, action) in zip(walkers, decisions, strict=True) if not w.done]
        done = self.together([self._step(w.env, reply, action) for w, reply, action in todo])
        for (w, _, action), (record, result) in zip(todo, done, strict=True):
            w.used += 1
            w.steps.append(record)
            if result is not None and action is not None:
                w.history.append(action)
                w.observation = result.observation
                w.reward += result.reward
                w.done = result.terminated or result.truncated
            w.done = w.done or w.used >= self.max_steps

    def _record(self, walkers: list[Walker]) -> None:
        """One line per acted-out reply in OUTPUT_DIR/episodes.jsonl."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        step = self.trainer.state.global_step
        with self.log.open("a", encoding="utf-8") as f:
            for w in walkers:
                line = {"step": step, "group": w.start.group, "member": w.member, "task": w.start.task,
                        "rollin": w.start.prefix, "rollin_steps": w.start.used,
                        "policy": "oracle" if w.oracle else "model", "reply": w.reply, "steps": w.steps,
                        "episode_steps": w.used, "env_steps": w.env.steps, "reward": w.reward, "success": w.reward > 0,
                        "state": w.env.state}
                f.write(json.dumps(line, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- the trainer


def load_site(args: argparse.Namespace) -> Site:
    """The built site and the tasks of the enumerate output; BadInput says what is missing."""
    try:
        tasks = TaskSet(args.out, spec=args.spec)
    except VerifyError as err:
        raise BadInput(str(err)) from None
    dist = find_dist(args.site or tasks.site)
    if dist is None:
        raise BadInput(f"{args.site or tasks.site} is not a built site (no index.html in it, its dist/ or "
                       f"generated_sites/{args.site or tasks.site}/dist); build it with `fsmc build SPEC`")
    return Site(tasks.site, dist, tasks)


def select(tasks: TaskSet, patterns: Sequence[str] | None) -> list[Task]:
    if not len(tasks):
        raise BadInput(f"{tasks.out / 'tasks.jsonl'} holds no task")
    if not patterns:
        return list(tasks)
    chosen: dict[str, Task] = {}
    for pattern in patterns:
        found = [t for t in tasks if fnmatch.fnmatchcase(t.id, pattern)]
        if not found:
            raise BadInput(f"no task {pattern!r} in {tasks.out / 'tasks.jsonl'} ({len(tasks)} tasks, "
                           f"e.g. {next(iter(tasks)).id!r})")
        chosen |= {t.id: t for t in found}
    return list(chosen.values())


def online_trainer(rollouts: Rollouts) -> Any:
    """GRPOTrainer whose rows are rolled in first: TRL then samples, scores and trains as it does on any dataset,
    with the screenshot of the rolled-in state as the row's image (so generation and the loss both see it)."""
    from trl import GRPOTrainer

    class OnlineGRPOTrainer(GRPOTrainer):  # type: ignore[misc]
        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            return super()._generate_and_score_completions(rollouts.roll_in(inputs))  # type: ignore[no-any-return]

    return OnlineGRPOTrainer


def build(args: argparse.Namespace) -> tuple[Any, Rollouts]:
    """The trainer for these options and its rollouts (whose environments `start` before `train`)."""
    site = load_site(args)   # bad input is told before the seconds that importing TRL takes
    tasks = select(site.tasks, args.tasks)
    from datasets import Dataset
    from trl import GRPOConfig

    dataset = Dataset.from_list([{"prompt": prompt_of(t.instruction, []), "task_id": t.id} for t in tasks])
    model, processor = model_and_processor(args, dataset)
    rollouts = Rollouts(site, args)
    kwargs = config_kwargs(args)
    if args.save_steps:
        kwargs.update(save_strategy="steps", save_steps=args.save_steps)
    config = GRPOConfig(**kwargs, num_generations=args.num_generations, max_completion_length=args.max_completion_length,
                        temperature=args.temperature, reward_weights=[1.0, args.format_weight],
                        log_completions=not args.tiny)
    trainer = online_trainer(rollouts)(model=model, reward_funcs=[rollouts.env_reward, format_reward], args=config,
                                       train_dataset=dataset, processing_class=processor)
    rollouts.bind(trainer)
    return trainer, rollouts


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    try:
        trainer, rollouts = build(args)
    except BadInput as err:
        sys.exit(f"error: {err}")
    try:
        rollouts.start()
        train_and_save(trainer, args.output_dir)
    finally:
        rollouts.close()


if __name__ == "__main__":
    main()
