"""The IR's types as the semantics and the emitters use them: a column's, a literal's and an operation's; every
value of a finite domain, in domain order."""

from __future__ import annotations

from typing import Any

from fsmc import ir

BOOL = ir.BoolType.trusted()
NUM = ir.NamedType.trusted(name="num")  # a number from a data table; never a state domain
STR = ir.NamedType.trusted(name="str")
INT_ANY = ir.NamedType.trusted(name="int")
ANY = ir.NamedType.trusted(name="any")


def column_type(col: ir.Column) -> ir.Type:
    if col.type.startswith("ref:"):
        return ir.RefType.trusted(table=col.type[4:])
    simple: dict[str, ir.Type] = {"bool": BOOL, "int": INT_ANY, "num": NUM, "str": STR}
    return simple.get(col.type, ANY)


def strip_optional(t: ir.Type) -> ir.Type:
    return t.inner if isinstance(t, ir.OptionalType) else t


def lit_type(v: ir.Value) -> ir.Type:
    """The static type of a literal value."""
    return (BOOL if isinstance(v, bool) else INT_ANY if isinstance(v, int)
            else NUM if isinstance(v, float) else STR if isinstance(v, str) else ANY)


def arith_type(lt: ir.Type, rt: ir.Type) -> ir.Type:
    """The type of `+`, `-`, `*`: a number if either side is one, else an int."""
    return NUM if NUM in (lt, rt) else INT_ANY


def index_type(t: ir.Type) -> ir.Type:
    """The type of `m[k]` for an `m` of type t: the map's value, or none for a key it does not hold."""
    return ir.OptionalType.trusted(inner=t.value if isinstance(t, ir.MapType) else ANY)


def set_type(items: list[ir.Type]) -> ir.Type:
    """The type of a set literal whose items have these types: its first item's, as the set's members."""
    return ir.SetType.trusted(elem=items[0] if items else ANY)


def domain_values(t: ir.Type, spec: ir.Spec) -> tuple[Any, ...]:
    """Every value of a finite domain, in domain order; raises ValueError for set and map types."""
    if isinstance(t, ir.BoolType):
        return (False, True)
    if isinstance(t, ir.IntType):
        return tuple(range(t.lo, t.hi + 1))
    if isinstance(t, ir.ChoiceType):
        return t.values
    if isinstance(t, ir.RefType):
        table = spec.table(t.table)
        k = [c.name for c in table.columns].index(table.key)
        return tuple(row[k] for row in table.rows if k < len(row))  # a row too short for its key has none (E121)
    if isinstance(t, ir.OptionalType):
        return (None, *domain_values(t.inner, spec))
    raise ValueError(f"a {t.kind} type has no enumerable domain")


def key_values(table: ir.Table) -> set[ir.Value]:
    """The keys of a table's rows (none when its key column is missing): the values a `ref` to it may take."""
    names = [c.name for c in table.columns]
    if table.key not in names:
        return set()
    k = names.index(table.key)
    return {row[k] for row in table.rows if k < len(row)}


def domain_size(t: ir.Type, spec: ir.Spec) -> int:
    """How many values a domain holds (sets and maps counted exactly; may be astronomically large)."""
    if isinstance(t, ir.SetType):
        return 2 ** domain_size(t.elem, spec)
    if isinstance(t, ir.MapType):
        return (domain_size(t.value, spec) + 1) ** domain_size(t.key, spec)
    if isinstance(t, ir.IntType):
        return max(0, t.hi - t.lo + 1)
    if isinstance(t, ir.OptionalType):
        return 1 + domain_size(t.inner, spec)
    return len(domain_values(t, spec))
