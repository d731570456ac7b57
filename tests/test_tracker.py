"""A second cloned application: Trac (PyPI `Trac`), an issue tracker, in a virtual environment of its own and under a
path prefix.

specs/tracker.fsm files a critical ticket through Trac's POST form, finds it in the report of active tickets (each row
links to its ticket twice) and resolves it. Its sidecar names the interpreter of specs/apps/tracker/.venv, which
scripts/setup.sh makes, and serves Trac under /tracker: the spec's pages are paths within the prefix, its selectors
the page's own. Every enumerated trajectory is replayed on the real Trac, the state read from its database.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsmc import Compilation
from fsmc.enumerate import Options, enumerate_spec
from fsmc.replay import replay

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "tracker.fsm"
VENV_PYTHON = ROOT / "specs" / "apps" / "tracker" / ".venv" / "bin" / "python"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert VENV_PYTHON.is_file(), f"{VENV_PYTHON} is missing: scripts/setup.sh installs Trac there"
    folder = tmp_path_factory.mktemp("tracker") / "out"
    enumerate_spec(Compilation(str(SPEC)), folder, Options())
    return folder


def test_replay_on_trac_keeps_every_trajectory_posting_its_forms(out: Path, tmp_path: Path) -> None:
    summary, _ = replay(out, None, tmp_path / "data", workers=1)
    assert summary["trajectories"] == len((out / "trajectories.jsonl").read_text().splitlines()) >= 4
    assert summary["kept"] == summary["trajectories"], summary["rejected_examples"]
    rows = [json.loads(line) for line in (tmp_path / "data" / "trajectories.jsonl").read_text().splitlines()]
    steps = [s for r in rows for s in r["steps"]]
    urls = {s["url"].split("#")[0] for s in steps}
    assert {"/tracker/wiki", "/tracker/newticket", "/tracker/ticket/1", "/tracker/report"} <= urls
    last = {r["task_id"]: r["moves"][-1]["state"] for r in rows}  # each state read from Trac's SQLite database
    assert last["resolve_ticket"] == {"page": "ticket", "vars": {"filed": True, "closed": True}}  # two POSTs
    assert last["list_active"]["page"] == "active" and last["list_active"]["vars"]["filed"]  # /tracker/report/1
    assert all((tmp_path / "data" / s["screenshot"]).is_file() for s in steps)
