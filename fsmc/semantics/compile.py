"""Compiles IR expressions, views and effects to Python source once, so no tree is interpreted per step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.semantics import domains as T


class CompileError(Exception):
    """The spec is not well formed enough to execute (the checks report why)."""


@dataclass
class Slot:
    index: int
    type: ir.Type


@dataclass
class Scope:
    """What names mean where an expression is compiled, and where their values live in the generated code."""

    session: dict[str, Slot]
    page: ir.Page | None = None
    page_slots: dict[str, Slot] = field(default_factory=dict)
    params: dict[str, tuple[str, ir.Type]] = field(default_factory=dict)
    alias: tuple[str, str] | None = None  # (name, table)

    def with_params(self, params: tuple[ir.Param, ...], var: str = "a") -> Scope:
        bound = {p.name: (f"{var}[{i}]", p.type) for i, p in enumerate(params)}
        return Scope(self.session, self.page, self.page_slots, {**self.params, **bound}, self.alias)

    def with_alias(self, name: str, table: str) -> Scope:
        return Scope(self.session, self.page, self.page_slots, self.params, (name, table))

    def view(self, name: str) -> ir.View | None:
        if self.page is None:
            return None
        return next((v for v in self.page.views if v.name == name), None)


def view_fn(page: str, view: str, full: bool = False) -> str:
    return f"_{'VF' if full else 'V'}_{page}__{view}"


class ExprCompiler:
    """Turns an expression into (python source, static type) within a scope."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.tables = {t.name: t for t in spec.tables}

    def view_table(self, scope: Scope, view: ir.View, seen: frozenset[str] = frozenset()) -> str:
        if view.name in seen:
            raise CompileError(f"view '{view.name}' depends on itself")
        if view.source in self.tables:
            return view.source
        source = scope.view(view.source)
        if source is None:
            raise CompileError(f"view '{view.name}' reads unknown source '{view.source}'")
        return self.view_table(scope, source, seen | {view.name})

    def name(self, node: ir.Name, scope: Scope) -> tuple[str, ir.Type]:
        if node.id in scope.params:
            return scope.params[node.id]
        if scope.alias and node.id == scope.alias[0]:
            return "r", ir.RefType(table=scope.alias[1])
        if node.id in scope.page_slots:
            slot = scope.page_slots[node.id]
            return f"s[{slot.index}]", slot.type
        view = scope.view(node.id)
        if view is not None and scope.page is not None:
            return f"{view_fn(scope.page.name, view.name)}(s, m)", ir.SetType(
                elem=ir.RefType(table=self.view_table(scope, view)))
        if node.id in scope.session:
            slot = scope.session[node.id]
            return f"s[{slot.index}]", slot.type
        raise CompileError(f"unknown name '{node.id}'")

    def field(self, node: ir.GetField, scope: Scope) -> tuple[str, ir.Type]:
        obj, t = self.expr(node.obj, scope)
        ref = T.strip_optional(t)
        if not isinstance(ref, ir.RefType) or ref.table not in self.tables:
            raise CompileError(f"'.{node.field}' needs a row reference")
        table = self.tables[ref.table]
        names = [c.name for c in table.columns]
        if node.field not in names:
            raise CompileError(f"table '{table.name}' has no column '{node.field}'")
        i = names.index(node.field)
        col_t = T.column_type(table.columns[i])
        code = f"_ROWS_{table.name}[{obj}][{i}]"
        if isinstance(t, ir.OptionalType):
            code = f"(None if ({obj}) is None else {code})"
        return code, col_t

    def call(self, node: ir.Call, scope: Scope) -> tuple[str, ir.Type]:
        if node.func in ("count", "pages"):
            first = node.args[0] if len(node.args) == 1 else None
            view = scope.view(first.id) if isinstance(first, ir.Name) else None
            if view is None or scope.page is None:
                raise CompileError(f"{node.func}() takes one view of the current page")
            full = f"{view_fn(scope.page.name, view.name, full=True)}(s, m)"
            if node.func == "count":
                return f"len({full})", T.INT_ANY
            size = view.page_size or 1
            return f"max(1, -(-len({full}) // {size}))", T.INT_ANY
        if len(node.args) != 1:
            raise CompileError(f"{node.func}() takes one argument")
        arg, t = self.expr(node.args[0], scope)
        if node.func == "len":
            return f"len({arg})", T.INT_ANY
        if node.func in ("first", "last"):
            elem = t.elem if isinstance(t, ir.SetType) else T.ANY
            pos = 0 if node.func == "first" else -1
            return f"(lambda v: v[{pos}] if v else None)({arg})", ir.OptionalType(inner=elem)
        if node.func == "sum":
            return f"sum(v for _, v in {arg})", T.INT_ANY
        raise CompileError(f"unknown function '{node.func}'")

    def binary(self, node: ir.Binary, scope: Scope) -> tuple[str, ir.Type]:
        left, lt = self.expr(node.left, scope)
        right, rt = self.expr(node.right, scope)
        op = node.op
        if op in ("and", "or"):
            return f"({left} {op} {right})", T.BOOL
        if op in ("in", "not in"):
            code = f"_map_has({right}, {left})" if isinstance(T.strip_optional(rt), ir.MapType) else f"({left} in {right})"
            return (code if op == "in" else f"(not {code})"), T.BOOL
        if op == "contains":
            inner = T.strip_optional(lt)
            if isinstance(inner, ir.MapType):
                return f"_map_has({left}, {right})", T.BOOL
            if isinstance(inner, ir.SetType):
                return f"({right} in {left})", T.BOOL
            return f"_contains_text({left}, {right})", T.BOOL
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return f"({left} {op} {right})", T.BOOL
        result = T.NUM if T.NUM in (lt, rt) else T.INT_ANY
        return f"({left} {op} {right})", result

    def expr(self, node: ir.Expr, scope: Scope) -> tuple[str, ir.Type]:
        if isinstance(node, ir.Lit):
            v = node.value
            t: ir.Type = (T.BOOL if isinstance(v, bool) else T.INT_ANY if isinstance(v, int)
                          else T.NUM if isinstance(v, float) else T.STR if isinstance(v, str) else T.ANY)
            return repr(v), t
        if isinstance(node, ir.Name):
            return self.name(node, scope)
        if isinstance(node, ir.GetField):
            return self.field(node, scope)
        if isinstance(node, ir.Index):
            obj, t = self.expr(node.obj, scope)
            key, _ = self.expr(node.key, scope)
            value_t = t.value if isinstance(t, ir.MapType) else T.ANY
            return f"_map_get({obj}, {key})", ir.OptionalType(inner=value_t)
        if isinstance(node, ir.Call):
            return self.call(node, scope)
        if isinstance(node, ir.Unary):
            operand, t = self.expr(node.operand, scope)
            return (f"(not {operand})", T.BOOL) if node.op == "not" else (f"(-{operand})", t)
        if isinstance(node, ir.Binary):
            return self.binary(node, scope)
        if isinstance(node, ir.SetLit):
            items = [self.expr(i, scope) for i in node.items]
            elem = items[0][1] if items else T.ANY
            return "(" + "".join(f"{c}, " for c, _ in items) + ")", ir.SetType(elem=elem)
        raise CompileError(f"cannot compile {type(node).__name__}")


def constant(value_code: str, namespace: dict[str, Any]) -> Any:
    """Evaluate a compiled expression that reads no state (a default value)."""
    return eval(value_code, namespace, {"s": (), "a": (), "m": {}})  # noqa: S307 - our own generated code
