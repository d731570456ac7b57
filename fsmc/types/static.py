"""The static types the type checker infers, how they relate, and what it needs to know of the names in scope."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from fsmc import ir
from fsmc.types.domains import column_type, lit_type


@dataclass(frozen=True)
class Ty:
    """A static type: bool, int, num, str, choice, ref, set, map, view, none or any (unknown); maybe optional."""

    kind: str
    opt: bool = False
    table: str | None = None  # ref, view
    values: tuple[str, ...] = ()  # choice
    name: str | None = None  # an enum's name
    elem: Ty | None = None  # set element, map key
    val: Ty | None = None  # map value

    def base(self) -> Ty:
        return replace(self, opt=False) if self.opt else self


ANY, BOOL, INT, NUM, STR, NONE = Ty("any"), Ty("bool"), Ty("int"), Ty("num"), Ty("str"), Ty("none")
_NAMED = {"int": INT, "num": NUM, "str": STR}  # the IR's unbounded types of a column or a literal (fsmc.types.domains)


def from_ir(t: ir.Type) -> Ty:
    if isinstance(t, ir.OptionalType):
        return replace(from_ir(t.inner), opt=True)
    if isinstance(t, ir.BoolType):
        return BOOL
    if isinstance(t, ir.IntType):
        return INT
    if isinstance(t, ir.ChoiceType):
        return Ty("choice", values=t.values, name=t.name)
    if isinstance(t, ir.RefType):
        return Ty("ref", table=t.table)
    if isinstance(t, ir.SetType):
        return Ty("set", elem=from_ir(t.elem))
    if isinstance(t, ir.MapType):
        return Ty("map", elem=from_ir(t.key), val=from_ir(t.value))
    return ANY


def column_ty(col: ir.Column) -> Ty:
    return _of_value(column_type(col))


def lit_ty(v: ir.Value) -> Ty:
    return NONE if v is None else _of_value(lit_type(v))


def _of_value(t: ir.Type) -> Ty:
    """The static type of a value of the IR type `t`, as a column or a literal has it."""
    return _NAMED.get(t.name, ANY) if isinstance(t, ir.NamedType) else from_ir(t)


def describe(t: Ty) -> str:
    q = "?" if t.opt else ""
    if t.kind == "choice":
        return (t.name or "{" + ", ".join(f'"{v}"' for v in t.values) + "}") + q
    if t.kind == "ref":
        return f"ref {t.table}{q}"
    if t.kind == "view":
        return f"a view of {t.table}"
    if t.kind == "set":
        return f"set<{describe(t.elem or ANY)}>{q}"
    if t.kind == "map":
        return f"map<{describe(t.elem or ANY)}, {describe(t.val or ANY)}>{q}"
    return t.kind + q


_FAMILY = {"int": "number", "num": "number", "str": "text", "choice": "text", "set": "rows", "view": "rows"}


def compatible(a: Ty, b: Ty) -> bool:
    """Whether values of the two types can be compared or stored one in the other."""
    if "any" in (a.kind, b.kind) or "none" in (a.kind, b.kind):
        return True
    fa, fb = _FAMILY.get(a.kind, a.kind), _FAMILY.get(b.kind, b.kind)
    if {a.kind, b.kind} == {"set", "map"}:  # `{}` is also the empty map
        empty = a if a.kind == "set" else b
        return (empty.elem or ANY).kind == "any"
    if fa != fb:
        return False
    if fa == "rows":
        return compatible(elem_of(a), elem_of(b))
    if a.kind == "ref":
        return a.table == b.table or None in (a.table, b.table)
    if a.kind == "map":
        return compatible(a.elem or ANY, b.elem or ANY) and compatible(a.val or ANY, b.val or ANY)
    return True


def elem_of(t: Ty) -> Ty:
    """The type of the members of a set, the keys of a map or the rows of a view."""
    if t.kind == "view":
        return Ty("ref", table=t.table) if t.table else ANY
    return t.elem or ANY


def is_number(t: Ty) -> bool:
    return t.kind in ("int", "num", "any")


class Meaning(Protocol):
    """What a name stands for: a parameter, a row alias, a variable, a view or a session variable."""

    @property
    def kind(self) -> str: ...

    @property
    def node(self) -> ir.Var | ir.View | ir.Param: ...


class Names(Protocol):
    """What the type checker needs to know where an expression stands (fsmc.checks' Scope is one)."""

    @property
    def tables(self) -> Mapping[str, ir.Table]: ...

    def resolve(self, name: str) -> Meaning | None: ...

    def view_table(self, view: ir.View) -> str | None: ...
