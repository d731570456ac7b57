"""One layer over model providers: OpenAI (and any OpenAI-compatible server) and Gemini, cached and accounted.

    from fsmc.llm import Message, Request, Settings, open_client

    client = open_client(Settings(model="gpt-4o-mini"))          # or Settings(provider="gemini"), or env only
    reply = client.complete(Request((Message("user", "Say hi"),)))
    reply.text, reply.tokens_in, reply.tokens_out, client.ledger.totals()

A request is answered from the cache when the same one was asked before (`Settings(no_cache=True)` asks
again); every call, cached or not, is a line of the ledger with its tokens and cost.
"""

from fsmc.llm.base import LLMError, Message, Provider, Request, Response, Transient
from fsmc.llm.cache import Cache, default_dir
from fsmc.llm.client import Client
from fsmc.llm.ledger import Ledger, read_ledger
from fsmc.llm.prices import DEFAULT_PRICES, Prices
from fsmc.llm.settings import PROVIDERS, Settings, make_provider, open_client, openai_endpoint

__all__ = ["DEFAULT_PRICES", "PROVIDERS", "Cache", "Client", "LLMError", "Ledger", "Message", "Prices", "Provider",
           "Request", "Response", "Settings", "Transient", "default_dir", "make_provider", "open_client",
           "openai_endpoint", "read_ledger"]
