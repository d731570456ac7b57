"""Breadth-first exploration of the reachable states, shared by the checks and the enumerator.

A StateSpace keeps parent pointers and move indices in flat arrays, so a path is recovered by
walking parents instead of storing paths; engines other than this reference one (a native
explorer) fill the same interface.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from fsmc.semantics import Machine, Move, State


@dataclass
class StateSpace:
    """States in BFS order: index 0 is the initial state; parent[i] and move[i] say how i was first reached."""

    machine: Machine
    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    parent: array[int] = field(default_factory=lambda: array("q"))
    move: array[int] = field(default_factory=lambda: array("q"))  # index into machine.all_moves, -1 at the root
    depth: array[int] = field(default_factory=lambda: array("l"))
    enabled_moves: set[int] = field(default_factory=set)  # indices of moves enabled in some explored state
    complete: bool = True  # False when a cap stopped the search early

    def __len__(self) -> int:
        return len(self.states)

    def state(self, i: int) -> State:
        return self.states[i]

    def index_of(self, state: State) -> int | None:
        return self.index.get(state)

    def via(self, i: int) -> Move | None:
        return None if self.move[i] < 0 else self.machine.all_moves[self.move[i]]

    def path(self, i: int) -> list[Move]:
        """The moves of the shortest path from the initial state to state i."""
        out: list[Move] = []
        while self.parent[i] >= 0:
            out.append(self.machine.all_moves[self.move[i]])
            i = self.parent[i]
        return out[::-1]


def explore(
    machine: Machine,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    on_progress: Callable[[int, int, int], None] | None = None,
) -> StateSpace:
    """BFS from the initial state, deduplicating by canonical key, within the caps.

    on_progress(expanded, discovered, depth) is called every 10,000 expanded states.
    """
    sp = StateSpace(machine)
    s0 = machine.initial()
    sp.states.append(s0)
    sp.index[s0] = 0
    sp.parent.append(-1)
    sp.move.append(-1)
    sp.depth.append(0)
    states, index, enabled = sp.states, sp.index, sp.enabled_moves
    head = 0
    while head < len(states):
        s, d = states[head], sp.depth[head]
        if max_depth is not None and d >= max_depth:
            if machine.enabled(s):
                sp.complete = False
            head += 1
            continue
        for mv, nxt in machine.successors(s):
            enabled.add(mv.index)
            if nxt in index:
                continue
            if len(states) >= max_states:
                sp.complete = False
                continue
            index[nxt] = len(states)
            states.append(nxt)
            sp.parent.append(head)
            sp.move.append(mv.index)
            sp.depth.append(d + 1)
        head += 1
        if on_progress is not None and head % 10000 == 0:
            on_progress(head, len(states), d)
    return sp
