"""Every name is declared once in its namespace, no page name hides a session name, and no domain repeats a value."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._index import declared_types
from fsmc.checks._where import Named, name_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic


def duplicates(nodes: Iterable[Named], what: str, where: str = "") -> Iterator[Diagnostic]:
    first: dict[str, Named] = {}
    for node in nodes:
        if node.name not in first:
            first[node.name] = node
            continue
        yield Diagnostic("E110", f"duplicate {what} '{node.name}'{where}", name_span(node),
                         hint=f"rename or remove one of the {what}s named '{node.name}'",
                         notes=((name_span(first[node.name]), "first defined here"),))


def _page_duplicates(page: ir.Page) -> Iterator[Diagnostic]:
    where = f" in page '{page.name}'"
    yield from duplicates(page.actions, "action", where)
    yield from duplicates(page.vars, "variable", where)
    yield from duplicates(page.views, "view", where)
    yield from _hidden_views(page)
    for a in page.actions:
        yield from duplicates(a.params, "parameter", f" of action '{a.name}'")


def _hidden_views(page: ir.Page) -> Iterator[Diagnostic]:
    """A view named like a page variable could never be read: the variable wins."""
    names = {v.name: v for v in page.vars}
    for view in page.views:
        if view.name in names:
            yield Diagnostic("E110", f"view '{view.name}' has the name of a variable of page '{page.name}'",
                             name_span(view), hint="rename the view; names resolve to the variable first",
                             notes=((name_span(names[view.name]), "variable defined here"),))


def _shadowing(spec: ir.Spec) -> Iterator[Diagnostic]:
    session = {v.name: v for v in spec.session}
    for page in spec.pages:
        nodes: list[ir.Var | ir.View] = [*page.vars, *page.views]
        for node in nodes:
            if node.name in session:
                kind = "variable" if isinstance(node, ir.Var) else "view"
                yield Diagnostic("E111", f"page {kind} '{node.name}' hides the session variable of that name",
                                 name_span(node), hint=f"rename the page {kind}; inside page '{page.name}' "
                                 f"'{node.name}' would no longer mean the session variable",
                                 notes=((name_span(session[node.name]), "session variable defined here"),))


def _values(values: tuple[str, ...], span: ir.Span, what: str) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    for i, v in enumerate(values):
        if v in seen:
            nth = values[:i].count(v)
            yield Diagnostic("E112", f"value \"{v}\" appears twice in {what}", _span.string(span, v, nth),
                             hint="remove the repeated value", notes=((_span.string(span, v), "first here"),))
        seen.add(v)


def _choice_types(t: ir.Type) -> Iterator[ir.ChoiceType]:
    if isinstance(t, ir.ChoiceType) and t.name is None:  # enums are checked once, at their declaration
        yield t
    elif isinstance(t, ir.SetType):
        yield from _choice_types(t.elem)
    elif isinstance(t, ir.MapType):
        yield from _choice_types(t.key)
        yield from _choice_types(t.value)
    elif isinstance(t, ir.OptionalType):
        yield from _choice_types(t.inner)


def _repeated_values(spec: ir.Spec) -> Iterator[Diagnostic]:
    for e in spec.enums:
        yield from _values(e.values, e.span, f"enum '{e.name}'")
    for t in declared_types(spec):
        for choice in _choice_types(t):
            yield from _values(choice.values, choice.span, "this choice")


def unique_names_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    spec = ctx.spec
    yield from duplicates(spec.pages, "page")
    yield from duplicates(spec.tables, "table")
    yield from duplicates(spec.enums, "enum")
    yield from duplicates(spec.tasks, "task")
    yield from duplicates(spec.session, "session variable")
    for table in spec.tables:
        yield from duplicates(table.columns, "column", f" in table '{table.name}'")
    for page in spec.pages:
        yield from _page_duplicates(page)
    for task in spec.tasks:
        yield from duplicates(task.params, "parameter", f" of task '{task.name}'")
    yield from _shadowing(spec)
    yield from _repeated_values(spec)
