"""Every table has its key column, rows of its arity and column types, unique keys, and references to existing rows."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._index import did_you_mean, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.domains import key_values

_KINDS = {"str": (str,), "int": (int,), "num": (int, float), "bool": (bool,)}


class _Rows:
    """Where a table's rows are: their own spans for inline rows, the table for rows loaded from a file."""

    def __init__(self, table: ir.Table):
        self.table = table
        self.spans = [] if table.source else _span.rows(table.span)

    def span(self, i: int) -> ir.Span:
        return self.spans[i] if i < len(self.spans) else self.table.span

    def name(self, i: int) -> str:
        return f"row {i + 1}" + (f" of '{self.table.source}'" if self.table.source else "")


def _fits(value: ir.Value, coltype: str) -> bool:
    if value is None:
        return True
    if coltype.startswith("ref:"):
        return isinstance(value, (str, int)) and not isinstance(value, bool)
    kinds = _KINDS.get(coltype, ())
    return isinstance(value, kinds) and (coltype == "bool" or not isinstance(value, bool))


def _shape(table: ir.Table, rows: _Rows) -> Iterator[Diagnostic]:
    n = len(table.columns)
    for i, row in enumerate(table.rows):
        if len(row) != n:
            yield Diagnostic("E121", f"{rows.name(i)} of table '{table.name}' has {len(row)} values, not {n}",
                             rows.span(i), hint="columns: " + ", ".join(c.name for c in table.columns))
            continue
        for col, value in zip(table.columns, row, strict=True):
            if not _fits(value, col.type):
                want = col.type.replace("ref:", "a key of table ")
                yield Diagnostic("E122", f"{rows.name(i)} of table '{table.name}': column '{col.name}' is {want}, "
                                 f"not {value!r}", rows.span(i), hint=f"column '{col.name}' is declared `{col.name}: "
                                 f"{col.type.replace('ref:', 'ref ')}`")


def _keys(table: ir.Table, rows: _Rows) -> Iterator[Diagnostic]:
    names = [c.name for c in table.columns]
    if table.key not in names:
        yield Diagnostic("E120", f"table '{table.name}' has no column '{table.key}' to use as its key",
                         _span.word(table.span, table.key, after="key"),
                         hint=did_you_mean(table.key, names) or "the key must be one of the columns")
        return
    k = names.index(table.key)
    first: dict[ir.Value, int] = {}
    for i, row in enumerate(table.rows):
        if k >= len(row):
            continue
        if row[k] is None:
            yield Diagnostic("E122", f"{rows.name(i)} of table '{table.name}' has no key", rows.span(i),
                             hint=f"give column '{table.key}' a value")
        elif row[k] in first:
            j = first[row[k]]
            yield Diagnostic("E123", f"{rows.name(i)} of table '{table.name}' repeats the key {row[k]!r}",
                             rows.span(i), hint="keys identify rows: make them unique",
                             notes=((rows.span(j), f"{rows.name(j)} has that key"),))
        else:
            first[row[k]] = i


def _dangling(ctx: CheckContext, table: ir.Table, rows: _Rows) -> Iterator[Diagnostic]:
    tables = index_of(ctx).tables
    for c, col in enumerate(table.columns):
        target = tables.get(col.type[4:]) if col.type.startswith("ref:") else None
        if target is None or target.key not in [c.name for c in target.columns]:
            continue
        keys = key_values(target)
        for i, row in enumerate(table.rows):
            value = row[c] if c < len(row) else None
            if value is not None and value not in keys:
                yield Diagnostic("E124", f"{rows.name(i)} of table '{table.name}': column '{col.name}' refers to "
                                 f"{value!r}, which is not a key of table '{target.name}'", rows.span(i),
                                 hint=did_you_mean(str(value), [str(k) for k in keys]) or
                                 f"add a row with key {value!r} to table '{target.name}'")


def table_data_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    for table in ctx.spec.tables:
        rows = _Rows(table)
        yield from _shape(table, rows)
        yield from _keys(table, rows)
        yield from _dangling(ctx, table, rows)
