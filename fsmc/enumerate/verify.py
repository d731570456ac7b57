"""`verify_output`: re-check an enumeration's output from scratch against its spec.

For every line of trajectories.jsonl: it starts in the initial state; every move exists, belongs to
the current page and is enabled (except the last move of a `disabled_move` negative, which must be
disabled and change nothing); every recorded state and GUI expansion is what the semantics give;
the goal holds at the end of a positive trajectory and at no earlier state of a shortest one, does
not hold at the end of a negative one, and holds nowhere along a `truncated` one; answers and task
instructions are recomputed. Across lines, per task: one shortest trajectory, the positive ones end
in different states, and the alternatives respect the manifest's --per-goal, --slack and
--max-depth. The paths of bfs.json are replayed too, and file hashes are compared with the manifest.
Every mismatch names its file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.enumerate.answers import answer_record
from fsmc.enumerate.goals import goal_holds
from fsmc.enumerate.output import file_digest, resolve_spec, spec_digest
from fsmc.enumerate.trajectories import gui_ops
from fsmc.errors import EXIT_UNREADABLE, FsmcError
from fsmc.formats import load
from fsmc.semantics import Machine, Move, State, render_template, state_difference

LABELS = {"positive": ("shortest", "alternative"), "negative": ("truncated", "disabled_move")}


class VerifyError(FsmcError):
    """The output cannot be verified at all (missing files, another spec)."""


@dataclass(frozen=True)
class Mismatch:
    file: str
    line: int
    id: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.id}: {self.message}" if self.id else f"{where}: {self.message}"


@dataclass
class VerifyReport:
    trajectories: int = 0
    paths: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _read_manifest(out: Path) -> dict[str, Any]:
    path = out / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise VerifyError(f"cannot read {path}: {err.strerror or err}; is {out} an `fsmc enumerate` output?",
                          exit_code=EXIT_UNREADABLE) from None
    except json.JSONDecodeError as err:
        raise VerifyError(f"{path} is not valid JSON: {err}", exit_code=EXIT_UNREADABLE) from None
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
        raise VerifyError(f"{path} has no spec record; is {out} an `fsmc enumerate` output?")
    return data


def load_checked_spec(out: Path, manifest: dict[str, Any], spec_path: str | None) -> tuple[ir.Spec, str]:
    """The spec named by the manifest (or spec_path), refused when its hash differs from the manifest's."""
    recorded = manifest["spec"].get("path")
    if not spec_path and not recorded:
        raise VerifyError("the manifest names no spec file; pass --spec")
    path = spec_path or str(resolve_spec(recorded, out))
    if not spec_path and not Path(path).is_file():
        raise VerifyError(f"cannot find the spec {recorded!r} the manifest names (relative to the project of {out}, "
                          "of the current folder, or to the folder holding it); pass --spec")
    spec = load(path)  # SpecError propagates: the caller prints the diagnostics
    digest = spec_digest(path, spec)
    if digest != manifest["spec"].get("sha256"):
        raise VerifyError(f"{path} is not the spec {out} was enumerated from (sha256 {digest[:12]}… differs from "
                          f"the manifest's {str(manifest['spec'].get('sha256'))[:12]}…); enumerate it again")
    return spec, str(path)


@dataclass
class _Goal:
    """What the lines seen so far say about one task id (for the checks across lines)."""

    shortest: tuple[int, int] | None = None  # (line, length)
    alternatives: list[tuple[int, int, str]] = field(default_factory=list)  # (line, length, id)
    ends: dict[str, int] = field(default_factory=dict)  # final state (canonical JSON) -> line


