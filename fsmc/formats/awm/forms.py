"""fsmc IR → AutoWebWorld's native vocabulary: type strings, `{path, cond, value}` preconditions, effect ops, GUI ops.

Only what has an exact native form is translated; the rest is left to the lossless `x_fsmc` copy.
"""

from __future__ import annotations

from typing import Any

from fsmc import ir

__all__ = ["json_value", "native_effects", "native_gui", "native_preconditions", "param_values", "schema_type"]

JSON = Any
_COND = {"==": "eq", "!=": "neq", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}
_MIRROR = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_GUI_OP = {"click": "click", "hover": "hover", "type": "type_text", "press": "key_press",
           "scroll_until_visible": "scroll_until_visible", "select": "select", "drag": "drag"}


# ---------------------------------------------------------------- types and values


def _key_type(spec: ir.Spec, table: str) -> str:
    for t in spec.tables:
        if t.name == table:
            col = next((c for c in t.columns if c.name == t.key), None)
            return "integer" if col is not None and col.type == "int" else "string"
    return "string"


def schema_type(spec: ir.Spec, t: ir.Type) -> str:
    """Their type string for one of our types, e.g. `string|null`, `integer>=1`, `array<string>`."""
    if isinstance(t, ir.OptionalType):
        return schema_type(spec, t.inner) + "|null"
    if isinstance(t, ir.BoolType):
        return "boolean"
    if isinstance(t, ir.IntType):
        return "integer>=1" if t.lo >= 1 else "integer"
    if isinstance(t, ir.RefType):
        return _key_type(spec, t.table)
    if isinstance(t, ir.SetType):
        return f"array<{schema_type(spec, t.elem)}>"
    if isinstance(t, ir.MapType):
        return "object"
    return "string"


def json_value(e: ir.Expr | None) -> JSON:
    """A literal default as a JSON value (a set literal as a list, `{}` of a map as {}); None if not literal."""
    if isinstance(e, ir.Lit):
        return e.value
    if isinstance(e, ir.SetLit) and all(isinstance(i, ir.Lit) for i in e.items):
        return [i.value for i in e.items if isinstance(i, ir.Lit)]
    return None


def _domain(spec: ir.Spec, t: ir.Type) -> list[JSON]:
    if isinstance(t, ir.OptionalType):
        return [None, *_domain(spec, t.inner)]
    if isinstance(t, ir.BoolType):
        return [False, True]
    if isinstance(t, ir.IntType):
        return list(range(t.lo, t.hi + 1))
    if isinstance(t, ir.ChoiceType):
        return list(t.values)
    if isinstance(t, ir.RefType):
        try:
            table = spec.table(t.table)
        except KeyError:
            return []
        key = next((i for i, c in enumerate(table.columns) if c.name == table.key), 0)
        return [row[key] for row in table.rows]
    return []


def param_values(spec: ir.Spec, params: tuple[ir.Param, ...]) -> dict[str, JSON]:
    """Each parameter with the list of values it ranges over (fsmc's reading of a list-valued parameter)."""
    return {p.name: _domain(spec, p.type) for p in params}


# ---------------------------------------------------------------- preconditions


def _operand(e: ir.Expr, params: set[str], variables: set[str]) -> tuple[bool, JSON]:
    """(ok, native value) for the right-hand side of a condition: a literal, "{param}" or "$.var"."""
    if isinstance(e, ir.Lit):
        return True, e.value
    if isinstance(e, ir.Name) and e.id in params:
        return True, "{" + e.id + "}"
    if isinstance(e, ir.Name) and e.id in variables:
        return True, "$." + e.id
    if isinstance(e, ir.SetLit) and all(isinstance(i, ir.Lit) for i in e.items):
        return True, json_value(e)
    return False, None


def _compare(e: ir.Binary, params: set[str], variables: set[str]) -> list[dict[str, JSON]] | None:
    op: str = e.op
    var, other = e.left, e.right
    if not (isinstance(var, ir.Name) and var.id in variables):
        op, var, other = _MIRROR[e.op], e.right, e.left
    if not (isinstance(var, ir.Name) and var.id in variables):
        return None
    ok, value = _operand(other, params, variables)
    if not ok or isinstance(value, list):
        return None
    if op == "!=" and value is None:
        return [{"path": "$." + var.id, "cond": "not_null"}]
    return [{"path": "$." + var.id, "cond": _COND[op], "value": value}]


Conds = list[dict[str, JSON]] | None


