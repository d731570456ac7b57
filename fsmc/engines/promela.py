"""Promela backend: the same model as small ints, one `d_step` branch per move, so SPIN can check it.

Encoding (see fsmc/engines/native/layout.py): the page and every variable are small ints; choices
and refs hold their index in domain order, ints their value, optionals 0 for none and index + 1
otherwise, sets a bitmask over the element domain, maps one byte per key (0 = absent, else value
index + 1). Variables of a page other than the current one are held at 0, so SPIN's states are
exactly the semantics' states. Views are precomputed by the reference semantics as tables over the
few variables they read, written once as C arrays outside the state vector. Each task instance is a
macro `goal_<task>_<n>` for use in LTL properties; `render(..., claim=(A, B))` adds the never claim of
`always A eventually B` (fsmc/properties/spin.py).

    spin -a model.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan
"""

from __future__ import annotations

import re

from fsmc import ir
from fsmc.engines.native.encoding import LoweringError, LVar
from fsmc.engines.native.lexpr import VD, B, Cond, K, LExpr, Pop, Pre, Tab, U, V, has_checked_table, reads
from fsmc.engines.native.lower import LModel, LMove, LUpdate, ModelBuilder
from fsmc.engines.native.model import lower
from fsmc.semantics import CompileError, Machine, format_value

MAX_SET = 31  # bits of a Promela int usable as a mask