class _Checker:
    def __init__(self, machine: Machine, report: VerifyReport, options: dict[str, Any] | None = None):
        self.m, self.report = machine, report
        self.tasks = {t.name: t for t in machine.spec.tasks}
        self.options = options or {}
        self.goals: dict[str, _Goal] = {}
        self.failed_tasks: set[str] = set()

    def fail(self, file: str, line: int, tid: str, message: str) -> None:
        self.report.mismatches.append(Mismatch(file, line, tid, message))

    # ---------------------------------------------------------------- goals
    def goal_holds(self, goal: dict[str, Any], state: State) -> bool | str:
        """Whether the recorded goal holds in state, or why it cannot be evaluated."""
        return goal_holds(self.m, goal, state)

    # ---------------------------------------------------------------- moves
    def find(self, rec: dict[str, Any]) -> Move | str:
        try:
            return self.m.find_move(rec["page"], rec["action"], rec.get("args") or {})
        except (KeyError, TypeError):
            return f"no move {rec.get('page')}.{rec.get('action')}({rec.get('args')}) in the spec"

    def step(self, where: tuple[str, int, str], j: int, s: State, rec: Any, may_be_disabled: bool) -> State | None:
        """Check one recorded move from state s; the next state, or None when the trajectory cannot go on."""
        if not isinstance(rec, dict):
            self.fail(*where, f"step {j + 1}: not a move record")
            return None
        mv = self.find(rec)
        if isinstance(mv, str):
            self.fail(*where, f"step {j + 1}: {mv}")
            return None
        page = self.m.page_of(s)
        if mv.page != page:
            self.fail(*where, f"step {j + 1}: {mv.name} is taken on page {page!r}")
            return None
        enabled = self.m.is_enabled(s, mv)
        if not enabled and not may_be_disabled:
            self.fail(*where, f"step {j + 1}: the preconditions of {mv!r} do not hold")
        if rec.get("enabled", True) != enabled:
            self.fail(*where, f"step {j + 1}: recorded enabled={rec.get('enabled')}, the semantics say {enabled}")
        nxt = self.m.step(s, mv)
        if rec.get("gui") != gui_ops(self.m, s, mv):
            self.fail(*where, f"step {j + 1}: the GUI operations differ from {mv!r}'s procedure")
        if rec.get("state") != self.m.to_json(nxt):
            self.fail(*where, f"step {j + 1}: recorded state differs from the semantics: {state_difference(rec.get('state'), self.m.to_json(nxt))}")
            return None
        return nxt


