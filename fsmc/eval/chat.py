"""The openai policy: a vision-language model behind any OpenAI-compatible chat completions endpoint.

Each step sends the task, the actions so far and the screenshot (a data URL) and asks for one action.
The prompt is the exported datasets' own (fsmc/export), so a model trained on them is asked what it
was taught: `prompt="fsmc"` keeps its `<think>…</think><action>{…}</action>` replies; `prompt="json"` (the
default) asks for a JSON object instead and sets `response_format` to `json_object` where the endpoint
takes it. A reply that holds no action is a failed step with the reason, never a crash. The client
retries timeouts, 429 and 5xx itself (`max_retries`); an endpoint that cannot be reached or refuses the
key stops the evaluation (PolicyUnavailable), since every episode would fail alike.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any

from fsmc.env.core import AsyncFsmcEnv, Observation
from fsmc.env.tasks import Task
from fsmc.eval.policy import Decision, PolicyUnavailable
from fsmc.export.actions import ACTION_RE, SYSTEM_PROMPT
from fsmc.export.datasets import user_text
from fsmc.llm.settings import openai_endpoint

PROMPTS = ("json", "fsmc")
TAGS_SENTENCE = "Reply with a short thought in <think>...</think> and then exactly one action in <action>...</action> as JSON, one of:"
JSON_SENTENCE = 'Reply with one JSON object {"thought": "...", "action": ACTION}, ACTION one of:'
FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def system_prompt(prompt: str) -> str:
    """The exported datasets' system prompt; for `json`, with its reply format asked as a JSON object instead."""
    if prompt == "fsmc":
        return SYSTEM_PROMPT
    if TAGS_SENTENCE not in SYSTEM_PROMPT:
        raise RuntimeError("fsmc.export.actions.SYSTEM_PROMPT no longer says how to reply; update fsmc/eval/chat.py")
    return SYSTEM_PROMPT.replace(TAGS_SENTENCE, JSON_SENTENCE)


def data_url(image: bytes) -> str:
    mime = "image/png" if image.startswith(b"\x89PNG") else "image/jpeg"
    return f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"


def read_action(reply: str) -> dict[str, Any]:
    """The action dict in a model's reply: `<action>{…}</action>`, a JSON object `{"thought", "action": {…}}`, or
    the action object itself, bare or in a code fence. Raises ValueError saying what is wrong."""
    tagged = ACTION_RE.search(reply)
    fenced = FENCE_RE.search(reply)
    text = (tagged or fenced).group(1) if (tagged or fenced) else reply  # type: ignore[union-attr]
    start = text.find("{")
    if start < 0:
        raise ValueError("the reply holds no JSON object")
    try:
        found, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as err:
        raise ValueError(f"the reply's JSON does not parse: {err}") from None
    if not isinstance(found, dict):
        raise ValueError("the reply's JSON is no object")
    if isinstance(found.get("action"), dict):
        found = found["action"]
    elif "action" not in found:
        raise ValueError("the reply's JSON has no `action`")
    return {k: v for k, v in found.items() if k != "thought"}


