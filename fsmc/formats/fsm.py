"""The .fsm language as a format: read by the front end's parser (within its length limit), written by fsmc.printer."""

from __future__ import annotations

from pathlib import Path

from fsmc import ir
from fsmc.frontend import parse
from fsmc.frontend.limits import refuse_long_text
from fsmc.printer import to_fsm

__all__ = ["from_fsm", "to_fsm"]


def from_fsm(text: str, file: str = "<spec>", base_dir: Path | None = None) -> ir.Spec:
    """The spec of .fsm text (unresolved); table files are read from `base_dir`, else the file's folder."""
    refuse_long_text(text, file)
    return parse(text, file, base_dir)