class _Renderer:
    """Renders lexpr trees as Promela expressions.

    A precomputed table is written once, as a static C array (`c_decl`), and read where it is used
    with `c_expr { T3[...] }`, its index in C: the array lies outside SPIN's state vector, so it never
    tells two states apart, and pan.c stays small. LTL formulas cannot hold C code, so the goal
    macros (`trees=True`) write tables as conditional expressions instead, and table indices there
    become #define macros.
    """

    def __init__(self, model: LModel):
        self.model = model
        self.vars = model.layout.vars
        self.index_macros: dict[LExpr, str] = {}
        self.definitions: list[str] = []
        self.arrays: set[int] = set()  # the tables read from C arrays
        self.context = ""  # the move or goal being written, for error messages
        self.expansion: dict[str, int] = {}
        self.pre: list[LExpr | str] = []  # how Pre(i) renders in the move being written: an expression, or a temp
        self.trees = False

    def expr(self, e: LExpr) -> str:
        if isinstance(e, K):
            return str(e.value)
        if isinstance(e, V):
            if e.var < 0:
                return "page"
            name = self.vars[e.var].name
            return name if e.slot is None else f"{name}[{e.slot}]"
        if isinstance(e, VD):
            return f"{self.vars[e.var].name}[{self.expr(e.idx)}]"
        if isinstance(e, B):
            if e.op == "==" and e.left == V(-1) and isinstance(e.right, K):
                return f"(page == P_{self.model.layout.spec.pages[e.right.value].name})"
            if e.op == "+" and isinstance(e.right, K) and e.right.value < 0:
                return f"({self.expr(e.left)} - {-e.right.value})"
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, U):
            return f"({e.op}{self.expr(e.operand)})"
        if isinstance(e, Cond):
            return f"({self.expr(e.test)} -> {self.expr(e.then)} : {self.expr(e.other)})"
        if isinstance(e, Pop):
            m = self.expr(e.mask)
            return _popcount(m, e.bits)
        if isinstance(e, Pre):
            pre = self.pre[e.index]
            return pre if isinstance(pre, str) else self.expr(pre)
        if self.trees:
            return self.table(e)
        return f"c_expr {{ {self.c(e)} }}"

    def c(self, e: LExpr) -> str:
        """The expression in C, as pan.c reads the state (`now.x`), for the inside of a c_expr."""
        if isinstance(e, K):
            return str(e.value)
        if isinstance(e, V):
            if e.var < 0:
                return "now.page"
            name = self.vars[e.var].name
            return f"now.{name}" if e.slot is None else f"now.{name}[{e.slot}]"
        if isinstance(e, VD):
            return f"now.{self.vars[e.var].name}[{self.c(e.idx)}]"
        if isinstance(e, B):
            return f"({self.c(e.left)} {e.op} {self.c(e.right)})"
        if isinstance(e, U):
            return f"({e.op}{self.c(e.operand)})"
        if isinstance(e, Cond):
            return f"({self.c(e.test)} ? {self.c(e.then)} : {self.c(e.other)})"
        if isinstance(e, Pop):
            return _popcount(self.c(e.mask), e.bits)
        if isinstance(e, Pre):
            pre = self.pre[e.index]
            return f"now.{pre}" if isinstance(pre, str) else self.c(pre)
        self.arrays.add(e.table)
        idx = self.c(e.idx)
        if len(self.model.tables[e.table]) <= CHUNK:
            return f"T{e.table}[{idx}]"
        return f"T{e.table}[{idx} >> {CHUNK.bit_length() - 1}][{idx} & {CHUNK - 1}]"  # (SPIN takes a call for a side effect)

    def c_arrays(self) -> list[str]:
        """The c_decl blocks that define the tables the moves read.

        SPIN takes at most 64 KiB of text in one c_decl, so a table longer than CHUNK entries is
        written in chunks of CHUNK, one c_decl each, under an array of pointers to its chunks.
        """
        if not self.arrays:
            return []
        out = ["", "/* tables: views and other derived values, precomputed by fsmc; outside the state vector */"]
        for t in sorted(self.arrays):
            values = self.model.tables[t]
            lo, hi = min(values, default=0), max(values, default=0)
            ctype = "signed char" if lo >= -128 and hi <= 127 else "short" if lo >= -32768 and hi <= 32767 else "int"
            chunks = [values[i:i + CHUNK] for i in range(0, len(values), CHUNK)] or [()]
            if len(chunks) == 1:
                out.append(f"c_decl {{ static const {ctype} T{t}[{max(len(values), 1)}] = {{{_ints(values or (0,))}}}; }}")
                continue
            out += [f"c_decl {{ static const {ctype} T{t}_{k}[{len(c)}] = {{{_ints(c)}}}; }}" for k, c in enumerate(chunks)]
            out.append(f"c_decl {{ static const {ctype} *const T{t}[{len(chunks)}] = {{"
                       + ", ".join(f"T{t}_{k}" for k in range(len(chunks))) + "}; }")
        return out

    def table(self, e: Tab) -> str:
        values = self.model.tables[e.table]
        idx = self.index_macro(e.idx)
        if set(values) <= {0, 1} and len(values) <= MAX_SET:
            mask = sum(1 << i for i, v in enumerate(values) if v)
            return f"(({mask} >> {idx}) & 1)"
        runs: list[tuple[int, int]] = []  # (start, value)
        for i, v in enumerate(values):
            if not runs or runs[-1][1] != v:
                runs.append((i, v))
        if 2 * len(runs) * self.expanded_length(idx) > MAX_EXPANSION:
            raise LoweringError(f"{self.context}: a precomputed table of {len(values)} entries ({len(runs)} runs) over another "
                                "table is too large to write as a Promela expression, which an LTL formula needs; "
                                "the native explorer handles this spec")
        return self._tree(runs, idx)

    def _tree(self, runs: list[tuple[int, int]], idx: str) -> str:
        if len(runs) == 1:
            return str(runs[0][1])
        mid = len(runs) // 2
        return f"({idx} < {runs[mid][0]} -> {self._tree(runs[:mid], idx)} : {self._tree(runs[mid:], idx)})"

    def index_macro(self, idx: LExpr) -> str:
        if isinstance(idx, (K, V)):
            return self.expr(idx)
        if idx not in self.index_macros:
            text = self.expr(idx)
            name = f"IDX_{len(self.index_macros)}"
            self.index_macros[idx] = name
            self.definitions.append(f"#define {name} {text}")
            self.expansion[name] = self.expanded_length(text)
        return self.index_macros[idx]

    def expanded_length(self, text: str) -> int:
        """The length of text once the C preprocessor has expanded the index macros in it."""
        return len(text) + sum(self.expansion[m] - len(m) for m in _MACRO.findall(text))

    def macros(self) -> list[str]:
        return self.definitions


