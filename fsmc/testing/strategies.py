"""Hypothesis strategies: random valid specs as IR, and random enabled move sequences of a machine.

Every spec `specs()` draws is built to pass `fsmc.checks.check` without errors: each variable is
read by some precondition, view or goal; each action can fire in some reachable state; an action
that changes what a paginated view shows also resets its page variable; every page is reachable
from the entry page and GUI selectors never clash. Its state space is bounded by construction
(`max_states`), so properties can explore it whole.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from fsmc import ir
from fsmc.semantics import Machine, Move, State

Draw = Callable[[st.SearchStrategy[Any]], Any]

CATEGORIES = ("red", "green", "blue")
LEVELS = ("low", "mid", "high")
ENUMS = {"Color": CATEGORIES, "Level": LEVELS}
TABLE = "items"
# Free text for titles and labels; quotes and backslashes exercise the printer's escaping.
_TEXT = st.text(alphabet=st.sampled_from(list("abcdefgh XYZ'\"\\&.-")), min_size=1, max_size=12)


# ---------------------------------------------------------------- small IR helpers


def _name(n: str) -> ir.Name:
    return ir.Name(id=n)


def _lit(v: ir.Value) -> ir.Lit:
    return ir.Lit(value=v)


def _bin(op: ir.BinOp, left: ir.Expr, right: ir.Expr) -> ir.Binary:
    return ir.Binary(op=op, left=left, right=right)


def _eff(op: ir.EffectOp, var: str, value: ir.Expr | None = None, key: ir.Expr | None = None) -> ir.Effect:
    return ir.Effect(op=op, var=var, value=value, key=key)


@dataclass
class _Ctx:
    """What the generator knows while it builds one spec."""

    keys: tuple[ir.Value, ...] = ()  # row keys of the table, () when the spec has no table

    def values(self, t: ir.Type) -> tuple[Any, ...]:
        """The domain of a scalar type, in domain order."""
        if isinstance(t, ir.BoolType):
            return (False, True)
        if isinstance(t, ir.IntType):
            return tuple(range(t.lo, t.hi + 1))
        if isinstance(t, ir.ChoiceType):
            return t.values
        if isinstance(t, ir.RefType):
            return self.keys
        if isinstance(t, ir.OptionalType):
            return (None, *self.values(t.inner))
        raise ValueError(t)

    def size(self, t: ir.Type) -> int:
        if isinstance(t, ir.SetType):
            return 2 ** self.size(t.elem)
        if isinstance(t, ir.MapType):
            return (self.size(t.value) + 1) ** self.size(t.key)
        return len(self.values(t))


# ---------------------------------------------------------------- types and values


def _scalar_type(draw: Draw, ctx: _Ctx, budget: int, optional: bool = True) -> ir.Type | None:
    """A bool, small int range, choice or ref type (maybe optional) whose domain fits the budget."""
    kinds = ["bool", "int", "choice", "enum"] + (["ref"] if ctx.keys else [])
    for kind in draw(st.permutations(kinds)):
        t: ir.Type
        if kind == "bool":
            t = ir.BoolType()
        elif kind == "int":
            lo = draw(st.integers(-2, 3))
            t = ir.IntType(lo=lo, hi=lo + draw(st.integers(1, 3)))
        elif kind == "choice":
            t = ir.ChoiceType(values=tuple(draw(st.sampled_from(["ab", "abc", "xy", "xyz"]))))
        elif kind == "enum":
            name = draw(st.sampled_from(sorted(ENUMS)))
            t = ir.ChoiceType(values=ENUMS[name], name=name)
        else:
            t = ir.RefType(table=TABLE)
        if optional and draw(st.booleans()):
            t = ir.OptionalType(inner=t)
        if ctx.size(t) <= budget:
            return t
    return None


def _types_used(node: Any) -> set[str]:
    """Names of the enums and tables that types, views and fields anywhere under `node` refer to."""
    if isinstance(node, tuple):
        return set().union(*(_types_used(x) for x in node))
    if isinstance(node, ir.ChoiceType):
        return {node.name} if node.name else set()
    if isinstance(node, ir.RefType):
        return {node.table}
    if isinstance(node, ir.View):
        return {node.source}
    if isinstance(node, ir.Node):
        return set().union(*(_types_used(getattr(node, f)) for f in type(node).model_fields if f != "span"))
    return set()


def _var_type(draw: Draw, ctx: _Ctx, budget: int) -> ir.Type | None:
    """A scalar, set or map type whose domain fits the budget, or None."""
    shape = draw(st.sampled_from(["scalar", "scalar", "scalar", "set", "map"]))
    if shape == "set":
        elem = _scalar_type(draw, ctx, max(1, int(math.log2(max(budget, 1)))), optional=False)
        if elem is not None and not isinstance(elem, ir.BoolType) and ctx.size(ir.SetType(elem=elem)) <= budget:
            return ir.SetType(elem=elem)
    if shape == "map":
        hi = draw(st.integers(1, 2))
        value = ir.IntType(lo=1, hi=hi)
        key = _scalar_type(draw, ctx, 3, optional=False)
        if key is not None and not isinstance(key, ir.IntType):
            t = ir.MapType(key=key, value=value)
            if ctx.size(t) <= budget:
                return t
    return _scalar_type(draw, ctx, budget)


def _default(draw: Draw, ctx: _Ctx, t: ir.Type) -> ir.Expr:
    if isinstance(t, ir.MapType):
        return ir.SetLit(items=())
    if isinstance(t, ir.SetType):
        items = draw(st.lists(st.sampled_from(ctx.values(t.elem)), max_size=1, unique=True))
        return ir.SetLit(items=tuple(_lit(v) for v in items))
    return _lit(draw(st.sampled_from(ctx.values(t))))


# ---------------------------------------------------------------- GUI procedures


def _gui(draw: Draw, page: str, action: str, params: Sequence[ir.Param]) -> tuple[ir.GuiOp, ...]:
    """A procedure whose selectors start with `page-action`, so no two actions share one."""
    base = f"{page}-{action}"
    sel = base + "".join(f"-{{{p.name}}}" for p in params)
    click = ir.GuiOp(op="click", selector=sel)
    forms: list[tuple[ir.GuiOp, ...]] = [
        (click,),
        (ir.GuiOp(op="hover", selector=base), click),
        (ir.GuiOp(op="scroll_until_visible", selector=sel), click),
        (ir.GuiOp(op="wait", limit=draw(st.integers(0, 500))), click),
        (ir.GuiOp(op="repeat_click", selector=f"{base}-more", until=sel, limit=draw(st.integers(1, 5))), click),
        (ir.GuiOp(op="drag", selector=sel, text=f"{base}-drop"),),
    ]
    if len(params) == 1:
        value = f"{{{params[0].name}}}"
        forms += [
            (ir.GuiOp(op="select", selector=base, text=value),),
            (ir.GuiOp(op="type", selector=base, text=value), ir.GuiOp(op="press", selector=base, text="Enter")),
        ]
    result: tuple[ir.GuiOp, ...] = draw(st.sampled_from(forms))
    return result


def _action(draw: Draw, page: str, name: str, params: Sequence[ir.Param] = (), requires: Sequence[ir.Expr] = (),
            effects: Sequence[ir.Effect] = (), goto: str | None = None, carry: Sequence[str] = ()) -> ir.Action:
    label = None
    if draw(st.booleans()):
        label = name.replace("_", " ") + "".join(f" {{{p.name}}}" for p in params)
    return ir.Action(name=name, params=tuple(params), label=label, requires=tuple(requires), effects=tuple(effects),
                     goto=goto, carry=tuple(carry), gui=_gui(draw, page, name, params))


# ---------------------------------------------------------------- actions that write (and read) a variable


def _writers(draw: Draw, ctx: _Ctx, page: str, var: ir.Var) -> list[ir.Action]:
    """Actions that change `var`; every one reads it in a precondition, so each var is read."""
    x, t = var.name, var.type
    if isinstance(t, ir.SetType):
        v = ir.Param(name="v", type=t.elem)
        out = [_action(draw, page, f"add_{x}", [v], [_bin("not in", _name("v"), _name(x))],
                       [_eff("add", x, _name("v"))]),
               _action(draw, page, f"remove_{x}", [v], [_bin("in", _name("v"), _name(x))],
                       [_eff("remove", x, _name("v"))])]
        if draw(st.booleans()):
            out.append(_action(draw, page, f"clear_{x}", [], [_bin(">", ir.Call(func="len", args=(_name(x),)),
                                                                    _lit(0))], [_eff("clear", x)]))
        return out
    if isinstance(t, ir.MapType):
        k, v = ir.Param(name="k", type=t.key), ir.Param(name="v", type=t.value)
        return _map_writers(draw, page, x, k, v, ir.Index(obj=_name(x), key=_name("k")))
    v = ir.Param(name="v", type=t)
    out = [_action(draw, page, f"set_{x}", [v], [_bin("!=", _name("v"), _name(x))], [_eff("assign", x, _name("v"))])]
    if isinstance(t, ir.IntType) and draw(st.booleans()):
        out.append(_action(draw, page, f"inc_{x}", [], [_bin("<", _name(x), _lit(t.hi))], [_eff("inc", x, _lit(1))]))
        out.append(_action(draw, page, f"dec_{x}", [], [], [_eff("dec", x, _lit(draw(st.integers(1, 3))))]))
    if isinstance(t, ir.BoolType) and draw(st.booleans()):
        out.append(_action(draw, page, f"flip_{x}", [], [], [_eff("toggle", x)]))
    if isinstance(t, ir.OptionalType) and draw(st.booleans()):
        out.append(_action(draw, page, f"clear_{x}", [], [_bin("!=", _name(x), _lit(None))], [_eff("clear", x)]))
    return out


def _map_writers(draw: Draw, page: str, x: str, k: ir.Param, v: ir.Param, entry: ir.Expr) -> list[ir.Action]:
    has_k = _bin("in", _name("k"), _name(x))
    drop = _eff("dec", x, _lit(1), key=_name("k")) if draw(st.booleans()) else _eff("remove", x, _name("k"))
    return [
        _action(draw, page, f"put_{x}", [k, v], [_bin("!=", entry, _name("v"))],
                [_eff("assign", x, _name("v"), key=_name("k"))]),
        _action(draw, page, f"bump_{x}", [k], [], [_eff("inc", x, _lit(1), key=_name("k"))]),
        _action(draw, page, f"drop_{x}", [k], [has_k], [drop]),
    ]


def _goal_task(draw: Draw, ctx: _Ctx, var: ir.Var, page: str | None) -> ir.Task:
    """`task` whose goal is that `var` holds (or contains) a parameter value; every instance is reachable."""
    t = var.type
    elem = t.elem if isinstance(t, ir.SetType) else t.key if isinstance(t, ir.MapType) else t
    goal = _bin("in", _name("v"), _name(var.name)) if elem is not t else _bin("==", _name(var.name), _name("v"))
    word = "have" if elem is not t else "set"
    return ir.Task(name=f"{word}_{var.name}", params=(ir.Param(name="v", type=elem),), page=page, goal=goal,
                   instruction=f"Make {var.name} {word} {{v}}")


# ---------------------------------------------------------------- views


def _view_page(draw: Draw, ctx: _Ctx, page: str, entry: str, budget: int) -> tuple[list[ir.Var], list[ir.View], list[ir.Action],
                                                                         list[ir.Task], int]:
    """A filtered, sorted, maybe paginated list of the table, the actions that drive it and a retrieval task."""
    view = f"{page}_list"
    n = len(ctx.keys)
    variables: list[ir.Var] = []
    actions: list[ir.Action] = []
    tasks: list[ir.Task] = []
    resets: list[ir.Effect] = []
    size = draw(st.integers(1, n))
    pages = -(-n // size)
    pg: str | None
    page_size: int | None = size
    if pages > 1 and pages <= budget and draw(st.booleans()):
        pg = f"{page}_pg"
        variables.append(ir.Var(name=pg, type=ir.IntType(lo=1, hi=pages), default=_lit(1)))
        resets.append(_eff("assign", pg, _lit(1)))
        actions.append(_action(draw, page, "next", [], [_bin("<", _name(pg), ir.Call(func="pages", args=(_name(view),)))],
                               [_eff("inc", pg, _lit(1))]))
        actions.append(_action(draw, page, "prev", [], [_bin(">", _name(pg), _lit(1))], [_eff("dec", pg, _lit(1))]))
        budget //= pages
    else:
        pg, page_size = None, None
    where: ir.Expr | None = None
    if budget >= len(CATEGORIES) + 1 and draw(st.booleans()):
        f = f"{page}_cat"
        ft = ir.OptionalType(inner=ir.ChoiceType(values=CATEGORIES, name=draw(st.sampled_from([None, "Color"]))))
        variables.append(ir.Var(name=f, type=ft, default=_lit(None)))
        where = _bin("or", _bin("==", _name(f), _lit(None)),
                     _bin("==", ir.GetField(obj=_name("r"), field="cat"), _name(f)))
        c = ir.Param(name="c", type=ft)
        actions.append(_action(draw, page, "filter", [c], [_bin("!=", _name("c"), _name(f))],
                               [_eff("assign", f, _name("c")), *resets]))
        tasks.append(ir.Task(name=f"count_{page}", params=(ir.Param(name="c", type=ft.inner),), page=page,
                             goal=_bin("==", _name(f), _name("c")), instruction=f"How many {{c}} items are on {page}?",
                             answer=ir.Call(func="count", args=(_name(view),))))
        budget //= len(CATEGORIES) + 1
    order: tuple[ir.OrderKey, ...] = ()
    if draw(st.booleans()):
        order = (ir.OrderKey(expr=ir.GetField(obj=_name("r"), field="name")),)
    if budget >= 2 and draw(st.booleans()):
        d = f"{page}_desc"
        variables.append(ir.Var(name=d, type=ir.BoolType(), default=_lit(False)))
        order = (ir.OrderKey(expr=ir.GetField(obj=_name("r"), field="price"), desc=True, when=_name(d)), *order)
        actions.append(_action(draw, page, "sort", [], [], [_eff("toggle", d), *resets]))
        budget //= 2
    views = [ir.View(name=view, source=TABLE, alias="r", where=where, order=order, page_var=pg, page_size=page_size)]
    pick = ir.Param(name="row", type=ir.RefType(table=TABLE))
    shown = _bin("in", _name("row"), _name(view))
    if budget >= n + 1 and draw(st.booleans()):
        sel = f"{page}_sel"
        variables.append(ir.Var(name=sel, type=ir.OptionalType(inner=ir.RefType(table=TABLE)), default=_lit(None)))
        actions.append(_action(draw, page, "pick", [pick], [shown, _bin("!=", _name("row"), _name(sel))],
                               [_eff("assign", sel, _name("row"))]))
        budget //= n + 1
    else:
        actions.append(_action(draw, page, "open", [pick], [shown], goto=entry))
    if draw(st.booleans()):
        top = f"{page}_top"
        views.append(ir.View(name=top, source=view, alias="r", where=_bin(">", ir.GetField(obj=_name("r"), field="price"),
                                                                          _lit(draw(st.integers(0, 60))))))
        tasks.append(ir.Task(name=f"top_{page}", page=page, goal=_bin(">", ir.Call(func="len", args=(_name(view),)),
                                                                      _lit(0)),
                             instruction="How many dear items are listed?", answer=ir.Call(func="count", args=(_name(top),))))
    return variables, views, actions, tasks, budget


# ---------------------------------------------------------------- the whole spec


def _table(draw: Draw) -> ir.Table:
    n = draw(st.integers(2, 4))
    int_key = draw(st.booleans())
    keys: list[ir.Value] = list(range(1, n + 1)) if int_key else [f"i{i}" for i in range(1, n + 1)]
    rows = tuple(
        (k, f"Item {i}", draw(st.sampled_from(CATEGORIES)), draw(st.integers(1, 99)),
         draw(st.sampled_from([0.5, 1.25, 3.0, 4.75])), draw(st.booleans()))
        for i, k in enumerate(keys, start=1)
    )
    columns = (ir.Column(name="id", type="int" if int_key else "str"), ir.Column(name="name", type="str"),
               ir.Column(name="cat", type="str"), ir.Column(name="price", type="int"),
               ir.Column(name="rating", type="num"), ir.Column(name="stock", type="bool"))
    return ir.Table(name=TABLE, key="id", columns=columns, rows=rows)


def _vars(draw: Draw, ctx: _Ctx, prefix: str, budget: int, most: int) -> tuple[list[ir.Var], int]:
    out: list[ir.Var] = []
    for i in range(draw(st.integers(0, most))):
        t = _var_type(draw, ctx, budget)
        if t is None or ctx.size(t) < 2:
            break
        out.append(ir.Var(name=f"{prefix}{i}", type=t, default=_default(draw, ctx, t)))
        budget //= ctx.size(t)
    return out, budget


@st.composite
def specs(draw: Draw, max_pages: int = 4, max_states: int = 2000) -> ir.Spec:
    """A random valid spec (resolved IR, no spans) with at most `max_states` reachable states."""
    table = _table(draw) if draw(st.integers(0, 4)) else None
    ctx = _Ctx(keys=tuple(r[0] for r in table.rows) if table else ())
    names = [f"p{i}" for i in range(draw(st.integers(2, max_pages)))]
    session, s_budget = _vars(draw, ctx, "s", draw(st.integers(2, 16)), 3)
    s_size = math.prod(ctx.size(v.type) for v in session)
    per_page = max(2, max_states // (s_size * len(names)))
    shared_t = _scalar_type(draw, ctx, 3, optional=False) if draw(st.booleans()) else None
    shared_on = set(draw(st.lists(st.sampled_from(names), min_size=2, unique=True))) if shared_t else set()
    view_on = draw(st.sampled_from(names)) if ctx.keys else None
    pages: dict[str, dict[str, list[Any]]] = {}
    tasks: list[ir.Task] = []
    for name in names:
        budget = per_page
        parts: dict[str, list[Any]] = {"vars": [], "views": [], "actions": []}
        if name in shared_on and shared_t is not None:
            var = ir.Var(name="shared", type=shared_t, default=_default(draw, ctx, shared_t))
            parts["vars"].append(var)
            parts["actions"] += _writers(draw, ctx, name, var)
            budget //= ctx.size(shared_t)
        if name == view_on:
            vs, views, acts, ts, budget = _view_page(draw, ctx, name, names[0], budget)
            parts["vars"] += vs
            parts["views"] += views
            parts["actions"] += acts
            tasks += ts
        own, budget = _vars(draw, ctx, f"{name}_v", budget, 2)
        for var in own:
            parts["vars"].append(var)
            parts["actions"] += _writers(draw, ctx, name, var)
            if draw(st.booleans()):
                tasks.append(_goal_task(draw, ctx, var, name))
        pages[name] = parts
    for var in session:
        where = draw(st.sampled_from(names))
        pages[where]["actions"] += _writers(draw, ctx, where, var)
        if draw(st.booleans()):
            tasks.append(_goal_task(draw, ctx, var, draw(st.sampled_from([None, where]))))
    _navigation(draw, names, pages, shared_on)
    terminals = (names[-1],) if draw(st.booleans()) else ()
    site = ir.Site(name="gen", title=draw(st.none() | _TEXT), entry=names[0], terminals=terminals)
    body = (
        tuple(session),
        tuple(ir.Page(name=n, title=draw(st.none() | _TEXT), vars=tuple(p["vars"]), views=tuple(p["views"]),
                      actions=tuple(p["actions"])) for n, p in pages.items()),
        tuple(tasks),
    )
    used = _types_used(body)
    return ir.Spec(
        site=site, enums=tuple(ir.Enum(name=n, values=v) for n, v in ENUMS.items() if n in used),
        tables=(table,) if table is not None and TABLE in used else (),
        session=body[0], pages=body[1], tasks=body[2],
    )


def _navigation(draw: Draw, names: list[str], pages: dict[str, dict[str, list[Any]]], shared_on: set[str]) -> None:
    """A spanning tree from the entry page with links back to the parent, plus a few random links."""
    edges: list[tuple[str, str]] = []
    for i, child in enumerate(names[1:], start=1):
        parent = names[draw(st.integers(0, i - 1))]
        edges += [(parent, child), (child, parent)]
    for _ in range(draw(st.integers(0, 2))):
        edges.append((draw(st.sampled_from(names)), draw(st.sampled_from(names))))
    for src, dst in dict.fromkeys(edges):
        carry = ["shared"] if src in shared_on and dst in shared_on and draw(st.booleans()) else []
        pages[src]["actions"].append(_action(draw, src, f"to_{dst}", goto=dst, carry=carry))


# ---------------------------------------------------------------- moves and states of a machine


@st.composite
def move_sequences(draw: Draw, machine: Machine, max_len: int = 20) -> list[Move]:
    """A random walk from the initial state: each move is enabled in the state the previous ones reach."""
    state = machine.initial()
    out: list[Move] = []
    for _ in range(draw(st.integers(0, max_len))):
        enabled = machine.enabled(state)
        if not enabled:
            break
        move = draw(st.sampled_from(enabled))
        out.append(move)
        state = machine.step(state, move)
    return out


def states(machine: Machine, max_steps: int = 20) -> st.SearchStrategy[State]:
    """A reachable state: where a random walk of at most `max_steps` enabled moves ends."""

    def walk(moves: list[Move]) -> State:
        state = machine.initial()
        for mv in moves:
            state = machine.step(state, mv)
        return state

    return move_sequences(machine, max_steps).map(walk)


def machines(max_pages: int = 4, max_states: int = 2000) -> st.SearchStrategy[Machine]:
    """Compiled machines of random valid specs."""
    return specs(max_pages=max_pages, max_states=max_states).map(Machine)
