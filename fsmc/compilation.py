"""One spec through the pipeline, each phase computed once and cached: source → ir → diagnostics → machine → states.

Every command starts from a Compilation, and the later stages take one (`enumerate_spec(c, OUT)`,
`build_site(c.ir, ...)`), so a spec is read once, checked once and explored once (STYLE principle 7):

    c = Compilation("specs/shop.fsm")
    c.diagnostics                 # static checks, then the semantic ones if those found no error
    c.machine                     # the reference semantics (raises SpecError when the spec has errors)
    c.state_space                 # the reachable states the checks explored
    c.explore("native", max_states=10**6, max_depth=25)   # the checks' states again where the caps allow
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from fsmc import ir
from fsmc.checks import CHECKS, CheckContext, check
from fsmc.diagnostics import Diagnostic, SpecError, has_errors
from fsmc.engines import Progress, Space, StateSpace, explore
from fsmc.formats import Loaded, read
from fsmc.semantics import Machine, State
from fsmc.source import Source, read_source

if TYPE_CHECKING:
    import networkx as nx


def _folder_of(spec: Path) -> Path:
    """The folder the spec file lies in, its links followed (a loop of links is said when the file is read: E002)."""
    try:
        return spec.resolve().parent
    except (RuntimeError, OSError):  # RuntimeError: Python 3.11's "Symlink loop"
        return spec.absolute().parent


class Compilation:
    """`Compilation("specs/shop.fsm").machine` parses, checks and compiles, raising SpecError on errors."""

    def __init__(self, spec: str | Path | ir.Spec | Source, *, text: str | None = None):
        self._given = Source(str(spec), text) if text is not None else spec
        # where table files lie: beside a spec file; text and Source objects name none
        self._base = _folder_of(Path(spec)) if isinstance(spec, str | Path) and text is None else None

    @property
    def path(self) -> str | None:
        """The spec file this compilation reads, or None for a spec given as IR."""
        given = self._given
        return given.name if isinstance(given, Source) else None if isinstance(given, ir.Spec) else str(given)

    @cached_property
    def source(self) -> Source | None:
        """The spec's text, read once (None for a spec given as IR); SpecError(E002) when it cannot be read."""
        given = self._given
        if isinstance(given, ir.Spec | Source):
            return given if isinstance(given, Source) else None
        return read_source(given)

    @cached_property
    def loaded(self) -> Loaded:
        """The spec as its reader gave it: the IR and the reader's warnings; SpecError when it cannot be read."""
        if isinstance(self._given, ir.Spec):
            return Loaded(self._given)
        assert self.source is not None
        return read(self.source, self._base)

    @property
    def ir(self) -> ir.Spec:
        """The resolved IR; raises SpecError when the spec cannot be read or parsed."""
        return self.loaded.spec

    @cached_property
    def context(self) -> CheckContext:
        """What the checks share: the compiled machine and the explored states, computed on demand."""
        return CheckContext(self.ir)

    @cached_property
    def static_diagnostics(self) -> list[Diagnostic]:
        """The static checks alone, which look at the IR only (what a build needs; no state is explored)."""
        found = {d for c in CHECKS for d in c(self.context)} | set(self.loaded.warnings)
        return sorted(found, key=Diagnostic.sort_key)

    @cached_property
    def diagnostics(self) -> list[Diagnostic]:
        """Every diagnostic: the static checks, then the semantic ones when the static ones found no error."""
        return sorted([*check(self.ir, context=self.context), *self.loaded.warnings], key=Diagnostic.sort_key)

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

    def explore(self, engine: str = "python", *, max_states: int, max_depth: int | None,
                max_per_page: int | None = None, on_progress: Progress | None = None,
                on_note: Callable[[str], None] | None = None) -> Space:
        """The reachable states within these caps: the checks' exploration when it is exactly that, else a new one."""
        space = reusable_space(self.state_space, self.machine, engine, max_states, max_depth, max_per_page)
        if space is not None:
            return space
        return explore(self.machine, engine, max_states=max_states, max_depth=max_depth,
                       max_per_page=max_per_page, on_progress=on_progress, on_note=on_note)

    def page_states(self) -> dict[str, State]:
        """A state of each page the explored states reach: the first one breadth-first, so one of fewest moves."""
        space, found = self.state_space, {}
        if space is None:
            return {}
        for s in space.states:
            page = self.machine.page_of(s)
            if page not in found:
                found[page] = s
                if len(found) == len(self.machine.pages):
                    break
        return found


def reusable_space(space: StateSpace | None, machine: Machine, engine: str, max_states: int,
                   max_depth: int | None, max_per_page: int | None) -> StateSpace | None:
    """`space` (the states the checks explored) when exploring with these caps would give exactly it, else None.

    The reference engine explores breadth-first in one order whatever its caps, so a complete exploration
    of this machine whose states all fit the caps (depth, count, per page) is what the caps would give:
    the same states, parents, moves and depths. A native engine is asked to run, so it is not replaced; "auto"
    asks for the fastest way to the same states, and these are it.
    """
    if space is None or space.machine is not machine or engine not in ("python", "auto") or not space.complete:
        return None
    if len(space) > max_states or (max_depth is not None and max(space.depth) > max_depth):
        return None
    if max_per_page is not None and max(Counter(s[0] for s in space.states).values()) > max_per_page:
        return None
    return space
