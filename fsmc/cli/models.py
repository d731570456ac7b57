"""The flags of every command that asks a model (propose, build --agent, enumerate --paraphrase, export --thoughts),
and the client they ask for."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fsmc.cli.common import Failure

if TYPE_CHECKING:  # the model layer is loaded only when a command asks a model
    from fsmc.llm import Client


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of every command that asks a model (the environment is the fallback: see fsmc.llm.settings)."""
    g = parser.add_argument_group("model", "provider, model, server and key; each falls back to the environment")
    g.add_argument("--provider", choices=("openai", "gemini"), help="default $FSMC_LLM_PROVIDER, else gemini for "
                   "a gemini-… model, else openai (any OpenAI-compatible server: vLLM, llama.cpp, Ollama)")
    g.add_argument("--model", help="default $FSMC_LLM_MODEL, else gpt-4o-mini or gemini-2.5-flash")
    g.add_argument("--base-url", help="default $OPENAI_BASE_URL or $GOOGLE_GEMINI_BASE_URL, else the provider's")
    g.add_argument("--api-key", help="default $OPENAI_API_KEY, or $GEMINI_API_KEY / $GOOGLE_API_KEY")
    g.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for one reply (default 120)")
    g.add_argument("--retries", type=int, default=4, help="retries on rate limits, server errors and timeouts, "
                   "with backoff (default 4)")
    g.add_argument("--no-cache", action="store_true", help="ask the model again instead of reusing the cached reply "
                   "to the same request (the new reply is cached)")
    g.add_argument("--cache-dir", type=Path, help="default $FSMC_LLM_CACHE, else .fsmc-cache/llm")
    g.add_argument("--ledger", type=Path, help="where to append a line per model call (default beside the output)")
    g.add_argument("--prices", type=Path, help="a TOML price table over the defaults (default $FSMC_PRICES)")


def model_client(args: argparse.Namespace, ledger: Path, command: str) -> Client:
    """The client the model flags (add_model_arguments) ask for, its ledger at --ledger or `ledger`; Exit with
    the message and code (2: settings that cannot work) when there is none to be had."""
    from fsmc.llm import LLMError, Settings, open_client

    settings = Settings(args.provider, args.model, args.base_url, args.api_key, timeout=args.timeout,
                        retries=args.retries, cache_dir=args.cache_dir, no_cache=args.no_cache,
                        ledger=args.ledger or ledger, prices=args.prices)
    try:
        return open_client(settings)
    except LLMError as err:
        raise Failure(f"{command}: error: {err.message}", err) from None


def print_totals(client: Client, transcript: Path) -> None:
    """One line on stderr: the run's model calls, tokens and cost from the ledger, and where the records are."""
    t = client.ledger.totals()
    cost = "cost unknown (no price for this model: --prices)" if t["cost_usd"] is None else f"${t['cost_usd']:.4f}"
    print(f"model calls: {t['calls']} made, {t['cached']} from the cache, {t['failed']} failed; "
          f"{t['tokens_in']:,} tokens in, {t['tokens_out']:,} out; {cost}; transcript: {transcript}; "
          f"ledger: {client.ledger.path}", file=sys.stderr)
