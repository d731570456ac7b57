"""Every property is well formed: its conditions are bools over names in scope, its page tests name pages, none is constant, names are unique.

Scopes follow fsmc/analysis/conditions.py: a condition reads session variables and `page`; a page
test `page == P` opens P's variables and views to the rest of its conjunction.
"""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.analysis.conditions import PAGE, Cond, Leaf, Names, conditions, constant, describe, leaves, page_tests
from fsmc.checks._index import Scope as NameScope
from fsmc.checks._index import SpecIndex, did_you_mean, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.printer import expr_to_fsm
from fsmc.types.infer import Typer
from fsmc.types.static import describe as describe_type


def _leaf(leaf: Leaf, idx: SpecIndex, names: Names, prop: ir.Property) -> Iterator[Diagnostic]:
    """E502 for names that mean nothing in the leaf's scope, the type errors in it, E501 when it is no bool."""
    scope = NameScope(idx, idx.pages.get(leaf.page) if leaf.page is not None else None)
    unknown = [n for n in ir.walk(leaf.expr) if type(n) is ir.Name and scope.resolve(n.id) is None]
    for node in unknown:
        assert isinstance(node, ir.Name)
        yield Diagnostic("E502", f"unknown name '{node.id}' in {describe(prop)}", node.span,
                         hint=_unknown_hint(node.id, scope, names))
    typer = Typer(scope)
    t = typer.infer(leaf.expr)
    yield from typer.problems
    if t.kind not in ("bool", "any") and not unknown:
        yield Diagnostic("E501", f"a property's condition must be a bool, not {describe_type(t)}", leaf.expr.span,
                         hint="compare it, e.g. `x >= 0`, or test membership with `in`")


def _unknown_hint(name: str, scope: NameScope, names: Names) -> str:
    if name == PAGE:
        return "`page` is compared with a page's name: `page == checkout`, `page in {cart, checkout}`"
    if name in names.pages:
        return f"a page's name alone is a condition (`page == {name}`), not a value to compute with"
    owners = sorted(p for p, declared in names.page_names.items() if name in declared)
    if owners:
        return (f"'{name}' belongs to page '{owners[0]}': write `page == {owners[0]} and ...` "
                f"(or `page != {owners[0]} or ...`) to read it")
    return did_you_mean(name, [*scope.names(), *names.pages]) or "a property reads session variables and `page`"


def _pages(cond: Cond, names: Names) -> Iterator[Diagnostic]:
    """E503 for page tests that name no page."""
    for test in page_tests(cond):
        for page in test.pages:
            if page not in names.pages:
                what = f"'{page}' is no page" if page else "`page` is compared with something that is no page name"
                yield Diagnostic("E503", what, test.node.span,
                                 hint=did_you_mean(page, names.pages) or "pages: " + ", ".join(sorted(names.pages)))


_FACE = {  # kind -> (what a constant true condition means, what a constant false one means)
    "invariant": ("holds trivially", "can never hold"),
    "never": ("can never hold", "holds trivially"),
    "reachable": ("holds trivially", "can never hold"),
}


def _constant(prop: ir.Property, conds: tuple[Cond, ...]) -> Iterator[Diagnostic]:
    """E504 for a property that is true or false on its face: a condition that reads nothing of the state."""
    values = [constant(c) for c in conds]
    exprs = [e for e in (prop.cond, prop.then) if e is not None]
    if prop.kind in _FACE and values[0] is not None:
        why = _FACE[prop.kind][0 if values[0] else 1]
        yield _face(prop, exprs[0], f"{why}: its condition is always {str(values[0]).lower()}",
                    "state a condition on the variables or the page")
    elif prop.kind == "leads_to" and values[0] is False:
        yield _face(prop, exprs[0], "holds trivially: its `always` condition is never true",
                    "state when the `eventually` condition is due")
    elif prop.kind == "leads_to" and values[1] is not None:
        if values[1]:
            yield _face(prop, exprs[1], "holds trivially: its `eventually` condition is always true",
                        "state what must follow")
        else:
            yield _face(prop, exprs[1], "only says that its `always` condition never holds",
                        f"write `never {expr_to_fsm(prop.cond)}`")


def _face(prop: ir.Property, where: ir.Expr, why: str, hint: str) -> Diagnostic:
    return Diagnostic("E504", f"{describe(prop)} {why}", where.span, hint=hint)


def _names(spec: ir.Spec) -> Iterator[Diagnostic]:
    """E505 for a property name given twice."""
    first: dict[str, ir.Property] = {}
    for prop in spec.properties:
        if prop.name is None:
            continue
        if prop.name in first:
            yield Diagnostic("E505", f"two properties are named '{prop.name}'", prop.span, hint="rename one",
                             notes=((first[prop.name].span, "first defined here"),))
        first.setdefault(prop.name, prop)


def properties_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    names = Names.of(ctx.spec)
    for prop in ctx.spec.properties:
        conds = conditions(prop, names)
        for cond in conds:
            yield from _pages(cond, names)
            for leaf in leaves(cond):
                yield from _leaf(leaf, idx, names, prop)
        yield from _constant(prop, conds)
    yield from _names(ctx.spec)
