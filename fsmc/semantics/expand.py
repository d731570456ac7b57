"""One generated function per page that expands a state: every enabled move, its successor, in canonical order.

The search calls `_EXPAND_<page>(s, seen, found, fired)` once per state instead of a precondition and a step
function per move. Its successors are the machine's own `successor_code` (what `_STEP_<aid>` returns) and
its tests the action's requires, so it means what `Machine.enabled` and `Machine.step` mean; only the loop
is new. The results page of the bench shop (bench/enumerate.py) gives:

    def _EXPAND_1(s, seen, found, fired):
        _, s1, s2, s3, s4, s5 = s
        m = {}
        # results.filter(b)
        c = _CAND_3.get(s3)
        if c is None:
            c = _CAND_3[s3] = tuple((mi, a) for mi, a in _MOVES_3 if (a[0] != s3))
        for mi, (a0,) in c:
            fired[mi] = 1
            t = (1, s1, s2, a0, s4, 1)
            if t not in seen:
                found(t, mi)
        ...
        # results.add(p)
        c = _CAND_7.get((s3, s4, s5))
        if c is None:
            c = _CAND_7[(s3, s4, s5)] = tuple((mi, a) for mi, a in _MOVES_7 if (a[0] in _V_results__hits(s, m)))
        for mi, (a0,) in c:
            if (_map_has(s1, a0) or (len(s1) < 3)):
                fired[mi] = 1
                t = (1, _map_add(s1, a0, 1, 1, 3, _SORT_0), s2, s3, s4, s5)
                if t not in seen:
                    found(t, mi)

The state is unpacked once into `s1`, `s2`, ... (its page, `s[0]`, is the expander's own) and each move's
arguments into `a0`, `a1`, ...; views still read `s`, and the view memo `m` holds them for this state.
`fired[mi]` marks move `mi` enabled; `found(t, mi)` hears each successor not in `seen` when it is made, so
a state two moves reach is reported once if `found` adds it to `seen`.

The requires of an action are split, `and` by `and`: the leading tests that read only state slots with few
values together (at most CANDIDATES) decide once per value of those slots which moves pass them
(`_CAND_<aid>`, kept across states); the rest are tried on those moves only. When no test is kept so,
a view the first test reads whatever the values (not behind an `and`/`or`) is read once before the loop
(`w_<view>`), since its first move reads it anyway.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from fsmc import ir
from fsmc.ir.visit import conjuncts
from fsmc.semantics.compile import Compiled, ExprCompiler, tuple_display, view_fn
from fsmc.semantics.lowered import ArgRef, Scope, VarRef, ViewRef, expr_slots
from fsmc.types import domains as T
from fsmc.types.builtins import OF_VIEW

if TYPE_CHECKING:
    from fsmc.semantics.machine import CompiledAction, Machine, State

Found = Callable[["State", int], None]
Expander = Callable[["State", Any, Found, bytearray], None]
"""expand(state, seen, found, fired): calls found(successor, move index) for each successor not in `seen`."""

CANDIDATES = 4096
"""The most values the slots an action's leading tests read may take together for their verdicts to be kept."""


class _Locals(ExprCompiler):
    """Compiles expressions over the state's slots unpacked into locals `s<k>`, the arguments into `a<i>` (with
    `args`) and the named views read into `w_<view>` before the loop."""

    def __init__(self, spec: ir.Spec, hoisted: set[str] = frozenset(), args: bool = True):  # type: ignore[assignment]
        super().__init__(spec)
        self.hoisted, self.args = hoisted, args

    def visit_name(self, node: ir.Name, scope: Scope) -> Compiled:
        code, t = super().visit_name(node, scope)
        ref = scope.resolve(node.id)
        if isinstance(ref, VarRef):
            return f"s{ref.slot.index}", t
        if isinstance(ref, ArgRef) and self.args:
            return f"a{ref.index}", t
        if isinstance(ref, ViewRef) and node.id in self.hoisted:
            return f"w_{node.id}", t
        return code, t


def always_read_views(e: ir.Expr, scope: Scope) -> Iterator[str]:
    """The views `e` reads (paginated) whatever the values: none behind the right side of an `and` or `or`."""
    if isinstance(e, ir.Name):
        if isinstance(scope.resolve(e.id), ViewRef):
            yield e.id
    elif isinstance(e, ir.Binary):
        yield from always_read_views(e.left, scope)
        if e.op not in ("and", "or"):
            yield from always_read_views(e.right, scope)
    elif isinstance(e, ir.Unary):
        yield from always_read_views(e.operand, scope)
    elif isinstance(e, ir.GetField):
        yield from always_read_views(e.obj, scope)
    elif isinstance(e, ir.Index):
        yield from always_read_views(e.obj, scope)
        yield from always_read_views(e.key, scope)
    elif isinstance(e, ir.Call) and e.func not in OF_VIEW:  # those read the full rows, not the page
        for arg in e.args:
            yield from always_read_views(arg, scope)
    elif isinstance(e, ir.SetLit):
        for item in e.items:
            yield from always_read_views(item, scope)


def _values(slots: tuple[int, ...], machine: Machine, pi: int) -> float:
    """How many values these slots of page `pi`'s states take together (inf for an unbounded domain)."""
    decls = (*machine.spec.session, *machine.pages[pi].vars)
    try:
        return math.prod(T.domain_size(decls[k - 1].type, machine.spec) for k in slots)
    except ValueError:
        return math.inf


