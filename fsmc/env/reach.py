"""Putting an episode of a backend that cannot jump in a state: reset to its start, then act moves out.

A cloned application (or a capture) is reset to its start, the spec's initial state, alone (`Backend.jumps` false). Any other state is
reached the way an agent would reach it: each move's GUI procedure, rendered in the state before it exactly as
`fsmc enumerate` renders it into trajectories.jsonl (`gui_ops`), done through `Episode.perform`, the page let to
come to rest, and the state it then shows compared with the semantics' after every move.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from fsmc.backends.protocol import Capture, Episode, EpisodeFailure, Op
from fsmc.enumerate.trajectories import gui_ops
from fsmc.semantics import Machine, Move, State, state_difference

MAX_SEARCHED = 200_000  # states a shortest path is looked for among before giving up


def shortest_moves(machine: Machine, start: State, goal: State) -> list[Move] | None:
    """The fewest moves from `start` to `goal` (breadth first, moves in canonical order); None if it is unreachable."""
    came: dict[State, tuple[State, Move] | None] = {start: None}
    frontier = deque([start])
    while frontier and len(came) <= MAX_SEARCHED:
        state = frontier.popleft()
        if state == goal:
            path: list[Move] = []
            while (back := came[state]) is not None:
                state, move = back
                path.append(move)
            return path[::-1]
        for move, nxt in machine.successors(state):
            if nxt not in came:
                came[nxt] = (state, move)
                frontier.append(nxt)
    return None


async def act_out(episode: Episode, machine: Machine, start: State, moves: Sequence[Move]) -> State:
    """Each move's GUI operations on the episode, which must show the semantics' state after every one; the last."""
    state = start
    for i, move in enumerate(moves):
        for op in gui_ops(machine, state, move):
            await episode.perform(Op.from_json(op), Capture.NONE)
        await episode.settle()
        state = machine.step(state, move)
        shown = await episode.state()
        if shown != machine.to_json(state):
            raise EpisodeFailure("state_diverged", f"acting out move {i + 1} of {len(moves)} ({move.name}) led to a "
                                 f"state the semantics do not give: {state_difference(shown, machine.to_json(state))}")
    return state


async def reach(episode: Episode, machine: Machine, goal: State, moves: Sequence[Move] | None = None) -> list[Move]:
    """Reset the episode to the spec's initial state and act out `moves` (default: a shortest path to `goal`), which
    must end in `goal`; the moves acted out."""
    initial = machine.initial()
    shown = await episode.reset(None)
    if shown != machine.to_json(initial):
        raise EpisodeFailure("state_diverged", "the reset did not show the spec's initial state: "
                             + state_difference(shown, machine.to_json(initial)))
    if moves is None:
        found = shortest_moves(machine, initial, goal)
        if found is None:
            raise EpisodeFailure("navigation_failed", f"no moves of the semantics lead from the initial state to "
                                 f"{machine.to_json(goal)}")
        moves = found
    reached = await act_out(episode, machine, initial, moves)
    if reached != goal:
        raise EpisodeFailure("state_diverged", "the moves acted out end elsewhere: "
                             + state_difference(machine.to_json(reached), machine.to_json(goal)))
    return list(moves)
