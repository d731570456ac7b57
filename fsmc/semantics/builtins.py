"""The built-in functions (docs/semantics.md, "Built-ins"), known here once: their names, what each takes in words,
and the type of each one's result, read by the checks, the Python semantics and the JS and C emitters."""

from __future__ import annotations

from fsmc import ir
from fsmc.semantics import domains as T

SIGNATURES = {
    "len": "len(x) counts the members of a set or map, or the rows a view shows",
    "count": "count(v) counts the rows of view v before pagination",
    "pages": "pages(v) is the number of pages of a paginated view v",
    "first": "first(v) is the first row a view shows (or none)",
    "last": "last(v) is the last row a view shows (or none)",
    "sum": "sum(m) adds up the values of a map",
}
BUILTINS = tuple(SIGNATURES)
OF_VIEW = ("count", "pages")  # read a view's rows before pagination, so they take a view's name
ENDS = {"first": 0, "last": -1}  # a row or member by its position, or none


def result_type(func: str, arg: ir.Type) -> ir.Type:
    """The type of `func(x)` for an `x` of type `arg`, as the semantics and the emitters type it."""
    if func in ENDS:
        return ir.OptionalType.trusted(inner=arg.elem if isinstance(arg, ir.SetType) else T.ANY)
    return T.INT_ANY
