"""One compilation of one spec, its phases computed lazily and once: ir → diagnostics → machine → state space.

The checks and everything after them share one CheckContext: the machine is compiled once and the
reachable states are explored once (STYLE principle 6).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import networkx as nx

from fsmc import ir
from fsmc.checks import CheckContext, check
from fsmc.diagnostics import Diagnostic, SpecError, has_errors
from fsmc.engines import StateSpace
from fsmc.frontend import load, load_text
from fsmc.semantics import Machine


class Compilation:
    """`Compilation("specs/shop.fsm").machine` parses, checks and compiles, raising SpecError on errors."""

    def __init__(self, source: str | Path | ir.Spec, *, text: str | None = None):
        self.source = source
        self._text = text

    @cached_property
    def ir(self) -> ir.Spec:
        if isinstance(self.source, ir.Spec):
            return self.source
        if self._text is not None:
            return load_text(self._text, str(self.source))
        return load(self.source)

    @cached_property
    def context(self) -> CheckContext:
        """What the checks share: the compiled machine and the explored states, computed on demand."""
        return CheckContext(self.ir)

    @cached_property
    def diagnostics(self) -> list[Diagnostic]:
        return check(self.ir, context=self.context)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @cached_property
    def machine(self) -> Machine:
        if not self.ok:
            raise SpecError([d for d in self.diagnostics if d.severity == "error"])
        return self.context.machine or Machine(self.ir)  # the checks' machine: without errors it compiled

    @cached_property
    def graph(self) -> nx.MultiDiGraph:
        return self.context.page_graph

    @cached_property
    def state_space(self) -> StateSpace | None:
        """The reachable states the checks explored (up to the context's state cap), or None if it cannot run."""
        return self.context.state_space