CHUNK = 4096  # entries of a table per c_decl: "-32768, " is 8 characters, and SPIN reads 64 KiB at most


def _ints(values: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, values))


def _popcount(mask: str, bits: int) -> str:
    return "(" + " + ".join(f"(({mask} >> {i}) & 1)" for i in range(bits)) + ")" if bits else "0"


_MACRO = re.compile(r"\bIDX_\d+\b")
MAX_EXPANSION = 4_000_000  # characters of one expression after macro expansion


def _promela_reads(e: LExpr, pre: tuple[LExpr, ...] | None) -> set[int]:
    """The variables an expression of a move reads in Promela, outside the c_expr of its tables.

    `pre`: the move's pre-state values where Pre(i) is written out, None where it reads a temp.
    """
    if isinstance(e, V):
        return {e.var}
    if isinstance(e, VD):
        return {e.var} | _promela_reads(e.idx, pre)
    if isinstance(e, Pre):
        return _promela_reads(pre[e.index], pre) if pre is not None else set()
    children: tuple[LExpr, ...] = ()
    if isinstance(e, B):
        children = (e.left, e.right)
    elif isinstance(e, U):
        children = (e.operand,)
    elif isinstance(e, Cond):
        children = (e.test, e.then, e.other)
    elif isinstance(e, Pop):
        children = (e.mask,)
    return set().union(*(_promela_reads(c, pre) for c in children))  # K and Tab: none


# ---------------------------------------------------------------- declarations


def _scalar_type(lo: int, hi: int, is_bool: bool) -> str:
    if is_bool:
        return "bool"
    if lo >= 0 and hi <= 255:
        return "byte"
    if lo >= -32768 and hi <= 32767:
        return "short"
    return "int"


def _declare(var: LVar, initial: tuple[int, ...] | None) -> str:
    """One global; `initial` is the stored default when the variable starts live, else it starts at 0."""
    init = initial or (0,) * var.nslots
    t = var.decl.type
    comment = f"/* {var.decl.name}: {_type_text(t)} */"
    if var.kind == "map":
        if len(set(init)) > 1:
            raise LoweringError(f"{var.decl.span}: the default of map '{var.decl.name}' is not empty, "
                                "which a Promela array declaration cannot express")
        return f"byte {var.name}[{var.nslots}] = {init[0]}; {comment}"
    if var.kind == "set":
        if len(var.domain) > MAX_SET:
            raise LoweringError(f"{var.decl.span}: set '{var.decl.name}' has {len(var.domain)} possible elements; "
                                f"the Promela backend holds at most {MAX_SET} in one int bitmask")
        return f"int {var.name} = {init[0]}; {comment}"
    lo, hi = var.offset, var.offset + len(var.domain) - 1
    ptype = _scalar_type(min(lo, 0), max(hi, 0), isinstance(t, ir.BoolType))
    return f"{ptype} {var.name} = {init[0]}; {comment}"


def _type_text(t: ir.Type) -> str:
    if isinstance(t, ir.IntType):
        return f"int[{t.lo}..{t.hi}]"
    if isinstance(t, ir.ChoiceType):
        return (t.name or "choice") + " {" + ", ".join(t.values) + "} as indices"
    if isinstance(t, ir.RefType):
        return f"ref {t.table} as row index"
    if isinstance(t, ir.OptionalType):
        return _type_text(t.inner) + "? (0 = none, else index + 1)"
    if isinstance(t, ir.SetType):
        return f"set<{_type_text(t.elem)}> as a bitmask"
    if isinstance(t, ir.MapType):
        return f"map<{_type_text(t.key)}, {_type_text(t.value)}>: per key 0 = absent, else value index + 1"
    return t.kind


# ---------------------------------------------------------------- moves


