"""`fsmc export`: a replayed data folder as an SFT, GRPO or grounding dataset that `datasets` and TRL load as is."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from fsmc.cli.common import EXIT_OK, Failure, Unreadable, Usage, each_site, given, shown, writing
from fsmc.cli.models import add_model_arguments, model_client
from fsmc.export.writer import FORMATS

if TYPE_CHECKING:
    from fsmc.project import Site

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
    parser.add_argument("data", nargs="?", help="a folder written by `fsmc replay` (default: every site of the project, "
                                                 "each into its dataset folder)")
    parser.add_argument("--format", choices=FORMATS, help="which dataset (needed with DATA; in a project: its [export] "
                                                          "format, else sft)")
    parser.add_argument("-o", "--out", help="dataset folder to write (replaced as a whole; needed with DATA)")
    parser.add_argument("--grounding-ratio", type=_fraction,
                        help="grounding's share of the grounding dataset (default 0.2: 2 grounding rows in 10)")
    parser.add_argument("--test-fraction", type=_fraction,
                        help="share of the tasks held out as a test split (default 0: train only)")
    parser.add_argument("--seed", type=int, help="seed for the grounding mix (default 0)")
    parser.add_argument("--thoughts", choices=("template", "model"), default="template",
                        help="each step's thought in sft and sft-trajectory: templated from the action (default), or "
                             "written by a model from the screenshot and the action (DATA/thoughts.jsonl, cached; "
                             "the model flags below)")
    add_model_arguments(parser)


OPTIONS = ("format", "grounding_ratio", "test_fraction", "seed")


def run(args: argparse.Namespace) -> int:
    if args.data is None:
        return each_site(args, _export, lambda site: _site_fields(args, site), only_with_spec={"out": "-o/--out"})
    if args.format is None or args.out is None:
        raise Usage("fsmc export: --format and -o DS are needed with DATA")
    return _export(args)


def _site_fields(args: argparse.Namespace, site: Site) -> dict[str, Any]:
    options = given(args, OPTIONS, {"format": "sft", **site.export})
    return {"data": shown(site.data), "out": shown(site.dataset_for(options["format"])), **options}


def _export(args: argparse.Namespace) -> int:
    import datasets

    from fsmc.export import export

    datasets.disable_progress_bars()  # one line of result instead of a bar per shard

    options = given(args, OPTIONS[1:], {})
    thoughts = _model_thoughts(args) if args.thoughts == "model" and args.format in ("sft", "sft-trajectory") else None
    try:
        with writing(args.out, NAME):
            counts = export(args.data, args.format, args.out, thoughts=thoughts, **options)
    except FileNotFoundError as err:
        raise Unreadable(f"error: {err}") from None
    except (ValueError, KeyError) as err:
        raise Failure(f"error: {err}") from None
    sizes = ", ".join(f"{n:,} {split}" for split, n in counts.items())
    print(f"{args.out}: {args.format} dataset, {sizes} rows")
    return EXIT_OK


def _model_thoughts(args: argparse.Namespace) -> dict[str, str]:
    """A model's thought for every step of DATA's kept trajectories (written to DATA/thoughts.jsonl), by row id."""
    import json
    from pathlib import Path

    from fsmc.export.thoughts import THOUGHTS, thoughts_output
    from fsmc.llm import LLMError

    data = Path(args.data)
    client = model_client(args, data / "thoughts.ledger.jsonl", "fsmc export")
    try:
        n = thoughts_output(client, data)
    except LLMError as err:
        raise Failure(f"{args.data}: error: cannot write the thoughts: {err.message}", err) from None
    except FileNotFoundError as err:
        raise Unreadable(f"error: {err}") from None
    print(f"{data / THOUGHTS}: {n['steps']:,} thoughts for {n['trajectories']:,} trajectories")
    lines = (data / THOUGHTS).read_text(encoding="utf-8").splitlines()
    return {row["id"]: row["thought"] for row in map(json.loads, lines)}
