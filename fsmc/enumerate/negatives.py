"""Negative trajectories: labelled ways of not reaching a goal, derived from its shortest trajectory.

- `truncated`: a proper prefix of the shortest trajectory (at least one move, at least one missing).
  No prefix of a shortest trajectory reaches the goal, so the goal does not hold at its end.
- `disabled_move`: a prefix of the shortest trajectory followed by a move of the current page whose
  preconditions fail there (`machine.moves(page)` minus the enabled ones, and minus those whose GUI
  procedure is an enabled move's); by the semantics it changes nothing, and it is recorded with
  `"enabled": false`.

Every choice (where to cut, which disabled move) comes from a generator seeded by (seed, goal id).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from fsmc.enumerate.goals import Goal
from fsmc.enumerate.trajectories import gui_ops, trajectory
from fsmc.semantics import Machine, Move, State

KINDS = ("truncated", "disabled_move")


def _prefix_states(machine: Machine, moves: list[Move]) -> list[State]:
    states = [machine.initial()]
    for mv in moves:
        states.append(machine.step(states[-1], mv))
    return states


def _disabled(machine: Machine, state: State) -> list[Move]:
    """Moves of the state's page whose preconditions fail there, and whose GUI procedure is not also that of an
    enabled move (two actions may share a control, e.g. one star button for star and unstar: acting out the
    disabled one then does the enabled one, which is no failing action from where the agent stands)."""
    enabled = machine.enabled(state)
    doable = {json.dumps(gui_ops(machine, state, mv), sort_keys=True) for mv in enabled}
    return [mv for mv in machine.moves(machine.page_of(state))
            if mv not in enabled and json.dumps(gui_ops(machine, state, mv), sort_keys=True) not in doable]


def negatives(machine: Machine, goal: Goal, shortest: list[Move], seed: int) -> Iterator[dict[str, Any]]:
    """The negative trajectories of one goal (none when its shortest trajectory is empty)."""
    n = len(shortest)
    if n == 0:
        return
    rng = random.Random(f"{seed}:{goal.id}:negatives")
    if n >= 2:
        cut = rng.randrange(1, n)
        yield trajectory(machine, goal, f"{goal.id}#truncated", shortest[:cut], kind="negative", label="truncated")
    states = _prefix_states(machine, shortest)
    positions = list(range(n))
    rng.shuffle(positions)
    for p in positions:
        candidates = _disabled(machine, states[p])
        if candidates:
            bad = rng.choice(candidates)
            yield trajectory(machine, goal, f"{goal.id}#disabled", [*shortest[:p], bad], kind="negative",
                             label="disabled_move", last_disabled=True)
            return
