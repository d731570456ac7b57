"""Runs the generated explorer through ctypes and wraps its arrays in the StateSpace interface."""

from __future__ import annotations

import bisect
import ctypes
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from fsmc.engines.native.build import NativeError, build_library
from fsmc.engines.native.cgen import render_c
from fsmc.engines.native.lower import LModel
from fsmc.engines.native.model import lower
from fsmc.engines.native.packing import Packing, pack_layout
from fsmc.semantics import Machine, Move, State

Progress = Callable[[int, int, int], None]
_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32)
_LIBS: dict[Path, ctypes.CDLL] = {}


def _load(path: Path) -> ctypes.CDLL:
    if path not in _LIBS:
        lib = ctypes.CDLL(str(path))
        p, u64, i64 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64
        signatures: dict[str, tuple[Any, list[Any]]] = {
            "fsmc_new": (p, []), "fsmc_free": (None, [p]),
            "fsmc_explore": (ctypes.c_int, [p, u64, i64, i64, _PROGRESS]),
            "fsmc_lookup": (i64, [p, ctypes.POINTER(u64)]), "fsmc_count": (u64, [p]),
            "fsmc_states": (p, [p]), "fsmc_parents": (p, [p]), "fsmc_moves": (p, [p]), "fsmc_levels": (p, [p]),
            "fsmc_nlevels": (u64, [p]), "fsmc_enabled": (p, [p]), "fsmc_complete": (ctypes.c_int, [p]),
            "fsmc_error_move": (i64, [p]), "fsmc_bytes": (u64, [p]), "fsmc_words": (ctypes.c_int, []),
            "fsmc_move_bytes": (ctypes.c_int, []),
        }
        for name, (res, args) in signatures.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        _LIBS[path] = lib
    return _LIBS[path]


class _Column:
    """A read-only view of one C array as a sequence of ints; `none` (the root's entry) reads as -1."""

    def __init__(self, address: int, n: int, ctype: Any, none: int):
        self._data = (ctype * n).from_address(address) if n else []
        self._none = none

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, i: int) -> int:
        v: int = self._data[i]
        return -1 if v == self._none else v

    def __iter__(self) -> Iterator[int]:
        none = self._none
        return (-1 if v == none else v for v in self._data)


class _Depths:
    """depth[i] from the start index of each BFS level, without a per-state array."""

    def __init__(self, starts: list[int], n: int):
        self._starts, self._n = starts, n

    @property
    def starts(self) -> list[int]:
        """The index of the first state of each BFS level."""
        return self._starts

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> int:
        if not 0 <= i < self._n:
            raise IndexError(i)
        return bisect.bisect_right(self._starts, i) - 1

    def __iter__(self) -> Iterator[int]:
        bounds = [*self._starts, self._n]
        for d in range(len(self._starts)):
            yield from (d for _ in range(bounds[d], bounds[d + 1]))


class _States:
    def __init__(self, space: NativeStateSpace):
        self._space = space

    def __len__(self) -> int:
        return len(self._space)

    def __getitem__(self, i: int) -> State:
        return self._space.state(i)

    def __iter__(self) -> Iterator[State]:
        return (self._space.state(i) for i in range(len(self._space)))


class _Index:
    def __init__(self, space: NativeStateSpace):
        self._space = space

    def get(self, state: State, default: int | None = None) -> int | None:
        i = self._space.index_of(state)
        return default if i is None else i

    def __contains__(self, state: object) -> bool:
        return isinstance(state, tuple) and self._space.index_of(state) is not None

    def __getitem__(self, state: State) -> int:
        i = self._space.index_of(state)
        if i is None:
            raise KeyError(state)
        return i

    def __len__(self) -> int:
        return len(self._space)


