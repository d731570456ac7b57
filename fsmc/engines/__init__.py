"""Engines that explore a spec's reachable states: the Python reference, generated C, and SPIN's Promela model.

    from fsmc.engines import explore
    space = explore(machine, "native", max_states=1_000_000, max_depth=25)

Every engine fills the `Space` protocol, so what reads a space (checks, goal scan) works with either.
"""

from __future__ import annotations

from collections.abc import Callable

from fsmc.engines.python import StateSpace
from fsmc.engines.python import explore as explore_python
from fsmc.engines.space import Progress, Space
from fsmc.errors import FsmcError
from fsmc.semantics import Machine

ENGINES = ("auto", "python", "native")
"""auto: native where a C compiler is found (else python, with a note); python: the reference; native: generated C."""


class EngineError(FsmcError):
    """The chosen engine cannot run this spec or these options."""


def has_compiler() -> bool:
    """Whether a C compiler for the native engine is found ($CC, gcc or cc)."""
    from fsmc.engines.native.build import NativeError, compiler

    try:
        compiler()
    except NativeError:
        return False
    return True


def explore(machine: Machine, engine: str = "auto", *, max_states: int, max_depth: int | None,
            max_per_page: int | None = None, on_progress: Progress | None = None,
            on_note: Callable[[str], None] | None = None) -> Space:
    """The reachable states of `machine` explored by `engine`; EngineError when that engine cannot run it.

    "auto" runs the native engine where a C compiler is found and the python one otherwise, or when the
    native one cannot run this spec; `on_note` hears why in one line. Both give the same space.
    """
    if engine == "auto":
        why = "no C compiler found (install gcc or set CC)" if not has_compiler() else None
        if why is None:
            try:
                return explore(machine, "native", max_states=max_states, max_depth=max_depth,
                               max_per_page=max_per_page, on_progress=on_progress)
            except EngineError as err:
                why = str(err)
        if on_note is not None:
            on_note(f"{why}; using the python engine (slower, same results)")
        engine = "python"
    if engine == "python":
        return explore_python(machine, max_states=max_states, max_depth=max_depth,
                              on_progress=on_progress, max_per_page=max_per_page)
    if engine != "native":
        raise EngineError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    try:
        from fsmc.engines.native import explore_native

        space: Space = explore_native(machine, max_states=max_states, max_depth=max_depth,
                                      on_progress=on_progress, max_per_page=max_per_page)
    except ImportError as err:
        raise EngineError(f"the native engine is not available: {err}") from None
    except Exception as err:  # noqa: BLE001 - LoweringError, NativeError: reported, not a traceback
        raise EngineError(f"the native engine failed: {type(err).__name__}: {err}") from None
    return space


__all__ = ["ENGINES", "EngineError", "Progress", "Space", "StateSpace", "explore", "explore_python", "has_compiler"]
