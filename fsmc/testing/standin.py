"""A stand-in for model providers' HTTP APIs: a real local server that answers from a script, for tests that go
through the providers' real client libraries.

    with StandIn(['{"action": {"action": "click", "coordinate": [10, 20]}}', Reply(status=500)]) as server:
        client = openai.OpenAI(base_url=server.openai_url, api_key="test")
        ...
        server.requests[0].images          # [(mime type, bytes)] of the images the first request carried

    with StandIn(["hello"]) as server:  # Gemini's generateContent, through google-genai
        client = genai.Client(api_key="test", http_options=types.HttpOptions(base_url=server.url))

The script is a list of replies, used in turn, or a function of the request. Each provider is a small router
(PROVIDERS) that reads its API's request into a `Request` and writes a `Reply` in its API's response shape:
OpenAI's chat completions and Gemini's `generateContent`. A reply can also come late (`delay`, for timeouts),
cut off (`finish="length"`), without any text (`text=None`), or as an HTTP error with headers (`Retry-After`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi import Request as HttpRequest
from fastapi.responses import JSONResponse


@dataclass(frozen=True)
class Reply:
    """What the model answers: its text (None: a reply without any text part), or an HTTP error status; `usage`
    (prompt, completion tokens) by default is counted roughly from the texts (a word a token, 256 an image);
    `finish` "length" says the reply was cut off at the token limit; `delay` seconds pass before it is sent."""

    text: str | None = ""
    status: int = 200
    usage: tuple[int, int] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    finish: str = "stop"
    delay: float = 0.0


@dataclass
class Request:
    """A request as the stand-in received it, with what a test asserts on read out of the provider's shape."""

    provider: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    texts: list[str]  # every text part, system prompt first
    images: list[tuple[str, bytes]]  # (mime type, bytes) of every inline image, in order


Script = Sequence[Reply | str] | Callable[[Request], Reply | str]


def _decode_data_url(url: str) -> tuple[str, bytes]:
    """`data:image/png;base64,...` as (mime type, bytes); any other URL as (the URL, no bytes)."""
    head, sep, payload = url.partition(",")
    if not (url.startswith("data:") and sep and head.endswith(";base64")):
        return url, b""
    return head[5:].removesuffix(";base64"), base64.b64decode(payload)


# ---------------------------------------------------------------- OpenAI: chat completions

def _openai_parts(body: dict[str, Any]) -> tuple[list[str], list[tuple[str, bytes]]]:
    texts, images = [], []
    for message in body.get("messages") or []:
        content = message.get("content")
        parts: list[dict[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                texts.append(str(part.get("text")))
            elif part.get("type") == "image_url":
                images.append(_decode_data_url(str((part.get("image_url") or {}).get("url"))))
    return texts, images


def _openai_reply(reply: Reply, request: Request, n: int) -> JSONResponse:
    if reply.status != 200:
        error = {"message": reply.text or f"stand-in error {reply.status}", "type": "server_error", "code": None}
        return JSONResponse({"error": error}, status_code=reply.status, headers=reply.headers)
    prompt, completion = reply.usage or _count(request, reply)
    return JSONResponse({
        "id": f"chatcmpl-standin-{n}", "object": "chat.completion", "created": 0, "model": request.body.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": reply.finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }, headers=reply.headers)


def openai_router(server: StandIn) -> APIRouter:
    """POST /v1/chat/completions (the base URL for the client is `server.openai_url`)."""
    router = APIRouter()

    @router.post("/v1/chat/completions")
    async def chat_completions(http: HttpRequest) -> JSONResponse:
        try:
            body = await http.json()
        except json.JSONDecodeError:
            return JSONResponse({"error": {"message": "the body is no JSON", "type": "invalid_request_error"}}, 400)
        texts, images = _openai_parts(body)
        request = Request("openai", http.url.path, body, dict(http.headers), texts, images)
        reply, n = await server.answer_late(request)
        return _openai_reply(reply, request, n)

    return router


# ---------------------------------------------------------------- Gemini: generateContent

GEMINI_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS"}


def _gemini_parts(body: dict[str, Any]) -> tuple[list[str], list[tuple[str, bytes]]]:
    texts: list[str] = []
    images: list[tuple[str, bytes]] = []
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    for content in [system, *(body.get("contents") or [])]:
        for part in content.get("parts") or []:
            if "text" in part:
                texts.append(str(part["text"]))
            inline = part.get("inlineData") or part.get("inline_data")
            if inline:
                images.append((str(inline.get("mimeType") or inline.get("mime_type")), base64.b64decode(inline["data"])))
    return texts, images


def _gemini_reply(reply: Reply, request: Request, model: str) -> JSONResponse:
    if reply.status != 200:
        error = {"code": reply.status, "message": reply.text or f"stand-in error {reply.status}",
                 "status": GEMINI_STATUS.get(reply.status, "UNKNOWN")}
        return JSONResponse({"error": error}, status_code=reply.status, headers=reply.headers)
    prompt, completion = reply.usage or _count(request, reply)
    parts = [] if reply.text is None else [{"text": reply.text}]
    return JSONResponse({
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0,
                        "finishReason": GEMINI_FINISH.get(reply.finish, reply.finish.upper())}],
        "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": completion,
                          "totalTokenCount": prompt + completion},
        "modelVersion": model,
    }, headers=reply.headers)


def gemini_router(server: StandIn) -> APIRouter:
    """POST /{version}/models/{model}:generateContent (the base URL for the client is `server.url`)."""
    router = APIRouter()

    @router.post("/{version}/models/{model}:generateContent")
    async def generate_content(version: str, model: str, http: HttpRequest) -> JSONResponse:
        try:
            body = await http.json()
        except json.JSONDecodeError:
            return JSONResponse({"error": {"code": 400, "message": "the body is no JSON", "status": "INVALID_ARGUMENT"}},
                                400)
        texts, images = _gemini_parts(body)
        request = Request("gemini", http.url.path, body, dict(http.headers), texts, images)
        reply, _ = await server.answer_late(request)
        return _gemini_reply(reply, request, model)

    return router


PROVIDERS: dict[str, Callable[[StandIn], APIRouter]] = {"openai": openai_router, "gemini": gemini_router}


def _count(request: Request, reply: Reply) -> tuple[int, int]:
    words = len((reply.text or "").split())
    return sum(len(t.split()) for t in request.texts) + 256 * len(request.images), max(1, words)


class StandIn:
    """`with StandIn(script) as server:` serves the providers' APIs on 127.0.0.1 (a free port) in a thread."""

    def __init__(self, script: Script, providers: Sequence[str] = tuple(PROVIDERS)):
        import uvicorn

        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        app = FastAPI()
        for name in providers:
            app.include_router(PROVIDERS[name](self))
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, name="fsmc-standin", daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    def answer(self, request: Request) -> tuple[Reply, int]:
        """The scripted reply to `request` (recorded first) and its number; a script that has run out is a 500."""
        with self._lock:
            n = len(self.requests)
            self.requests.append(request)
        if callable(self.script):
            reply = self.script(request)
        elif n < len(self.script):
            reply = self.script[n]
        else:
            reply = Reply(f"the stand-in's script has {len(self.script)} replies; this is request {n + 1}", status=500)
        return (Reply(reply) if isinstance(reply, str) else reply), n

    async def answer_late(self, request: Request) -> tuple[Reply, int]:
        """As `answer`, after the reply's `delay` (the server keeps serving others meanwhile)."""
        reply, n = self.answer(request)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        return reply, n

    def __enter__(self) -> StandIn:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the stand-in server did not start")
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
