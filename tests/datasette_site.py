"""A real datasette over a small SQLite file, and a tripwire where it was: what the capture tests act on.

Shared by tests/test_capture.py and tests/test_capture_import.py (pytest puts tests/ on the path).
"""

from __future__ import annotations

import http.server
import importlib.util
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def zoo_db(path: Path) -> Path:
    """The example's SQLite file (specs/datasette/zoo_db.py, the script the README runs) at `path`."""
    source = Path(__file__).resolve().parent.parent / "specs" / "datasette" / "zoo_db.py"
    loaded = importlib.util.spec_from_file_location("zoo_db", source)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    made: Path = module.make(path)
    return made


class Served:
    """A server started on a free loopback port (`{port}` in its command), as a user starts it, and waited for until
    its root answers."""

    def __init__(self, command: list[str], what: str, answer_s: float = 1):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process = subprocess.Popen([part.replace("{port}", str(self.port)) for part in command],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120  # a start-up deadline, not a speed bound: 30 s ran short on a loaded machine
        while True:
            try:
                urllib.request.urlopen(self.url, timeout=answer_s).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{what} did not start") from None
                time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Datasette(Served):
    """`datasette serve` over `db`."""

    def __init__(self, db: Path):
        super().__init__([sys.executable, "-m", "datasette", "serve", str(db), "--port", "{port}", "--host",
                          "127.0.0.1"], "datasette")


class Tripwire(http.server.ThreadingHTTPServer):
    """Listens where the live site was and counts every request that reaches it."""

    allow_reuse_address = True
    daemon_threads = True

    def __init__(self, port: int):
        self.hits: list[str] = []
        tripwire = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                tripwire.hits.append(self.path)
                self.send_response(500)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", port), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()
