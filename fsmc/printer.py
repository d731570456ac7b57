"""Prints IR back as canonical .fsm text: parse(to_fsm(spec)) == spec for every spec the parser can produce."""

from __future__ import annotations

import math
from decimal import Decimal

from fsmc import ir
from fsmc.errors import FsmcError
from fsmc.ir.visit import KINDS

__all__ = ["PrintError", "backend_to_fsm", "effect_to_fsm", "expr_to_fsm", "property_keyword", "property_to_fsm", "quote", "to_fsm",
           "type_to_fsm", "value_to_fsm"]

INDENT = "  "
MAX_LINE = 100

# Binding strength of each expression form; a child weaker than its slot needs parentheses.
OR, AND, NOT, CMP, SUM, PRODUCT, UNARY, POSTFIX, ATOM = range(1, 10)
_BINARY_LEVEL: dict[str, int] = {
    "or": OR, "and": AND,
    "==": CMP, "!=": CMP, "<": CMP, "<=": CMP, ">": CMP, ">=": CMP, "in": CMP, "not in": CMP, "contains": CMP,
    "+": SUM, "-": SUM, "*": PRODUCT,
}


class PrintError(FsmcError, ValueError):
    """The IR holds something that has no .fsm spelling (an infinite float, a nested optional)."""


# ---------------------------------------------------------------- literals


def quote(text: str) -> str:
    """A .fsm string literal; the parser's `unquote` turns it back into `text`."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{body}"'


def _number(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        raise PrintError(f"{value} has no .fsm spelling")
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


def value_to_fsm(value: ir.Value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    return quote(value)


# ---------------------------------------------------------------- expressions


class _Level(ir.ExprVisitor[int]):
    """How strongly an expression binds: a child weaker than its slot needs parentheses."""

    def visit_lit(self, e: ir.Lit) -> int:
        v = e.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return ATOM
        # printed with a leading minus; -0.0 too: it prints with its sign (an int past a float's range has no copysign)
        return UNARY if (v < 0 if isinstance(v, int) else math.copysign(1, v) < 0) else ATOM

    def visit_name(self, e: ir.Name) -> int:
        return ATOM

    def visit_set(self, e: ir.SetLit) -> int:
        return ATOM

    def visit_binary(self, e: ir.Binary) -> int:
        return _BINARY_LEVEL[e.op]

    def visit_unary(self, e: ir.Unary) -> int:
        return NOT if e.op == "not" else UNARY

    def visit_field(self, e: ir.GetField) -> int:
        return POSTFIX

    def visit_index(self, e: ir.Index) -> int:
        return POSTFIX

    def visit_call(self, e: ir.Call) -> int:
        return POSTFIX


_LEVEL = _Level()


def _sub(e: ir.Expr, at_least: int) -> str:
    text = expr_to_fsm(e)
    return f"({text})" if _LEVEL.visit(e) < at_least else text


class _Printer(ir.ExprVisitor[str]):
    """One spelling per expression node kind."""

    def visit_lit(self, e: ir.Lit) -> str:
        return value_to_fsm(e.value)

    def visit_name(self, e: ir.Name) -> str:
        return e.id

    def visit_binary(self, e: ir.Binary) -> str:
        level = _BINARY_LEVEL[e.op]
        left_min = level + 1 if level == CMP else level  # comparisons do not chain; the rest are left-associative
        return f"{_sub(e.left, left_min)} {e.op} {_sub(e.right, level + 1)}"

    def visit_unary(self, e: ir.Unary) -> str:
        return f"not {_sub(e.operand, NOT)}" if e.op == "not" else f"-{_sub(e.operand, UNARY)}"

    def visit_field(self, e: ir.GetField) -> str:
        return f"{_sub(e.obj, POSTFIX)}.{e.field}"

    def visit_index(self, e: ir.Index) -> str:
        return f"{_sub(e.obj, POSTFIX)}[{expr_to_fsm(e.key)}]"

    def visit_call(self, e: ir.Call) -> str:
        return f"{e.func}({', '.join(expr_to_fsm(a) for a in e.args)})"

    def visit_set(self, e: ir.SetLit) -> str:
        return "{" + ", ".join(expr_to_fsm(i) for i in e.items) + "}"


_PRINTER = _Printer()


def expr_to_fsm(e: ir.Expr) -> str:
    """The expression with as few parentheses as the grammar's precedence allows."""
    if type(e) not in KINDS:
        raise PrintError(f"cannot print expression node {type(e).__name__}")
    return _PRINTER.visit(e)


# ---------------------------------------------------------------- types


