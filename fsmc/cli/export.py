"""`fsmc export`: a replayed data folder as an SFT, GRPO or grounding dataset that `datasets` and TRL load as is."""

from __future__ import annotations

import argparse
import sys

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE
from fsmc.export.writer import FORMATS

NAME = "export"
HELP = "Turn a replayed data folder into an SFT, GRPO or grounding dataset (Parquet, loadable by datasets and TRL)."
DESCRIPTION = HELP + """

  sft        one conversation per step: the screenshot, the task and the actions so far, then a
             templated thought and the action as <think>…</think><action>{…}</action>
             (columns messages, images: what TRL's SFTTrainer reads)
  sft-trajectory
             one multi-turn conversation per trajectory: the task and the first screenshot,
             then each reply followed by the next screenshot (the same columns)
  grpo       one row per step: prompt and image, and the ground truth reward functions read
             (action_type, coordinate, bbox, text, accepted answers, solution)
  grounding  "click on …" rows from the boxes of the elements acted on, mixed with navigation
             rows (--grounding-ratio of the whole, default 0.2)

Load the result with `datasets.load_dataset(DS)`. Each shard stores a screenshot once, however many
rows show it, so an export takes about the bytes of its distinct screenshots.
"""


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("data", help="a folder written by `fsmc replay`")
    parser.add_argument("--format", required=True, choices=FORMATS, help="which dataset")
    parser.add_argument("-o", "--out", required=True, help="dataset folder to write (replaced as a whole)")
    parser.add_argument("--grounding-ratio", type=_fraction, default=0.2,
                        help="grounding's share of the grounding dataset (default 0.2: 2 grounding rows in 10)")
    parser.add_argument("--test-fraction", type=_fraction, default=0.0,
                        help="share of the tasks held out as a test split (default 0: train only)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the grounding mix (default 0)")


def run(args: argparse.Namespace) -> int:
    import datasets

    from fsmc.export import export

    datasets.disable_progress_bars()  # one line of result instead of a bar per shard

    try:
        counts = export(args.data, args.format, args.out, grounding_ratio=args.grounding_ratio, seed=args.seed,
                        test_fraction=args.test_fraction)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_UNREADABLE
    except (ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ERRORS
    sizes = ", ".join(f"{n:,} {split}" for split, n in counts.items())
    print(f"{args.out}: {args.format} dataset, {sizes} rows")
    return EXIT_OK