class _MoveWriter:
    def __init__(self, r: _Renderer, model: LModel):
        self.r, self.model = r, model
        self.layout = model.layout
        self.temps = 0

    def branch(self, mv: LMove) -> str:
        self.r.context = f"move {mv.label}"
        guard = self.r.expr(mv.guard)
        body = self.statements(mv)
        return f"  :: d_step {{ {guard} -> {'; '.join(body) if body else 'skip'} }}  /* {mv.label} */"

    def statements(self, mv: LMove) -> list[str]:
        written = {u.var for u in mv.updates}
        read_by_pre = {v for e in mv.pre for v, _ in reads(e)}
        out: list[str] = []
        if written & read_by_pre:
            self.temps = max(self.temps, len(mv.pre))
            out += [f"_t{i} = {self.r.expr(e)}" for i, e in enumerate(mv.pre)]
            self.r.pre = [f"_t{i}" for i in range(len(mv.pre))]
        else:
            self.r.pre = list(mv.pre)
        for u in mv.updates:
            out += self.update(u, mv)
        if mv.nav is not None:
            out += self.navigate(mv)
        if written & read_by_pre:
            out += [f"_t{i} = 0" for i in range(len(mv.pre))]
        return out

    def update(self, u: LUpdate, mv: LMove) -> list[str]:
        var = self.layout.vars[u.var]
        target = var.name
        if u.slot is not None:
            target += f"[{u.slot if isinstance(u.slot, int) else self.r.expr(u.slot)}]"
        out = [f"{target} = {self.r.expr(u.value)}"]
        if u.check is not None:
            out.append(f"assert({u.check[0]} <= {target} && {target} <= {u.check[1]})")
        if has_checked_table(u.value):
            out.append(f"assert({target} >= 0)")
        return out

    def navigate(self, mv: LMove) -> list[str]:
        assert mv.nav is not None
        nav, lay = mv.nav, self.layout
        carried = dict(nav.carry)
        out = []
        for v in lay.page_vars[nav.page]:
            var = lay.vars[v]
            if v in carried:
                if carried[v] != v:
                    out += self._copy(var, lay.vars[carried[v]])
                continue
            out += self._set(var, lay.default(var))
        if nav.page != mv.page:
            out += [s for v in lay.page_vars[mv.page] for s in self._set(lay.vars[v], (0,) * lay.vars[v].nslots)]
        out.append(f"page = P_{lay.spec.pages[nav.page].name}")
        return out

    def _set(self, var: LVar, values: tuple[int, ...]) -> list[str]:
        if var.kind == "map":
            return [f"{var.name}[{i}] = {c}" for i, c in enumerate(values)]
        return [f"{var.name} = {values[0]}"]

    def _copy(self, dst: LVar, src: LVar) -> list[str]:
        if dst.kind == "map":
            return [f"{dst.name}[{i}] = {src.name}[{i}]" for i in range(dst.nslots)]
        return [f"{dst.name} = {src.name}"]


def render(model: LModel, goals: bool = True, claim: tuple[LExpr, LExpr] | None = None) -> str:
    """The model as Promela; with `claim` (A, B) also a never claim that SPIN's `pan -a` refutes iff [](A -> <>B) holds."""
    lay = model.layout
    spec = lay.spec
    r = _Renderer(model)
    writer = _MoveWriter(r, model)
    branches = [writer.branch(mv) for mv in model.moves]
    claim_lines = _leads_to_claim(r, *claim) if claim is not None else []
    lines = [f"/* {spec.site.name}: generated by fsmc from the spec; do not edit. */", ""]
    lines += [f"#define P_{p.name} {i}" for i, p in enumerate(spec.pages)]
    lines += ["", f"byte page = P_{spec.pages[model.entry].name};", "", "/* session */"]
    lines += [_declare(lay.vars[v], lay.default(lay.vars[v])) for v in lay.session]
    for pi, page in enumerate(spec.pages):
        if lay.page_vars[pi]:
            lines += ["", f"/* page {page.name} (0 while not on it) */"]
            lines += [_declare(lay.vars[v], lay.default(lay.vars[v]) if pi == model.entry else None)
                      for v in lay.page_vars[pi]]
    if writer.temps:
        # scratch for right-hand sides read before any update; back to 0 at the end of every move,
        # so it never tells two states apart (SPIN's BFS does not accept hidden variables)
        lines += ["", "int " + ", ".join(f"_t{i}" for i in range(writer.temps)) + ";"]
    lines += r.c_arrays()
    r.trees = True
    goal_lines = _goals(model, r) if goals else []
    macros = r.macros()
    if macros:
        lines += ["", "/* table indices: views and other derived values, precomputed by fsmc */", *macros]
    lines += goal_lines
    lines += ["", "active proctype site()", "{", "end:", "  do", *branches, *_keep_read(model), "  od", "}", ""]
    return "\n".join(lines + claim_lines)


