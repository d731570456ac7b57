"""Properties a spec states about itself, decided over its state space (and by SPIN), and its site walked at random.

    from fsmc import Compilation
    from fsmc.properties import run_tests
    report = run_tests(Compilation("specs/shop.fsm"))
    for result in report.results:
        print(result.line())

A property's condition is read by `fsmc.analysis.conditions` (below the checks, which read it too). The names
below are imported when first used, so importing this package loads neither the deciding, SPIN nor the browser.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {"run_tests": "fsmc.properties.run", "PropertyReport": "fsmc.properties.run", "Result": "fsmc.properties.run",
          "SiteWalks": "fsmc.properties.run", "write_report": "fsmc.properties.run", "decide": "fsmc.properties.decide",
          "Verdict": "fsmc.properties.decide"}

if TYPE_CHECKING:
    from fsmc.properties.decide import Verdict, decide
    from fsmc.properties.run import PropertyReport, Result, SiteWalks, run_tests, write_report


def __getattr__(name: str) -> Any:
    """The public names, each imported on first use (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module 'fsmc.properties' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


__all__ = ["PropertyReport", "Result", "SiteWalks", "Verdict", "decide", "run_tests", "write_report"]
