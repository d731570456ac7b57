"""OpenAI's chat completions, and any server that speaks them (vLLM, llama.cpp, Ollama), through `openai`."""

from __future__ import annotations

import base64
from typing import Any

from fsmc.llm.base import LLMError, Message, Request, Response, Transient, image_mime

OPENAI_URL = "https://api.openai.com"


class OpenAIProvider:
    """Asks once per `send` (the client's own retries are off; fsmc.llm.client retries). A server that refuses a
    JSON Schema `response_format` (400) is asked again without one, and from then on never with one."""

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None, api_key: str, timeout: float):
        import openai

        self.model = model
        self.timeout = timeout
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self.base_url = str(self.client.base_url).rstrip("/")
        self.structured = True

    def send(self, request: Request) -> Response:
        import openai

        # OpenAI's own API calls the limit max_completion_tokens (its reasoning models refuse max_tokens); the
        # servers that speak its API (vLLM, llama.cpp, Ollama) all read max_tokens
        limit = "max_completion_tokens" if self.base_url.startswith(OPENAI_URL) else "max_tokens"
        kwargs: dict[str, Any] = {"model": self.model, "messages": [_message(m) for m in request.messages],
                                  "temperature": request.temperature, limit: request.max_tokens}
        create: Any = self.client.chat.completions.create
        try:
            if request.schema is not None and self.structured:
                try:
                    return self._read(create(**kwargs, response_format=_response_format(request.schema)))
                except openai.BadRequestError:
                    self.structured = False  # the server takes no JSON Schema; the prompt asks for JSON too
            return self._read(create(**kwargs))
        except openai.OpenAIError as err:
            raise self._failure(err) from None

    def _read(self, completion: Any) -> Response:
        if not hasattr(completion, "choices"):  # the client hands back a body that is no JSON as it came
            raise LLMError(f"{self.base_url} did not answer as an OpenAI-compatible server (its reply is no chat "
                           "completion): check --base-url or OPENAI_BASE_URL")
        choice = completion.choices[0] if completion.choices else None
        text = choice.message.content if choice is not None else None
        if not isinstance(text, str):
            why = f"finish_reason {choice.finish_reason!r}" if choice is not None else "no choices"
            raise LLMError(f"{self.base_url}: the model {self.model!r} replied without any text ({why})")
        usage = completion.usage
        return Response(text, usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0,
                        str(getattr(choice, "finish_reason", None) or "stop"))

    def _failure(self, err: Exception) -> Exception:
        import openai

        if isinstance(err, openai.APITimeoutError):
            return Transient(f"no reply within {self.timeout:g} s")
        if isinstance(err, openai.APIConnectionError):
            return LLMError(f"cannot reach {self.base_url} ({_cause(err)}): check --base-url or OPENAI_BASE_URL")
        if isinstance(err, openai.APIStatusError):
            return _status_failure(self.base_url, self.model, err.status_code, _detail(err),
                                   err.response.headers.get("retry-after"), "OPENAI_API_KEY")
        return LLMError(f"{self.base_url}: {type(err).__name__}: {err}")


def _message(m: Message) -> dict[str, Any]:
    if not m.images:
        return {"role": m.role, "content": m.text}
    images = [{"type": "image_url", "image_url": {"url": _data_url(i)}} for i in m.images]
    return {"role": m.role, "content": [*images, {"type": "text", "text": m.text}]}


def _data_url(image: bytes) -> str:
    return f"data:{image_mime(image)};base64,{base64.b64encode(image).decode('ascii')}"


def _response_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}


def _status_failure(base_url: str, model: str, status: int, detail: str, retry_after: str | None,
                    key_variable: str) -> Exception:
    """What an HTTP error status means to a caller: worth a retry (429, 408, 5xx), or a message saying what to do."""
    if status in (408, 429) or status >= 500:
        return Transient(f"answered {status} ({detail})", _seconds(retry_after))
    if status in (401, 403):
        return LLMError(f"{base_url} refused the API key ({status}: {detail}): set --api-key or {key_variable}")
    if status == 404:
        return LLMError(f"{base_url} has no model {model!r} or no such endpoint (404: {detail}): check --model "
                        "and --base-url")
    return LLMError(f"{base_url} refused the request ({status}: {detail})")


def _seconds(header: str | None) -> float | None:
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None  # an HTTP date: take the backoff instead


def _detail(err: Any) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    return str(body.get("message") or err.message)


def _cause(err: BaseException) -> str:
    while err.__cause__ is not None:
        err = err.__cause__
    return str(err) or type(err).__name__
