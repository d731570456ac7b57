"""The tasks of an `fsmc enumerate` output, and the semantics that decide when one is done."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmc.enumerate.answers import accepts
from fsmc.enumerate.verify import VerifyError, load_checked_spec
from fsmc.errors import FsmcError
from fsmc.semantics import Machine, State


class UnknownTask(FsmcError, KeyError):
    """No task of that id in the enumerate output."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Task:
    """One line of tasks.jsonl: what to do, from which state, and how success is decided."""

    id: str
    instruction: str
    goal: dict[str, Any]
    answer: dict[str, Any] | None  # retrieval tasks: {"value", "text", "variants"}
    initial: dict[str, Any]  # the state the episode starts in, JSON form
    shortest: int | None = None

    @property
    def retrieval(self) -> bool:
        return self.answer is not None

    def accepts(self, text: str) -> bool:
        return self.answer is not None and accepts(self.answer, text)


class TaskSet:
    """The tasks of one enumerate output and its spec's machine: goals are decided by the semantics alone."""

    def __init__(self, out: str | Path, *, spec: str | Path | None = None):
        self.out = Path(out)
        manifest = _read_json(self.out / "manifest.json")
        ir_spec, _ = load_checked_spec(self.out, manifest, str(spec) if spec else None)
        self.machine = Machine(ir_spec)
        self.site: str = manifest["spec"].get("site") or ir_spec.site.name
        self.terminals = {p for p in ir_spec.site.terminals}
        self._task_defs = {t.name: t for t in ir_spec.tasks}
        initial = self.machine.to_json(self.machine.initial())
        self.tasks = {t.id: t for t in _read_tasks(self.out / "tasks.jsonl", initial)}

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks.values())

    def get(self, task_id: str) -> Task:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise UnknownTask(f"no task {task_id!r} in {self.out / 'tasks.jsonl'} ({len(self.tasks)} tasks, "
                              f"e.g. {next(iter(self.tasks), '?')!r})") from None

    def holds(self, task: Task, state: State) -> bool:
        """Whether the task's goal holds in `state` (the semantics', never the page's, evaluation)."""
        goal = task.goal
        if goal.get("kind") == "task":
            t = self._task_defs[goal["task"]]
            params = goal.get("params") or {}
            return bool(self.machine.holds(t, tuple(params[p.name] for p in t.params), state))
        match = goal.get("match") or {}
        js = self.machine.to_json(state)
        if match.get("page") is not None and match["page"] != js["page"]:
            return False
        return all(js["vars"].get(name, _MISSING) == value for name, value in (match.get("vars") or {}).items())

    def terminal(self, state: State) -> bool:
        return self.machine.page_of(state) in self.terminals


_MISSING = object()


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise VerifyError(f"cannot read {path}: {err.strerror or err}; is {path.parent} an `fsmc enumerate` output?") from None
    return data


def _read_tasks(path: Path, initial: dict[str, Any]) -> Iterator[Task]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise VerifyError(f"cannot read {path}: {err.strerror or err}; run `fsmc enumerate` first") from None
    for line in lines:
        if line.strip():
            r = json.loads(line)
            yield Task(r["id"], r["instruction"], r["goal"], r.get("answer"), r.get("initial") or initial,
                       r.get("shortest"))