class TrajectoryChecker(_Checker):
    """Checks one trajectory record."""

    def check(self, line: int, t: Any) -> None:
        if not isinstance(t, dict) or not isinstance(t.get("moves"), list) or not isinstance(t.get("goal"), dict):
            self.fail("trajectories.jsonl", line, "", "not a trajectory record")
            return
        where = ("trajectories.jsonl", line, str(t.get("id")))
        before = len(self.report.mismatches)
        try:
            self._check(where, t)
        except Exception:
            self.failed_tasks.add(str(t.get("task_id")))
            raise
        if len(self.report.mismatches) > before:  # across lines, only tasks whose every line holds are judged
            self.failed_tasks.add(str(t.get("task_id")))

    def _check(self, where: tuple[str, int, str], t: dict[str, Any]) -> None:
        kind, label = t.get("kind"), t.get("label")
        if label not in LABELS.get(str(kind), ()):
            self.fail(*where, f"kind {kind!r} with label {label!r} is not a valid combination")
        if t.get("initial") != self.m.to_json(self.m.initial()):
            self.fail(*where, "the initial state is not the spec's initial state")
        if t.get("length") != len(t["moves"]):
            self.fail(*where, f"length {t.get('length')} but {len(t['moves'])} moves")
        states = self._replay(where, t, label == "disabled_move")
        if states is not None:
            self._goal(where, t, states)
        if kind == "positive":
            self._tally(where, t, None if states is None else states[-1])

    def _replay(self, where: tuple[str, int, str], t: dict[str, Any], last_disabled: bool) -> list[State] | None:
        s = self.m.initial()
        states = [s]
        n = len(t["moves"])
        for j, rec in enumerate(t["moves"]):
            nxt = self.step(where, j, s, rec, last_disabled and j == n - 1)
            if nxt is None:
                return None
            s = nxt
            states.append(s)
        if last_disabled and (n == 0 or t["moves"][-1].get("enabled", True)):
            self.fail(*where, "a disabled_move negative must end with a disabled move")
        return states

    def _goal(self, where: tuple[str, int, str], t: dict[str, Any], states: list[State]) -> None:
        holds = self.goal_holds(t["goal"], states[-1])
        if isinstance(holds, str):
            self.fail(*where, holds)
            return
        if t.get("kind") == "positive" and not holds:
            self.fail(*where, "the goal does not hold at the end")
        if t.get("kind") == "negative" and holds:
            self.fail(*where, f"the goal holds at the end of a {t.get('label')} negative")
        lasso = t.get("loop") is not None  # a property's counterexample that goes round: back where it was, by design
        if t.get("label") in ("shortest", "alternative", "truncated") and not lasso:
            early = next((k for k, s in enumerate(states[:-1]) if self.goal_holds(t["goal"], s) is True), None)
            if early is not None:
                what = {"shortest": "not shortest", "truncated": "not truncated before the goal",
                        "alternative": "an episode would end before its last move"}[t["label"]]
                self.fail(*where, f"{what}: the goal already holds after {early} moves")
        self._task(where, t, states[-1])

    def _tally(self, where: tuple[str, int, str], t: dict[str, Any], final: State | None) -> None:
        """Remember a positive trajectory for the checks across lines (`finish`); final: None if it did not replay."""
        g = self.goals.setdefault(str(t.get("task_id")), _Goal())
        line, n = where[1], len(t["moves"])
        if final is not None:
            end = json.dumps(self.m.to_json(final), sort_keys=True)
            if end in g.ends:
                self.fail(*where, f"ends in the same state as the trajectory on line {g.ends[end]} of its task")
            g.ends.setdefault(end, line)
        if t.get("label") == "alternative":
            g.alternatives.append((line, n, where[2]))
        elif g.shortest is not None:
            self.fail(*where, f"a second shortest trajectory of its task (the first is on line {g.shortest[0]})")
        else:
            g.shortest = (line, n)
        max_depth = self.options.get("max_depth")
        if isinstance(max_depth, int) and n > max_depth:
            self.fail(*where, f"{n} moves, more than the manifest's max_depth {max_depth}")

    def finish(self) -> None:
        """The checks across lines: per task, alternatives after a shortest one, within --per-goal and --slack."""
        per_goal, slack = self.options.get("per_goal"), self.options.get("slack")
        for tid, g in self.goals.items():
            if tid in self.failed_tasks:
                continue
            if g.alternatives and g.shortest is None:
                line, _, aid = g.alternatives[0]
                self.fail("trajectories.jsonl", line, aid, f"an alternative of {tid!r}, which has no shortest trajectory")
                continue
            if isinstance(per_goal, int) and len(g.alternatives) > per_goal:
                line, _, aid = g.alternatives[per_goal]
                self.fail("trajectories.jsonl", line, aid,
                          f"{len(g.alternatives)} alternatives of {tid!r}, more than the manifest's per_goal {per_goal}")
            if g.shortest is None or not isinstance(slack, int):
                continue
            for line, n, aid in g.alternatives:
                if n < g.shortest[1] or n > g.shortest[1] + slack:
                    self.fail("trajectories.jsonl", line, aid, f"{n} moves, outside {g.shortest[1]}..{g.shortest[1] + slack} "
                              f"(the shortest on line {g.shortest[0]} and the manifest's slack {slack})")

    def _task(self, where: tuple[str, int, str], t: dict[str, Any], final: State) -> None:
        goal = t["goal"]
        task = self.tasks.get(str(goal.get("task"))) if goal.get("kind") == "task" else None
        if task is None:
            return
        args = tuple((goal.get("params") or {}).get(p.name) for p in task.params)
        instruction = render_template(task.instruction, self.m.bindings(self.m.initial(), task.params, args))
        if t.get("instruction") != instruction:
            self.fail(*where, f"instruction {t.get('instruction')!r}, the template gives {instruction!r}")
        if t.get("kind") != "positive":
            return
        expected = answer_record(self.m.answer(task, args, final)) if task.answer is not None else None
        if t.get("answer") != expected:
            self.fail(*where, f"answer {t.get('answer')!r}, the goal state gives {expected!r}")


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    with open(path, encoding="utf-8", errors="replace") as f:  # bytes that are not UTF-8: not valid JSON
        for n, text in enumerate(f, 1):
            try:
                yield n, json.loads(text)
            except json.JSONDecodeError as err:
                yield n, err


