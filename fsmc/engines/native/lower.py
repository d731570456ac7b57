"""Lowers expressions, moves and goals to small-int code (lexpr trees); views and the rest are tabulated.

Direct rules cover variables, literals, parameters (constants per move), map slots, set bits,
arithmetic and comparisons. Anything else whose value is a bool, an int or a finite domain (views:
`i in hits`, `count(hits)`, `first(hits)`; fields of a row held in a variable; string `contains`)
is precomputed by the reference semantics itself as a table indexed by the few variables it reads,
so the lowering cannot disagree with the Python semantics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.engines.native.encoding import Layout, LVar, build_layout, fail
from fsmc.engines.native.lexpr import (
    FALSE,
    TRUE,
    VD,
    B,
    Cond,
    K,
    LExpr,
    Pop,
    Tab,
    U,
    V,
    add,
    conj,
    disj,
    mul,
    neg,
)
from fsmc.semantics import Machine
from fsmc.semantics import lowered as L
from fsmc.semantics.lowered import CompileError, Scope
from fsmc.types import domains as T
from fsmc.types.builtins import OF_VIEW

TABLE_LIMIT = 1 << 18  # entries of one precomputed table


class _Fallback(Exception):
    """Internal: this node has no direct rule; the caller tabulates it (or its parent)."""


# ---------------------------------------------------------------- lowered values


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Num:
    """An int (or a 0/1 bool) held in code."""

    code: LExpr
    is_bool: bool = False


@dataclass(frozen=True)
class Enc:
    """An index into domain_values(type)."""

    code: LExpr
    type: ir.Type
    domain: tuple[Any, ...]


@dataclass(frozen=True)
class Mask:
    code: LExpr
    domain: tuple[Any, ...]


@dataclass(frozen=True)
class MapRef:
    var: LVar
    running: bool = False


@dataclass(frozen=True)
class ViewRef:
    view: ir.View


Low = Const | Num | Enc | Mask | MapRef | ViewRef


# ---------------------------------------------------------------- lowered moves


@dataclass(frozen=True)
class LUpdate:
    """Set a variable's stored value (one slot of a map when `slot` is given) to `value`."""

    var: int
    value: LExpr
    slot: int | LExpr | None = None
    check: tuple[int, int] | None = None  # stored bounds to check at run time


@dataclass(frozen=True)
class LNav:
    page: int
    carry: tuple[tuple[int, int], ...]  # (target variable, source variable of the old page)


@dataclass
class LMove:
    index: int
    page: int
    label: str
    guard: LExpr
    pre: list[LExpr] = field(default_factory=list)
    updates: list[LUpdate] = field(default_factory=list)
    nav: LNav | None = None


@dataclass(frozen=True)
class LGoal:
    task: str
    args: tuple[Any, ...]
    expr: LExpr


@dataclass
class LModel:
    layout: Layout
    moves: list[LMove]
    tables: list[tuple[int, ...]]
    entry: int

    @property
    def machine(self) -> Machine:
        return self.layout.machine


# ---------------------------------------------------------------- expressions


