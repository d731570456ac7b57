"""Golden fixtures for the checks: every tests/fixtures/checks/*.fsm gives exactly the diagnostics in its .expected.

Run with FSMC_UPDATE_GOLDEN=1 to (re)write the .expected files after reviewing the change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsmc.checks import check
from fsmc.diagnostics import SpecError, render_text
from fsmc.formats import load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "checks").glob("*.fsm"))
UPDATE = os.environ.get("FSMC_UPDATE_GOLDEN") == "1"


def rendered(path: Path) -> str:
    """What `fsmc check` prints for a spec, with the file named relative to the repository root."""
    rel = path.relative_to(ROOT).as_posix()
    cwd = os.getcwd()
    os.chdir(ROOT)  # spans carry the path as given; relative paths keep the goldens portable
    try:
        try:
            diagnostics = list(check(load(rel)))
        except SpecError as err:
            diagnostics = list(err.diagnostics)
        return render_text(diagnostics, {rel: path.read_text(encoding="utf-8")}) + "\n"
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_golden(path: Path) -> None:
    expected = path.with_suffix(".expected")
    got = rendered(path)
    if UPDATE or not expected.exists():
        expected.write_text(got, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote {expected.name}; review it and run again")
    assert got == expected.read_text(encoding="utf-8")