def _leads_to_claim(r: _Renderer, a: LExpr, b: LExpr) -> list[str]:
    """The never claim of !([](A -> <>B)), as `spin -f` writes it, over macros whose tables are read in C.

    An `ltl` block would be simpler, but SPIN's LTL parser takes no C code and no conditional
    expressions, while a claim is Promela and reads the tables as the moves do (c_expr). A path that
    ends (no move enabled) stays in its last state, so a dead end where B never holds refutes it too.
    """
    r.context = "the property"
    return [f"#define leads_a {r.expr(a)}", f"#define leads_b {r.expr(b)}",
            "never {  /* !([] (leads_a -> <> leads_b)) */", "T0_init:", "  do",
            "  :: (!(leads_b) && (leads_a)) -> goto accept_S4", "  :: (1) -> goto T0_init", "  od;",
            "accept_S4:", "  do", "  :: (!(leads_b)) -> goto accept_S4", "  od;", "}", ""]


def _keep_read(model: LModel) -> list[str]:
    """A branch that is never enabled but reads every variable no move reads.

    SPIN drops write-only variables from the state vector (a last order only a goal looks at),
    which would merge states the semantics tells apart.
    """
    read: set[int] = set()
    for mv in model.moves:
        exprs = [mv.guard, *(u.value for u in mv.updates),
                 *(u.slot for u in mv.updates if u.slot is not None and not isinstance(u.slot, int))]
        with_temps = bool({u.var for u in mv.updates} & {v for e in mv.pre for v, _ in reads(e)})
        if with_temps:  # the pre-state values are copied to temps in Promela (see _MoveWriter.statements)
            exprs += mv.pre
        pre = None if with_temps else tuple(mv.pre)
        read |= {v for e in exprs for v in _promela_reads(e, pre)}
        if mv.nav is not None:
            read |= {src for dst, src in mv.nav.carry if dst != src}  # a carry onto itself writes no copy
    unread = [var for var in model.layout.vars if var.id not in read]
    if not unread:
        return []
    names = " + ".join(f"{v.name}[0]" if v.kind == "map" else v.name for v in unread)
    return ["  /* never enabled: reading these keeps SPIN from dropping them as write-only */",
            f"  :: d_step {{ (page == 255 && ({names}) == 0) -> skip }}"]


def shared_builder(model: LModel) -> ModelBuilder:
    """A builder that lowers more expressions over `model` (goals, properties), adding to its tables."""
    builder = ModelBuilder(model.machine)
    builder.tables = model.tables
    builder._table_ids = {t: i for i, t in enumerate(model.tables)}  # noqa: SLF001 - share the tables
    return builder


def _goals(model: LModel, r: _Renderer) -> list[str]:
    builder = shared_builder(model)
    out = ["", "/* task goals, one macro per task instance, for LTL properties such as <> goal_x_0 */"]
    counts: dict[str, int] = {}
    for g in builder.goals():
        n = counts.get(g.task, 0)
        counts[g.task] = n + 1
        args = ", ".join(format_value(a) or "none" for a in g.args)
        r.context = f"goal of task {g.task}({args})"
        out.append(f"#define goal_{g.task}_{n} {r.expr(g.expr)}  /* {g.task}({args}) */")
    return out


def to_promela(spec: ir.Spec | Machine, goals: bool = True) -> str:
    """The spec as a Promela model; raises LoweringError naming any construct it cannot express."""
    try:
        machine = spec if isinstance(spec, Machine) else Machine(spec)
    except CompileError as e:
        raise LoweringError(f"the spec does not compile (run fsmc check): {e}") from e
    return render(lower(machine), goals)


__all__ = ["LoweringError", "render", "shared_builder", "to_promela"]
