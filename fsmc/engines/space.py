"""What every engine's explored state space offers: states in BFS order with the moves that first reached them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fsmc.semantics import Move, State

Progress = Callable[[int, int, int], None]
"""Called now and then during a search with (states found, states expanded, current depth)."""


class Space(Protocol):
    """An explored state space: index 0 is the initial state; `path(i)` is a shortest way to state i."""

    complete: bool

    def __len__(self) -> int: ...
    def state(self, i: int) -> State: ...
    def path(self, i: int) -> list[Move]: ...
    @property
    def depth(self) -> Any: ...
