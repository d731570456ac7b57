"""The env server run in a background thread of this process (tests, benchmarks, notebooks)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any

from fsmc.env.pool import Site
from fsmc.env.server import Settings, create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerThread:
    """`with ServerThread(sites) as url:` serves the sites on 127.0.0.1 until the block ends."""

    def __init__(self, sites: list[Site], settings: Settings | None = None, port: int | None = None, *,
                 app: Any = None):
        """`app`: another ASGI app to serve instead of fsmc's own (OpenEnv's, fsmc.bridges.openenv)."""
        import uvicorn

        self.port = port or free_port()
        config = uvicorn.Config(app or create_app(sites, settings), host="127.0.0.1", port=self.port,
                                log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="fsmc-env-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the env server did not start")
            time.sleep(0.05)
        return self.url

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)
