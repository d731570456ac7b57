"""Every state variable as small ints: scalars as domain indices, sets as bitmasks, maps as one slot per key."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from fsmc import ir
from fsmc.errors import FsmcError
from fsmc.semantics import Machine
from fsmc.types import domains as T


class LoweringError(FsmcError, ValueError):
    """The spec uses a construct that the small-int lowering (Promela, native C) cannot express."""


def fail(node: ir.Node | None, construct: str, why: str) -> LoweringError:
    where = f"{node.span}: " if node is not None and node.span.line else ""
    return LoweringError(f"{where}{construct} is not supported by the small-int lowering: {why}")


Kind = Literal["scalar", "set", "map"]


@dataclass(frozen=True)
class LVar:
    """One session or page variable. Its stored value is `code + offset` (offset is `lo` for ints, else 0)."""

    id: int
    name: str  # a C/Promela identifier, unique in the model
    decl: ir.Var
    page: int | None  # None for a session variable
    kind: Kind
    domain: tuple[Any, ...]  # scalar: its values; set: element values; map: key values
    vdomain: tuple[Any, ...]  # map: the value domain (a slot holds value index + 1, 0 = absent)
    offset: int
    state_index: int  # position in the Python State tuple while on its page

    @property
    def nslots(self) -> int:
        return len(self.domain) if self.kind == "map" else 1

    @property
    def field_size(self) -> int:
        """How many codes one stored field (the scalar, the mask, or one map slot) takes."""
        if self.kind == "scalar":
            return len(self.domain)
        if self.kind == "set":
            return 2 ** len(self.domain)
        return len(self.vdomain) + 1

    @property
    def radix(self) -> int:
        """How many values the whole variable takes."""
        return self.field_size ** self.nslots

    # ---------------------------------------------------------------- codes <-> Python values
    def encode(self, value: Any) -> tuple[int, ...]:
        """The field codes of a Python value (raises ValueError for a value outside the domain)."""
        if self.kind == "scalar":
            return (self.domain.index(value),)
        if self.kind == "set":
            return (sum(1 << self.domain.index(x) for x in value),)
        slots = [0] * len(self.domain)
        for k, v in value:
            slots[self.domain.index(k)] = self.vdomain.index(v) + 1
        return tuple(slots)

    def decode(self, codes: tuple[int, ...] | list[int]) -> Any:
        if self.kind == "scalar":
            return self.domain[codes[0]]
        if self.kind == "set":
            return tuple(x for i, x in enumerate(self.domain) if codes[0] >> i & 1)
        return tuple((k, self.vdomain[c - 1]) for k, c in zip(self.domain, codes, strict=True) if c)

    def split(self, code: int) -> tuple[int, ...]:
        """The field codes of one whole-variable code (mixed radix over the map slots)."""
        out = []
        for _ in range(self.nslots):
            code, c = divmod(code, self.field_size)
            out.append(c)
        return tuple(out)

    def stored_default(self, value: Any) -> tuple[int, ...]:
        codes = self.encode(value)
        return (codes[0] + self.offset,) if self.kind == "scalar" else codes


def _kind_of(t: ir.Type) -> Kind:
    if isinstance(t, ir.SetType):
        return "set"
    if isinstance(t, ir.MapType):
        return "map"
    return "scalar"


def _domains(var: ir.Var, spec: ir.Spec) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    t = var.type
    try:
        if isinstance(t, ir.SetType):
            return T.domain_values(t.elem, spec), ()
        if isinstance(t, ir.MapType):
            return T.domain_values(t.key, spec), T.domain_values(t.value, spec)
        return T.domain_values(t, spec), ()
    except (ValueError, KeyError) as e:
        raise fail(var, f"the type of variable '{var.name}'", str(e)) from e


def make_var(vid: int, name: str, decl: ir.Var, page: int | None, state_index: int, spec: ir.Spec) -> LVar:
    domain, vdomain = _domains(decl, spec)
    kind = _kind_of(decl.type)
    if kind == "map" and isinstance(decl.type, ir.MapType) and isinstance(decl.type.value, ir.OptionalType):
        raise fail(decl, f"map '{decl.name}' with optional values", "a map slot cannot tell none from absent")
    offset = decl.type.lo if isinstance(decl.type, ir.IntType) else 0
    return LVar(vid, name, decl, page, kind, domain, vdomain, offset, state_index)


@dataclass
class Layout:
    """All variables of a machine, session first, then each page's in declaration order."""

    machine: Machine
    vars: list[LVar]
    session: list[int]
    page_vars: list[list[int]]
    session_defaults: tuple[Any, ...]
    page_defaults: list[tuple[Any, ...]]

    @property
    def spec(self) -> ir.Spec:
        return self.machine.spec

    @property
    def npages(self) -> int:
        return len(self.page_vars)

    def visible(self, page: int | None) -> list[int]:
        """The variables of a state on `page`, in State tuple order."""
        return self.session + ([] if page is None else self.page_vars[page])

    def default(self, var: LVar) -> tuple[int, ...]:
        """The stored default of a variable (its field values, with the int offset added)."""
        if var.page is None:
            value = self.session_defaults[self.session.index(var.id)]
        else:
            value = self.page_defaults[var.page][self.page_vars[var.page].index(var.id)]
        return var.stored_default(value)

    def base_state(self, page: int | None) -> list[Any]:
        """A Python state on `page` with every variable at its default (the session's entry page if None)."""
        pi = self.machine.page_index[self.spec.site.entry] if page is None else page
        return [pi, *self.session_defaults, *self.page_defaults[pi]]


def _ident(name: str, taken: set[str]) -> str:
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    out, n = base, 1
    while out in taken:
        n += 1
        out = f"{base}_{n}"
    taken.add(out)
    return out


def build_layout(machine: Machine) -> Layout:
    spec = machine.spec
    # The defaults are what the reference semantics computed; reading them keeps one source of truth.
    session_defaults = machine.session_defaults
    page_defaults = [machine.page_defaults(i) for i in range(len(spec.pages))]
    taken = {"page", *(f"P_{p.name}" for p in spec.pages)}
    lvars: list[LVar] = []
    session = []
    for i, v in enumerate(spec.session):
        lvars.append(make_var(len(lvars), _ident(v.name, taken), v, None, 1 + i, spec))
        session.append(len(lvars) - 1)
    page_vars: list[list[int]] = []
    for pi, page in enumerate(spec.pages):
        ids = []
        for j, v in enumerate(page.vars):
            name = _ident(f"{page.name}_{v.name}", taken)
            lvars.append(make_var(len(lvars), name, v, pi, 1 + len(session) + j, spec))
            ids.append(len(lvars) - 1)
        page_vars.append(ids)
    layout = Layout(machine, lvars, session, page_vars, session_defaults, page_defaults)
    _check_defaults(layout)
    return layout


def _check_defaults(layout: Layout) -> None:
    pairs = [(layout.vars[v], d) for v, d in zip(layout.session, layout.session_defaults, strict=True)]
    for ids, defaults in zip(layout.page_vars, layout.page_defaults, strict=True):
        pairs += [(layout.vars[v], d) for v, d in zip(ids, defaults, strict=True)]
    for var, value in pairs:
        try:
            var.encode(value)
        except ValueError as e:
            raise fail(var.decl, f"the default of '{var.decl.name}'", "it lies outside the declared domain") from e


def bits_for(n: int) -> int:
    """Bits to hold the codes 0..n-1 (at least one)."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1
