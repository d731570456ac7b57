"""Fine-tune a vision-language model on an fsmc sft or sft-trajectory export with TRL's SFTTrainer.

A row of the sft export is one step of a verified trajectory: the system prompt, the screenshot with
the task and the actions so far, and the reply to learn (`<think>…</think><action>{json}</action>`);
a row of the sft-trajectory export is a whole trajectory as one conversation, a screenshot before
each reply. The loss is on the replies only (TRL's assistant-only loss) unless --full-loss is given.

examples:
  fsmc export data/shop --format sft -o datasets/shop-sft        # or --format sft-trajectory
  python train/sft.py datasets/shop-sft --model Qwen/Qwen2.5-VL-3B-Instruct --output-dir runs/shop-sft
  python train/sft.py datasets/shop-sft --tiny --max-steps 2 --output-dir /tmp/sft-smoke   # offline check
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):   # run as `python train/sft.py`: make the `train` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.common import config_kwargs, load_split, model_and_processor, parser, train_and_save


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = parser(__doc__ or "")
    p.add_argument("--learning-rate", type=float, default=2e-5, help="(default: %(default)s)")
    p.add_argument("--full-loss", action="store_true", help="train on the whole conversation, not only the replies")
    return p.parse_args(argv)


def build(args: argparse.Namespace) -> Any:
    """The SFTTrainer for these options, ready to `.train()`."""
    from trl import SFTConfig, SFTTrainer

    dataset = load_split(args.dataset, args.split)
    model, processor = model_and_processor(args, dataset)
    # max_length=None: truncation would cut the reply (the screenshot's tokens come first), never the image.
    config = SFTConfig(**config_kwargs(args), max_length=None, assistant_only_loss=not args.full_loss)
    return SFTTrainer(model=model, args=config, train_dataset=dataset, processing_class=processor)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    train_and_save(build(args), args.output_dir)


if __name__ == "__main__":
    main()