@dataclass
class ChatEndpoint:
    """What every episode's ChatPolicy shares (the client, the model, how to ask it), and the maker of those policies."""

    model: str
    base_url: str | None = None  # default $OPENAI_BASE_URL, else OpenAI's
    api_key: str | None = None  # default $OPENAI_API_KEY; local servers take any
    prompt: str = "json"
    timeout: float = 60.0
    max_retries: int = 2
    max_tokens: int = 512
    json_mode: bool = field(init=False)
    client: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from openai import AsyncOpenAI

        if self.prompt not in PROMPTS:
            raise ValueError(f"unknown prompt {self.prompt!r}: one of {', '.join(PROMPTS)}")
        self.base_url, api_key = openai_endpoint(self.base_url, self.api_key)  # flags, else the environment's
        self.json_mode = self.prompt == "json"
        self.client = AsyncOpenAI(base_url=self.base_url, api_key=api_key or "none", timeout=self.timeout,
                                  max_retries=self.max_retries)
        self.base_url = str(self.client.base_url)

    def __call__(self) -> ChatPolicy:
        return ChatPolicy(self)

    async def aclose(self) -> None:
        await self.client.close()

    async def check(self) -> None:
        """Before any browser starts: an endpoint that cannot be reached or refuses the key stops the evaluation.
        Any other answer (a server without GET /models, say) is left for the requests to meet."""
        import openai

        try:
            await self.client.models.list()
        except openai.APIStatusError as err:
            if err.status_code in (401, 403):
                raise self._unavailable(err) from None
        except openai.APIConnectionError as err:
            raise self._unavailable(err) from None

    def _unavailable(self, err: Exception) -> PolicyUnavailable:
        import openai

        if isinstance(err, openai.NotFoundError):
            return PolicyUnavailable(f"{self.base_url} has no model {self.model!r} or no chat completions (404): "
                                     f"{_message(err)}")
        if isinstance(err, openai.APIStatusError):
            return PolicyUnavailable(f"{self.base_url} refused the API key ({err.status_code}): set --api-key or "
                                     "OPENAI_API_KEY")
        return PolicyUnavailable(f"cannot reach {self.base_url} ({_cause(err)})")

    async def complete(self, messages: list[dict[str, Any]]) -> Any:
        """One chat completion; an endpoint that refuses `response_format` (400) is asked again without it, for good."""
        import openai

        request: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens}
        try:
            if self.json_mode:
                try:
                    return await self.client.chat.completions.create(**request, response_format={"type": "json_object"})
                except openai.BadRequestError:
                    self.json_mode = False
            return await self.client.chat.completions.create(**request)
        except openai.APITimeoutError:
            raise
        except (openai.APIConnectionError, openai.AuthenticationError, openai.PermissionDeniedError,
                openai.NotFoundError) as err:
            raise self._unavailable(err) from None


def _cause(err: BaseException) -> str:
    while err.__cause__ is not None:
        err = err.__cause__
    return str(err) or type(err).__name__


def _message(err: Any) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    return str(body.get("message") or err.message)


class ChatPolicy:
    """One episode's conversation with the endpoint: each request carries the task, the history and the screenshot."""

    def __init__(self, endpoint: ChatEndpoint):
        self.endpoint = endpoint
        self.task: Task | None = None
        self.history: list[dict[str, Any]] = []

    async def start(self, task: Task, env: AsyncFsmcEnv, seed: int) -> None:
        self.task, self.history = task, []

    def messages(self, observation: Observation, info: dict[str, Any]) -> list[dict[str, Any]]:
        assert self.task is not None, "start first"
        text = user_text(self.task.instruction, self.history)
        if info.get("error"):
            text += f"\nYour last reply could not be used ({info['error']}); reply with one action as asked."
        return [{"role": "system", "content": system_prompt(self.endpoint.prompt)},
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url(observation.screenshot)}},
                                             {"type": "text", "text": text}]}]

    async def act(self, observation: Observation, info: dict[str, Any]) -> Decision:
        import openai

        try:
            response = await self.endpoint.complete(self.messages(observation, info))
        except openai.APITimeoutError:
            return Decision(None, error=f"no reply within {self.endpoint.timeout:g} s, {self.endpoint.max_retries} retries")
        except openai.APIStatusError as err:
            return Decision(None, error=f"the endpoint answered {err.status_code}: {_message(err)}")
        usage = {"prompt_tokens": response.usage.prompt_tokens, "completion_tokens": response.usage.completion_tokens} \
            if response.usage else {}
        choice = response.choices[0] if response.choices else None
        raw = choice.message.content if choice is not None else None
        if not raw:
            return Decision(None, raw=raw, error="the reply is empty", usage=usage)
        try:
            action = read_action(raw)
        except ValueError as err:
            cut = " (cut off at max_tokens)" if choice is not None and choice.finish_reason == "length" else ""
            return Decision(None, raw=raw, error=f"{err}{cut}", usage=usage)
        self.history.append(action)
        return Decision(action, raw=raw, usage=usage)
