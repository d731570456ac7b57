"""Every variable is read somewhere (an expression, a view, a template, a carry or a pagination), and every table and enum is used."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.analysis.conditions import Names, conditions, leaves
from fsmc.checks._index import Scope, declared_types, index_of, name_uses, placeholders, template_sites
from fsmc.checks._where import name_span
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic

Read = tuple[str | None, str]  # (page, name) of a page variable, (None, name) of a session variable


def _read(scope: Scope, name: str) -> Read | None:
    b = scope.resolve(name)
    if b is None or b.kind not in ("var", "session"):
        return None
    return (b.page, name) if b.kind == "var" else (None, name)


def _reads(ctx: CheckContext) -> set[Read | None]:
    out: set[Read | None] = set()
    for use in name_uses(ctx):
        b = use.binding
        if b is not None and b.kind in ("var", "session"):
            out.add((b.page, use.node.id) if b.kind == "var" else (None, use.node.id))
    for t in template_sites(ctx):
        out.update(_read(t.scope, name) for name, _ in placeholders(t.text))
    out.update(_property_reads(ctx))
    for page in ctx.spec.pages:
        out.update((page.name, v.page_var) for v in page.views if v.page_var)
        out.update((page.name, c) for a in page.actions for c in a.carry)
    return out


def _property_reads(ctx: CheckContext) -> set[Read | None]:
    """What the conditions of the properties read: a variable a property states something about is used."""
    idx, names = index_of(ctx), Names.of(ctx.spec)
    leafs = [leaf for prop in ctx.spec.properties for cond in conditions(prop, names) for leaf in leaves(cond)]
    return {_read(Scope(idx, idx.pages.get(leaf.page) if leaf.page else None), n.id)
            for leaf in leafs for n in ir.walk(leaf.expr) if type(n) is ir.Name}


def _variables(ctx: CheckContext) -> Iterator[Diagnostic]:
    reads = _reads(ctx)
    decls: list[tuple[str | None, ir.Var, str]] = [(None, v, f"session variable '{v.name}'") for v in ctx.spec.session]
    decls += [(p.name, v, f"variable '{v.name}' of page '{p.name}'") for p in ctx.spec.pages for v in p.vars]
    for page, var, what in decls:
        if (page, var.name) not in reads:
            yield Diagnostic("W101", f"{what} is never read", name_span(var), severity="warning",
                             hint="a variable no condition, view, template, goal or carry reads only multiplies "
                             "the states: remove it")


def _type_uses(t: ir.Type, tables: set[str], enums: set[str]) -> None:
    if isinstance(t, ir.RefType):
        tables.add(t.table)
    elif isinstance(t, (ir.ChoiceType, ir.NamedType)) and t.name:
        enums.add(t.name)
    elif isinstance(t, ir.SetType):
        _type_uses(t.elem, tables, enums)
    elif isinstance(t, ir.MapType):
        _type_uses(t.key, tables, enums)
        _type_uses(t.value, tables, enums)
    elif isinstance(t, ir.OptionalType):
        _type_uses(t.inner, tables, enums)


def _declarations(ctx: CheckContext) -> Iterator[Diagnostic]:
    tables: set[str] = set()
    enums: set[str] = set()
    for t in declared_types(ctx.spec):
        _type_uses(t, tables, enums)
    tables |= {v.source for p in ctx.spec.pages for v in p.views}
    tables |= {c.type[4:] for t in ctx.spec.tables for c in t.columns if c.type.startswith("ref:")}
    for table in ctx.spec.tables:
        if table.name not in tables:
            yield Diagnostic("W102", f"table '{table.name}' is never used", name_span(table), severity="warning",
                             hint="show it through a view, or remove it")
    for enum in ctx.spec.enums:
        if enum.name not in enums:
            yield Diagnostic("W103", f"enum '{enum.name}' is never used", name_span(enum), severity="warning",
                             hint="remove it")


def unused_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    yield from _variables(ctx)
    yield from _declarations(ctx)