class NativeStateSpace:
    """The StateSpace interface over the native explorer's arrays (states decoded on demand)."""

    def __init__(self, machine: Machine, packing: Packing, lib: ctypes.CDLL, ctx: int):
        self.machine, self.packing, self._lib = machine, packing, lib
        self._ctx: int | None = ctx
        n = lib.fsmc_count(ctx)
        self._n = n
        self._words = packing.words
        self._state_words = (ctypes.c_uint64 * (n * self._words)).from_address(lib.fsmc_states(ctx)) if n else []
        self.parent = _Column(lib.fsmc_parents(ctx), n, ctypes.c_uint32, 0xFFFFFFFF)
        move_t = ctypes.c_uint16 if lib.fsmc_move_bytes() == 2 else ctypes.c_uint32
        self.move = _Column(lib.fsmc_moves(ctx), n, move_t, 0xFFFF if move_t is ctypes.c_uint16 else 0xFFFFFFFF)
        nlev = lib.fsmc_nlevels(ctx)
        starts = list((ctypes.c_uint64 * nlev).from_address(lib.fsmc_levels(ctx))) if nlev else []
        self.depth = _Depths(starts, n)
        nm = len(machine.all_moves)
        flags = bytes((ctypes.c_uint8 * nm).from_address(lib.fsmc_enabled(ctx))) if nm else b""
        self.enabled_moves = {i for i, f in enumerate(flags) if f}
        self.complete = bool(lib.fsmc_complete(ctx))
        self.bytes_used = int(lib.fsmc_bytes(ctx))
        self.states = _States(self)
        self.index = _Index(self)

    def __del__(self) -> None:
        ctx, self._ctx = getattr(self, "_ctx", None), None
        if ctx:
            self._lib.fsmc_free(ctx)

    def __len__(self) -> int:
        return self._n

    def word_array(self) -> Any:
        """Every state's packed words as a read-only numpy array of shape (states, words), shared with C."""
        import numpy as np

        if not self._n:
            return np.zeros((0, self._words), dtype=np.uint64)
        view = np.ctypeslib.as_array(self._state_words).reshape(self._n, self._words)
        view.flags.writeable = False
        return view

    def words(self, i: int) -> tuple[int, ...]:
        w = self._words
        return tuple(self._state_words[i * w:(i + 1) * w])

    def state(self, i: int) -> State:
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self.packing.unpack(self.words(i))

    def index_of(self, state: State) -> int | None:
        try:
            words = self.packing.pack(state)
        except (ValueError, IndexError, TypeError, KeyError):
            return None
        buf = (ctypes.c_uint64 * len(words))(*words)
        i = int(self._lib.fsmc_lookup(self._ctx, buf))
        return None if i < 0 else i

    def via(self, i: int) -> Move | None:
        m = self.move[i]
        return None if m < 0 else self.machine.all_moves[m]

    def path(self, i: int) -> list[Move]:
        out: list[Move] = []
        while self.parent[i] >= 0:
            out.append(self.machine.all_moves[self.move[i]])
            i = self.parent[i]
        return out[::-1]


class NativeExplorer:
    """A machine lowered and compiled once; each explore() runs the cached library."""

    def __init__(self, machine: Machine, cache: Path | None = None):
        self.machine = machine
        self.model: LModel = lower(machine)
        self.packing = pack_layout(self.model.layout)
        self.source = render_c(self.model, self.packing)
        self.library = build_library(self.source, cache)
        self.lib = _load(self.library)

    def explore(self, max_states: int = 1_000_000, max_depth: int | None = None,
                on_progress: Progress | None = None, max_per_page: int | None = None) -> NativeStateSpace:
        lib = self.lib
        ctx = lib.fsmc_new()
        if not ctx:
            raise NativeError("out of memory")
        interrupted: list[BaseException] = []

        def progress(expanded: int, discovered: int, depth: int) -> int:
            try:
                if on_progress is not None:
                    on_progress(expanded, discovered, depth)
            except BaseException as e:  # noqa: BLE001 - re-raised below, after C has stopped
                interrupted.append(e)
                return 1
            return 0

        callback = _PROGRESS(progress)
        rc = lib.fsmc_explore(ctx, max(1, max_states), -1 if max_depth is None else max_depth,
                              -1 if max_per_page is None else max_per_page, callback)
        space = NativeStateSpace(self.machine, self.packing, lib, ctx)
        if interrupted:
            raise interrupted[0]
        if rc == 2:
            mv = self.machine.all_moves[lib.fsmc_error_move(ctx)]
            raise NativeError(f"move {mv} produced a value outside its variable's domain; fsmc check reports why")
        if rc == 3:
            raise NativeError(f"out of memory after {len(space)} states; lower max_states")
        return space


def explore_native(machine: Machine, max_states: int = 1_000_000, max_depth: int | None = None,
                   on_progress: Progress | None = None, cache: Path | None = None,
                   max_per_page: int | None = None) -> NativeStateSpace:
    """Like fsmc.analysis.explore, in generated C: the same states in the same BFS order, within the same caps.

    Raises LoweringError for a spec the small-int lowering cannot express (fall back to explore),
    and NativeError when no compiler is available or the build fails.
    """
    return NativeExplorer(machine, cache).explore(max_states, max_depth, on_progress, max_per_page)
