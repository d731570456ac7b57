"""Replies kept by the hash of their request, so that asking again is free and gives the same bytes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fsmc.atomic import write_atomic
from fsmc.llm.base import Request, Response

DEFAULT_DIR = Path(".fsmc-cache") / "llm"


def default_dir() -> Path:
    """$FSMC_LLM_CACHE, else .fsmc-cache/llm in the current folder."""
    return Path(os.environ.get("FSMC_LLM_CACHE") or DEFAULT_DIR)


class Cache:
    """`DIR/ab/abcdef….json` per request key: the request (for a reader) and the response."""

    def __init__(self, root: Path):
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Response | None:
        """The response kept for `key`, or None (none kept, or a file that cannot be read: asked again)."""
        try:
            return Response.from_json(json.loads(self._path(key).read_text(encoding="utf-8"))["response"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, provider: str, model: str, request: Request, response: Response) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"provider": provider, "model": model, "messages": [m.to_json() for m in request.messages],
                 "schema": request.schema, "response": response.to_json()}
        write_atomic(path, json.dumps(entry, indent=1, ensure_ascii=False) + "\n")