def type_to_fsm(t: ir.Type) -> str:
    if isinstance(t, ir.BoolType):
        return "bool"
    if isinstance(t, ir.IntType):
        return f"int[{t.lo}..{t.hi}]"
    if isinstance(t, ir.ChoiceType):
        return t.name if t.name else "{" + ", ".join(quote(v) for v in t.values) + "}"
    if isinstance(t, ir.NamedType):
        return t.name
    if isinstance(t, ir.RefType):
        return f"ref {t.table}"
    if isinstance(t, ir.SetType):
        return f"set<{type_to_fsm(t.elem)}>"
    if isinstance(t, ir.MapType):
        return f"map<{type_to_fsm(t.key)}, {type_to_fsm(t.value)}>"
    if isinstance(t, ir.OptionalType):
        if isinstance(t.inner, ir.OptionalType):
            raise PrintError("an optional of an optional has no .fsm spelling")
        return f"{type_to_fsm(t.inner)}?"
    raise PrintError(f"cannot print type node {type(t).__name__}")


def _params(params: tuple[ir.Param, ...]) -> str:
    if not params:
        return ""
    return "(" + ", ".join(f"{p.name}: {type_to_fsm(p.type)}" for p in params) + ")"


def _var(v: ir.Var) -> str:
    return f"var {v.name}: {type_to_fsm(v.type)} = {expr_to_fsm(v.default)}"


def _block(head: str, body: list[str], depth: int) -> list[str]:
    pad = INDENT * depth
    if not body:
        return [f"{pad}{head} {{ }}"]
    return [f"{pad}{head} {{", *(f"{INDENT}{line}" if line else "" for line in body), f"{pad}}}"]


# ---------------------------------------------------------------- site, enums, tables, session


def _site(s: ir.Site) -> list[str]:
    body = [f"title {quote(s.title)}"] if s.title is not None else []
    if s.reference is not None:
        body.append(f"reference {quote(s.reference)}")
    body.append(f"entry {s.entry}")
    if s.terminals:
        body.append(f"terminal {', '.join(s.terminals)}")
    return _block(f"site {s.name}", body, 0)


def _enum(e: ir.Enum) -> str:
    return f"enum {e.name} {{ {', '.join(quote(v) for v in e.values)} }}"


def _coltype(t: str) -> str:
    return f"ref {t[4:]}" if t.startswith("ref:") else t


def _rows(rows: tuple[tuple[ir.Value, ...], ...]) -> list[str]:
    """One row per line, cells padded so the columns line up."""
    cells = [[value_to_fsm(v) for v in row] for row in rows]
    widths: dict[int, int] = {}
    for row in cells:
        for i, c in enumerate(row[:-1]):
            widths[i] = max(widths.get(i, 0), len(c) + 1)
    out = []
    for row in cells:
        padded = [(c + ",").ljust(widths[i] + 1) for i, c in enumerate(row[:-1])] + row[-1:]
        out.append("(" + "".join(padded) + ")")
    return out


def _fill(prefix: str, items: list[str], suffix: str) -> list[str]:
    """`prefix item, item, ... suffix`, wrapped before MAX_LINE with items aligned under the first one."""
    lines, line = [], prefix
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else suffix)
        if line.strip() and len(line) + len(piece) + 1 > MAX_LINE and line != prefix:
            lines.append(line.rstrip())
            line = " " * len(prefix)
        line += piece + " "
    return lines + [line.rstrip()]


def _table(t: ir.Table) -> list[str]:
    columns = [f"{c.name}: {_coltype(c.type)}" for c in t.columns]
    head = _fill(f"table {t.name}(", columns, ")")
    head[-1] += f" key {t.key}" + (f" = load {quote(t.source)}" if t.source is not None else " {")
    if t.source is not None:
        return head
    return head + [INDENT + r for r in _rows(t.rows)] + ["}"]


def _session(vars_: tuple[ir.Var, ...]) -> list[str]:
    return _block("session", [_var(v) for v in vars_], 0)


# ---------------------------------------------------------------- pages


def _order_key(k: ir.OrderKey) -> str:
    text = expr_to_fsm(k.expr) + (" desc" if k.desc else "")
    return text + (f" when {expr_to_fsm(k.when)}" if k.when is not None else "")


def _view(v: ir.View) -> list[str]:
    head = f"view {v.name} = {v.source} as {v.alias}"
    clauses = [f"where {expr_to_fsm(v.where)}"] if v.where is not None else []
    if v.order:
        clauses.append("order by " + ", ".join(_order_key(k) for k in v.order))
    if v.page_var is not None:
        clauses.append(f"page {v.page_var} size {v.page_size}")
    one_line = " ".join([head, *clauses])
    if len(one_line) <= MAX_LINE:
        return [one_line]
    return [head, *(INDENT * 2 + c for c in clauses)]


