"""`run_tests`: every property of a spec decided, SPIN's second opinion on the temporal ones, the site walked at random."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.analysis.conditions import describe
from fsmc.compilation import Compilation
from fsmc.engines import StateSpace
from fsmc.properties.decide import Verdict, decide
from fsmc.properties.output import counterexample, property_id, record, write_out
from fsmc.properties.spin import SpinError, spin_found, spin_leads_to
from fsmc.properties.walks import walk_site

Note = Callable[[str], None]


@dataclass(frozen=True)
class Result:
    """One line of the report: a property (or the site) holds, is violated, or is undecided."""

    id: str
    title: str
    holds: bool | None
    note: str = ""
    record: dict[str, Any] | None = None  # the counterexample's trajectory record

    def line(self) -> str:
        if self.holds is None:
            return f"{self.title}: {self.note}"
        verdict = "ok" if self.holds else "violated"
        return f"{self.title}: {verdict}" + (f" ({self.note})" if self.note else "")


@dataclass
class PropertyReport:
    states: int
    results: list[Result] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.holds for r in self.results)

    @property
    def records(self) -> list[dict[str, Any]]:
        return [r.record for r in self.results if r.record is not None]


@dataclass(frozen=True)
class SiteWalks:
    """Random walks against a built site: how many, how long, with which seed."""

    dist: Path
    walks: int = 50
    seed: int = 0
    max_steps: int = 10


def run_tests(c: Compilation, *, max_states: int = 2_000_000, spin: bool = True, site: SiteWalks | None = None,
              on_note: Note | None = None) -> PropertyReport:
    """Decide every property of the spec (raises SpecError when the spec has errors), then walk the site if given."""
    machine = c.machine
    space = c.explore("python", max_states=max_states, max_depth=None)
    assert isinstance(space, StateSpace)
    report = PropertyReport(len(space))
    use_spin = spin and any(p.kind == "leads_to" for p in c.ir.properties)
    if use_spin and not spin_found() and on_note is not None:
        on_note("spin is not installed: `always ... eventually` is decided by fsmc alone")
        use_spin = False
    for index, verdict in enumerate(decide(machine, space, c.ir.properties)):
        second = _spin(c, verdict, len(space)) if use_spin and verdict.prop.kind == "leads_to" else ""
        report.results.append(_result(c, index, verdict, second))
    if site is not None:
        report.results.append(_walks(c, site))
    return report


def _spin(c: Compilation, verdict: Verdict, states: int) -> str:
    """What SPIN says of a decided `always ... eventually`: that it agrees, or why it has no opinion.

    A disagreement is a bug in fsmc or in the Promela backend: it raises, never passes as a verdict.
    """
    if verdict.holds is None:
        return ""
    try:
        holds = spin_leads_to(c.machine, verdict.prop, states)
    except SpinError as err:
        return f"SPIN could not check it: {err}"
    if holds != verdict.holds:
        raise AssertionError(f"fsmc and SPIN disagree on {describe(verdict.prop)}: fsmc finds it "
                             f"{'holds' if verdict.holds else 'violated'}, SPIN the opposite")
    return "SPIN agrees"


def _result(c: Compilation, index: int, verdict: Verdict, second: str) -> Result:
    prop = verdict.prop
    notes = [verdict.note] if verdict.note else []
    rec = None
    if verdict.moves or (verdict.holds is False and prop.kind != "reachable"):
        rec = counterexample(c.machine, prop, index, verdict.moves, verdict.loop)
        loop = "" if verdict.loop is None else f", the last {len(verdict.moves) - verdict.loop} round a loop"
        notes.insert(0, f"a counterexample of {len(verdict.moves)} moves{loop}")
    if second:
        notes.append(second)
    return Result(property_id(prop, index), describe(prop), verdict.holds, "; ".join(notes), rec)


def _walks(c: Compilation, site: SiteWalks) -> Result:
    found = walk_site(c.machine, site.dist, walks=site.walks, seed=site.seed, max_steps=site.max_steps)
    title = f"the site ({site.walks} random walks of up to {site.max_steps} moves, seed {site.seed})"
    if found.flaky:
        return Result("site", title, False, "it diverged from the spec once, but not again: the site is not deterministic")
    if found.divergence is None:
        return Result("site", title, True, "agrees with the spec")
    d = found.divergence
    rec = record(c.machine, "site", d.moves, f"Walk the site until it parts from the spec: {d.detail}",
                 "the site agrees with the spec")
    return Result("site", title, False, f"diverges after {len(d.moves)} moves: {d.detail}", rec)


def write_report(out: str | Path, c: Compilation, report: PropertyReport, options: dict[str, Any]) -> None:
    """OUT with the counterexamples of `report` (fsmc/properties/output.py)."""
    summary = {"options": options, "states": report.states,
               "properties": [{"id": r.id, "holds": r.holds, "note": r.note} for r in report.results]}
    write_out(out, c, report.records, summary)
