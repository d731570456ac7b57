"""fsmc's async backends on a page of Playwright's sync API (BrowserGym's): the same code, run on Playwright's own loop.

Playwright's sync API runs an asyncio loop of its own in a greenlet (its dispatcher), and every sync call waits for a
task of that loop. `run(page, coroutine)` runs any coroutine as such a task; inside it, `Awaited(page)` is the page as
the async API shows it: each method the async API awaits is done as the sync call in a greenlet of its own (as
Playwright runs the sync API's event handlers) and awaited. So a backend's episode (`PageEpisode`, its `Actor`, its
`Routes` on the DevTools Fetch domain) drives BrowserGym's page with its own code, not a copy of it.
"""

from __future__ import annotations

import inspect
from collections.abc import Coroutine
from typing import Any, TypeVar

import playwright.async_api as async_api
from playwright._impl._greenlets import EventGreenlet, run_in_greenlet
from playwright._impl._sync_base import SyncBase

T = TypeVar("T")


class Awaited:
    """A sync-API Playwright object (a page, its context, mouse, keyboard, a CDP session) with the async API's
    signatures: what the async API awaits is awaitable, the rest (properties, `on`, `locator`) is as it is."""

    def __init__(self, obj: SyncBase):
        self._obj = obj

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._obj, name)
        if not callable(value):
            return _wrap(value)
        twin = getattr(getattr(async_api, type(self._obj).__name__, None), name, None)
        if inspect.iscoroutinefunction(twin):
            async def awaited(*args: Any, **kwargs: Any) -> Any:
                return _wrap(await run_in_greenlet(EventGreenlet, lambda: value(*_unwrap(args), **kwargs)))
            return awaited
        return lambda *args, **kwargs: _wrap(value(*_unwrap(args), **kwargs))

    def __repr__(self) -> str:
        return f"Awaited({self._obj!r})"


def _wrap(value: Any) -> Any:
    if isinstance(value, SyncBase):
        return Awaited(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _unwrap(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a._obj if isinstance(a, Awaited) else a for a in args)


def run(page: Any, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on the loop of `page`'s sync Playwright (from the thread that drives the page); its result."""
    result: T = page._sync(coroutine)
    return result


__all__ = ["Awaited", "run"]
