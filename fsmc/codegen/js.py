"""Compiles the IR to the site's JS runtime: state layout, views, preconditions, effects, navigation, templates.

It renders the decisions of `fsmc.semantics.lowered` (effect kinds, clamp bounds, canonical orders,
navigation, view sorts), as the Python reference semantics does: a state is an array `[page index,
session values..., page values...]`, so the Python compiler's rendering of resolved names
(`ExprCompiler.visit_name`: `s[i]`, `a[i]`, `r` and view calls) is valid JS and is shared; everything
whose syntax differs is emitted here. Values are immutable JS arrays and scalars.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fsmc import ir
from fsmc.codegen.actions import requirements
from fsmc.codegen.present import row_table
from fsmc.codegen.words import action_phrase
from fsmc.semantics.compile import Compiled, ExprCompiler, view_fn
from fsmc.semantics.lowered import (
    CompileError,
    LEffect,
    LGoto,
    Lowered,
    LView,
    Order,
    Scope,
    Slot,
    collection_kind,
    count_view,
)
from fsmc.types import domains as T
from fsmc.types.builtins import ENDS, OF_VIEW, result_type
from fsmc.types.domains import arith_type, domain_values, lit_type

_TEMPLATE = re.compile(r"\{([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\}")

BIG = 2**53 - 1


def js_value(v: Any) -> str:
    """A JS literal for an IR value (tuples become arrays)."""
    if isinstance(v, tuple):
        return "[" + ", ".join(js_value(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


class JsExprCompiler(ExprCompiler):
    """ExprCompiler emitting JS: the helpers it calls live in fsmc/templates/site/src/fsmc/lib.js."""

    def visit_lit(self, node: ir.Lit, scope: Scope) -> Compiled:
        return js_value(node.value), lit_type(node.value)

    def visit_field(self, node: ir.GetField, scope: Scope) -> Compiled:
        obj, t = self.expr(node.obj, scope)
        table, i = self.column(t, node.field)
        return f"_col(_ROWS_{table.name}, {obj}, {i})", T.column_type(table.columns[i])

    def visit_index(self, node: ir.Index, scope: Scope) -> Compiled:
        obj, t = self.expr(node.obj, scope)
        key, _ = self.expr(node.key, scope)
        return f"_mapGet({obj}, {key})", T.index_type(t)

    def visit_call(self, node: ir.Call, scope: Scope) -> Compiled:
        if node.func in OF_VIEW:
            view = count_view(node, scope)
            assert scope.page is not None
            full = f"{view_fn(scope.page.name, view.name, full=True)}(s, m)"
            if node.func == "count":
                return f"{full}.length", result_type(node.func, T.ANY)
            return f"Math.max(1, Math.ceil({full}.length / {view.page_size or 1}))", result_type(node.func, T.ANY)
        if len(node.args) != 1:
            raise CompileError(f"{node.func}() takes one argument")
        code, t = self.expr(node.args[0], scope)
        if node.func == "len":
            return f"_len({code})", result_type(node.func, t)
        if node.func in ENDS:
            return f"_{node.func}({code})", result_type(node.func, t)
        if node.func == "sum":
            return f"_sumMap({code})", result_type(node.func, t)
        raise CompileError(f"unknown function '{node.func}'")

    def visit_unary(self, node: ir.Unary, scope: Scope) -> Compiled:
        operand, t = self.expr(node.operand, scope)
        return (f"!_t({operand})", T.BOOL) if node.op == "not" else (f"(-{operand})", t)

    def visit_binary(self, node: ir.Binary, scope: Scope) -> Compiled:
        left, lt = self.expr(node.left, scope)
        right, rt = self.expr(node.right, scope)
        op = node.op
        if op in ("and", "or"):
            return f"_{op}({left}, () => {right})", T.BOOL
        if op in ("in", "not in"):
            code = f"_mapHas({right}, {left})" if collection_kind(rt) == "map" else f"_has({right}, {left})"
            return (code if op == "in" else f"!{code}"), T.BOOL
        if op == "contains":
            kind = collection_kind(lt)
            if kind == "map":
                return f"_mapHas({left}, {right})", T.BOOL
            if kind == "set":
                return f"_has({left}, {right})", T.BOOL
            return f"_containsText({left}, {right})", T.BOOL
        if op == "==":
            return f"_eq({left}, {right})", T.BOOL
        if op == "!=":
            return f"!_eq({left}, {right})", T.BOOL
        if op in ("<", "<=", ">", ">="):
            return f"({left} {op} {right})", T.BOOL
        return f"({left} {op} {right})", arith_type(lt, rt)

    def visit_set(self, node: ir.SetLit, scope: Scope) -> Compiled:
        items = [self.expr(i, scope) for i in node.items]
        return "[" + ", ".join(c for c, _ in items) + "]", T.set_type([t for _, t in items])

    # visit_name is inherited: s[i], a[i], r and view calls are valid JS


class RuntimeCompiler:
    """Emits src/fsmc/runtime.js for one spec, rendering the decisions of `Lowered`."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.exprs = JsExprCompiler(spec)
        self.lowered = Lowered(spec)
        self.session_slots = self.lowered.session_slots
        self.scopes = {p.name: self.lowered.scopes[i] for i, p in enumerate(spec.pages)}
        self.page_index = self.lowered.page_index
        self.sorters: dict[Order, str] = {}
        self.out: list[str] = []

    def expr(self, e: ir.Expr, scope: Scope) -> str:
        return self.exprs.expr(e, scope)[0]

    def sorter(self, order: Order) -> str:
        """The name of a comparator putting values in `order`."""
        if order not in self.sorters:
            name = f"_SORT_{len(self.sorters)}"
            if order.values is not None:
                self.out.append(f"const {name} = _domCmp({js_value(order.values)})")
            else:
                self.out.append(f"const {name} = _natCmp")
            self.sorters[order] = name
        return self.sorters[order]

    # ---------------------------------------------------------------- pieces
    def tables(self) -> None:
        for t in self.spec.tables:
            cols = [c.name for c in t.columns]
            k = cols.index(t.key) if t.key in cols else 0
            self.out.append(f"const _ROWS_{t.name} = Object.create(null)")
            self.out.append(f"for (const r of TABLES.{t.name}.rows) _ROWS_{t.name}[r[{k}]] = r")
            self.out.append(f"const _KEYS_{t.name} = TABLES.{t.name}.rows.map((r) => r[{k}])")

    def normalise(self, code: str, t: ir.Type) -> str:
        form = self.lowered.canonical(t)
        if form is None:
            return code
        fn = "_normSet" if form.kind == "set" else "_normMap"
        return f"{fn}({code}, {self.sorter(form.order)})"

    def defaults(self) -> None:
        empty = self.lowered.scope(None)
        sess = [self.normalise(self.expr(v.default, empty), v.type) for v in self.spec.session]
        self.out.append("const s = [], m = {}, a = []")
        self.out.append(f"export const SESSION_DEFAULTS = [{', '.join(sess)}]")
        pages = []
        for p in self.spec.pages:
            scope = self.scopes[p.name]
            pages.append("[" + ", ".join(self.normalise(self.expr(v.default, scope), v.type) for v in p.vars) + "]")
        self.out.append(f"export const DEFAULTS = [{', '.join(pages)}]")

    def view(self, lv: LView) -> None:
        page, view, scope, inner = lv.page, lv.view, lv.scope, lv.row_scope
        source = f"_KEYS_{view.source}" if lv.from_table else f"{view_fn(page, view.source, True)}(s, m)"
        where = self.expr(view.where, inner) if view.where is not None else "true"
        memo = json.dumps(f"F:{page}:{view.name}")
        lines = [f"function {view_fn(page, view.name, True)}(s, m) {{",
                 f"  let v = m[{memo}]",
                 "  if (v === undefined) {",
                 f"    let rows = {source}.filter((r) => _t({where}))"]
        for key in lv.sorts:
            sort = f"rows = _sortBy(rows, (r) => {self.expr(key.key, inner)}, {json.dumps(key.desc)})"
            if key.when is not None:
                sort = f"if (_t({self.expr(key.when, scope)})) {sort}"
            lines.append(f"    {sort}")
        lines += [f"    v = m[{memo}] = rows", "  }", "  return v", "}"]
        full = f"{view_fn(page, view.name, True)}(s, m)"
        lines.append(f"function {view_fn(page, view.name)}(s, m) {{")
        if lv.page_slot is not None:
            i, n = lv.page_slot, lv.page_size
            lines.append(f"  return _pyslice({full}, (s[{i}] - 1) * {n}, s[{i}] * {n})")
        else:
            lines.append(f"  return {full}")
        lines.append("}")
        self.out.append("\n".join(lines))

    def slot(self, name: str, scope: Scope) -> Slot:
        return scope.slot(name)

    def effect(self, i: int, eff: LEffect, scope: Scope) -> tuple[list[str], str]:
        """(lines evaluated in the pre-state, the update applied to the running values `v`)."""
        pre = []
        if eff.value is not None:
            pre.append(f"  const e{i} = {self.expr(eff.value, scope)}")
        if eff.key is not None:
            pre.append(f"  const k{i} = {self.expr(eff.key, scope)}")
        return pre, self.update(i, eff, f"v[{eff.slot.index}]")

    def update(self, i: int, eff: LEffect, cur: str) -> str:
        """The new value of the effect's target, from its current value `cur` and its operands `e<i>`, `k<i>`."""
        sort = self.sorter(eff.order) if eff.order is not None else ""
        sign = "" if eff.sign > 0 else "-"
        lo, hi = eff.bounds or (-BIG, BIG)
        if eff.kind == "default":
            assert eff.default is not None
            page, j = eff.default
            return f"SESSION_DEFAULTS[{j}]" if page is None else f"DEFAULTS[{page}][{j}]"
        code = {
            "assign": f"e{i}", "assign_set": f"_normSet(e{i}, {sort})", "assign_map": f"_normMap(e{i}, {sort})",
            "put_entry": f"_mapSet({cur}, k{i}, e{i}, {sort})", "add_clamped": f"_clamp({cur} + {sign}e{i}, {lo}, {hi})",
            "add_entry": f"_mapAdd({cur}, k{i}, {sign}e{i}, {lo}, {hi}, {sort})", "toggle": f"!_t({cur})",
            "insert": f"_setAdd({cur}, e{i}, {sort})", "discard": f"_setRemove({cur}, e{i})",
            "discard_key": f"_mapRemove({cur}, e{i})", "empty": "[]", "none": "null",
        }
        return code[eff.kind]

    def navigate(self, goto: LGoto | None) -> str:
        if goto is None:
            return "v"
        parts = [str(goto.page), f"...v.slice(1, {1 + goto.keep})"]
        parts += [f"DEFAULTS[{goto.page}][{j}]" if src is None else f"v[{src}]" for j, src in enumerate(goto.fresh)]
        return "[" + ", ".join(parts) + "]"

    def template(self, text: str | None, scope: Scope, params: tuple[ir.Param, ...], display: bool = False) -> str:
        """A JS function (s, a) => string for a `{x}` / `{x.col}` template; parameters shadow variables.

        Selectors and typed text are exact (docs/semantics.md, Templates); a label shown to a person (display)
        reads values in words instead ("price_asc" -> "price: low to high", dates as dates).
        """
        if text is None:
            return "null"
        pieces: list[str] = []
        pos = 0
        for mt in _TEMPLATE.finditer(text):
            if mt.start() > pos:
                pieces.append(json.dumps(text[pos:mt.start()], ensure_ascii=False))
            pieces.append(self._placeholder(mt.group(1), mt.group(2), scope, params, display))
            pos = mt.end()
        if pos < len(text) or not pieces:
            pieces.append(json.dumps(text[pos:], ensure_ascii=False))
        return "(s, a) => " + " + ".join(pieces)

    def _placeholder(self, name: str, col: str | None, scope: Scope, params: tuple[ir.Param, ...],
                     display: bool = False) -> str:
        names = [p.name for p in params]
        if name in names:
            code, t = f"a[{names.index(name)}]", params[names.index(name)].type
        elif name in scope.page_slots or name in scope.session:
            slot = self.slot(name, scope)
            code, t = f"s[{slot.index}]", slot.type
        else:
            return '""'
        if col is None:
            return f"_disp({code})" if display else f"_fmt({code})"
        ref = T.strip_optional(t)
        if not isinstance(ref, ir.RefType) or ref.table not in self.exprs.tables:
            return '""'
        table = self.exprs.tables[ref.table]
        cols = [c.name for c in table.columns]
        if col not in cols:
            return '""'
        fmt = "_fmt2" if table.columns[cols.index(col)].type == "num" else "_disp" if display else "_fmt"
        return f"{fmt}(_col(_ROWS_{ref.table}, {code}, {cols.index(col)}))"

    def display_slot(self, action: ir.Action, scope: Scope) -> int:
        """The variable a select shows as its current value: the one the action assigns its parameter to."""
        params = {p.name for p in action.params}
        for eff in action.effects:
            if eff.op == "assign" and eff.key is None and isinstance(eff.value, ir.Name) and eff.value.id in params:
                return self.slot(eff.var, scope).index
        return -1

    def action(self, aid: int, action: ir.Action, page: ir.Page) -> str:
        scope = self.scopes[page.name].with_params(action.params)
        req, parts = "null", "[]"
        if action.requires:
            conds = " && ".join(f"_t({self.expr(r, scope)})" for r in action.requires)
            self.out.append(f"function _REQ_{aid}(s, a, m) {{\n  return {conds}\n}}")
            req = f"_REQ_{aid}"
            # Each conjunct alone, so that the page can say which field a disabled button still waits for.
            parts = "[" + ", ".join(f"(s, a, m) => _t({self.expr(c, scope)})" for c in requirements(action)) + "]"
        lines = [f"function _STEP_{aid}(s, a) {{", "  const m = {}"]
        updates = []
        pi = self.page_index[page.name]
        for i, eff in enumerate(self.lowered.effects(action, pi)):
            pre, update = self.effect(i, eff, scope)
            lines += pre
            updates.append(f"  v[{eff.slot.index}] = {update}")
        lines.append("  const v = s.slice()")
        lines += updates
        lines += [f"  return {self.navigate(self.lowered.goto(action, pi))}", "}"]
        self.out.append("\n".join(lines))
        domains = [domain_values(p.type, self.spec) for p in action.params]
        gui = ", ".join(
            "{" + f"op: {json.dumps(op.op)}, sel: {self.template(op.selector, scope, action.params)}, "
            f"text: {self.template(op.text, scope, action.params)}, until: {self.template(op.until, scope, action.params)}, "
            f"limit: {js_value(op.limit)}" + "}"
            for op in action.gui)
        tables = [row_table(self.spec, p.type) for p in action.params]
        return ("{" + f"id: {aid}, page: {self.page_index[page.name]}, name: {json.dumps(action.name)}, "
                f"words: {json.dumps(action_phrase(action.name, page=page.name), ensure_ascii=False)}, "
                f"paramTables: {json.dumps(tables)}, displaySlot: {self.display_slot(action, scope)}, "
                f"params: {json.dumps([p.name for p in action.params])}, domains: {js_value(tuple(domains))}, "
                f"label: {self.template(action.label, scope, action.params, display=True)}, goto: {js_value(action.goto)}, "
                f"req: {req}, parts: {parts}, step: _STEP_{aid}, gui: [{gui}]" + "}")

    def compile(self) -> str:
        self.out = ["// Generated by fsmc from the spec's IR; do not edit. See docs/semantics.md.",
                    "/* eslint-disable */",
                    "import { TABLES } from '../data.js'",
                    "import { _t, _and, _or, _eq, _has, _containsText, _col, _len, _first, _last, _sumMap, _natCmp, "
                    "_domCmp, _sortBy, _normSet, _normMap, _setAdd, _setRemove, _mapGet, _mapHas, _mapSet, _mapRemove, "
                    "_mapAdd, _clamp, _fmt, _fmt2, _disp, _pyslice } from './lib.js'"]
        self.tables()
        self.defaults()
        for pi in range(len(self.spec.pages)):
            for lv in self.lowered.views(pi):
                self.view(lv)
        actions = [self.action(aid, a, p) for aid, (p, a) in enumerate((p, a) for p in self.spec.pages for a in p.actions)]
        views = ", ".join(
            f"{json.dumps(p.name + '.' + v.name)}: {{full: {view_fn(p.name, v.name, True)}, shown: {view_fn(p.name, v.name)}}}"
            for p in self.spec.pages for v in p.views)
        self.out.append(f"export const ACTIONS = [\n  {(',' + chr(10) + '  ').join(actions)}\n]")
        self.out.append(f"export const VIEWS = {{{views}}}")
        self.out.append(f"export const PAGES = {json.dumps([p.name for p in self.spec.pages])}")
        self.out.append(f"export const SESSION_VARS = {json.dumps([v.name for v in self.spec.session])}")
        self.out.append(f"export const PAGE_VARS = {json.dumps([[v.name for v in p.vars] for p in self.spec.pages])}")
        self.out.append(f"export const ENTRY = {self.page_index[self.spec.site.entry]}")
        sess_norm = ", ".join(f"(x) => {self.normalise('x', v.type)}" for v in self.spec.session)
        page_norm = ", ".join("[" + ", ".join(f"(x) => {self.normalise('x', v.type)}" for v in p.vars) + "]"
                              for p in self.spec.pages)
        self.out.append(f"export const SESSION_NORM = [{sess_norm}]")
        self.out.append(f"export const PAGE_NORM = [{page_norm}]")
        return "\n".join(self.out) + "\n"


def compile_runtime(spec: ir.Spec) -> str:
    """The JS runtime module for a spec; raises CompileError if the spec cannot be executed."""
    return RuntimeCompiler(spec).compile()


__all__ = ["compile_runtime", "js_value"]
