"""What a model's tokens cost: a table of US dollars per million tokens, shipped with defaults a user file overrides.

The user file is TOML (`--prices FILE` or $FSMC_PRICES), one table per model:

    [models."gpt-4o-mini"]
    input = 0.15     # USD per million prompt tokens
    output = 0.60    # USD per million completion tokens

A model is priced by its exact name, else by the longest listed name it starts with (`gpt-4o-2024-08-06` is
priced as `gpt-4o`); a model the table does not know costs None, and the ledger says so.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from fsmc.llm.base import EXIT_CONFIG, LLMError

# List prices (USD per million tokens: input, output) as the providers published them in 2025; edit to yours.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.0-flash": (0.10, 0.40),
}


class Prices:
    def __init__(self, table: dict[str, tuple[float, float]]):
        self.table = dict(table)

    @classmethod
    def load(cls, file: str | Path | None = None) -> Prices:
        """The defaults, overridden by `file` (else $FSMC_PRICES, if set); LLMError (exit 2) for a bad file."""
        file = file or os.environ.get("FSMC_PRICES") or None
        table = dict(DEFAULT_PRICES)
        if file:
            table.update(_read(Path(file)))
        return cls(table)

    def price(self, model: str) -> tuple[float, float] | None:
        if model in self.table:
            return self.table[model]
        prefixes = [m for m in self.table if model.startswith(m)]
        return self.table[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, tokens_in: int, tokens_out: int) -> float | None:
        """US dollars for these tokens, or None for a model without a price."""
        found = self.price(model)
        if found is None:
            return None
        return (tokens_in * found[0] + tokens_out * found[1]) / 1e6


def _read(path: Path) -> dict[str, tuple[float, float]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise LLMError(f"{path}: error: cannot read the price table: {err.strerror or err}", EXIT_CONFIG) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise LLMError(f"{path}: error: the price table is no TOML: {err}", EXIT_CONFIG) from None
    models = data.get("models")
    if not isinstance(models, dict):
        raise LLMError(f'{path}: error: no [models."NAME"] tables (input = USD, output = USD per million tokens)',
                       EXIT_CONFIG)
    table: dict[str, tuple[float, float]] = {}
    for name, entry in models.items():
        ok = isinstance(entry, dict) and all(isinstance(entry.get(k), int | float) for k in ("input", "output"))
        if not ok:
            raise LLMError(f'{path}: error: [models."{name}"] needs numbers `input` and `output` '
                           "(USD per million tokens)", EXIT_CONFIG)
        table[name] = (float(entry["input"]), float(entry["output"]))
    return table