class _Require(ir.ExprVisitor[Conds]):
    """Their conditions for one require, or None where it has no native form (every node kind says which)."""

    def __init__(self, params: set[str], variables: set[str]):
        self.params, self.variables = params, variables

    def visit_binary(self, e: ir.Binary) -> Conds:
        if e.op == "and":
            left, right = self.visit(e.left), self.visit(e.right)
            return None if left is None or right is None else left + right
        if e.op in _COND:
            return _length_gt(e, self.variables) or _compare(e, self.params, self.variables)
        if e.op == "in" and isinstance(e.left, ir.Name) and e.left.id in self.variables:
            ok, value = _operand(e.right, self.params, self.variables)
            if ok and isinstance(value, list):
                return [{"path": "$." + e.left.id, "cond": "oneof", "value": value}]
        return None

    def visit_name(self, e: ir.Name) -> Conds:
        return [{"path": "$." + e.id, "cond": "eq", "value": True}] if e.id in self.variables else None

    def visit_unary(self, e: ir.Unary) -> Conds:
        if e.op == "not" and isinstance(e.operand, ir.Name) and e.operand.id in self.variables:
            return [{"path": "$." + e.operand.id, "cond": "eq", "value": False}]
        return None

    def visit_lit(self, e: ir.Lit) -> Conds:
        return None

    def visit_field(self, e: ir.GetField) -> Conds:
        return None

    def visit_index(self, e: ir.Index) -> Conds:
        return None

    def visit_call(self, e: ir.Call) -> Conds:
        return None

    def visit_set(self, e: ir.SetLit) -> Conds:
        return None


def _length_gt(e: ir.Binary, variables: set[str]) -> list[dict[str, JSON]] | None:
    arg = e.left.args[0] if isinstance(e.left, ir.Call) and e.left.func == "len" and len(e.left.args) == 1 else None
    if e.op == ">" and isinstance(arg, ir.Name) and arg.id in variables and isinstance(e.right, ir.Lit):
        return [{"path": "$." + arg.id, "cond": "length_gt", "value": e.right.value}]
    return None


def native_preconditions(a: ir.Action, variables: set[str]) -> tuple[list[dict[str, JSON]], list[ir.Expr]]:
    """Their preconditions for the requires that have a native form, and the requires that do not."""
    params = {p.name for p in a.params}
    native: list[dict[str, JSON]] = []
    left_out: list[ir.Expr] = []
    for r in a.requires:
        conds = _Require(params, variables).visit(r)
        if conds is None:
            left_out.append(r)
        else:
            native += conds
    return native, left_out


# ---------------------------------------------------------------- effects


def _set_value(e: ir.Expr | None, params: set[str]) -> dict[str, JSON] | None:
    if isinstance(e, ir.Name) and e.id in params:
        return {"value_ref": "{" + e.id + "}"}
    value = json_value(e)
    if isinstance(e, ir.Lit) or (value is not None and isinstance(e, ir.SetLit)):
        return {"value": value}
    return None


def _native_effect(e: ir.Effect, params: set[str], types: dict[str, ir.Type],
                   defaults: dict[str, ir.Expr]) -> dict[str, JSON] | None:
    path = "$." + e.var
    if e.key is not None or isinstance(types.get(e.var), ir.MapType):
        return None  # their objects have no entry-wise ops
    if e.op in ("inc", "dec") and isinstance(e.value, ir.Lit) and isinstance(e.value.value, int):
        return {"op": "inc", "path": path, "by": e.value.value if e.op == "inc" else -e.value.value}
    if e.op == "clear":
        if isinstance(types.get(e.var), ir.SetType):
            return {"op": "clear", "path": path}
        is_opt = isinstance(types.get(e.var), ir.OptionalType)
        value = {"value": None} if is_opt else _set_value(defaults.get(e.var), params)
        return None if value is None else {"op": "set", "path": path, **value}
    value = _set_value(e.value, params)
    if value is None or e.op not in ("assign", "add"):
        return None
    return {"op": "set" if e.op == "assign" else "append_unique", "path": path, **value}


def native_effects(a: ir.Action, types: dict[str, ir.Type],
                   defaults: dict[str, ir.Expr]) -> tuple[list[dict[str, JSON]], list[ir.Effect]]:
    """Their effects for ours that have an exact native form (toggle, remove and map entries do not)."""
    params = {p.name for p in a.params}
    native: list[dict[str, JSON]] = []
    left_out: list[ir.Effect] = []
    for e in a.effects:
        n = _native_effect(e, params, types, defaults)
        if n is None:
            left_out.append(e)
        else:
            native.append(n)
    return native, left_out


# ---------------------------------------------------------------- GUI


def css(testid: str) -> str:
    """Our selectors are data-testid values; theirs are CSS selectors."""
    return '[data-testid="' + testid.replace("\\", "\\\\").replace('"', '\\"') + '"]'


def native_gui(ops: tuple[ir.GuiOp, ...]) -> list[dict[str, JSON]]:
    out: list[dict[str, JSON]] = []
    for g in ops:
        if g.op == "wait":
            out.append({"op": "wait", "ms": g.limit})
            continue
        op: dict[str, JSON] = {"op": _GUI_OP.get(g.op, g.op), "selector": css(g.selector or "")}
        if g.op == "type":
            op["text"] = g.text
        elif g.op == "press":
            op["key"] = g.text
        elif g.op == "select":
            op["value"] = g.text
        elif g.op == "drag":
            op["to_value"] = css(g.text or "")
        elif g.op == "repeat_click":
            op.update(op="repeat_click_until_visible", until=css(g.until or ""), max=g.limit)
        out.append(op)
    return out
