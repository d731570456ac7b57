"""Compiles IR expressions to Python source once, so no tree is interpreted per step."""

from __future__ import annotations

from typing import Any

from fsmc import ir
from fsmc.semantics.lowered import (
    ArgRef,
    CompileError,
    RowRef,
    Scope,
    Slot,
    VarRef,
    ViewRef,
    collection_kind,
    count_view,
    view_table,
)
from fsmc.types import domains as T
from fsmc.types.builtins import ENDS, OF_VIEW, result_type

Compiled = tuple[str, ir.Type]
"""Source code and its static type."""


def view_fn(page: str, view: str, full: bool = False) -> str:
    return f"_{'VF' if full else 'V'}_{page}__{view}"


class ExprCompiler(ir.ExprVisitor[Compiled]):
    """Turns an expression into (python source, static type) within a scope; names resolve through the scope."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.tables = {t.name: t for t in spec.tables}

    def expr(self, node: ir.Expr, scope: Scope) -> Compiled:
        return self.visit(node, scope)

    def view_table(self, scope: Scope, view: ir.View) -> str:
        return view_table(view, scope, set(self.tables))

    def column(self, obj_type: ir.Type, name: str) -> tuple[ir.Table, int]:
        """The table a row reference points into and the index of column `name`."""
        ref = T.strip_optional(obj_type)
        if not isinstance(ref, ir.RefType) or ref.table not in self.tables:
            raise CompileError(f"'.{name}' needs a row reference")
        table = self.tables[ref.table]
        names = [c.name for c in table.columns]
        if name not in names:
            raise CompileError(f"table '{table.name}' has no column '{name}'")
        return table, names.index(name)

    # ---------------------------------------------------------------- one method per node kind
    def visit_lit(self, node: ir.Lit, scope: Scope) -> Compiled:
        return repr(node.value), T.lit_type(node.value)

    def visit_name(self, node: ir.Name, scope: Scope) -> Compiled:
        ref = scope.resolve(node.id)
        if isinstance(ref, ArgRef):
            return f"a[{ref.index}]", ref.type
        if isinstance(ref, RowRef):
            return "r", ir.RefType.trusted(table=ref.table)
        if isinstance(ref, VarRef):
            return f"s[{ref.slot.index}]", ref.slot.type
        if isinstance(ref, ViewRef):
            return f"{view_fn(ref.page, ref.view.name)}(s, m)", ir.SetType.trusted(
                elem=ir.RefType.trusted(table=self.view_table(scope, ref.view)))
        raise CompileError(f"unknown name '{node.id}'")

    def visit_field(self, node: ir.GetField, scope: Scope) -> Compiled:
        obj, t = self.expr(node.obj, scope)
        table, i = self.column(t, node.field)
        code = f"_ROWS_{table.name}[{obj}][{i}]"
        if isinstance(t, ir.OptionalType):
            code = f"(None if ({obj}) is None else {code})"
        return code, T.column_type(table.columns[i])

    def visit_index(self, node: ir.Index, scope: Scope) -> Compiled:
        obj, t = self.expr(node.obj, scope)
        key, _ = self.expr(node.key, scope)
        return f"_map_get({obj}, {key})", T.index_type(t)

    def visit_call(self, node: ir.Call, scope: Scope) -> Compiled:
        if node.func in OF_VIEW:
            view = count_view(node, scope)
            assert scope.page is not None
            full = f"len({view_fn(scope.page.name, view.name, full=True)}(s, m))"
            if node.func == "count":
                return full, result_type(node.func, T.ANY)
            return f"max(1, -(-{full} // {view.page_size or 1}))", result_type(node.func, T.ANY)
        if len(node.args) != 1:
            raise CompileError(f"{node.func}() takes one argument")
        arg, t = self.expr(node.args[0], scope)
        if node.func == "len":
            return f"len({arg})", result_type(node.func, t)
        if node.func in ENDS:
            return f"(lambda v: v[{ENDS[node.func]}] if v else None)({arg})", result_type(node.func, t)
        if node.func == "sum":
            return f"sum(v for _, v in {arg})", result_type(node.func, t)
        raise CompileError(f"unknown function '{node.func}'")

    def visit_unary(self, node: ir.Unary, scope: Scope) -> Compiled:
        operand, t = self.expr(node.operand, scope)
        return (f"(not {operand})", T.BOOL) if node.op == "not" else (f"(-{operand})", t)

    def visit_binary(self, node: ir.Binary, scope: Scope) -> Compiled:
        left, lt = self.expr(node.left, scope)
        right, rt = self.expr(node.right, scope)
        op = node.op
        if op in ("and", "or"):
            return f"({left} {op} {right})", T.BOOL
        if op in ("in", "not in"):
            code = f"_map_has({right}, {left})" if collection_kind(rt) == "map" else f"({left} in {right})"
            return (code if op == "in" else f"(not {code})"), T.BOOL
        if op == "contains":
            kind = collection_kind(lt)
            if kind == "map":
                return f"_map_has({left}, {right})", T.BOOL
            if kind == "set":
                return f"({right} in {left})", T.BOOL
            return f"_contains_text({left}, {right})", T.BOOL
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return f"({left} {op} {right})", T.BOOL
        return f"({left} {op} {right})", T.arith_type(lt, rt)

    def visit_set(self, node: ir.SetLit, scope: Scope) -> Compiled:
        items = [self.expr(i, scope) for i in node.items]
        return "(" + "".join(f"{c}, " for c, _ in items) + ")", T.set_type([t for _, t in items])


def tuple_display(items: list[str]) -> str:
    """Python source for a tuple of these expressions."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def constant(value_code: str, namespace: dict[str, Any]) -> Any:
    """Evaluate a compiled expression that reads no state (a default value)."""
    return eval(value_code, namespace, {"s": (), "a": (), "m": {}})  # noqa: S307 - our own generated code


__all__ = [
    "CompileError", "Compiled", "ExprCompiler", "Scope", "Slot", "constant", "tuple_display",
    "view_fn",
]
