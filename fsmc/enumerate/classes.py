"""Groups the explored states by what a goal reads, so that each goal is decided once per group, not per state.

Two states of one page that agree on every slot a task goal (or a derived goal family) reads
there satisfy the same goals. Grouping runs in two levels: `Grouping(space, slots)` splits the
states once by everything any goal reads on their page (for a native space from its packed
words with numpy, without decoding a state); `Grouping.by(slots)` then groups those classes again
by what one task or family reads. Classes are numbered in BFS order of their first state, and
`states(...)` lists a group's states in BFS order, so the goal scan finds the same first state,
depth and sample as deciding every goal on every state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np

from fsmc.engines import Space
from fsmc.semantics import State

Slots = dict[int, list[int]]  # page -> the state slots read there; without slot 0, states of all pages group together


@dataclass
class Groups:
    """One task's or family's groups: `first[g]` is the first state of group g; `states(gs)` theirs in BFS order."""

    first: list[int]
    ids: np.ndarray  # per state: its group, -1 on pages where the task or family does not apply
    _order: np.ndarray
    _starts: np.ndarray

    def states(self, groups: Sequence[int]) -> np.ndarray:
        parts = [self._order[self._starts[g]:self._starts[g + 1]] for g in groups]
        return parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))


def _number(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group ids for equal values of raw, numbered by first appearance; and the first index of each."""
    if len(raw) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(raw, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(len(by_first))
    return rank[inverse.reshape(-1)], first[by_first]


def _getter(slots: list[int]) -> Callable[[State], Any]:
    if not slots:
        return lambda s: ()
    return itemgetter(*slots)


def _rows(masked: np.ndarray) -> np.ndarray:
    """Rows of words as one comparable value each (np.unique on a 1-D array)."""
    if masked.shape[1] == 1:
        return masked[:, 0]
    return np.ascontiguousarray(masked).view([("", np.uint64)] * masked.shape[1]).reshape(-1)


class Grouping:
    """The states of a space in classes (level one), and the groups of one task or family on top (level two)."""

    def __init__(self, space: Space, slots: list[list[int]]):
        self.space = space
        words_of = getattr(space, "word_array", None)
        self._packing: Any = getattr(space, "packing", None)
        if words_of is not None and self._packing is not None:
            words = self._words = words_of()
            self.pages = self._page_of(words)
            self.ids, first = _number(_rows(words & self._masks(dict(enumerate(slots)))[self.pages]))
            self._class_rows: np.ndarray | None = words[first]
            self.first: list[int] = first.tolist()
        else:
            self._class_rows = None
            self.pages, self.ids, self.first = self._classify_tuples(slots)
        self.class_pages = self.pages[self.first] if self.first else np.zeros(0, dtype=np.int64)

    def state(self, i: int, slots: Slots | None = None) -> State:
        """State i; from a native space with only the slots that `slots` names on its page decoded (others None)."""
        if self._class_rows is None or slots is None:
            return self.space.state(i)
        words = tuple(self._words[i].tolist())
        return self._packing.unpack_slots(words, slots.get(int(self.pages[i]), []))

    def _page_of(self, words: np.ndarray) -> np.ndarray:
        pf = self._packing.page
        return ((words[:, pf.word] >> np.uint64(pf.shift)) & np.uint64(pf.mask)).astype(np.int64)

    def _masks(self, slots: Slots) -> np.ndarray:
        """Per page, the bits of the page field and of the slots' fields (zero rows for pages not in slots)."""
        packing, layout = self._packing, self._packing.layout
        pf = packing.page
        masks = np.zeros((len(layout.page_vars), packing.words), dtype=np.uint64)
        for p, page_slots in slots.items():
            visible = layout.visible(p)
            for k in page_slots:
                if k == 0:
                    masks[p, pf.word] |= np.uint64(pf.mask << pf.shift)
                else:
                    for f in packing.var_fields(layout.vars[visible[k - 1]]):
                        masks[p, f.word] |= np.uint64(f.mask << f.shift)
        return masks

    def _classify_tuples(self, slots: list[list[int]]) -> tuple[np.ndarray, np.ndarray, list[int]]:
        getters = [_getter(s) for s in slots]
        seen: dict[Any, int] = {}
        first: list[int] = []
        space, n = self.space, len(self.space)
        ids, pages = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        states = getattr(space, "states", None)
        get = states.__getitem__ if isinstance(states, list) else space.state
        for i in range(n):
            s = get(i)
            key = getters[s[0]](s)
            c = seen.get(key)
            if c is None:
                c = seen[key] = len(first)
                first.append(i)
            ids[i], pages[i] = c, s[0]
        return pages, ids, first

    def by(self, slots: Slots) -> Groups:
        """The groups of the states on the pages of `slots` that agree on those slots there."""
        applies = np.isin(self.class_pages, np.fromiter(slots, dtype=np.int64, count=len(slots)))
        chosen = np.flatnonzero(applies)
        if self._class_rows is not None:
            rows = self._class_rows[chosen]
            raw = _rows(rows & self._masks(slots)[self.class_pages[chosen]])
        else:
            getters = {p: _getter(s) for p, s in slots.items()}
            keys: dict[Any, int] = {}
            raw = np.fromiter((keys.setdefault(getters[s[0]](s), len(keys))
                               for s in (self.state(self.first[c]) for c in chosen)),
                              dtype=np.int64, count=len(chosen))
        sub, sub_first = _number(raw)
        of_class = np.full(len(self.first), -1, dtype=np.int64)
        of_class[chosen] = sub
        ids = of_class[self.ids]
        small = ids + 1 if len(sub_first) >= 0xFFFF else (ids + 1).astype(np.uint16)  # radix-sorted: linear
        order = np.argsort(small, kind="stable")
        starts = np.zeros(len(sub_first) + 2, dtype=np.int64)  # group -1 (not applicable) sorts first
        np.cumsum(np.bincount(ids + 1, minlength=len(sub_first) + 1), out=starts[1:])
        first = [self.first[int(c)] for c in chosen[sub_first]]
        return Groups(first, ids, order, starts[1:])
