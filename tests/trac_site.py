"""A real Trac (PyPI `Trac`, in specs/apps/tracker/.venv, which scripts/setup.sh makes) with a few tickets, served on a
free loopback port: what the tests of capturing an application with bundled documentation act on.

Shared by tests/test_capture_app.py and bench/backends.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from datasette_site import Served

PYTHON = Path(__file__).resolve().parent.parent / "specs" / "apps" / "tracker" / ".venv" / "bin" / "python"
SEED = """import sys
from datetime import datetime, timedelta, timezone
from trac.env import Environment
from trac.ticket.model import Ticket
env = Environment(sys.argv[1])
for i, summary in enumerate(sys.argv[2:]):
    ticket = Ticket(env)
    ticket.populate({"summary": summary, "reporter": "ann", "status": "new", "description": summary + "."})
    ticket.insert(when=datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc) + timedelta(hours=i))
"""


class Trac(Served):
    """`tracd` over a fresh environment in `folder` holding one ticket per summary, as a user starts it; `permissions`
    granted to anonymous users (`TICKET_CREATE` lets them file tickets)."""

    def __init__(self, folder: Path, summaries: list[str], permissions: tuple[str, ...] = ()):
        env = folder / "env"
        grant = [["-m", "trac.admin.console", str(env), "permission", "add", "anonymous", *permissions]] if permissions else []
        for command in (["-m", "trac.admin.console", str(env), "initenv", "Tracker", "sqlite:db/trac.db"],
                        *grant, ["-c", SEED, str(env), *summaries]):
            subprocess.run([str(PYTHON), *command], check=True, capture_output=True, timeout=300)
        super().__init__([str(PYTHON), "-m", "trac.web.standalone", "--hostname", "127.0.0.1", "--port", "{port}",
                          "--single-env", str(env)], "Trac", answer_s=5)
