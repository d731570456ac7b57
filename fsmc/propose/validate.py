"""The proposer's validator is fsmc itself: a spec text through the static and semantic checks, within budgets.

Beside fsmc's own diagnostics (rendered exactly as `fsmc check` prints them), a proposal is held to:

    P001  the reachable states fit the state budget (--max-states)
    P002  the spec has a task (a spec without one yields no trajectory)
    P003  no more pages than the profile's page budget
    P004  no more actions than the profile's action budget

A spec is clean when it has no error and, unless warnings are allowed, no warning; P001-P004 are errors of
propose's own, which the summary says apart from fsmc's, since `fsmc check` calls such a spec ok.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from fsmc import ir
from fsmc.checks import CheckContext
from fsmc.compilation import Compilation
from fsmc.diagnostics import Diagnostic, SpecError, has_errors, render_text

CAPPED = {"W400", "W402", "W404", "W407"}
"""The semantic checks' warnings that only say the search was capped: over the budget, P001 says it instead."""


@dataclass(frozen=True)
class Budget:
    """What a proposal may be: at most `states` reachable states, `pages` pages and `actions` actions."""

    states: int = 50_000
    pages: int | None = None
    actions: int | None = None


@dataclass(frozen=True)
class Verdict:
    """A proposal's diagnostics, as data and as `fsmc check` prints them, and its state count (None when the
    spec could not be explored)."""

    diagnostics: tuple[Diagnostic, ...]
    report: str
    states: int | None
    spec: ir.Spec | None
    allow_warnings: bool = False

    @property
    def clean(self) -> bool:
        return self.spec is not None and not (has_errors(self.diagnostics) or
                                              (self.diagnostics and not self.allow_warnings))

    @property
    def needs(self) -> tuple[Diagnostic, ...]:
        """What propose asks beyond `fsmc check` (P001-P004)."""
        return tuple(d for d in self.diagnostics if d.code.startswith("P"))

    @property
    def check_ok(self) -> bool:
        """`fsmc check` would call the spec ok: no error of fsmc's own."""
        return self.spec is not None and not has_errors([d for d in self.diagnostics if d not in self.needs])

    def summary(self) -> str:
        checked = [d for d in self.diagnostics if d not in self.needs]
        errors = sum(1 for d in checked if d.severity == "error")
        warnings = len(checked) - errors
        states = f", {self.states:,} states" if self.states is not None else ""
        needs = "; propose needs " + "; ".join(f"{d.code}: {d.message}" for d in self.needs) if self.needs else ""
        return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}{states}{needs}"


class _Budgeted(Compilation):
    """A compilation whose checks explore no more states than the budget allows (plus one, to tell it is over)."""

    def __init__(self, name: str, text: str, state_cap: int):
        super().__init__(name, text=text)
        self.state_cap = state_cap

    @cached_property
    def context(self) -> CheckContext:
        return CheckContext(self.ir, state_cap=self.state_cap)


def validate(text: str, name: str, budget: Budget | None = None, *, allow_warnings: bool = False) -> Verdict:
    """The verdict on the spec `text`, its diagnostics located in `name` (the file it is meant for)."""
    budget = budget or Budget()
    c = _Budgeted(name, text, budget.states + 1)
    try:
        found = list(c.diagnostics)
    except SpecError as err:  # no IR at all: a syntax error
        return _verdict(err.diagnostics, text, name, None, None, allow_warnings)
    space = None if has_errors(c.static_diagnostics) else c.state_space  # explored only by the semantic checks
    states = len(space) if space is not None else None
    over = _budget_diagnostics(c.ir, budget, states)
    if any(d.code == "P001" for d in over):  # what the capped search could not settle says nothing more
        found = [d for d in found if d.code not in CAPPED]
    return _verdict([*found, *over], text, name, states, c.ir, allow_warnings)


def _verdict(found: tuple[Diagnostic, ...] | list[Diagnostic], text: str, name: str, states: int | None,
             spec: ir.Spec | None, allow_warnings: bool) -> Verdict:
    ordered = tuple(sorted(set(found), key=Diagnostic.sort_key))
    return Verdict(ordered, render_text(ordered, {name: text}), states, spec, allow_warnings)


def _budget_diagnostics(spec: ir.Spec, budget: Budget, states: int | None) -> list[Diagnostic]:
    at = spec.site.span
    found = []
    if states is not None and states > budget.states:
        found.append(Diagnostic("P001", f"the spec has more than {budget.states:,} reachable states", at,
                                "fewer variables, smaller domains, fewer table rows, or carry less between pages"))
    if not spec.tasks:
        found.append(Diagnostic("P002", "the spec has no task", at,
                                "add `task NAME on PAGE { goal ... instruction \"...\" }`: tasks are what "
                                "trajectories are made for"))
    if budget.pages is not None and len(spec.pages) > budget.pages:
        found.append(Diagnostic("P003", f"the spec has {len(spec.pages)} pages; the budget is {budget.pages}", at,
                                "merge or drop pages"))
    actions = sum(len(p.actions) for p in spec.pages)
    if budget.actions is not None and actions > budget.actions:
        found.append(Diagnostic("P004", f"the spec has {actions} actions; the budget is {budget.actions}", at,
                                "merge or drop actions (a parameter makes one action of many)"))
    return found