def _check_trajectories(out: Path, checker: TrajectoryChecker, report: VerifyReport) -> None:
    path = out / "trajectories.jsonl"
    if not path.exists():
        checker.fail("trajectories.jsonl", 0, "", "missing")
        return
    for n, t in _lines(path):
        report.trajectories += 1
        if isinstance(t, json.JSONDecodeError):
            checker.fail("trajectories.jsonl", n, "", f"not valid JSON: {t.msg}")
            continue
        try:
            checker.check(n, t)
        except Exception as err:  # noqa: BLE001 - a malformed record is a mismatch, never a traceback
            tid = str(t.get("id")) if isinstance(t, dict) else ""
            checker.fail("trajectories.jsonl", n, tid, f"cannot be checked: {type(err).__name__}: {err}")
    checker.finish()


def _check_bfs(out: Path, checker: _Checker, report: VerifyReport) -> None:
    try:
        doc = json.loads((out / "bfs.json").read_text(encoding="utf-8"))
        terminals = doc["terminals"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError):
        checker.fail("bfs.json", 0, "", "missing or not in the bfs.json shape")
        return
    for term in terminals:
        paths = term.get("paths", [])
        steps = len(paths[0].get("actions", [])) if paths else None
        if term.get("shortest_step_count") != steps:
            checker.fail("bfs.json", 0, str(term.get("terminal_page")),
                         f"shortest_step_count {term.get('shortest_step_count')}, but the first path has {steps} actions")
        for k, path in enumerate(paths):
            report.paths += 1
            where = ("bfs.json", 0, f"{term.get('terminal_page')} path {k + 1}")
            s: State | None = checker.m.initial()
            for j, act in enumerate(path.get("actions", [])):
                rec = {"page": act.get("from"), "action": str(act.get("id", "")).split(".", 1)[-1], "args": act.get("params")}
                mv = checker.find(rec)
                if isinstance(mv, str) or s is None or not checker.m.is_enabled(s, mv):
                    checker.fail(*where, f"step {j + 1}: {mv if isinstance(mv, str) else 'not enabled'}")
                    s = None
                    break
                s = checker.m.step(s, mv)
            if s is not None and checker.m.page_of(s) != term.get("terminal_page"):
                checker.fail(*where, f"ends on {checker.m.page_of(s)!r}, not on the terminal page")


def _check_files(out: Path, manifest: dict[str, Any], checker: _Checker, report: VerifyReport) -> None:
    for name, digest in (manifest.get("files") or {}).items():
        path = out / name
        if path.exists() and file_digest(path) != digest:
            checker.fail(name, 0, "", "changed since enumeration (sha256 differs from manifest.json)")
    expected = (manifest.get("counts") or {}).get("trajectories")
    if expected is not None and expected != report.trajectories:
        checker.fail("trajectories.jsonl", 0, "", f"{report.trajectories} lines, the manifest counts {expected}")


def verify_output(out: str | Path, spec_path: str | None = None, *, spec: ir.Spec | None = None) -> VerifyReport:
    """Re-check everything in an `fsmc enumerate` output folder; raises VerifyError when it cannot start.

    The spec is the one the manifest names, or spec_path, or `spec` (an IR enumerated without a file);
    it is refused when its hash differs from the manifest's.
    """
    out = Path(out)
    manifest = _read_manifest(out)
    if spec is None:
        spec, _ = load_checked_spec(out, manifest, spec_path)
    elif spec_digest(None, spec) != manifest["spec"].get("sha256"):
        raise VerifyError(f"the given spec is not the one {out} was enumerated from")
    report = VerifyReport()
    options = manifest.get("options")
    checker = TrajectoryChecker(Machine(spec), report, options if isinstance(options, dict) else None)
    _check_trajectories(out, checker, report)
    _check_bfs(out, checker, report)
    _check_files(out, manifest, checker, report)
    return report
