"""Every `{x}` or `{x.col}` in a label, instruction or GUI string names a parameter or variable (and a column of its row)."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._index import TemplateSite, did_you_mean, placeholders, template_sites, unknown_name_hint
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.domains import strip_optional


def _where(site: TemplateSite) -> ir.Span:
    return _span.string(site.owner.span, site.text)


def _name_problem(site: TemplateSite, name: str) -> tuple[str, str] | None:
    b = site.scope.resolve(name)
    if b is None:
        return f"unknown name '{name}'", unknown_name_hint(name, site.scope)
    if b.kind == "view":
        return f"'{name}' is a view", "templates show parameters and variables; views are shown by the page"
    return None


def _column_problem(site: TemplateSite, name: str, col: str) -> tuple[str, str] | None:
    b = site.scope.resolve(name)
    if b is None or isinstance(b.node, ir.View):
        return None
    t = strip_optional(b.node.type)
    if not isinstance(t, ir.RefType):
        return f"'{name}' is not a row reference, so '{{{name}.{col}}}' has no column", f"write '{{{name}}}'"
    table = site.scope.index.tables.get(t.table)
    if table is None or any(c.name == col for c in table.columns):
        return None
    return (f"table '{table.name}' has no column '{col}'",
            did_you_mean(col, [c.name for c in table.columns]) or "columns: " + ", ".join(c.name for c in table.columns))


def _problems(site: TemplateSite) -> Iterator[Diagnostic]:
    for name, col in placeholders(site.text):
        found = _name_problem(site, name) or (_column_problem(site, name, col) if col else None)
        if found is not None:
            message, hint = found
            yield Diagnostic("E107", f"{message} in {site.what} template \"{site.text}\"", _where(site), hint=hint)


def templates_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for site in template_sites(ctx):
        yield from _problems(site)
