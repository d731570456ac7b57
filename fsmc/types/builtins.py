"""The built-in functions (docs/semantics.md, "Built-ins"), known here once: their names, what each takes in words,
the type of each one's result as the semantics and the emitters type it, and the arguments the type checker
accepts; read by the checks, the Python semantics and the JS and C emitters."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from fsmc import ir
from fsmc.types import domains as T
from fsmc.types.static import ANY, INT, NUM, Names, Ty, describe, elem_of

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


class TypeInference(Protocol):
    """What the built-ins' rules need from the type checker (infer.Typer): its scope, inference, errors."""

    scope: Names

    def infer(self, e: ir.Expr) -> Ty: ...

    def error(self, code: str, message: str, node: ir.Node, hint: str | None = None) -> Ty: ...


def call_type(typer: TypeInference, e: ir.Call) -> Ty:
    """The type of a call of a built-in, reporting the arguments it does not accept."""
    args = [typer.infer(a) for a in e.args]
    if e.func not in SIGNATURES:
        return ANY  # the names check reports unknown functions
    if len(args) != 1:
        return typer.error("E206", f"{e.func}() takes 1 argument, not {len(args)}", e, hint=SIGNATURES[e.func])
    arg, t = e.args[0], args[0]
    if t.kind == "any":
        return INT if e.func in ("len", "count", "pages") else ANY
    return _RULES[e.func](typer, e, arg, t)


def _bad(typer: TypeInference, e: ir.Call, t: Ty, want: str) -> Ty:
    return typer.error("E206", f"{e.func}() needs {want}, not {describe(t)}", e, hint=SIGNATURES[e.func])


def _len(typer: TypeInference, e: ir.Call, arg: ir.Expr, t: Ty) -> Ty:
    if t.base().kind not in ("set", "map", "view"):
        _bad(typer, e, t, "a set, a map or a view")
    return INT


def _view_only(typer: TypeInference, e: ir.Call, arg: ir.Expr, t: Ty) -> Ty:
    b = typer.scope.resolve(arg.id) if isinstance(arg, ir.Name) else None
    if b is None or b.kind != "view":
        _bad(typer, e, t, "the name of a view of this page")
    elif e.func == "pages" and isinstance(b.node, ir.View) and b.node.page_var is None:
        typer.error("E206", f"pages() needs a paginated view; '{b.node.name}' has no `page VAR size N`", e)
    return INT


def _end(typer: TypeInference, e: ir.Call, arg: ir.Expr, t: Ty) -> Ty:
    if t.kind not in ("set", "view"):
        return _bad(typer, e, t, "a view or a set")
    return replace(elem_of(t), opt=True)


def _sum(typer: TypeInference, e: ir.Call, arg: ir.Expr, t: Ty) -> Ty:
    base = t.base()
    if base.kind != "map" or (base.val or ANY).kind not in ("int", "num", "any"):
        return _bad(typer, e, t, "a map with number values")
    return NUM if (base.val or ANY).kind == "num" else INT


_RULES = {"len": _len, "count": _view_only, "pages": _view_only, "first": _end, "last": _end, "sum": _sum}
