"""The type checker: infers the type of an expression in its scope, collecting every type error.

A name that does not resolve has type `any` (the names check reports it), so one mistake gives one
diagnostic. The typing check (well_typed.py) runs it on every expression of the spec, the properties
check on every condition of a property.
"""

from __future__ import annotations

from dataclasses import replace

from fsmc import ir
from fsmc.diagnostics import Diagnostic, did_you_mean
from fsmc.types.builtins import call_type
from fsmc.types.domains import key_values
from fsmc.types.static import (
    ANY,
    BOOL,
    INT,
    NUM,
    Names,
    Ty,
    column_ty,
    compatible,
    describe,
    elem_of,
    from_ir,
    is_number,
    lit_ty,
)


class Typer(ir.ExprVisitor[Ty]):
    """Infers the types of the expressions of one site, collecting every type error on the way."""

    def __init__(self, scope: Names):
        self.scope = scope
        self.problems: list[Diagnostic] = []

    def error(self, code: str, message: str, node: ir.Node, hint: str | None = None) -> Ty:
        self.problems.append(Diagnostic(code, message, node.span, hint=hint))
        return ANY

    def infer(self, e: ir.Expr) -> Ty:
        return self.visit(e)

    def visit_lit(self, e: ir.Lit) -> Ty:
        return lit_ty(e.value)

    def visit_name(self, e: ir.Name) -> Ty:
        b = self.scope.resolve(e.id)
        if b is None:
            return ANY
        if isinstance(b.node, ir.View):
            table = self.scope.view_table(b.node)
            return Ty("ref", table=table) if b.kind == "alias" else Ty("view", table=table)
        return from_ir(b.node.type)

    def visit_field(self, e: ir.GetField) -> Ty:
        obj = self.infer(e.obj)
        if obj.kind == "any":
            return ANY
        if obj.kind != "ref":
            return self.error("E203", f"'.{e.field}' needs a row reference, not {describe(obj)}", e,
                              hint="columns are read from a `ref TABLE` value, e.g. a parameter `p: ref products`")
        table = self.scope.tables.get(obj.table or "")
        if table is None:
            return ANY
        col = next((c for c in table.columns if c.name == e.field), None)
        if col is None:
            names = [c.name for c in table.columns]
            return self.error("E106", f"table '{table.name}' has no column '{e.field}'", e,
                              hint=did_you_mean(e.field, names) or "columns: " + ", ".join(names))
        return replace(column_ty(col), opt=obj.opt)

    def visit_index(self, e: ir.Index) -> Ty:
        obj, key = self.infer(e.obj), self.infer(e.key)
        if obj.kind == "any":
            return ANY
        if obj.kind != "map":
            return self.error("E204", f"'[...]' needs a map, not {describe(obj)}", e,
                              hint="only `map<K, V>` values are indexed")
        if not accepts(obj.elem or ANY, e.key, key):
            self.error("E204", f"the key is {describe(key)}, but the map's keys are {describe(obj.elem or ANY)}", e.key)
        return replace(obj.val or ANY, opt=True)

    def visit_call(self, e: ir.Call) -> Ty:
        return call_type(self, e)

    def visit_unary(self, e: ir.Unary) -> Ty:
        t = self.infer(e.operand)
        if e.op == "not":
            self.want_bool(e.operand, t, "'not'")
            return BOOL
        if not is_number(t.base()):
            return self.error("E202", f"'-' needs a number, not {describe(t)}", e)
        return t.base()

    def want_bool(self, e: ir.Expr, t: Ty, what: str) -> None:
        if t.kind not in ("bool", "any"):
            self.error("E202", f"{what} needs a bool, not {describe(t)}", e)

    def visit_binary(self, e: ir.Binary) -> Ty:
        lt, rt = self.infer(e.left), self.infer(e.right)
        if e.op in ("and", "or"):
            self.want_bool(e.left, lt, f"'{e.op}'")
            self.want_bool(e.right, rt, f"'{e.op}'")
            return BOOL
        if e.op in ("==", "!="):
            self.equality(e, lt, rt)
            return BOOL
        if e.op in ("<", "<=", ">", ">=", "+", "-", "*"):
            return self.arithmetic(e, lt, rt)
        if e.op == "contains" and lt.base().kind in ("str", "choice"):
            if rt.base().kind not in ("str", "choice", "any"):
                self.error("E205", f"text 'contains' needs text on the right, not {describe(rt)}", e.right)
            return BOOL
        coll, item = (rt, e.left) if e.op in ("in", "not in") else (lt, e.right)
        self.membership(e, coll.base(), item, lt if coll is rt else rt)
        return BOOL

    def equality(self, e: ir.Binary, lt: Ty, rt: Ty) -> None:
        if not (accepts(lt.base(), e.right, rt.base()) or accepts(rt.base(), e.left, lt.base())):
            self.error("E202", f"cannot compare {describe(lt)} with {describe(rt)}", e, hint="they are never equal")
            return
        self.literal_in_domain(e.right, lt)
        self.literal_in_domain(e.left, rt)

    def literal_in_domain(self, e: ir.Expr, t: Ty) -> None:
        """A string or key literal compared with a choice or a row reference must be one of its values."""
        if not isinstance(e, ir.Lit) or e.value is None or isinstance(e.value, bool):
            return
        values = literal_domain(self.scope, t.base())
        if values is not None and e.value not in values:
            self.error("E209", f"{e.value!r} is not a value of {describe(t.base())}", e,
                       hint=did_you_mean(str(e.value), [str(v) for v in values]) or
                       "values: " + ", ".join(repr(v) for v in list(values)[:8]))

    def arithmetic(self, e: ir.Binary, lt: Ty, rt: Ty) -> Ty:
        for side, t in ((e.left, lt), (e.right, rt)):
            if not is_number(t.base()):
                self.error("E202", f"'{e.op}' needs numbers, not {describe(t)}", side,
                           hint="only int and num values are ordered or added" if e.op in "<=>" else None)
        if e.op in ("<", "<=", ">", ">="):
            return BOOL
        return NUM if "num" in (lt.kind, rt.kind) else INT

    def membership(self, e: ir.Binary, coll: Ty, item: ir.Expr, item_t: Ty) -> None:
        if coll.kind == "any":
            return
        if coll.kind not in ("set", "map", "view"):
            self.error("E205", f"'{e.op}' needs a set, a map or a view, not {describe(coll)}", e,
                       hint="text search is `TEXT contains WORD`" if coll.kind in ("str", "choice") else None)
            return
        elem = elem_of(coll)
        if not accepts(elem, item, item_t.base()):
            self.error("E205", f"{describe(item_t)} is never in {describe(coll)}", item,
                       hint=f"its members are {describe(elem)}")
        else:
            self.literal_in_domain(item, elem)

    def visit_set(self, e: ir.SetLit) -> Ty:
        types = [self.infer(i) for i in e.items]
        first = next((t for t in types if t.kind not in ("any", "none")), ANY)
        for item, t in zip(e.items, types, strict=True):
            if not compatible(t, first):
                self.error("E207", f"a set holds values of one type: {describe(t)} among {describe(first)}", item)
        return Ty("set", elem=first)


def accepts(target: Ty, e: ir.Expr, t: Ty) -> bool:
    """Whether expression e of type t can stand where a target is expected: a string or int literal may name a row."""
    if target.kind == "ref" and isinstance(e, ir.Lit) and isinstance(e.value, (str, int)) and not isinstance(e.value, bool):
        return True
    if target.kind == "set" and isinstance(e, ir.SetLit) and all(isinstance(i, ir.Lit) for i in e.items):
        return all(accepts(target.elem or ANY, i, lit_ty(i.value)) for i in e.items if isinstance(i, ir.Lit))
    return compatible(target, t)


def literal_domain(scope: Names, t: Ty) -> set[ir.Value] | None:
    """The values a literal may take to be of type t, when t is a choice or a row reference."""
    if t.kind == "choice":
        return set(t.values)
    table = scope.tables.get(t.table or "") if t.kind == "ref" else None
    if table is not None:
        return key_values(table)
    return None
