"""The one IR builder both parsers call: each grammar rule's span and children → an IR node; clause and site checks.

The rules are named as in fsmc/frontend/fsm.lark. lark's tree (fsmc.frontend.lalr) and the recursive-descent
fast path (fsmc.frontend.descent) hand each rule's span and children to the same method here, so the
two build the same IR by construction; `LOCATED_RULES` lists the rules that take a span.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.diagnostics import Diagnostic
from fsmc.frontend.tables import load_table_rows


def unquote(tok: str) -> str:
    """The text of a string literal: the quotes removed, `\\n` and `\\t` read, any other escaped character kept."""
    body = tok[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text[:20]}... is too large for a number")
    return value


Clause = tuple[str, Any, ir.Span]
"""What a clause gives its block (a view's `where`, an action's `goto`, a task's `goal`): kind, value, span."""

SINGLE_CLAUSES: dict[str, tuple[str, str]] = {
    # kind -> (the clause as a message names it, how to fix a repetition); the IR holds one of each
    "where": ("`where` clause", "combine the conditions with `and`: `where A and B`"),
    "page": ("`page ... size` clause", "a view is paginated by one variable: keep one `page VAR size N`"),
    "goto": ("`goto`", "one goto per action: to go elsewhere in other states, write a second action with its "
                       "own `require`"),
    "title": ("`title`", "keep one"),
    "reference": ("`reference`", "keep one"),
    "entry": ("`entry`", "an episode starts on one page: keep one `entry`"),
    "terminals": ("`terminal` line", "list every terminal page in one line: `terminal a, b`"),
    "goal": ("`goal`", "combine the conditions with `and`: `goal A and B`"),
    "instruction": ("`instruction`", "keep one"),
    "answer": ("`answer`", "a task has one expected answer: keep one"),
}

LOCATED_RULES: dict[str, Callable[..., Any]] = {}
"""The rules that take a span, `name -> fn(builder, span, children)`; the other rules take their children only."""

PLAIN_RULES = ("signed_int", "params", "coltype", "coltype_ref", "row", "table_rows", "direction", "lvalue",
               "property_name")
"""The rules without a span of their own, `builder.name(children)`."""


def _located(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register a rule that receives (builder, span, children)."""
    LOCATED_RULES[fn.__name__] = fn
    return fn


class IRBuilder:
    """Builds the IR of one text bottom-up, rule by rule; what is wrong but not a syntax error goes to `problems`."""

    def __init__(self, file: str, base_dir: Path):
        self.file = file
        self.base_dir = base_dir
        self.problems: list[Diagnostic] = []

    def _once(self, owner: str, clauses: list[Clause], single: tuple[str, ...]) -> list[Clause]:
        """The clauses without repetitions of the `single` kinds, each reported (E010) at the repetition."""
        first: dict[str, ir.Span] = {}
        kept: list[Clause] = []
        for clause in clauses:
            kind, _, span = clause
            if kind in single and kind in first:
                what, hint = SINGLE_CLAUSES[kind]
                self.problems.append(Diagnostic("E010", f"{owner} has a second {what}", span, hint=hint,
                                                notes=((first[kind], "first given here"),)))
                continue
            first.setdefault(kind, span)
            kept.append(clause)
        return kept

    # ---------------------------------------------------------------- literals and names
    @_located
    def int_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=int(c[0]), span=span)

    @_located
    def neg_int_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=-int(c[0]), span=span)

    @_located
    def num_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=_finite(c[0]), span=span)

    @_located
    def neg_num_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=-_finite(c[0]), span=span)

    @_located
    def str_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=unquote(c[0]), span=span)

    @_located
    def true_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=True, span=span)

    @_located
    def false_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=False, span=span)

    @_located
    def none_lit(self, span: ir.Span, c: list[Any]) -> ir.Lit:
        return ir.Lit.trusted(value=None, span=span)

    # ---------------------------------------------------------------- expressions
    @_located
    def name(self, span: ir.Span, c: list[Any]) -> ir.Name:
        return ir.Name.trusted(id=str(c[0]), span=span)

    @_located
    def field(self, span: ir.Span, c: list[Any]) -> ir.GetField:
        return ir.GetField.trusted(obj=c[0], field=str(c[1]), span=span)

    @_located
    def index(self, span: ir.Span, c: list[Any]) -> ir.Index:
        return ir.Index.trusted(obj=c[0], key=c[1], span=span)

    @_located
    def call(self, span: ir.Span, c: list[Any]) -> ir.Call:
        return ir.Call.trusted(func=str(c[0]), args=tuple(a for a in c[1:] if a is not None), span=span)

    @_located
    def set_lit(self, span: ir.Span, c: list[Any]) -> ir.SetLit:
        return ir.SetLit.trusted(items=tuple(a for a in c if a is not None), span=span)

    @_located
    def neg(self, span: ir.Span, c: list[Any]) -> ir.Expr:
        if isinstance(c[0], ir.Lit) and isinstance(c[0].value, (int, float)) and not isinstance(c[0].value, bool):
            return ir.Lit.trusted(value=-c[0].value, span=span)
        return ir.Unary.trusted(op="-", operand=c[0], span=span)

    @_located
    def not_(self, span: ir.Span, c: list[Any]) -> ir.Unary:
        return ir.Unary.trusted(op="not", operand=c[0], span=span)

    def _bin(self, op: str, span: ir.Span, left: Any, right: Any) -> ir.Binary:
        return ir.Binary.trusted(op=op, left=left, right=right, span=span)  # type: ignore[arg-type]

    @_located
    def or_(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin("or", span, c[0], c[1])

    @_located
    def and_(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin("and", span, c[0], c[1])

    @_located
    def compare(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin(str(c[1]), span, c[0], c[2])

    @_located
    def arith(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin(str(c[1]), span, c[0], c[2])

    @_located
    def in_(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin("in", span, c[0], c[1])

    @_located
    def not_in(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin("not in", span, c[0], c[1])

    @_located
    def contains(self, span: ir.Span, c: list[Any]) -> ir.Binary:
        return self._bin("contains", span, c[0], c[1])

    # ---------------------------------------------------------------- types
    def signed_int(self, c: list[Any]) -> int:
        return int(c[0])

    @_located
    def bool_type(self, span: ir.Span, c: list[Any]) -> ir.BoolType:
        return ir.BoolType.trusted(span=span)

    @_located
    def int_type(self, span: ir.Span, c: list[Any]) -> ir.IntType:
        return ir.IntType.trusted(lo=c[0], hi=c[1], span=span)

    @_located
    def named_type(self, span: ir.Span, c: list[Any]) -> ir.NamedType:
        return ir.NamedType.trusted(name=str(c[0]), span=span)

    @_located
    def ref_type(self, span: ir.Span, c: list[Any]) -> ir.RefType:
        return ir.RefType.trusted(table=str(c[0]), span=span)

    @_located
    def set_type(self, span: ir.Span, c: list[Any]) -> ir.SetType:
        return ir.SetType.trusted(elem=c[0], span=span)

    @_located
    def map_type(self, span: ir.Span, c: list[Any]) -> ir.MapType:
        return ir.MapType.trusted(key=c[0], value=c[1], span=span)

    @_located
    def choice_type(self, span: ir.Span, c: list[Any]) -> ir.ChoiceType:
        return ir.ChoiceType.trusted(values=tuple(unquote(s) for s in c), span=span)

    @_located
    def opt_type(self, span: ir.Span, c: list[Any]) -> ir.OptionalType:
        return ir.OptionalType.trusted(inner=c[0], span=span)

    # ---------------------------------------------------------------- declarations
    @_located
    def var(self, span: ir.Span, c: list[Any]) -> ir.Var:
        return ir.Var.trusted(name=str(c[0]), type=c[1], default=c[2], span=span)

    @_located
    def param(self, span: ir.Span, c: list[Any]) -> ir.Param:
        return ir.Param.trusted(name=str(c[0]), type=c[1], span=span)

    def params(self, c: list[Any]) -> tuple[ir.Param, ...]:
        return tuple(c)

    @_located
    def enum(self, span: ir.Span, c: list[Any]) -> ir.Enum:
        return ir.Enum.trusted(name=str(c[0]), values=tuple(unquote(s) for s in c[1:]), span=span)

    @_located
    def column(self, span: ir.Span, c: list[Any]) -> ir.Column:
        return ir.Column.trusted(name=str(c[0]), type=c[1], span=span)

    def coltype(self, c: list[Any]) -> str:
        return str(c[0])

    def coltype_ref(self, c: list[Any]) -> str:
        return f"ref:{c[-1]}"

    def row(self, c: list[Any]) -> tuple[ir.Value, ...]:
        return tuple(lit.value for lit in c)

    def table_rows(self, c: list[Any]) -> tuple[str, tuple[tuple[ir.Value, ...], ...]]:
        return ("rows", tuple(c))

    @_located
    def table_load(self, span: ir.Span, c: list[Any]) -> tuple[str, str, ir.Span]:
        return ("load", unquote(c[0]), span)

    @_located
    def table(self, span: ir.Span, c: list[Any]) -> ir.Table:
        name, *columns, key, body = c
        rows: tuple[tuple[ir.Value, ...], ...]
        source = None
        if body[0] == "rows":
            rows = body[1]
        else:
            source = body[1]
            rows, problems = load_table_rows(self.base_dir / source, tuple(columns), body[2])
            self.problems.extend(problems)
        return ir.Table.trusted(name=str(name), key=str(key), columns=tuple(columns), rows=rows, source=source, span=span)

    @_located
    def session(self, span: ir.Span, c: list[Any]) -> tuple[str, tuple[ir.Var, ...]]:
        return ("session", tuple(c))

    @_located
    def view_where(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("where", c[0], span)

    @_located
    def view_order(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("order", tuple(c), span)

    @_located
    def view_page(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("page", (str(c[0]), int(c[1])), span)

    def direction(self, c: list[Any]) -> bool:
        return str(c[0]) == "desc"

    @_located
    def order_key(self, span: ir.Span, c: list[Any]) -> ir.OrderKey:
        expr, desc, when = c
        return ir.OrderKey.trusted(expr=expr, desc=bool(desc), when=when, span=span)

    @_located
    def view(self, span: ir.Span, c: list[Any]) -> ir.View:
        fields: dict[str, Any] = {}
        for kind, value, _ in self._once(f"view '{c[0]}'", c[3:], ("where", "page")):
            if kind == "order":
                fields["order"] = fields.get("order", ()) + value
            elif kind == "page":
                fields["page_var"], fields["page_size"] = value
            else:
                fields[kind] = value
        return ir.View.trusted(name=str(c[0]), source=str(c[1]), alias=str(c[2]), span=span, **fields)

    # ---------------------------------------------------------------- actions
    @_located
    def require(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("require", c[0], span)

    @_located
    def goto(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("goto", (str(c[0]), tuple(str(n) for n in c[1:] if n is not None)), span)

    def lvalue(self, c: list[Any]) -> tuple[str, Any]:
        return (str(c[0]), c[1])

    def _effect(self, op: str, span: ir.Span, var: str, key: Any = None, value: Any = None) -> Clause:
        return ("effect", ir.Effect.trusted(op=op, var=var, key=key, value=value, span=span), span)  # type: ignore[arg-type]

    @_located
    def eff_assign(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("assign", span, c[0][0], c[0][1], c[1])

    @_located
    def eff_inc(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("inc", span, c[0][0], c[0][1], c[1])

    @_located
    def eff_dec(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("dec", span, c[0][0], c[0][1], c[1])

    @_located
    def eff_toggle(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("toggle", span, str(c[0]))

    @_located
    def eff_add(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("add", span, str(c[1]), value=c[0])

    @_located
    def eff_remove(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("remove", span, str(c[1]), value=c[0])

    @_located
    def eff_clear(self, span: ir.Span, c: list[Any]) -> Clause:
        return self._effect("clear", span, str(c[0]))

    def _gui(self, op: str, span: ir.Span, **kw: Any) -> ir.GuiOp:
        return ir.GuiOp.trusted(op=op, span=span, **kw)  # type: ignore[arg-type]

    @_located
    def gui_click(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("click", span, selector=unquote(c[0]))

    @_located
    def gui_type(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("type", span, selector=unquote(c[0]), text=unquote(c[1]))

    @_located
    def gui_press(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("press", span, selector=unquote(c[0]), text=unquote(c[1]))

    @_located
    def gui_hover(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("hover", span, selector=unquote(c[0]))

    @_located
    def gui_scroll(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("scroll_until_visible", span, selector=unquote(c[0]))

    @_located
    def gui_select(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("select", span, selector=unquote(c[0]), text=unquote(c[1]))

    @_located
    def gui_drag(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("drag", span, selector=unquote(c[0]), text=unquote(c[1]))

    @_located
    def gui_wait(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("wait", span, limit=int(c[0]))

    @_located
    def gui_repeat(self, span: ir.Span, c: list[Any]) -> ir.GuiOp:
        return self._gui("repeat_click", span, selector=unquote(c[0]), until=unquote(c[1]), limit=int(c[2]))

    @_located
    def gui(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("gui", tuple(c), span)

    @_located
    def action(self, span: ir.Span, c: list[Any]) -> ir.Action:
        name, params, label, *items = c
        fields: dict[str, Any] = {"requires": (), "effects": (), "gui": ()}
        for kind, value, _ in self._once(f"action '{name}'", items, ("goto",)):
            if kind == "require":
                fields["requires"] += (value,)
            elif kind == "effect":
                fields["effects"] += (value,)
            elif kind == "gui":
                fields["gui"] += value
            else:
                fields["goto"], fields["carry"] = value
        return ir.Action.trusted(
            name=str(name), params=params or (), label=unquote(label) if label else None, span=span, **fields
        )

    @_located
    def page(self, span: ir.Span, c: list[Any]) -> ir.Page:
        name, title, *items = c
        return ir.Page.trusted(
            name=str(name),
            title=unquote(title) if title else None,
            vars=tuple(i for i in items if isinstance(i, ir.Var)),
            views=tuple(i for i in items if isinstance(i, ir.View)),
            actions=tuple(i for i in items if isinstance(i, ir.Action)),
            span=span,
        )

    # ---------------------------------------------------------------- tasks
    @_located
    def task_goal(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("goal", c[0], span)

    @_located
    def task_instruction(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("instruction", unquote(c[0]), span)

    @_located
    def task_answer(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("answer", c[0], span)

    @_located
    def task(self, span: ir.Span, c: list[Any]) -> ir.Task:
        name, params, page, *items = c
        fields = {kind: value for kind, value, _ in self._once(f"task '{name}'", items, ("goal", "instruction", "answer"))}
        if "goal" not in fields or "instruction" not in fields:
            missing = "goal" if "goal" not in fields else "instruction"
            self.problems.append(
                Diagnostic("E006", f"task '{name}' has no {missing}", span, hint=f"add a `{missing} ...` line")
            )
            fields.setdefault("goal", ir.Lit.trusted(value=True, span=span))
            fields.setdefault("instruction", "")
        return ir.Task.trusted(name=str(name), params=params or (), page=str(page) if page else None, span=span, **fields)

    # ---------------------------------------------------------------- properties
    def property_name(self, c: list[Any]) -> str:
        return str(c[0])

    def _property(self, kind: str, span: ir.Span, c: list[Any]) -> ir.Property:
        name, cond, *then = c
        return ir.Property.trusted(kind=kind, name=name, cond=cond, then=then[0] if then else None, span=span)  # type: ignore[arg-type]

    @_located
    def prop_invariant(self, span: ir.Span, c: list[Any]) -> ir.Property:
        return self._property("invariant", span, c)

    @_located
    def prop_never(self, span: ir.Span, c: list[Any]) -> ir.Property:
        return self._property("never", span, c)

    @_located
    def prop_reachable(self, span: ir.Span, c: list[Any]) -> ir.Property:
        return self._property("reachable", span, c)

    @_located
    def prop_leads_to(self, span: ir.Span, c: list[Any]) -> ir.Property:
        return self._property("leads_to", span, c)

    # ---------------------------------------------------------------- backend
    @_located
    def backend(self, span: ir.Span, c: list[Any]) -> ir.Backend:
        return ir.Backend.trusted(kind=str(c[0]), source=unquote(c[1]), span=span)

    # ---------------------------------------------------------------- site
    @_located
    def site_title(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("title", unquote(c[0]), span)

    @_located
    def site_reference(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("reference", unquote(c[0]), span)

    @_located
    def site_entry(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("entry", str(c[0]), span)

    @_located
    def site_terminal(self, span: ir.Span, c: list[Any]) -> Clause:
        return ("terminals", tuple(str(n) for n in c), span)

    @_located
    def site(self, span: ir.Span, c: list[Any]) -> ir.Site:
        once = ("title", "reference", "entry", "terminals")
        fields = {kind: value for kind, value, _ in self._once(f"site '{c[0]}'", c[1:], once)}
        if "entry" not in fields:
            self.problems.append(
                Diagnostic("E007", f"site '{c[0]}' names no entry page", span, hint="add `entry <page>` to the site")
            )
            fields["entry"] = ""
        return ir.Site.trusted(name=str(c[0]), span=span, **fields)

    @_located
    def start(self, span: ir.Span, items: list[Any]) -> ir.Spec:
        return self.assemble(items)

    def assemble(self, items: list[Any]) -> ir.Spec:
        """The spec of the top-level items: one site block (E007 none, E008 more), the rest in their order."""
        sites = self._sites(items)
        session: tuple[ir.Var, ...] = ()
        for i in items:
            if isinstance(i, tuple) and i[0] == "session":
                session += i[1]
        return ir.Spec.trusted(
            site=sites[0],
            enums=tuple(i for i in items if isinstance(i, ir.Enum)),
            tables=tuple(i for i in items if isinstance(i, ir.Table)),
            session=session,
            pages=tuple(i for i in items if isinstance(i, ir.Page)),
            tasks=tuple(i for i in items if isinstance(i, ir.Task)),
            properties=tuple(i for i in items if isinstance(i, ir.Property)),
            backends=tuple(i for i in items if isinstance(i, ir.Backend)),
            span=ir.Span.trusted(file=self.file, line=1, col=1),
        )

    def _sites(self, items: list[Any]) -> list[ir.Site]:
        sites = [i for i in items if isinstance(i, ir.Site)]
        if not sites:
            self.problems.append(
                Diagnostic("E007", "the spec has no `site { ... }` block", ir.Span.trusted(file=self.file, line=1, col=1),
                           hint='start the spec with `site NAME { entry PAGE }`')
            )
            sites = [ir.Site.trusted(name="site", entry="")]
        for extra in sites[1:]:
            self.problems.append(
                Diagnostic("E008", "a spec has exactly one `site` block", extra.span,
                           notes=((sites[0].span, "first site block here"),))
            )
        return sites
