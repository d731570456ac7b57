"""Trajectory records: semantic moves with their parameters, the state after each, and GUI operations.

A record is plain JSON, one per line of trajectories.jsonl:

    {"id", "task_id", "kind": "positive"|"negative", "label": "shortest"|"alternative"|"truncated"|
     "disabled_move", "goal_type", "instruction", "goal": {...}, "answer": {...}|null, "initial": state,
     "moves": [{"page", "action", "args", "label", "enabled", "state", "gui": [op, ...]}], "length"}

GUI operations are the move's procedure with every `{x}` template rendered in the state before
the move (`Machine.bindings` + `render_template`, as `Machine.render` does): {"op", "selector", "text", "until", "limit"}, absent fields left out,
the same fields as fsmc.replay's Op.
"""

from __future__ import annotations

from typing import Any

from fsmc import ir
from fsmc.enumerate.answers import answer_record
from fsmc.enumerate.goals import Goal
from fsmc.semantics import Machine, Move, State, render_template

GUI_FIELDS = ("selector", "text", "until", "limit")


def _render(text: str, bindings: dict[str, Any]) -> str:
    try:
        return render_template(text, bindings)
    except KeyError:  # a template the checks let through; keep it visible rather than guess
        return text


def _bindings(machine: Machine, state: State, move: Move) -> dict[str, Any]:
    return machine.bindings(state, move.action.params, move.args)


def gui_ops(machine: Machine, state: State, move: Move, bindings: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The move's GUI procedure as concrete atomic operations, rendered in the pre-state."""
    b = _bindings(machine, state, move) if bindings is None else bindings
    out = []
    for op in move.action.gui:
        rec: dict[str, Any] = {"op": op.op}
        for f in GUI_FIELDS:
            v = getattr(op, f)
            if v is not None:
                rec[f] = _render(v, b) if isinstance(v, str) else v
        out.append(rec)
    return out


def move_record(machine: Machine, state: State, move: Move, after: State, enabled: bool = True) -> dict[str, Any]:
    b = _bindings(machine, state, move)
    return {
        "page": move.page, "action": move.action.name, "args": move.params,
        "label": _render(move.action.label, b) if move.action.label else move.action.name, "enabled": enabled,
        "state": machine.to_json(after), "gui": gui_ops(machine, state, move, b),
    }


def replay_moves(machine: Machine, moves: list[Move], last_disabled: bool = False) -> list[dict[str, Any]]:
    """Move records for a sequence from the initial state; with last_disabled the last move is a no-op."""
    s = machine.initial()
    out = []
    for j, mv in enumerate(moves):
        disabled = last_disabled and j == len(moves) - 1
        nxt = s if disabled else machine.step(s, mv)
        out.append(move_record(machine, s, mv, nxt, enabled=not disabled))
        s = nxt
    return out


def final_state(machine: Machine, moves: list[Move]) -> State:
    s = machine.initial()
    for mv in moves:
        s = machine.step(s, mv)
    return s


def task_of(machine: Machine, goal: Goal) -> ir.Task | None:
    return next((t for t in machine.spec.tasks if t.name == goal.task), None) if goal.task else None


def answer_at(machine: Machine, goal: Goal, state: State) -> dict[str, Any] | None:
    task = task_of(machine, goal)
    if task is None or task.answer is None:
        return None
    return answer_record(machine.answer(task, goal.args, state))


def trajectory(machine: Machine, goal: Goal, tid: str, moves: list[Move], *, kind: str = "positive",
               label: str = "shortest", last_disabled: bool = False) -> dict[str, Any]:
    """One trajectory record (see the module docstring)."""
    records = replay_moves(machine, moves, last_disabled)
    answer = answer_at(machine, goal, final_state(machine, moves)) if kind == "positive" else None
    return {
        "id": tid, "task_id": goal.id, "kind": kind, "label": label, "goal_type": goal.kind,
        "instruction": goal.instruction, "goal": goal.to_json(), "answer": answer,
        "initial": machine.to_json(machine.initial()), "moves": records, "length": len(records),
    }
