"""What every provider shares: a request, a response, the one error a caller meets, and the provider protocol."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from fsmc.errors import EXIT_ERRORS, EXIT_UNREADABLE, FsmcError

EXIT_FAILED, EXIT_CONFIG = EXIT_ERRORS, EXIT_UNREADABLE  # the CLI's exit codes for a call that failed and for settings that cannot work


class LLMError(FsmcError):
    """A model call that cannot be made or gave nothing usable, with a message that says what to do.
    `code` is the exit code a command ends with: 2 for settings (no key, unknown provider, bad price file),
    1 for a call that failed (unreachable server, refused model, a reply without text)."""

    def __init__(self, message: str, code: int = EXIT_FAILED):
        super().__init__(message, exit_code=code)
        self.message = message


class Transient(Exception):
    """A failure worth asking again after a pause (a rate limit, a server error, a timeout); `retry_after` is
    the pause the server asked for, in seconds, if it said."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Message:
    """One turn: its role ("system", "user" or "assistant"), its text, and images (PNG or JPEG bytes) shown
    before the text."""

    role: str
    text: str
    images: tuple[bytes, ...] = ()

    def to_json(self) -> list[Any]:
        """The message in canonical JSON: images by their SHA-256 (the cache key need not hold their bytes)."""
        digests = [hashlib.sha256(i).hexdigest() for i in self.images]
        return [self.role, self.text, *([digests] if digests else [])]


def image_mime(image: bytes) -> str:
    return "image/png" if image.startswith(b"\x89PNG") else "image/jpeg"


@dataclass(frozen=True)
class Request:
    """What is asked: the messages, and a JSON Schema the reply must follow (structured output where the provider
    offers it; the reply is a JSON text either way). `purpose` labels the call in the ledger only."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None = None
    temperature: float = 0.0
    max_tokens: int = 8192
    purpose: str = field(default="", compare=False)

    def key(self, provider: str, model: str) -> str:
        """The cache key: a SHA-256 of the request in canonical JSON, with the provider and model but not the base
        URL or key (the same model answers the same question wherever it is served)."""
        canon = {"provider": provider, "model": model, "messages": [m.to_json() for m in self.messages],
                 "schema": self.schema, "temperature": self.temperature, "max_tokens": self.max_tokens}
        text = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Response:
    """The model's reply: its text, the tokens it took in and gave out, and why it stopped ("stop", "length")."""

    text: str
    tokens_in: int
    tokens_out: int
    finish: str = "stop"

    def json(self) -> Any:
        """The reply as JSON; LLMError saying what is wrong (cut off at the token limit, or no JSON at all)."""
        try:
            return json.loads(self.text)
        except json.JSONDecodeError as err:
            cut = " (the reply was cut off at the token limit: raise --max-tokens)" if self.finish == "length" else ""
            raise LLMError(f"the model's reply is no valid JSON: {err.msg} at character {err.pos}{cut}") from None

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "finish": self.finish}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Response:
        return cls(str(data["text"]), int(data["tokens_in"]), int(data["tokens_out"]), str(data.get("finish", "stop")))


class Provider(Protocol):
    """One model behind one API. `send` asks once: it returns the Response, raises Transient for what is worth
    asking again, and LLMError for what is not."""

    name: str
    model: str
    base_url: str

    def send(self, request: Request) -> Response: ...
