"""Breadth-first exploration of the reachable states, shared by the checks and the enumerator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fsmc.semantics import Machine, Move, State


@dataclass
class StateSpace:
    """States in BFS order with parent pointers: index 0 is the initial state."""

    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    parent: list[int] = field(default_factory=list)
    via: list[Move | None] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    enabled_moves: set[Move] = field(default_factory=set)
    complete: bool = True  # False when a cap stopped the search early

    def __len__(self) -> int:
        return len(self.states)

    def path(self, i: int) -> list[Move]:
        """The moves of the shortest path from the initial state to state i."""
        out: list[Move] = []
        while self.parent[i] >= 0:
            mv = self.via[i]
            assert mv is not None
            out.append(mv)
            i = self.parent[i]
        return out[::-1]


def explore(
    machine: Machine,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> StateSpace:
    """BFS from the initial state, deduplicating by canonical key, within the caps."""
    sp = StateSpace()
    s0 = machine.initial()
    sp.states.append(s0)
    sp.index[s0] = 0
    sp.parent.append(-1)
    sp.via.append(None)
    sp.depth.append(0)
    head = 0
    while head < len(sp.states):
        s, d = sp.states[head], sp.depth[head]
        if max_depth is not None and d >= max_depth:
            sp.complete = sp.complete and not any(True for _ in machine.successors(s))
            head += 1
            continue
        for mv, nxt in machine.successors(s):
            sp.enabled_moves.add(mv)
            if nxt in sp.index:
                continue
            if len(sp.states) >= max_states:
                sp.complete = False
                continue
            sp.index[nxt] = len(sp.states)
            sp.states.append(nxt)
            sp.parent.append(head)
            sp.via.append(mv)
            sp.depth.append(d + 1)
        head += 1
        if on_progress is not None and head % 10000 == 0:
            on_progress(head, len(sp.states))
    return sp
