"""Which provider, model, server and key: from flags, else from the environment, with a clear error when none.

    provider   --provider, else $FSMC_LLM_PROVIDER, else gemini for a model named gemini-…, else openai
    model      --model, else $FSMC_LLM_MODEL, else gpt-4o-mini (openai) or gemini-2.5-flash (gemini)
    base URL   --base-url, else $OPENAI_BASE_URL (openai) or $GOOGLE_GEMINI_BASE_URL (gemini), else the provider's
    API key    --api-key, else $OPENAI_API_KEY (openai) or $GEMINI_API_KEY / $GOOGLE_API_KEY (gemini); a server at
               a base URL of your own (vLLM, llama.cpp, Ollama) may need none
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fsmc.llm.base import EXIT_CONFIG, LLMError, Provider
from fsmc.llm.cache import Cache, default_dir
from fsmc.llm.client import Client
from fsmc.llm.ledger import Ledger
from fsmc.llm.prices import Prices

PROVIDERS = ("openai", "gemini")
DEFAULT_MODELS = {"openai": "gpt-4o-mini", "gemini": "gemini-2.5-flash"}
KEY_VARIABLES = {"openai": ("OPENAI_API_KEY",), "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}


@dataclass(frozen=True)
class Settings:
    """What a command line says about the model; every field None falls back to the environment."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    cache_dir: Path | None = None  # default $FSMC_LLM_CACHE, else .fsmc-cache/llm
    no_cache: bool = False
    ledger: Path | None = None
    prices: Path | None = None


def openai_endpoint(base_url: str | None = None, api_key: str | None = None) -> tuple[str | None, str | None]:
    """The OpenAI-compatible base URL and key these flags and the environment give (None where neither does)."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or None, api_key or os.environ.get("OPENAI_API_KEY") or None


def choose_provider(provider: str | None, model: str | None) -> str:
    chosen = provider or os.environ.get("FSMC_LLM_PROVIDER") or ""
    if not chosen:
        chosen = "gemini" if (model or os.environ.get("FSMC_LLM_MODEL") or "").startswith("gemini") else "openai"
    if chosen not in PROVIDERS:
        raise LLMError(f"unknown provider {chosen!r}: one of {', '.join(PROVIDERS)}", EXIT_CONFIG)
    return chosen


def make_provider(settings: Settings) -> Provider:
    """The provider the settings name; LLMError (exit 2) when no key is to be had."""
    name = choose_provider(settings.provider, settings.model)
    model = settings.model or os.environ.get("FSMC_LLM_MODEL") or DEFAULT_MODELS[name]
    base_url = settings.base_url or os.environ.get(URL_VARIABLES[name]) or None
    key = settings.api_key or next((os.environ[v] for v in KEY_VARIABLES[name] if os.environ.get(v)), None)
    if key is None:
        if base_url is None:
            raise LLMError(f"no API key for {name}: set {' or '.join(KEY_VARIABLES[name])}, or give --api-key "
                           "(a server of your own at --base-url may need none)", EXIT_CONFIG)
        key = "none"  # local servers take any key, but the clients want one
    if name == "gemini":
        from fsmc.llm.gemini_api import GeminiProvider

        return GeminiProvider(model, base_url=base_url, api_key=key, timeout=settings.timeout)
    from fsmc.llm.openai_api import OpenAIProvider

    return OpenAIProvider(model, base_url=base_url, api_key=key, timeout=settings.timeout)


def open_client(settings: Settings) -> Client:
    """A Client for these settings: their provider, the cache, the ledger and the price table."""
    return Client(make_provider(settings), cache=Cache(settings.cache_dir or default_dir()),
                  ledger=Ledger(settings.ledger), prices=Prices.load(settings.prices), retries=settings.retries,
                  backoff=settings.backoff, refresh=settings.no_cache)
