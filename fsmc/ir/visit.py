"""Walking and dispatching over expression nodes, in one place: every pass that looks inside expressions uses these.

`ExprVisitor` dispatches on the node's class to `visit_<kind>` (`visit_lit`, `visit_name`, `visit_field`,
`visit_index`, `visit_call`, `visit_unary`, `visit_binary`, `visit_set`). A subclass that forgets a kind is
refused when the class is defined, and a node that is no expression is refused when it is visited, so a
new expression node can never be skipped silently by a printer, a checker or an emitter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from fsmc.ir.nodes import Binary, Call, Expr, GetField, Index, Lit, Name, Node, SetLit, Unary

R = TypeVar("R")

KINDS: dict[type, str] = {
    Lit: "lit", Name: "name", GetField: "field", Index: "index", Call: "call", Unary: "unary", Binary: "binary",
    SetLit: "set",
}
"""Every expression node class and the name of its visit method (`visit_<kind>`)."""


_CHILDREN: dict[type, Callable[[Any], tuple[Expr, ...]]] = {
    Lit: lambda e: (), Name: lambda e: (), GetField: lambda e: (e.obj,), Index: lambda e: (e.obj, e.key),
    Call: lambda e: e.args, Unary: lambda e: (e.operand,), Binary: lambda e: (e.left, e.right),
    SetLit: lambda e: e.items,
}


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of `e`, left to right."""
    get = _CHILDREN.get(type(e))
    if get is None:
        raise unhandled("children", e)
    return get(e)


def walk(e: Expr) -> Iterator[Expr]:
    """The expression and all its sub-expressions, parents first, left to right."""
    stack: list[Expr] = [e]
    while stack:
        node = stack.pop()
        yield node
        kids = _CHILDREN[type(node)](node) if type(node) in _CHILDREN else children(node)
        if kids:
            stack.extend(reversed(kids))


def unhandled(who: str, node: object) -> TypeError:
    """The error for a node a pass does not handle: names the pass, the node's class and where it was written."""
    where = f" at {node.span}" if isinstance(node, Node) and node.span.file else ""
    return TypeError(f"{who} does not handle {type(node).__name__} nodes{where}")


class ExprVisitor(Generic[R]):
    """Base of passes over expressions: `visit(e, *args)` calls `visit_<kind>(e, *args)`.

    Every kind must be handled: a subclass missing a `visit_<kind>` raises TypeError when it is defined,
    unless it sets `partial = True`, in which case an unhandled node raises TypeError when it is met.
    """

    partial: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("partial", False):
            return
        missing = [f"visit_{k}" for k in KINDS.values() if not callable(getattr(cls, f"visit_{k}", None))]
        if missing:
            raise TypeError(f"{cls.__name__} does not handle every expression node: missing {', '.join(missing)}")

    def visit(self, e: Expr, *args: Any) -> R:
        kind = KINDS.get(type(e))
        method = getattr(self, f"visit_{kind}", None) if kind else None
        if method is None:
            raise unhandled(type(self).__name__, e)
        result: R = method(e, *args)
        return result


def conjuncts(*exprs: Expr) -> list[Expr]:
    """The conjuncts of `a and b and ...` (of each expression given, as an action's requires), left to right."""
    out: list[Expr] = []
    for e in exprs:
        out += conjuncts(e.left, e.right) if isinstance(e, Binary) and e.op == "and" else [e]
    return out


def expr_names(e: Expr | None, out: set[str]) -> set[str]:
    """Adds to `out` every name `e` mentions (variables, views, parameters, aliases); returns `out`."""
    if e is not None:
        out.update(node.id for node in walk(e) if isinstance(node, Name))
    return out


# `{param}` or `{param.column}` in a GUI operation's selector or text, or a label: the parameters it names
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)?\}")


def placeholders_in(template: str | None) -> list[str]:
    """The parameters a template (a selector, a typed text, a label) names in its placeholders, in their order."""
    return list(_PLACEHOLDER.findall(template or ""))


def params_in(template: str | None) -> set[str]:
    """The parameters a template names, as a set."""
    return set(placeholders_in(template))
