"""What the checks share: the spec and, computed once on demand, the machine, page graph and state space."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from fsmc import ir
from fsmc.analysis import page_graph
from fsmc.engines import StateSpace
from fsmc.engines.python import explore
from fsmc.semantics import CompileError, Machine

if TYPE_CHECKING:
    import networkx as nx

STATE_CAP = 200_000


class CheckContext:
    def __init__(self, spec: ir.Spec, state_cap: int = STATE_CAP):
        self.spec = spec
        self.state_cap = state_cap
        self.static_errors = 0  # set by check() before the semantic checks run

    @cached_property
    def page_graph(self) -> nx.MultiDiGraph:
        return page_graph(self.spec)

    @cached_property
    def machine(self) -> Machine | None:
        """The compiled semantics, or None when the spec is too broken to execute."""
        try:
            return Machine(self.spec)
        except (CompileError, KeyError, ValueError, IndexError, TypeError, SyntaxError):
            return None

    @cached_property
    def state_space(self) -> StateSpace | None:
        """The reachable states up to state_cap, or None when the machine cannot be built."""
        if self.machine is None:
            return None
        return explore(self.machine, max_states=self.state_cap)
