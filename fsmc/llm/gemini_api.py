"""Gemini's generateContent through `google-genai` (the Gemini API, or a server at a base URL that speaks it)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from fsmc.llm.base import LLMError, Request, Response, Transient, image_mime
from fsmc.llm.openai_api import _cause, _status_failure

FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}


class GeminiProvider:
    """Asks once per `send` (google-genai retries nothing unless told to; fsmc.llm.client retries). System
    messages become the system instruction, assistant messages the model's turns; a schema is asked for with
    `response_mime_type="application/json"` and `response_json_schema`."""

    name = "gemini"

    def __init__(self, model: str, *, base_url: str | None, api_key: str, timeout: float):
        from google import genai
        from google.genai import types

        self.model = model
        self.timeout = timeout
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout * 1000))
        self.client = genai.Client(api_key=api_key, http_options=options)
        self.base_url = (base_url or "https://generativelanguage.googleapis.com").rstrip("/")

    def send(self, request: Request) -> Response:
        from google.genai import errors

        timeouts, transport = _http_errors()
        contents, config = self._contents(request), self._config(request)
        try:
            reply = self.client.models.generate_content(model=self.model, contents=contents, config=config)
        except errors.APIError as err:
            headers = getattr(err.response, "headers", None) or {}
            raise _status_failure(self.base_url, self.model, err.code, str(err.message or err.status),
                                  headers.get("retry-after"), "GEMINI_API_KEY") from None
        except timeouts:
            raise Transient(f"no reply within {self.timeout:g} s") from None
        except transport as err:
            raise LLMError(f"cannot reach {self.base_url} ({_cause(err)}): check --base-url or "
                           "GOOGLE_GEMINI_BASE_URL") from None
        except ValueError as err:  # a body that is no JSON (UnknownApiResponseError, JSONDecodeError)
            raise LLMError(f"{self.base_url} did not answer as the Gemini API ({type(err).__name__}): check "
                           "--base-url or GOOGLE_GEMINI_BASE_URL") from None
        return self._read(reply)

    def _contents(self, request: Request) -> list[Any]:
        from google.genai import types

        return [types.Content(role="model" if m.role == "assistant" else "user",
                              parts=[*(types.Part.from_bytes(data=i, mime_type=image_mime(i)) for i in m.images),
                                     types.Part(text=m.text)])
                for m in request.messages if m.role != "system"]

    def _config(self, request: Request) -> Any:
        from google.genai import types

        system = "\n\n".join(m.text for m in request.messages if m.role == "system")
        structured = {"response_mime_type": "application/json", "response_json_schema": request.schema} \
            if request.schema is not None else {}
        return types.GenerateContentConfig(system_instruction=system or None, temperature=request.temperature,
                                           max_output_tokens=request.max_tokens, **structured)

    def _read(self, reply: Any) -> Response:
        candidate = reply.candidates[0] if reply.candidates else None
        finish = str(getattr(candidate.finish_reason, "value", candidate.finish_reason)) if candidate else "none"
        text = reply.text
        if not isinstance(text, str):
            raise LLMError(f"{self.base_url}: the model {self.model!r} replied without any text "
                           f"(finish reason {finish})")
        usage = reply.usage_metadata
        tokens_in = (usage.prompt_token_count or 0) if usage else 0
        tokens_out = ((usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)) if usage else 0
        return Response(text, tokens_in, tokens_out, FINISH.get(finish, finish.lower()))


@cache
def _http_errors() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The timeout and transport errors of the HTTP libraries google-genai may use (httpx, or its fork httpx2)."""
    timeouts, transport = [], []
    for name in ("httpx", "httpx2"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        transport.append(module.TransportError)
    return tuple(timeouts), tuple(transport)
