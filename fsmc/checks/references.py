"""Every page, table, enum and view source that a declaration names is declared."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._index import SpecIndex, declared_types, did_you_mean, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic

_BUILTIN_TYPE_HINTS = {
    "int": "an int needs bounds: `int[LO..HI]`",
    "integer": "an int needs bounds: `int[LO..HI]`",
    "str": "a string needs its values: `{\"a\", \"b\"}` or an enum",
    "string": "a string needs its values: `{\"a\", \"b\"}` or an enum",
    "boolean": "write `bool`",
}


def unknown_page(idx: SpecIndex, name: str, span: ir.Span, message: str) -> Diagnostic:
    return Diagnostic("E101", message, span,
                      hint=did_you_mean(name, idx.pages) or f"declare it with `page {name} {{ ... }}`")


def _site_pages(idx: SpecIndex, site: ir.Site) -> Iterator[Diagnostic]:
    if site.entry and site.entry not in idx.pages:
        yield unknown_page(idx, site.entry, _span.word(site.span, site.entry, after="entry"),
                           f"entry page '{site.entry}' is not a page")
    for t in site.terminals:
        if t not in idx.pages:
            yield unknown_page(idx, t, _span.word(site.span, t, after="terminal"),
                               f"terminal page '{t}' is not a page")


def _nav_pages(idx: SpecIndex, spec: ir.Spec) -> Iterator[Diagnostic]:
    for page in spec.pages:
        for a in page.actions:
            if a.goto is not None and a.goto not in idx.pages:
                span = _span.word(a.span, a.goto, after="goto")
                yield unknown_page(idx, a.goto, span, f"action '{a.name}' goes to unknown page '{a.goto}'")
    for task in spec.tasks:
        if task.page is not None and task.page not in idx.pages:
            yield unknown_page(idx, task.page, _span.word(task.span, task.page, after="on"), f"task '{task.name}' is on unknown page '{task.page}'")


def unknown_table(idx: SpecIndex, name: str, span: ir.Span, what: str = "table") -> Diagnostic:
    return Diagnostic("E102", f"unknown {what} '{name}'", span,
                      hint=did_you_mean(name, idx.tables) or f"declare it with `table {name}(...) key ... {{ ... }}`")


def _type_names(idx: SpecIndex, t: ir.Type) -> Iterator[Diagnostic]:
    if isinstance(t, ir.RefType) and t.table not in idx.tables:
        yield unknown_table(idx, t.table, _span.word(t.span, t.table))
    elif isinstance(t, ir.NamedType):
        hint = _BUILTIN_TYPE_HINTS.get(t.name) or did_you_mean(t.name, idx.enums) or (
            f"declare it with `enum {t.name} {{ \"a\", \"b\" }}`")
        yield Diagnostic("E103", f"unknown type '{t.name}'", t.span, hint=hint)
    elif isinstance(t, ir.SetType):
        yield from _type_names(idx, t.elem)
    elif isinstance(t, ir.MapType):
        yield from _type_names(idx, t.key)
        yield from _type_names(idx, t.value)
    elif isinstance(t, ir.OptionalType):
        yield from _type_names(idx, t.inner)


def _table_refs(idx: SpecIndex, spec: ir.Spec) -> Iterator[Diagnostic]:
    for table in spec.tables:
        for col in table.columns:
            if col.type.startswith("ref:") and col.type[4:] not in idx.tables:
                yield unknown_table(idx, col.type[4:], _span.word(col.span, col.type[4:], after="ref"))


def _view_sources(idx: SpecIndex, spec: ir.Spec) -> Iterator[Diagnostic]:
    for page in spec.pages:
        views = {v.name for v in page.views}
        for view in page.views:
            if view.source not in idx.tables and view.source not in views:
                span = _span.word(view.span, view.source, after="=")
                d = unknown_table(idx, view.source, span, "table or view")
                hint = did_you_mean(view.source, [*idx.tables, *views]) or d.hint
                yield Diagnostic(d.code, d.message, span, hint=hint)


def references_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    idx = index_of(ctx)
    yield from _site_pages(idx, ctx.spec.site)
    yield from _nav_pages(idx, ctx.spec)
    for t in declared_types(ctx.spec):
        yield from _type_names(idx, t)
    yield from _table_refs(idx, ctx.spec)
    yield from _view_sources(idx, ctx.spec)
