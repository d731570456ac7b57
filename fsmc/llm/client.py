"""The one way fsmc asks a model: through the cache, with retries and backoff, every call written to the ledger.

Retries are fsmc's own, not the client libraries' (those are set to ask once): one policy for both providers,
each attempt's pause bounded and a server's `Retry-After` honoured, and the ledger sees how many attempts a
call took. A rate limit, a server error (5xx) and a timeout are asked again; anything else fails at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from fsmc.llm.base import LLMError, Provider, Request, Response, Transient
from fsmc.llm.cache import Cache
from fsmc.llm.ledger import Ledger
from fsmc.llm.prices import Prices

MAX_PAUSE = 60.0  # seconds: the longest wait between two attempts, whatever a server asks


@dataclass
class Client:
    """`Client(provider).complete(Request(...))`: the reply from the cache, else from the provider."""

    provider: Provider
    cache: Cache | None = None
    ledger: Ledger = field(default_factory=Ledger)
    prices: Prices = field(default_factory=lambda: Prices.load())
    retries: int = 4
    backoff: float = 1.0  # seconds before the first retry; doubled each time
    refresh: bool = False  # --no-cache: ask again (and keep the new reply)
    sleep: Callable[[float], None] = time.sleep

    @property
    def model(self) -> str:
        return self.provider.model

    def complete(self, request: Request, *, repeat: int = 0) -> Response:
        """The reply to `request`; LLMError when the provider cannot give one after the retries. `repeat` n > 0 asks
        a request the caller asked n times already and wants a new reply to (a loop whose retry came out word for
        word the same): the model is asked again, under a cache entry of its own, so a rerun replays them all."""
        key = request.key(self.provider.name, self.model)
        if repeat:
            key = hashlib.sha256(f"{key}, asked again {repeat} times".encode()).hexdigest()
        if self.cache is not None and not self.refresh:
            kept = self.cache.get(key)
            if kept is not None:
                self._record(request, key, kept, cached=True, attempts=0, seconds=0.0)
                return kept
        start = time.perf_counter()
        try:
            response, attempts = self._ask(request)
        except LLMError as err:
            self.ledger.record(provider=self.provider.name, model=self.model, purpose=request.purpose, key=key,
                               cached=False, error=err.message, seconds=round(time.perf_counter() - start, 3))
            raise
        if self.cache is not None:
            with contextlib.suppress(OSError):  # a cache that cannot be written costs a rerun, not this call
                self.cache.put(key, self.provider.name, self.model, request, response)
        self._record(request, key, response, cached=False, attempts=attempts, seconds=time.perf_counter() - start)
        return response

    def _ask(self, request: Request) -> tuple[Response, int]:
        for attempt in range(self.retries + 1):
            try:
                return self.provider.send(request), attempt + 1
            except Transient as err:
                if attempt == self.retries:
                    raise LLMError(f"{self.provider.base_url}: {err.message}, {attempt + 1} attempts in all: "
                                   "try again later, or raise --retries or --timeout") from None
                pause = err.retry_after if err.retry_after is not None else self.backoff * 2 ** attempt
                self.sleep(min(max(pause, 0.0), MAX_PAUSE))
        raise AssertionError("unreachable")

    def _record(self, request: Request, key: str, response: Response, *, cached: bool, attempts: int,
                seconds: float) -> None:
        cost = 0.0 if cached else self.prices.cost(self.model, response.tokens_in, response.tokens_out)
        self.ledger.record(provider=self.provider.name, model=self.model, purpose=request.purpose, key=key,
                           cached=cached, attempts=attempts, tokens_in=response.tokens_in,
                           tokens_out=response.tokens_out, finish=response.finish,
                           cost_usd=None if cost is None else round(cost, 6), seconds=round(seconds, 3))
