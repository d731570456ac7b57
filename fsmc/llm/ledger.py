"""A ledger of every model call, one JSON line each: when, which model, tokens, cost, whether the cache answered."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Ledger:
    """Appends to `path` (None: kept in memory only); `entries` holds this run's lines, for a summary."""

    path: Path | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)
    run: str = field(default_factory=lambda: f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}")

    def record(self, **entry: Any) -> None:
        """Append one call's line (stamped with the time and this run's id, which tells runs of a file apart)."""
        line = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "run": self.run, **entry}
        self.entries.append(line)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")

    def totals(self) -> dict[str, Any]:
        """Calls made and answered from the cache, tokens in and out of the calls made, and their cost (None when
        some model had no price)."""
        made = [e for e in self.entries if not e.get("cached") and not e.get("error")]
        costs = [e.get("cost_usd") for e in made]
        return {"calls": len(made), "cached": sum(1 for e in self.entries if e.get("cached")),
                "failed": sum(1 for e in self.entries if e.get("error")),
                "tokens_in": sum(e.get("tokens_in", 0) for e in made),
                "tokens_out": sum(e.get("tokens_out", 0) for e in made),
                "cost_usd": None if any(c is None for c in costs) else sum(costs)}  # type: ignore[misc]


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """Every line of a ledger file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
