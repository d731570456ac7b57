"""A proxy on loopback that refuses and counts whatever reaches it: where a browser context's escaping requests go.

A context's own requests are held by its routes (`Isolation`, a capture's handlers); what is not a page's request
never meets them: the browser's own services (form autofill asks Google about the fields of every form), and a
page's WebSockets, which no route sees. A context whose proxy is a `Sink` sends those here, and here they end.
The site's own host is the proxy's one exception (Playwright sends even loopback through a context's proxy).
"""

from __future__ import annotations

import http.server
import threading
from urllib.parse import urlsplit


class Sink:
    """A proxy on loopback that refuses whatever reaches it, and counts it: where requests that escape go offline."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        sink = self

        class Refuse(http.server.BaseHTTPRequestHandler):
            def _refuse(self) -> None:
                sink.hits.append(f"{self.command} {self.path}")
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = do_CONNECT = _refuse  # noqa: N815

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def split(self, origin: str) -> tuple[list[str], list[str]]:
        """The hits aimed at `origin` (a page's requests that escaped), and the others (the browser's own services,
        such as form autofill: Chromium sends them through the proxy, never through a page's handlers)."""
        netloc = urlsplit(origin).netloc
        port = netloc if ":" in netloc else f"{netloc}:{443 if origin.startswith('https') else 80}"
        mine = [h for h in self.hits if h.split(" ", 1)[1].startswith(origin) or h == f"CONNECT {port}"]
        return mine, [h for h in self.hits if h not in mine]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