class ExprLowerer(ir.ExprVisitor[Low]):
    """Lowers the expressions of one move (or one task instance) on one page: one direct rule per node kind."""

    def __init__(self, model: ModelBuilder, page: int | None, scope: Scope,
                 params: tuple[ir.Param, ...], args: tuple[Any, ...]):
        self.m, self.page, self.scope = model, page, scope
        self.params = {p.name: (v, p.type) for p, v in zip(params, args, strict=True)}
        self.args = args
        self.layout = model.layout
        self.spec = model.layout.spec
        self.by_name = {self.layout.vars[v].decl.name: self.layout.vars[v] for v in self.layout.session}
        if page is not None:
            self.by_name.update({self.layout.vars[v].decl.name: self.layout.vars[v] for v in self.layout.page_vars[page]})

    # -------- entry points
    def boolean(self, e: ir.Expr) -> LExpr:
        try:
            return self.as_bool(self.value(e))
        except _Fallback as f:
            raise fail(e, "this condition", str(f) or "no rule for it") from None

    def value(self, e: ir.Expr) -> Low:
        try:
            return self.direct(e)
        except _Fallback:
            return self.tabulate(e, None)

    # -------- names and variables
    def var_value(self, var: LVar, running: bool = False) -> Low:
        if var.kind == "map":
            return MapRef(var, running)
        code = V(var.id, None, running)
        if var.kind == "set":
            return Mask(code, var.domain)
        t = var.decl.type
        if isinstance(t, ir.BoolType):
            return Num(code, True)
        if isinstance(t, ir.IntType):
            return Num(code)
        return Enc(code, t, var.domain)

    def resolve(self, name: str) -> Low:
        """A name as the semantics resolves it (`Scope.resolve`): an argument is a constant of this move."""
        ref = self.scope.resolve(name)
        if isinstance(ref, L.ArgRef):
            return Const(self.args[ref.index])
        if isinstance(ref, L.VarRef) and name in self.by_name:
            return self.var_value(self.by_name[name])
        if isinstance(ref, L.ViewRef):
            return ViewRef(ref.view)
        raise _Fallback(f"unknown name '{name}'")

    # -------- direct rules, one per node kind
    def direct(self, e: ir.Expr) -> Low:
        return self.visit(e)

    def visit_lit(self, e: ir.Lit) -> Low:
        return Const(e.value)

    def visit_name(self, e: ir.Name) -> Low:
        return self.resolve(e.id)

    def visit_set(self, e: ir.SetLit) -> Low:
        items = [self.value(i) for i in e.items]
        if all(isinstance(i, Const) for i in items):
            return Const(tuple(i.value for i in items if isinstance(i, Const)))
        raise _Fallback("no direct rule for SetLit")

    def visit_field(self, e: ir.GetField) -> Low:
        obj = self.value(e.obj)
        if not isinstance(obj, Const):
            raise _Fallback("field of a row held in the state")
        if obj.value is None:
            return Const(None)
        table = self._table_of(e.obj)
        cols = [c.name for c in table.columns]
        key = cols.index(table.key)
        row = next((r for r in table.rows if r[key] == obj.value), None)
        if row is None or e.field not in cols:
            raise _Fallback(f"no row '{obj.value}' or column '{e.field}'")
        return Const(row[cols.index(e.field)])

    def _table_of(self, e: ir.Expr) -> ir.Table:
        try:
            _, t = self.m.machine.compile_expr(e, self.scope)
        except CompileError as err:
            raise _Fallback(str(err)) from None
        ref = T.strip_optional(t)
        if not isinstance(ref, ir.RefType):
            raise _Fallback("a field of something that is not a row")
        return self.spec.table(ref.table)

    def visit_index(self, e: ir.Index) -> Low:
        obj, key = self.value(e.obj), self.value(e.key)
        if not isinstance(obj, MapRef):
            raise _Fallback("indexing something that is not a map variable")
        var = obj.var
        vt = var.decl.type.value if isinstance(var.decl.type, ir.MapType) else None
        if vt is None:
            raise _Fallback("not a map")
        opt = ir.OptionalType(inner=vt)
        dom = (None, *var.vdomain)
        if isinstance(key, Const):
            if key.value not in var.domain:
                return Const(None)
            return Enc(V(var.id, var.domain.index(key.value), obj.running), opt, dom)
        if isinstance(key, Enc) and key.domain == var.domain:
            return Enc(VD(var.id, key.code, obj.running), opt, dom)
        raise _Fallback("a map key of another domain")

    def visit_call(self, e: ir.Call) -> Low:
        if e.func not in ("len", "sum") or len(e.args) != 1:
            raise _Fallback(f"{e.func}()")
        arg = self.value(e.args[0])
        if isinstance(arg, Const) and isinstance(arg.value, tuple) and e.func == "len":
            return Const(len(arg.value))
        if isinstance(arg, Mask) and e.func == "len":
            return Num(Pop(arg.code, len(arg.domain)))
        if isinstance(arg, MapRef):
            return Num(self._map_len(arg) if e.func == "len" else self._map_sum(arg))
        raise _Fallback(f"{e.func}() of this value")

    def _map_len(self, m: MapRef) -> LExpr:
        total: LExpr = K(0)
        for i in range(m.var.nslots):
            total = add(total, B("!=", V(m.var.id, i, m.running), K(0)))
        return total

    def _map_sum(self, m: MapRef) -> LExpr:
        vd = m.var.vdomain
        if not vd or not all(isinstance(x, int) and not isinstance(x, bool) for x in vd) or list(vd) != list(
                range(vd[0], vd[0] + len(vd))):
            raise _Fallback("sum() of a map whose values are not a range of ints")
        total: LExpr = K(0)
        for i in range(m.var.nslots):
            slot = V(m.var.id, i, m.running)
            total = add(total, Cond(B("==", slot, K(0)), K(0), add(slot, K(vd[0] - 1))))
        return total

    def visit_unary(self, e: ir.Unary) -> Low:
        x = self.value(e.operand)
        if e.op == "not":
            if isinstance(x, Const):
                return Const(not x.value)
            return Num(neg(self.as_bool(x)), True)
        if isinstance(x, Const) and isinstance(x.value, (int, float)):
            return Const(-x.value)
        if isinstance(x, Num) and not x.is_bool:
            return Num(U("-", x.code))
        raise _Fallback("negating this value")

    # -------- binary operators
    def visit_binary(self, e: ir.Binary) -> Low:
        if e.op in ("and", "or"):
            return self.logic(e)
        left, right = self.value(e.left), self.value(e.right)
        if isinstance(left, Const) and isinstance(right, Const):
            return self.fold(e, left.value, right.value)
        if e.op in ("==", "!="):
            eq = self.equal(left, right)
            return Num(eq if e.op == "==" else neg(eq), True)
        if e.op in ("<", "<=", ">", ">="):
            return Num(B(e.op, self.as_int(left), self.as_int(right)), True)
        if e.op in ("+", "-", "*"):
            return Num(B(e.op, self.as_int(left), self.as_int(right)))
        if e.op in ("in", "not in"):
            inside = self.member(left, right)
            return Num(inside if e.op == "in" else neg(inside), True)
        if e.op == "contains" and isinstance(left, (Mask, MapRef)):
            return Num(self.member(right, left), True)
        raise _Fallback(f"operator '{e.op}' on these values")

    def logic(self, e: ir.Binary) -> Low:
        left, right = self.value(e.left), self.value(e.right)
        for x in (left, right):
            if not (isinstance(x, Const) and isinstance(x.value, bool)) and not (isinstance(x, Num) and x.is_bool):
                raise _Fallback("'and'/'or' of values that are not booleans")
        a, b = self.as_bool(left), self.as_bool(right)
        out = conj(a, b) if e.op == "and" else disj(a, b)
        return Const(bool(out.value)) if isinstance(out, K) else Num(out, True)

    def fold(self, e: ir.Binary, a: Any, b: Any) -> Low:
        from fsmc.semantics.runtime import contains_text

        try:
            ops: dict[str, Callable[[Any, Any], Any]] = {
                "==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
                "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
                "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
                "in": lambda x, y: x in y, "not in": lambda x, y: x not in y,
                "contains": lambda x, y: (y in x) if isinstance(x, tuple) else contains_text(x, y),
            }
            return Const(ops[e.op](a, b))
        except (TypeError, KeyError) as err:
            raise _Fallback(str(err)) from None

    def equal(self, a: Low, b: Low) -> LExpr:
        if isinstance(a, Const) and not isinstance(b, Const):
            a, b = b, a
        if isinstance(b, Const):
            return self.equal_const(a, b.value)
        if isinstance(a, Num) and isinstance(b, Num):
            return B("==", a.code, b.code)
        if isinstance(a, Enc) and isinstance(b, Enc):
            if a.domain == b.domain:
                return B("==", a.code, b.code)
            pairs = [(i, j) for i, x in enumerate(a.domain) for j, y in enumerate(b.domain) if x == y]
            if len(pairs) > 64:
                raise _Fallback("comparing two large domains")
            out: LExpr = FALSE
            for i, j in pairs:
                out = disj(out, conj(B("==", a.code, K(i)), B("==", b.code, K(j))))
            return out
        if isinstance(a, Mask) and isinstance(b, Mask) and a.domain == b.domain:
            return B("==", a.code, b.code)
        raise _Fallback("comparing these values")

    def equal_const(self, a: Low, v: Any) -> LExpr:
        if isinstance(a, Num):
            if isinstance(v, (bool, int)) or (isinstance(v, float) and v.is_integer()):
                return B("==", a.code, K(int(v)))
            return FALSE
        if isinstance(a, Enc):
            hits = [i for i, x in enumerate(a.domain) if x == v and type(x) is type(v)]
            return B("==", a.code, K(hits[0])) if hits else FALSE
        if isinstance(a, Mask):
            if not isinstance(v, tuple):
                return FALSE
            if not all(x in a.domain for x in v) or tuple(sorted(v, key=a.domain.index)) != v or len(set(v)) != len(v):
                return FALSE  # the state holds a normalised tuple; this literal never equals one
            return B("==", a.code, K(sum(1 << a.domain.index(x) for x in v)))
        if isinstance(a, MapRef) and v == ():
            return neg(self._map_len(a))
        raise _Fallback("comparing this value with a constant")

    def member(self, x: Low, coll: Low) -> LExpr:
        if isinstance(coll, Const) and isinstance(coll.value, tuple):
            out: LExpr = FALSE
            for item in coll.value:
                out = disj(out, self.equal(x, Const(item)))
            return out
        if isinstance(coll, Mask):
            code = self.index_in(x, coll.domain, allow_none=True)
            if code is None:
                return FALSE
            bit, nonnull = code
            return conj(nonnull, B("&", B(">>", coll.code, bit), K(1)))
        if isinstance(coll, MapRef):
            code = self.index_in(x, coll.var.domain, allow_none=True)
            if code is None:
                return FALSE
            idx, nonnull = code
            slot: LExpr = V(coll.var.id, idx.value, coll.running) if isinstance(idx, K) else VD(coll.var.id, idx, coll.running)
            return conj(nonnull, B("!=", slot, K(0)))
        raise _Fallback("membership in this value")

    def index_in(self, x: Low, domain: tuple[Any, ...], allow_none: bool = False) -> tuple[LExpr, LExpr] | None:
        """(index of x in domain, condition that x is not none), or None when x is never in it."""
        if isinstance(x, Const):
            hits = [i for i, d in enumerate(domain) if d == x.value and type(d) is type(x.value)]
            return (K(hits[0]), TRUE) if hits else None
        if isinstance(x, Enc):
            if x.domain == domain:
                return x.code, TRUE
            if allow_none and x.domain == (None, *domain):
                return add(x.code, K(-1)), B("!=", x.code, K(0))
        raise _Fallback("a value of another domain")

    # -------- conversions
    def as_bool(self, x: Low) -> LExpr:
        if isinstance(x, Const):
            return K(int(bool(x.value)))
        if isinstance(x, Num):
            return x.code if x.is_bool else B("!=", x.code, K(0))
        if isinstance(x, Mask):
            return B("!=", x.code, K(0))
        if isinstance(x, MapRef):
            return B("!=", self._map_len(x), K(0))
        if isinstance(x, Enc):
            falsy = [i for i, v in enumerate(x.domain) if not v]
            if not falsy:
                return TRUE
            out: LExpr = TRUE
            for i in falsy:
                out = conj(out, B("!=", x.code, K(i)))
            return out
        raise _Fallback("the truth of a view")

    def as_int(self, x: Low) -> LExpr:
        if isinstance(x, Const) and isinstance(x.value, (bool, int)):
            return K(int(x.value))
        if isinstance(x, Num):
            return x.code
        ints = x.domain[1:] if isinstance(x, Enc) and x.domain[:1] == (None,) else ()
        if isinstance(x, Enc) and ints and all(type(v) is int for v in ints) and ints[0] >= 0:
            # an optional int such as m[k]: none has no order in the semantics (it raises), so it reads -1
            # from a checked table, which the native explorer reports as an error if ever reached
            return Tab(self.m.add_table([-1, *ints]), x.code, checked=True)
        raise _Fallback("arithmetic on a value that is not an int")

    def to_code(self, x: Low, e: ir.Expr, t: ir.Type) -> tuple[LExpr, tuple[int, int] | None]:
        """The index of value x (of expression e) in domain_values(t), and the code bounds to check."""
        dom = self._domain(t, e)
        if isinstance(x, Const):
            hits = [i for i, d in enumerate(dom) if d == x.value and type(d) is type(x.value)]
            if not hits:
                raise fail(e, f"the value {x.value!r}", "it lies outside the domain it is stored in")
            return K(hits[0]), None
        if isinstance(x, Enc) and x.domain == dom:
            return x.code, None
        if isinstance(x, Enc) and dom == (None, *x.domain):
            return add(x.code, K(1)), None
        if isinstance(x, Num) and isinstance(T.strip_optional(t), (ir.IntType, ir.BoolType)):
            base = T.strip_optional(t)
            lo = base.lo if isinstance(base, ir.IntType) else 0
            shift = 1 if isinstance(t, ir.OptionalType) else 0
            return add(x.code, K(shift - lo)), (shift, len(dom) - 1)
        tab = self.tabulate(e, t)
        assert isinstance(tab, Enc)
        return tab.code, None

    def _domain(self, t: ir.Type, node: ir.Node) -> tuple[Any, ...]:
        try:
            return T.domain_values(t, self.spec)
        except (ValueError, KeyError) as err:
            raise fail(node, f"a value of type {t.kind}", str(err)) from None

    # -------- tabulation
    def tabulate(self, e: ir.Expr, target: ir.Type | None) -> Low:
        try:
            code, t = self.m.machine.compile_expr(e, self.scope)
        except CompileError as err:
            raise _Fallback(str(err)) from None
        reads = sorted(self.m.reads(e, self.scope, set(self.params)))
        size = self.m.size(reads)
        idx: LExpr | None
        if size <= TABLE_LIMIT:
            states = self.m.combos(self.page, reads, size)
            idx = self.m.table_index(reads) if reads else None
        else:
            through = self._through_view(e)
            if through is None:
                raise _Fallback(f"precomputing it would take a table of {size} entries (limit {TABLE_LIMIT})")
            states, idx = through
        kind = target or t
        results = self.m.evaluate(code, states, self.args)
        values, checked = self._encode_table(results, kind, e, target is not None)
        if idx is None:
            return self._constant(values[0], kind, checked)
        tab = Tab(self.m.add_table(values), idx, checked)
        if target is not None or self._finite(kind):
            return Enc(tab, kind, self._domain(kind, e))
        return Num(tab, isinstance(kind, ir.BoolType))

    def _through_view(self, e: ir.Expr) -> tuple[list[_Combo], LExpr] | None:
        """Tabulate over (which result the one view it reads shows, the other variables it reads)."""
        names = {n for n in ir.expr_names(e, set()) if n not in self.params and self.m.is_view(n, self.scope)}
        if len(names) != 1 or self.page is None:
            return None
        view = self.scope.view(names.pop())
        assert view is not None
        ids = self.m.view_ids(view, self.scope, self.page, True)
        other = sorted(self.m.reads(e, self.scope, set(self.params) | {view.name}))
        if ids is None or set(other) & ids.reads or len(ids.reps) * self.m.size(other) > TABLE_LIMIT:
            return None
        states = self.m.overlay(ids.reps, other)
        return states, add(ids.idx, mul(self.m.table_index(other), len(ids.reps)))

    def _constant(self, value: int, kind: ir.Type, checked: bool) -> Low:
        if checked and value < 0:
            raise _Fallback("its value lies outside the domain")
        if self._finite(kind):
            return Enc(K(value), kind, T.domain_values(kind, self.spec))
        return Const(bool(value)) if isinstance(kind, ir.BoolType) else Const(value)

    def _finite(self, t: ir.Type) -> bool:
        return isinstance(T.strip_optional(t), (ir.ChoiceType, ir.RefType)) or (
            isinstance(t, ir.OptionalType) and isinstance(t.inner, (ir.BoolType, ir.IntType)))

    def _encode_table(self, results: list[Any], kind: ir.Type, e: ir.Expr, target: bool) -> tuple[list[int], bool]:
        errors = [r for r in results if isinstance(r, _Raised)]
        if isinstance(kind, ir.BoolType) and not target:
            if errors or not all(isinstance(r, bool) for r in results):
                raise _Fallback("evaluating it raises in some states")
            return [int(r) for r in results], False
        if not target and not self._finite(kind):
            if errors or not all(isinstance(r, int) for r in results) or kind.kind not in ("int", "named"):
                raise _Fallback(f"a value of type {getattr(kind, 'name', kind.kind)} has no small-int form")
            return [int(r) for r in results], False
        dom = self._domain(kind, e)
        index = {(type(d), d): i for i, d in enumerate(dom)}
        out = [index.get((type(r), r), -1) for r in results]
        return out, -1 in out


