"""The reference semantics: initial state, enabled moves, step, canonical keys, views, goals."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from fsmc import ir
from fsmc.semantics.compile import ExprCompiler, constant, tuple_display, view_fn
from fsmc.semantics.lowered import LEffect, LGoto, Lowered, LView, Order, Scope
from fsmc.semantics.runtime import NAMESPACE
from fsmc.types import domains as T

State = tuple[Any, ...]
"""(page index, session values..., page values...): hashable and canonical, so it is its own key."""

ExprSource = Callable[[ir.Expr, Scope], str]
"""Compiles an expression in a scope to Python source over `s`, `a` and `m`."""


class Move:
    """One parameter binding of one action: an edge of the state graph."""

    __slots__ = ("aid", "args", "action", "page", "fn", "index")

    def __init__(self, aid: int, args: tuple[Any, ...], action: ir.Action, page: str, fn: Callable[..., State]):
        self.aid, self.args, self.action, self.page, self.fn = aid, args, action, page, fn
        self.index = -1  # position in Machine.all_moves

    @property
    def name(self) -> str:
        return f"{self.page}.{self.action.name}"

    @property
    def params(self) -> dict[str, Any]:
        return {p.name: v for p, v in zip(self.action.params, self.args, strict=True)}

    def to_json(self) -> dict[str, Any]:
        return {"page": self.page, "action": self.action.name, "args": self.params}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.aid == other.aid and self.args == other.args

    def __hash__(self) -> int:
        return hash((self.aid, self.args))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"Move({self.name}({args}))"


class CompiledAction:
    """One action of one page, compiled: its precondition callable and its moves (one per argument tuple)."""

    __slots__ = ("action", "page", "req", "moves")

    def __init__(self, action: ir.Action, page: str):
        self.action, self.page = action, page
        self.req: Callable[[State, tuple[Any, ...], dict[str, Any]], bool] | None = None
        self.moves: list[Move] = []


VIEW_CACHE_LIMIT = 1 << 16
"""Distinct values of the slots a view reads that its rows are kept for, across states."""

_TEMPLATE = re.compile(r"\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\}")


def format_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, tuple):
        return ", ".join(format_value(x) for x in v)
    return str(v)


def render_template(template: str, bindings: dict[str, Any]) -> str:
    """Fill `{x}` and `{x.col}` placeholders; raises KeyError for a name not bound."""
    return _TEMPLATE.sub(lambda m: format_value(bindings[m.group(1)]), template)


def template_names(template: str) -> list[str]:
    return _TEMPLATE.findall(template)


class Machine:
    """A spec compiled to fast Python callables. The spec must have passed the checks."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.pages = spec.pages
        self.page_index = {p.name: i for i, p in enumerate(spec.pages)}
        self._ns: dict[str, Any] = dict(NAMESPACE)
        self._src: list[str] = []
        self._sorters: dict[Order, str] = {}
        self._compiler = ExprCompiler(spec)
        self.lowered = Lowered(spec)
        self.session_slots = self.lowered.session_slots
        self._nsess = len(spec.session)
        for t in spec.tables:
            k = [c.name for c in t.columns].index(t.key) if t.key in [c.name for c in t.columns] else 0
            self._ns[f"_ROWS_{t.name}"] = {row[k]: row for row in t.rows}
            self._ns[f"_KEYS_{t.name}"] = tuple(row[k] for row in t.rows)
        self._scopes = self.lowered.scopes
        self._actions: list[CompiledAction] = []
        self._by_page: list[list[CompiledAction]] = [[] for _ in spec.pages]
        self._defaults: list[tuple[Any, ...]] = []
        self._compile()

    # ---------------------------------------------------------------- for other compilers (checks, native engine)
    @property
    def namespace(self) -> dict[str, Any]:
        """The globals the generated code runs in (tables, sorters, compiled views, steps)."""
        return self._ns

    @property
    def actions(self) -> list[CompiledAction]:
        """Every action of every page, compiled, in the order of the global move indices."""
        return self._actions

    @property
    def session_defaults(self) -> tuple[Any, ...]:
        return self._session_defaults

    def page_defaults(self, page: int) -> tuple[Any, ...]:
        """The default values of page number `page`'s variables, in declaration order."""
        return self._defaults[page]

    def scope(self, page: int | None, params: tuple[ir.Param, ...] = ()) -> Scope:
        """The names visible on page number `page` (None: the session only) with these parameters bound."""
        return self.lowered.scope(page, params)

    def compile_expr(self, e: ir.Expr, scope: Scope) -> tuple[str, ir.Type]:
        """Python source for `e` over the state `s`, arguments `a` and view memo `m`, and its type."""
        return self._compiler.expr(e, scope)

    # ---------------------------------------------------------------- compilation
    def _sorter(self, order: Order) -> str:
        """The name of the sort key that puts values in `order`."""
        if order not in self._sorters:
            name = f"_SORT_{len(self._sorters)}"
            self._ns[name] = order.key()
            self._sorters[order] = name
        return self._sorters[order]

    def _expr(self, e: ir.Expr, scope: Scope) -> str:
        return self._compiler.expr(e, scope)[0]

    def _compile(self) -> None:
        empty = Scope(self.session_slots)
        self._session_defaults = tuple(self._const(v, empty) for v in self.spec.session)
        for pi, page in enumerate(self.pages):
            scope = self._scopes[pi]
            self._defaults.append(tuple(self._const(v, scope) for v in page.vars))
            for view in self.lowered.views(pi):
                self._compile_view(view)
        for pi, page in enumerate(self.pages):
            for action in page.actions:
                self._compile_action(action, pi)
        self._compile_tasks()
        code = "\n".join(self._src)
        exec(compile(code, f"<fsmc:{self.spec.site.name}>", "exec"), self._ns)  # noqa: S102 - generated
        for aid, ca in enumerate(self._actions):
            ca.req = self._ns.get(f"_REQ_{aid}")
            fn = self._ns[f"_STEP_{aid}"]
            domains = [T.domain_values(p.type, self.spec) for p in ca.action.params]
            ca.moves = [Move(aid, args, ca.action, ca.page, fn) for args in itertools.product(*domains)]
        self.all_moves: list[Move] = [mv for ca in self._actions for mv in ca.moves]
        for i, mv in enumerate(self.all_moves):
            mv.index = i

    def _const(self, var: ir.Var, scope: Scope) -> Any:
        value = constant(self._expr(var.default, scope), self._ns)
        return self._normalise(value, var.type)

    def _normalise(self, value: Any, t: ir.Type) -> Any:
        form = self.lowered.canonical(t)
        if form is None or not isinstance(value, (tuple, list)):
            return value
        key = self._ns[self._sorter(form.order)]
        if form.kind == "set":
            return tuple(sorted(set(value), key=key))
        return tuple(sorted(((k, v) for k, v in value), key=lambda kv: key(kv[0])))

    def _compile_view(self, lv: LView) -> None:
        """A view's rows, memoised per state in `m` and across states by the values of the slots it reads."""
        page, view, scope, inner = lv.page, lv.view, lv.scope, lv.row_scope
        source = f"_KEYS_{view.source}" if lv.from_table else f"{view_fn(page, view.source, True)}(s, m)"
        where = self._expr(view.where, inner) if view.where is not None else "True"
        memo, cache = f"F:{page}:{view.name}", f"_VC_{page}__{view.name}"
        self._ns[cache] = {}
        lines = [f"def {view_fn(page, view.name, True)}(s, m):",
                 f"    v = m.get({memo!r})",
                 "    if v is None:",
                 f"        k = {tuple_display([f's[{i}]' for i in lv.reads])}",
                 f"        v = {cache}.get(k)",
                 "        if v is None:",
                 f"            rows = [r for r in {source} if {where}]"]
        for key in lv.sorts:
            sort = f"rows.sort(key=lambda r: _sort_key({self._expr(key.key, inner)}), reverse={key.desc})"
            if key.when is not None:
                lines.append(f"            if {self._expr(key.when, scope)}:")
                lines.append(f"                {sort}")
            else:
                lines.append(f"            {sort}")
        lines += ["            v = tuple(rows)",
                  f"            if len({cache}) < {VIEW_CACHE_LIMIT}:",
                  f"                {cache}[k] = v",
                  f"        m[{memo!r}] = v",
                  "    return v"]
        lines.append(f"def {view_fn(page, view.name)}(s, m):")
        full = f"{view_fn(page, view.name, True)}(s, m)"
        if lv.page_slot is not None:
            i, n = lv.page_slot, lv.page_size
            lines.append(f"    return {full}[(s[{i}] - 1) * {n}:s[{i}] * {n}]")
        else:
            lines.append(f"    return {full}")
        self._src.extend(lines)

    def condition_code(self, action: ir.Action, pi: int, expr: ExprSource | None = None) -> str:
        """Whether `action` on page `pi` is enabled, as one Python expression over `s`, `a` and `m`."""
        expr = expr or self._expr
        scope = self._scopes[pi].with_params(action.params)
        return " and ".join(f"({expr(r, scope)})" for r in action.requires) or "True"

    def successor_code(self, action: ir.Action, pi: int, expr: ExprSource | None = None,
                       slots: list[str] | None = None) -> str:
        """The state after `action` on page `pi`, as one tuple display over the state before it (`s`, or its
        `slots` by name), the arguments (`a`) and the view memo (`m`): each effect's operands read the state
        before, its update applies to the target's value after the effects before it (docs/semantics.md)."""
        expr = expr or self._expr
        scope = self._scopes[pi].with_params(action.params)
        value = list(slots) if slots else [f"s[{k}]" for k in range(1 + self._nsess + len(self.pages[pi].vars))]
        for eff in self.lowered.effects(action, pi):
            k = eff.slot.index
            operand = expr(eff.value, scope) if eff.value is not None else ""
            key = expr(eff.key, scope) if eff.key is not None else ""
            value[k] = self._update(eff, value[k], operand, key)
        return self._navigate(self.lowered.goto(action, pi), value)

    def _update(self, eff: LEffect, cur: str, e: str, k: str) -> str:
        """The new value of the effect's target from its current value `cur`, its value `e` and its key `k`;
        each appears once, so updates of one target nest without evaluating anything twice."""
        sort = self._sorter(eff.order) if eff.order is not None else ""
        by = e if eff.sign > 0 else f"-({e})"
        lo, hi = eff.bounds or (-(2**62), 2**62)
        kind = eff.kind
        if kind == "default":
            assert eff.default is not None
            page, j = eff.default
            return repr(self._session_defaults[j] if page is None else self._defaults[page][j])
        code = {
            "assign": e, "assign_set": f"_norm_set({e}, {sort})", "assign_map": f"_norm_map({e}, {sort})",
            "put_entry": f"_map_set({cur}, {k}, {e}, {sort})",
            "add_clamped": f"min({hi}, max({lo}, {cur} + {by}))",
            "add_entry": f"_map_add({cur}, {k}, {by}, {lo}, {hi}, {sort})",
            "toggle": f"(not {cur})", "insert": f"_set_add({cur}, {e}, {sort})",
            "discard": f"_set_remove({cur}, {e})", "discard_key": f"_map_remove({cur}, {e})",
            "empty": "()", "none": "None",
        }
        return code[kind]

    def _compile_action(self, action: ir.Action, pi: int) -> None:
        aid = len(self._actions)
        ca = CompiledAction(action, self.pages[pi].name)
        self._actions.append(ca)
        self._by_page[pi].append(ca)
        if action.requires:
            self._src.append(f"def _REQ_{aid}(s, a, m):\n    return bool({self.condition_code(action, pi)})")
        self._src.append(f"def _STEP_{aid}(s, a):\n    m = {{}}\n    return {self.successor_code(action, pi)}")

    def _navigate(self, goto: LGoto | None, value: list[str]) -> str:
        """The successor's tuple display from each slot's new `value`: the same page, or the target page with
        the session kept and the target's variables carried or starting from their defaults."""
        if goto is None:
            return tuple_display(value)
        parts = [str(goto.page), *value[1:1 + goto.keep]]
        for j, src in enumerate(goto.fresh):
            parts.append(repr(self._defaults[goto.page][j]) if src is None else value[src])
        return tuple_display(parts)

    def _task_scope(self, task: ir.Task) -> Scope:
        base = self._scopes[self.page_index[task.page]] if task.page in self.page_index else Scope(self.session_slots)
        return base.with_params(task.params)

    def _compile_tasks(self) -> None:
        for i, task in enumerate(self.spec.tasks):
            scope = self._task_scope(task)
            cond = self._expr(task.goal, scope)
            if task.page is not None:
                cond = f"s[0] == {self.page_index[task.page]} and ({cond})"
            self._src.append(f"def _GOAL_{i}(s, a):\n    m = {{}}\n    return bool({cond})")
            if task.answer is not None:
                self._src.append(f"def _ANSWER_{i}(s, a):\n    m = {{}}\n    return {self._expr(task.answer, scope)}")

    # ---------------------------------------------------------------- the public semantics
    def initial(self) -> State:
        entry = self.page_index[self.spec.site.entry]
        return (entry, *self._session_defaults, *self._defaults[entry])

    def page_of(self, state: State) -> str:
        return self.pages[state[0]].name

    def moves(self, page: str) -> list[Move]:
        """Every move of a page, enabled or not, in canonical order."""
        return [mv for ca in self._by_page[self.page_index[page]] for mv in ca.moves]

    def enabled(self, state: State) -> list[Move]:
        memo: dict[str, Any] = {}
        out: list[Move] = []
        for ca in self._by_page[state[0]]:
            req = ca.req
            if req is None:
                out.extend(ca.moves)
            else:
                out.extend(mv for mv in ca.moves if req(state, mv.args, memo))
        return out

    def is_enabled(self, state: State, move: Move) -> bool:
        if move.page != self.pages[state[0]].name:
            return False
        req = self._actions[move.aid].req
        return req is None or req(state, move.args, {})

    def step(self, state: State, move: Move) -> State:
        """The successor state; a disabled move (or one of another page) changes nothing."""
        if not self.is_enabled(state, move):
            return state
        return move.fn(state, move.args)

    def successors(self, state: State) -> Iterator[tuple[Move, State]]:
        for mv in self.enabled(state):
            yield mv, mv.fn(state, mv.args)

    def key(self, state: State) -> State:
        """The canonical key: states are canonical tuples, equal iff the states are equal."""
        return state

    def find_move(self, page: str, action: str, args: dict[str, Any] | tuple[Any, ...] = ()) -> Move:
        for mv in self.moves(page):
            if mv.action.name == action:
                values = tuple(args[p.name] for p in mv.action.params) if isinstance(args, dict) else tuple(args)
                if mv.args == values:
                    return mv
        raise KeyError(f"no move {page}.{action}{tuple(args)!r}")

    # ---------------------------------------------------------------- state as data
    def variables(self, state: State) -> list[tuple[ir.Var, Any]]:
        page = self.pages[state[0]]
        return list(zip((*self.spec.session, *page.vars), state[1:], strict=True))

    def to_json(self, state: State) -> dict[str, Any]:
        def js(v: Any) -> Any:
            return [js(x) for x in v] if isinstance(v, tuple) else v

        return {"page": self.page_of(state), "vars": {var.name: js(v) for var, v in self.variables(state)}}

    def from_json(self, data: dict[str, Any]) -> State:
        pi = self.page_index[data["page"]]
        decls = (*self.spec.session, *self.pages[pi].vars)
        values = []
        for var in decls:
            raw = data["vars"][var.name]
            if isinstance(raw, list):
                raw = tuple(tuple(x) if isinstance(x, list) else x for x in raw)
            values.append(self._normalise(raw, T.strip_optional(var.type)))
        return (pi, *values)

    # ---------------------------------------------------------------- views, goals, templates
    def view(self, state: State, name: str, full: bool = False) -> tuple[Any, ...]:
        fn = self._ns.get(view_fn(self.page_of(state), name, full))
        if fn is None:
            raise KeyError(f"page '{self.page_of(state)}' has no view '{name}'")
        result: tuple[Any, ...] = fn(state, {})
        return result

    def task_args(self, task: ir.Task) -> list[tuple[Any, ...]]:
        return list(itertools.product(*(T.domain_values(p.type, self.spec) for p in task.params)))

    def goal(self, task: ir.Task | int) -> Callable[[State, tuple[Any, ...]], bool]:
        i = task if isinstance(task, int) else self.spec.tasks.index(task)
        fn: Callable[[State, tuple[Any, ...]], bool] = self._ns[f"_GOAL_{i}"]
        return fn

    def holds(self, task: ir.Task | int, args: tuple[Any, ...], state: State) -> bool:
        return self.goal(task)(state, args)

    def answer(self, task: ir.Task | int, args: tuple[Any, ...], state: State) -> Any:
        i = task if isinstance(task, int) else self.spec.tasks.index(task)
        fn = self._ns.get(f"_ANSWER_{i}")
        return None if fn is None else fn(state, args)

    def row(self, table: str, key: Any) -> dict[str, Any]:
        t = self.spec.table(table)
        return dict(zip((c.name for c in t.columns), self._ns[f"_ROWS_{table}"][key], strict=True))

    def _bind(self, out: dict[str, Any], name: str, value: Any, t: ir.Type) -> None:
        out[name] = value
        ref = T.strip_optional(t)
        if isinstance(ref, ir.RefType) and f"_ROWS_{ref.table}" in self._ns:
            cols = [c.name for c in self.spec.table(ref.table).columns]
            row = self._ns[f"_ROWS_{ref.table}"].get(value) if value is not None else None
            for j, col in enumerate(cols):
                out[f"{name}.{col}"] = None if row is None else row[j]

    def bindings(self, state: State, params: tuple[ir.Param, ...] = (), args: tuple[Any, ...] = ()) -> dict[str, Any]:
        """Every name a template may use in this state: variables, then parameters (which shadow them)."""
        out: dict[str, Any] = {}
        for var, value in self.variables(state):
            self._bind(out, var.name, value, var.type)
        for p, value in zip(params, args, strict=True):
            self._bind(out, p.name, value, p.type)
        return out

    def render(self, template: str, state: State, move: Move | None = None) -> str:
        params, args = (move.action.params, move.args) if move else ((), ())
        return render_template(template, self.bindings(state, params, args))


def state_difference(got: Any, want: dict[str, Any]) -> str:
    """What differs between a state in `Machine.to_json` form and the one expected: the page, else the variables."""
    if not isinstance(got, dict):
        return "the state is not an object"
    if got.get("page") != want.get("page"):
        return f"page {json.dumps(got.get('page'))}, expected {json.dumps(want.get('page'))}"
    has, needs = got.get("vars") or {}, want.get("vars") or {}

    def shown(values: dict[str, Any], name: str) -> str:
        return json.dumps(values[name], ensure_ascii=False) if name in values else "no such variable"

    names = list(needs) + [n for n in has if n not in needs]
    wrong = [f"{n} = {shown(has, n)} (expected {shown(needs, n)})"
             for n in names if n not in has or n not in needs or has[n] != needs[n]]
    return "; ".join(wrong[:5]) or "the states differ"
