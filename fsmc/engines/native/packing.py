"""Packs a state into 64-bit words: the page, the session fields, then the current page's fields (overlaid).

No field straddles a word; bits a page does not use are zero, so equal states have equal words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fsmc.engines.native.encoding import Layout, LVar, bits_for, fail

WORD = 64


@dataclass(frozen=True)
class Field:
    word: int
    shift: int
    bits: int

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


@dataclass
class Packing:
    layout: Layout
    page: Field
    fields: dict[tuple[int, int], Field]  # (variable id, slot) -> field
    words: int
    session_mask: tuple[int, ...]  # per word: the bits of the session fields
    _plans: dict[int, list[_Decoder]] = field(default_factory=dict, repr=False, compare=False)
    _decoders: dict[int, _Decoder] = field(default_factory=dict, repr=False, compare=False)

    def var_fields(self, var: LVar) -> list[Field]:
        return [self.fields[(var.id, i)] for i in range(var.nslots)]

    # ---------------------------------------------------------------- Python State <-> words
    def pack(self, state: tuple[Any, ...]) -> list[int]:
        """The words of a Python State (raises ValueError when a value lies outside its domain)."""
        words = [0] * self.words
        page = state[0]
        _put(words, self.page, page)
        for v in self.layout.visible(page):
            var = self.layout.vars[v]
            for f, code in zip(self.var_fields(var), var.encode(state[var.state_index]), strict=True):
                _put(words, f, code)
        return words

    def unpack(self, words: list[int] | tuple[int, ...]) -> tuple[Any, ...]:
        page = _get(words, self.page)
        return (page, *[d.decode(words) for d in self._plan(page)])

    def unpack_slots(self, words: list[int] | tuple[int, ...], slots: list[int]) -> tuple[Any, ...]:
        """The State of `words` with only these slots decoded (and the page); the others read None."""
        page = _get(words, self.page)
        plan = self._plan(page)
        out: list[Any] = [None] * (1 + len(plan))
        out[0] = page
        for k in slots:
            if k > 0:
                out[k] = plan[k - 1].decode(words)
        return tuple(out)

    def _plan(self, page: int) -> list[_Decoder]:
        plan = self._plans.get(page)
        if plan is None:
            plan = self._plans[page] = [self._decoder(v) for v in self.layout.visible(page)]
        return plan

    def _decoder(self, v: int) -> _Decoder:
        """One decoder per variable: a session variable's is shared by every page, with its memo."""
        d = self._decoders.get(v)
        if d is None:
            d = self._decoders[v] = _Decoder(self.layout.vars[v], self.var_fields(self.layout.vars[v]))
        return d


class _Decoder:
    """Decodes one variable from state words, remembering each value by its bits (states share most values)."""

    __slots__ = ("var", "fields", "word", "shift", "mask", "spans", "memo")

    def __init__(self, var: LVar, fields: list[Field]):
        self.var, self.fields = var, fields
        self.memo: dict[Any, Any] = {}
        # fields are laid out one after another; when they share a word, one shift and mask read them all
        one_word = len({f.word for f in fields}) == 1
        self.word = fields[0].word if one_word else -1
        self.shift = fields[0].shift if one_word else 0
        self.mask = (1 << (fields[-1].shift + fields[-1].bits - fields[0].shift)) - 1 if one_word else 0
        spans: dict[int, int] = {}  # otherwise: per word, the bits of the variable's fields in it
        for f in fields:
            spans[f.word] = spans.get(f.word, 0) | f.mask << f.shift
        self.spans = tuple(spans.items())

    def decode(self, words: list[int] | tuple[int, ...]) -> Any:
        if self.word >= 0:
            key: Any = (words[self.word] >> self.shift) & self.mask
        else:
            key = tuple([words[w] & m for w, m in self.spans])
        value = self.memo.get(key, _MISSING)
        if value is _MISSING:
            value = self.memo[key] = self.var.decode([_get(words, f) for f in self.fields])
        return value


_MISSING = object()


def _put(words: list[int], f: Field, code: int) -> None:
    words[f.word] |= (code & f.mask) << f.shift


def _get(words: list[int] | tuple[int, ...], f: Field) -> int:
    return (words[f.word] >> f.shift) & f.mask


class _Cursor:
    def __init__(self, word: int = 0, shift: int = 0):
        self.word, self.shift = word, shift

    def take(self, bits: int) -> Field:
        if self.shift + bits > WORD:
            self.word, self.shift = self.word + 1, 0
        f = Field(self.word, self.shift, bits)
        self.shift += bits
        return f


def _place(cursor: _Cursor, var: LVar, fields: dict[tuple[int, int], Field]) -> None:
    bits = len(var.domain) if var.kind == "set" else bits_for(var.field_size)
    if bits > WORD - 2:
        raise fail(var.decl, f"variable '{var.decl.name}'", f"it needs {bits} bits in one field (at most {WORD - 2})")
    for i in range(var.nslots):
        fields[(var.id, i)] = cursor.take(bits)


def pack_layout(layout: Layout) -> Packing:
    fields: dict[tuple[int, int], Field] = {}
    cursor = _Cursor()
    page = cursor.take(bits_for(layout.npages))
    for v in layout.session:
        _place(cursor, layout.vars[v], fields)
    session_end = (cursor.word, cursor.shift)
    words = cursor.word + 1
    for ids in layout.page_vars:
        c = _Cursor(*session_end)
        for v in ids:
            _place(c, layout.vars[v], fields)
        words = max(words, c.word + 1)
    mask = [0] * words
    for v in layout.session:
        for f in (fields[(v, i)] for i in range(layout.vars[v].nslots)):
            mask[f.word] |= f.mask << f.shift
    return Packing(layout, page, fields, words, tuple(mask))
