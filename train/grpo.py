"""Reinforce a vision-language model on an fsmc grpo or grounding export with TRL's GRPOTrainer.

For each row the model samples --num-generations replies to the screenshot and task; each reply is
scored by the reward functions of train/rewards.py against the row's ground truth (format, action
type, coordinate inside the target's box, text) and the replies of a row are compared with one
another. Start from a model that already answers in the format (e.g. one trained with sft.py).

examples:
  fsmc export data/shop --format grpo -o datasets/shop-grpo
  python train/grpo.py datasets/shop-grpo --model runs/shop-sft --output-dir runs/shop-grpo
  python train/grpo.py datasets/shop-grpo --model runs/shop-sft --reward-weights 0.2 0.3 1 1 1
  python train/grpo.py datasets/shop-grpo --tiny --max-steps 1 --output-dir /tmp/grpo-smoke   # offline check
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):   # run as `python train/grpo.py`: make the `train` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.common import config_kwargs, load_split, model_and_processor, parser, train_and_save
from train.rewards import REWARD_FUNCS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = parser(__doc__ or "")
    p.add_argument("--learning-rate", type=float, default=1e-6, help="(default: %(default)s)")
    p.add_argument("--num-generations", type=int, default=8, help="replies sampled per row (default: %(default)s)")
    p.add_argument("--max-completion-length", type=int, default=None,
                   help="tokens per reply (default: 256, a sentence and a JSON action; 8 with --tiny, which never stops)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default: %(default)s)")
    p.add_argument("--reward-weights", type=float, nargs=len(REWARD_FUNCS), metavar="W",
                   help=f"weights of the rewards {', '.join(f.__name__ for f in REWARD_FUNCS)} (default: all 1)")
    args = p.parse_args(argv)
    if args.max_completion_length is None:
        args.max_completion_length = 8 if args.tiny else 256
    return args


def build(args: argparse.Namespace, reward_funcs: Sequence[Any] = REWARD_FUNCS) -> Any:
    """The GRPOTrainer for these options, ready to `.train()`."""
    from trl import GRPOConfig, GRPOTrainer

    dataset = load_split(args.dataset, args.split)
    model, processor = model_and_processor(args, dataset)
    config = GRPOConfig(**config_kwargs(args), num_generations=args.num_generations,
                        max_completion_length=args.max_completion_length, temperature=args.temperature,
                        reward_weights=args.reward_weights, log_completions=not args.tiny)
    return GRPOTrainer(model=model, reward_funcs=list(reward_funcs), args=config, train_dataset=dataset,
                       processing_class=processor)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    train_and_save(build(args), args.output_dir)


if __name__ == "__main__":
    main()
