"""Serves a built site's dist/ on 127.0.0.1 only, from a background thread."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from types import TracebackType


def find_dist(site: str | Path, sites: str | Path = "generated_sites") -> Path | None:
    """A built site's dist/ from its folder, the dist/ itself, or the site's name under `sites`."""
    site = Path(site)
    for candidate in (site / "dist", site, Path(sites) / site / "dist"):
        if (candidate / "index.html").is_file():
            return candidate
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up mid-response (a browser context closing) is no error worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class SiteServer:
    """A static file server for dist/ on loopback (port 0: any free port); a context manager that serves in a thread."""

    def __init__(self, dist: str | Path, port: int = 0):
        self.dist = Path(dist)
        if not (self.dist / "index.html").is_file():
            raise FileNotFoundError(f"{self.dist} has no index.html: build the site first with `fsmc build SPEC`")
        handler = functools.partial(_QuietHandler, directory=str(self.dist))
        self._httpd = _Server(("127.0.0.1", port), handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (what `fsmc serve` does)."""
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def __enter__(self) -> SiteServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