def _split(tests: list[ir.Expr], scope: Scope, machine: Machine, pi: int) -> tuple[int, tuple[int, ...]]:
    """How many leading tests read slots with at most CANDIDATES values together, and those slots."""
    slots: tuple[int, ...] = ()
    for n, e in enumerate(tests):
        more = tuple(sorted({*slots, *expr_slots(e, scope)}))
        if _values(more, machine, pi) > CANDIDATES:
            return n, slots
        slots = more
    return len(tests), slots


def _reads_view(e: ir.Expr, scope: Scope) -> bool:
    return any(isinstance(scope.resolve(n), ViewRef) for n in ir.expr_names(e, set()))


def _conjunction(codes: list[str]) -> str:
    return codes[0] if len(codes) == 1 else " and ".join(f"({c})" for c in codes)


def _action_lines(machine: Machine, ca: CompiledAction, aid: int, pi: int) -> list[str]:
    """The lines of one action in its page's expander: its moves, each tried in order.

    Verdicts are kept for an action with parameters (its tests would run once per move) or one whose kept
    tests read a view (a lookup costs less than reading it).
    """
    action = ca.action
    scope = machine.scope(pi, action.params)
    tests = conjuncts(*action.requires)
    kept, slots = _split(tests, scope, machine, pi)
    if not action.params and not any(_reads_view(e, scope) for e in tests[:kept]):
        kept = 0
    rest = tests[kept:]
    hoisted = dict.fromkeys(always_read_views(rest[0], scope)) if action.params and rest and not kept else {}
    compiler = _Locals(machine.spec, set(hoisted))

    def expr(e: ir.Expr, sc: Scope) -> str:
        return compiler.expr(e, sc)[0]

    lines = [f"    # {ca.page}.{action.name}" + (f"({', '.join(p.name for p in action.params)})" if action.params else "")]
    looped = bool(action.params or kept)
    if looped:
        machine.namespace[f"_MOVES_{aid}"] = tuple((mv.index, mv.args) for mv in ca.moves)
        moves = f"_MOVES_{aid}"
        if kept:
            machine.namespace[f"_CAND_{aid}"] = {}
            key = f"s{slots[0]}" if len(slots) == 1 else tuple_display([f"s{k}" for k in slots])
            decide = _Locals(machine.spec, args=False)  # in the generator below, `a` is each move's arguments
            test = _conjunction([decide.expr(e, scope)[0] for e in tests[:kept]])
            lines += [f"    c = _CAND_{aid}.get({key})",
                      "    if c is None:",
                      f"        c = _CAND_{aid}[{key}] = tuple((mi, a) for mi, a in _MOVES_{aid} if {test})"]
            moves = "c"
        lines += [f"    w_{v} = {view_fn(ca.page, v)}(s, m)" for v in hoisted]
        args = tuple_display([f"a{i}" for i in range(len(action.params))]) if action.params else "_"
        lines.append(f"    for mi, {args} in {moves}:")
    mi = "mi" if looped else str(ca.moves[0].index)
    succ = machine.successor_code(action, pi, expr, [str(pi), *(f"s{k}" for k in range(1, _width(machine, pi)))])
    body = [f"fired[{mi}] = 1", f"t = {succ}", "if t not in seen:", f"    found(t, {mi})"]
    indent = " " * (8 if looped else 4)
    if rest:
        lines.append(f"{indent}if {_conjunction([expr(e, scope) for e in rest])}:")
        indent += "    "
    return lines + [indent + line for line in body]


def _width(machine: Machine, pi: int) -> int:
    """The length of page `pi`'s states: the page, the session's values and the page's."""
    return 1 + len(machine.spec.session) + len(machine.pages[pi].vars)


def expander_source(machine: Machine, pi: int) -> str:
    """The source of page `pi`'s expander, `_EXPAND_<pi>`; it starts by unpacking the state into `s1`, `s2`, ..."""
    unpack = ["_", *(f"s{k}" for k in range(1, _width(machine, pi)))]
    body: list[str] = []
    for aid, ca in enumerate(machine.actions):
        if ca.page == machine.pages[pi].name and ca.moves:
            body += _action_lines(machine, ca, aid, pi)
    memo = ["    m = {}"] if any("(s, m)" in line for line in body) else []  # the views read in this state
    return "\n".join([f"def _EXPAND_{pi}(s, seen, found, fired):",
                      f"    {', '.join(unpack)}{',' * (len(unpack) == 1)} = s", *memo, *body])


def compile_expanders(machine: Machine) -> list[Expander]:
    """Every page's expander, compiled into the machine's namespace on the first call; index by a state's page, `s[0]`."""
    if "_EXPAND_0" not in machine.namespace:
        _compile(machine)
    return [machine.namespace[f"_EXPAND_{pi}"] for pi in range(len(machine.pages))]


def _compile(machine: Machine) -> None:
    code = "\n".join(expander_source(machine, pi) for pi in range(len(machine.pages)))
    exec(compile(code, f"<fsmc:{machine.spec.site.name}:expand>", "exec"), machine.namespace)  # noqa: S102 - generated


__all__ = ["CANDIDATES", "Expander", "Found", "always_read_views", "compile_expanders", "expander_source"]
