"""What the SFT and GRPO scripts share: their common options, the dataset split, and the model with its processor."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TOKENIZER_ROWS = 200   # rows whose texts the --tiny tokenizer is trained on


def parser(doc: str, *, dataset: bool = True) -> argparse.ArgumentParser:
    """The options the scripts take; `doc` is the script's docstring: first line as description, rest as epilog.

    `dataset=False` leaves out the export folder and `--split` (grpo_online.py trains on live episodes instead).
    """
    first, _, rest = doc.partition("\n")
    p = argparse.ArgumentParser(description=first, epilog=rest, formatter_class=argparse.RawDescriptionHelpFormatter)
    if dataset:
        p.add_argument("dataset", type=Path, help="folder written by `fsmc export` (what datasets.load_dataset reads)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", help="vision-language model to start from: a local folder or a Hub id")
    which.add_argument("--tiny", action="store_true",
                       help="a tiny random Qwen2.5-VL built offline (train/tiny.py): checks the pipeline, learns nothing")
    p.add_argument("--output-dir", type=Path, default=Path("runs/out"), help="checkpoints and the final model (default: %(default)s)")
    if dataset:
        p.add_argument("--split", default="train", help="dataset split to train on (default: %(default)s)")
    p.add_argument("--max-steps", type=int, default=-1, help="stop after this many optimizer steps (default: one epoch)")
    p.add_argument("--epochs", type=float, default=1.0, help="passes over the split when --max-steps is not given")
    p.add_argument("--batch-size", type=int, default=2, help="rows per device and step (default: %(default)s)")
    p.add_argument("--grad-accum", type=int, default=8, help="gradient accumulation steps (default: %(default)s)")
    p.add_argument("--max-pixels", type=int, default=None,
                   help="largest image area the processor keeps, for Qwen-VL processors (screenshots are 1280x720)")
    p.add_argument("--seed", type=int, default=0)
    return p


def load_split(folder: Path, split: str) -> Any:
    from datasets import load_dataset

    return load_dataset(str(folder), split=split)


def texts(dataset: Any) -> Iterator[str]:
    """The texts of the first rows of an export (conversation or prompt), without decoding any image."""
    column = "messages" if "messages" in dataset.column_names else "prompt"
    head = dataset.select(range(min(TOKENIZER_ROWS, len(dataset)))).select_columns([column])
    for messages in head[column]:
        yield from (part["text"] for m in messages for part in m["content"] if part.get("text"))


def model_and_processor(args: argparse.Namespace, dataset: Any) -> tuple[Any, Any]:
    """`--tiny`: built here with a tokenizer trained on the dataset's texts; otherwise loaded from `--model`."""
    if args.tiny:
        from train.tiny import tiny_model_and_processor

        return tiny_model_and_processor(texts(dataset), seed=args.seed)
    from transformers import AutoModelForImageTextToText, AutoProcessor

    extra = {} if args.max_pixels is None else {"max_pixels": args.max_pixels}
    processor = AutoProcessor.from_pretrained(args.model, **extra)
    model = AutoModelForImageTextToText.from_pretrained(args.model, dtype="auto")
    return model, processor


def config_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """TrainingArguments both trainers take; a --tiny run is a CPU smoke test: fp32, logs every step, no checkpoints."""
    kwargs: dict[str, Any] = {
        "output_dir": str(args.output_dir), "max_steps": args.max_steps, "num_train_epochs": args.epochs,
        "per_device_train_batch_size": args.batch_size, "gradient_accumulation_steps": args.grad_accum,
        "learning_rate": args.learning_rate, "seed": args.seed, "report_to": "none",
    }
    if args.tiny:
        kwargs.update(bf16=False, activation_checkpointing=False, logging_steps=1, save_strategy="no",
                      dataloader_pin_memory=False)
    return kwargs


def train_and_save(trainer: Any, output_dir: Path) -> None:
    """Train, then save the model and its processor where the next run (or `--model`) can load them."""
    trainer.train()
    trainer.save_model(str(output_dir))
    print(f"saved the model and its processor to {output_dir}")