def _lvalue(e: ir.Effect) -> str:
    return e.var if e.key is None else f"{e.var}[{expr_to_fsm(e.key)}]"


def effect_to_fsm(e: ir.Effect) -> str:
    value = expr_to_fsm(e.value) if e.value is not None else "none"
    if e.op in ("assign", "inc", "dec"):
        return f"{_lvalue(e)} {({'assign': ':=', 'inc': '+=', 'dec': '-='})[e.op]} {value}"
    if e.op == "add":
        return f"add {value} to {e.var}"
    if e.op == "remove":
        return f"remove {value} from {e.var}"
    return f"{e.op} {e.var}"  # toggle, clear


def _gui_op(g: ir.GuiOp) -> str:
    sel = quote(g.selector or "")
    if g.op in ("type", "press", "select", "drag"):
        return f"{g.op} {sel} {quote(g.text or '')}"
    if g.op == "wait":
        return f"wait {g.limit or 0}"
    if g.op == "repeat_click":
        return f"repeat click {sel} until visible {quote(g.until or '')} max {g.limit or 0}"
    return f"{g.op} {sel}"  # click, hover, scroll_until_visible


def _gui(ops: tuple[ir.GuiOp, ...]) -> list[str]:
    lines = [_gui_op(g) for g in ops]
    if len(lines) == 1 and len(lines[0]) < MAX_LINE - 20:
        return [f"gui {{ {lines[0]} }}"]
    return _block("gui", lines, 0)


def _action(a: ir.Action) -> list[str]:
    head = f"action {a.name}{_params(a.params)}" + (f" {quote(a.label)}" if a.label is not None else "")
    body = [f"require {expr_to_fsm(r)}" for r in a.requires] + [effect_to_fsm(e) for e in a.effects]
    if a.goto is not None:
        body.append(f"goto {a.goto}" + (f" carry {', '.join(a.carry)}" if a.carry else ""))
    if a.gui:
        body += _gui(a.gui)
    return _block(head, body, 0)


def _page(p: ir.Page) -> list[str]:
    body = [_var(v) for v in p.vars]
    for i, view in enumerate(_view(v) for v in p.views):
        if body and (i == 0 or len(view) > 1):
            body.append("")
        body += view
    for action in p.actions:
        body += [""] * bool(body) + _action(action)
    head = f"page {p.name}" + (f" {quote(p.title)}" if p.title is not None else "")
    return _block(head, body, 0)


def _task(t: ir.Task) -> list[str]:
    head = f"task {t.name}{_params(t.params)}" + (f" on {t.page}" if t.page is not None else "")
    body = [f"goal {expr_to_fsm(t.goal)}", f"instruction {quote(t.instruction)}"]
    if t.answer is not None:
        body.append(f"answer {expr_to_fsm(t.answer)}")
    return _block(head, body, 0)


def property_keyword(p: ir.Property) -> str:
    """The word a property is written with: its kind, `always` for `always ... eventually`."""
    return "always" if p.kind == "leads_to" else p.kind


def property_to_fsm(p: ir.Property) -> str:
    """One property on one line: `invariant NAME: EXPR`, `always NAME: A eventually B`."""
    head = property_keyword(p) + (f" {p.name}:" if p.name is not None else "")
    text = f"{head} {expr_to_fsm(p.cond)}"
    if p.kind == "leads_to":
        if p.then is None:
            raise PrintError("an `always ... eventually` property without its `eventually` condition")
        text += f" eventually {expr_to_fsm(p.then)}"
    return text


def backend_to_fsm(b: ir.Backend) -> str:
    """A backend declaration on one line: `backend app "apps/todo/fsmc-backend.toml"`."""
    return f"backend {b.kind} {quote(b.source)}"


# ---------------------------------------------------------------- the whole spec


def to_fsm(spec: ir.Spec) -> str:
    """The spec as canonical .fsm text: site, backend, enums, tables, session, pages, tasks, properties, blank lines
    between."""
    sections: list[list[str]] = [_site(spec.site)]
    if spec.backends:
        sections.append([backend_to_fsm(b) for b in spec.backends])
    if spec.enums:
        sections.append([_enum(e) for e in spec.enums])
    sections += [_table(t) for t in spec.tables]
    if spec.session:
        sections.append(_session(spec.session))
    sections += [_page(p) for p in spec.pages]
    sections += [_task(t) for t in spec.tasks]
    if spec.properties:
        sections.append([property_to_fsm(p) for p in spec.properties])
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"