_Combo = tuple[tuple[Any, ...], dict[str, Any]]
"""A Python state and the memo its views fill."""


@dataclass(frozen=True)
class _ViewIds:
    idx: LExpr  # computes the result's id from the state
    reps: list[tuple[Any, ...]]  # one state showing each result
    reads: set[int]


class _Raised:
    """A table entry whose evaluation raised in the reference semantics."""


# ---------------------------------------------------------------- the model


class ModelBuilder:
    """Lowers a whole machine: variables, one LMove per move of machine.all_moves, and task goals."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self.layout = build_layout(machine)
        self.tables: list[tuple[int, ...]] = []
        self._table_ids: dict[tuple[int, ...], int] = {}
        self._combo_cache: dict[tuple[int | None, tuple[int, ...]], list[_Combo]] = {}
        self._view_ids: dict[tuple[int, str, bool], _ViewIds | None] = {}

    # -------- tables
    def add_table(self, values: list[int]) -> int:
        key = tuple(values)
        if key not in self._table_ids:
            self._table_ids[key] = len(self.tables)
            self.tables.append(key)
        return self._table_ids[key]

    def var_code(self, var: LVar) -> LExpr:
        """The whole-variable code of var in the pre-state (mixed radix over map slots)."""
        if var.kind == "scalar":
            return add(V(var.id), K(-var.offset))
        if var.kind == "set":
            return V(var.id)
        out: LExpr = K(0)
        for i in range(var.nslots):
            out = add(out, mul(V(var.id, i), var.field_size ** i))
        return out

    def table_index(self, reads: list[int]) -> LExpr:
        out: LExpr = K(0)
        stride = 1
        for v in reads:
            var = self.layout.vars[v]
            out = add(out, mul(self.var_code(var), stride))
            stride *= var.radix
        return out

    def size(self, reads: list[int]) -> int:
        n = 1
        for v in reads:
            n *= self.layout.vars[v].radix
        return n

    def evaluate(self, code: str, states: list[_Combo], args: tuple[Any, ...]) -> list[Any]:
        """The value of compiled expression `code` in each of `states`."""
        fn = eval(f"lambda s, a, m: {code}", self.machine.namespace)  # noqa: S307 - the semantics' own code
        out: list[Any] = []
        for state, memo in states:
            try:
                out.append(fn(state, args, memo))
            except Exception:  # noqa: BLE001 - the spec's expression may fail in states it never reaches
                out.append(_Raised())
        return out

    def combos(self, page: int | None, reads: list[int], size: int) -> list[_Combo]:
        """Every state that differs from the defaults in `reads`, with a memo the views fill once."""
        key = (page, tuple(reads))
        if key not in self._combo_cache:
            self._combo_cache[key] = self.overlay([tuple(self.layout.base_state(page))], reads)
        return self._combo_cache[key]

    def overlay(self, bases: list[tuple[Any, ...]], reads: list[int]) -> list[_Combo]:
        """Each base state with each combination of `reads`; the base varies fastest."""
        vars_ = [self.layout.vars[v] for v in reads]
        out: list[_Combo] = []
        for i in range(self.size(reads)):
            values = []
            rest = i
            for var in vars_:
                rest, c = divmod(rest, var.radix)
                values.append((var.state_index, var.decode(var.split(c))))
            for base in bases:
                state = list(base)
                for k, value in values:
                    state[k] = value
                out.append((tuple(state), {}))
        return out

    # -------- views as small ints: which distinct result a view shows
    def is_view(self, name: str, scope: Scope) -> bool:
        return name not in scope.page_slots and scope.view(name) is not None

    def view_ids(self, view: ir.View, scope: Scope, page: int, top: bool) -> _ViewIds | None:
        """An index of the distinct results of a view (its rows, and its page of them when `top`).

        A view over another view is indexed through the source's index when their variables are
        disjoint, so filters stacked on a search stay small.
        """
        key = (page, view.name, top)
        if key not in self._view_ids:
            self._view_ids[key] = self._build_view_ids(view, scope, page, top)
        return self._view_ids[key]

    def _build_view_ids(self, view: ir.View, scope: Scope, page: int, top: bool) -> _ViewIds | None:
        own = sorted(self.view_reads(view, scope, frozenset(), True, top, recurse=False))
        source = scope.view(view.source)
        sub = self.view_ids(source, scope, page, False) if source is not None else None
        if sub is not None and not set(own) & sub.reads:
            if len(sub.reps) * self.size(own) > TABLE_LIMIT:
                return None
            states = [s for s, _ in self.overlay(sub.reps, own)]
            idx = add(sub.idx, mul(self.table_index(own), len(sub.reps)))
            reads = sub.reads | set(own)
        else:
            flat = sorted(self.view_reads(view, scope, frozenset(), True, top))
            if self.size(flat) > TABLE_LIMIT:
                return None
            states = [s for s, _ in self.overlay([tuple(self.layout.base_state(page))], flat)]
            idx, reads = self.table_index(flat), set(flat)
        seen: dict[Any, int] = {}
        values: list[int] = []
        reps: list[tuple[Any, ...]] = []
        for state in states:
            sig = (self.machine.view(state, view.name, full=True), self.machine.view(state, view.name) if top else ())
            i = seen.setdefault(sig, len(seen))
            if i == len(reps):
                reps.append(state)
            values.append(i)
        return _ViewIds(Tab(self.add_table(values), idx) if len(reps) > 1 else K(0), reps, reads)

    # -------- which variables an expression reads
    def reads(self, e: ir.Expr, scope: Scope, shadowed: set[str], alias: str | None = None) -> set[int]:
        if isinstance(e, ir.Name):
            return set() if e.id in shadowed or e.id == alias else self._name_reads(e.id, scope, True)
        if isinstance(e, ir.Call) and e.func in OF_VIEW and len(e.args) == 1:
            arg = e.args[0]
            view = scope.view(arg.id) if isinstance(arg, ir.Name) and arg.id not in shadowed else None
            if view is not None:  # the number of rows: neither the order nor the page matters
                return self.view_reads(view, scope, frozenset(), ordered=False)
        out: set[int] = set()
        for child in ir.children(e):
            out |= self.reads(child, scope, shadowed, alias)
        return out

    def _name_reads(self, name: str, scope: Scope, ordered: bool) -> set[int]:
        page = self._page_of(scope)
        if page is not None and name in scope.page_slots:
            return {v for v in self.layout.page_vars[page] if self.layout.vars[v].decl.name == name}
        view = scope.view(name)
        if view is not None:
            return self.view_reads(view, scope, frozenset(), ordered, paginated=True)
        return {v for v in self.layout.session if self.layout.vars[v].decl.name == name}

    def view_reads(self, view: ir.View, scope: Scope, seen: frozenset[str], ordered: bool,
                   paginated: bool = False, recurse: bool = True) -> set[int]:
        """The variables a view's rows depend on: the filter always, the order and page when they matter."""
        if view.name in seen:
            return set()
        out = set() if view.where is None else self.reads(view.where, scope, set(), view.alias)
        if ordered:
            for k in view.order:
                out |= self.reads(k.expr, scope, set(), view.alias)
                if k.when is not None:
                    out |= self.reads(k.when, scope, set())
        if paginated and view.page_var:
            out |= self._name_reads(view.page_var, scope, False)
        source = scope.view(view.source)
        if source is not None and recurse:
            out |= self.view_reads(source, scope, seen | {view.name}, ordered)
        return out

    def _page_of(self, scope: Scope) -> int | None:
        return None if scope.page is None else self.machine.page_index[scope.page.name]

    # -------- moves
    def scope_for(self, page: int | None, params: tuple[ir.Param, ...]) -> Scope:
        return self.machine.scope(page, params)

    def goals(self) -> list[LGoal]:
        out = []
        for task in self.machine.spec.tasks:
            page = self.machine.page_index.get(task.page) if task.page else None
            if task.page and page is None:
                raise fail(task, f"task '{task.name}'", f"unknown page '{task.page}'")
            scope = self.scope_for(page, task.params)
            for args in self.machine.task_args(task):
                low = ExprLowerer(self, page, scope, task.params, args)
                expr = low.boolean(task.goal)
                if page is not None:
                    expr = conj(B("==", PAGE, K(page)), expr)
                out.append(LGoal(task.name, args, expr))
        return out


PAGE = V(-1)
"""The current page index (variable id -1)."""
