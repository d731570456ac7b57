"""The static types of the built-in functions' arguments and results, for the type checker (fsmc.semantics.builtins
names them and says what each takes)."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from fsmc import ir
from fsmc.checks._index import Scope
from fsmc.checks._types import ANY, INT, NUM, Ty, describe, elem_of
from fsmc.semantics.builtins import SIGNATURES


class TypeInference(Protocol):
    """What the built-ins' rules need from the type checker (_typer.Typer): its scope, inference, errors."""

    scope: Scope

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
