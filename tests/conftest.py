"""Shared fixtures: paths and compiled example specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmc import Machine, load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="session")
def mini_machine() -> Machine:
    return Machine(load(FIXTURES / "mini.fsm"))
