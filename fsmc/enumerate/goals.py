"""Goals: predicates over states, from the spec's task templates and derived from the state space.

Task goals: one per task and parameter tuple (`machine.task_args`), decided by the task's goal.
Derived goals (documented in docs of `fsmc enumerate --help` and the README), each a pattern
"on page P (optional), these variables have these values", discovered while the states are scanned:

- `terminal`: each terminal page of the site is reached (unless a task asks for it: `on P: true`);
- `contents`: each one-element value of a set or map variable that some task goal reads
  (e.g. "the cart holds exactly 2 x Ridgeline shell"); page variables count on their own page;
- `view`: each combination of the page variables that a page's views filter or sort by
  (e.g. search results for "wool", price band under 50, sorted by price), pagination excluded;
- `value`: each value of any other scalar variable that some task goal reads (e.g. "gift
  wrapping yes on the confirmation page", "signed in as Ada"), except its starting value (a
  session variable's initial value, a page variable's default unless navigation carries it in).
  A task without parameters that only pins a variable to a value (`on P: v == "x"`, one task a
  value, as an imported AutoWebWorld world's item tasks are) does not count: such tasks name the
  values worth asking for themselves, and the others would be placeholders ("set selected id to none").

A variable is goal-relevant when a task goal reads it: a session variable for any task, a page
variable for the tasks on its page.

Each derived family keeps at most MAX_PER_FAMILY goals, the first ones in BFS order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.engines.python import reads
from fsmc.printer import expr_to_fsm, value_to_fsm
from fsmc.semantics import Machine, Move, State, format_value, render_template

MAX_PER_FAMILY = 256
TITLE_COLUMNS = ("title", "name", "label", "headline")


@dataclass
class Goal:
    """One goal: what the trajectories of a task must reach, as data that `fsmc verify` can re-check."""

    id: str
    kind: str  # "task" | "terminal" | "contents" | "view"
    instruction: str
    source: str  # the predicate as .fsm-like text
    page: str | None = None
    task: str | None = None
    args: tuple[Any, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    match: dict[str, Any] | None = None  # derived goals: {"page": P | None, "vars": {name: JSON value}}
    retrieval: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "source": self.source, "page": self.page}
        if self.task is not None:
            out["task"] = self.task
            out["params"] = self.params
        if self.match is not None:
            out["match"] = self.match
        return out


def json_value(v: Any) -> Any:
    return [json_value(x) for x in v] if isinstance(v, tuple) else v


# ---------------------------------------------------------------- names for people


def humanize(name: str) -> str:
    return name.replace("_", " ")


def display(machine: Machine, t: ir.Type, v: Any) -> str:
    """A value as a shopper would read it: a row by its title column, none as "none"."""
    if v is None:
        return "none"
    base = t.inner if isinstance(t, ir.OptionalType) else t
    if isinstance(base, ir.RefType):
        row = machine.row(base.table, v)
        for col in TITLE_COLUMNS:
            if isinstance(row.get(col), str):
                return str(row[col])
        return str(v)
    if isinstance(base, ir.BoolType):
        return "yes" if v else "no"
    if isinstance(base, ir.SetType):
        return ", ".join(display(machine, base.elem, x) for x in v) if v else "none"
    if isinstance(base, ir.MapType):
        pairs = [f"{display(machine, base.key, k)}: {display(machine, base.value, x)}" for k, x in v]
        return ", ".join(pairs) if pairs else "none"
    return format_value(v)


def literal(v: Any) -> str:
    """A value as .fsm-like source: scalars as the printer writes them, sets as {a, b}, maps as {k: v}."""
    if isinstance(v, tuple):
        items = [f"{literal(x[0])}: {literal(x[1])}" if isinstance(x, tuple) else literal(x) for x in v]
        return "{" + ", ".join(items) + "}"
    return value_to_fsm(v)


def page_title(page: ir.Page) -> str:
    return page.title or humanize(page.name)


# ---------------------------------------------------------------- task goals


def task_goal_id(task: ir.Task, args: tuple[Any, ...]) -> str:
    return "/".join([task.name, *(format_value(a) if a is not None else "none" for a in args)])


def task_goals(machine: Machine) -> list[tuple[Goal, int, Callable[[State, tuple[Any, ...]], bool]]]:
    """(goal, task index, goal function) for every task and parameter tuple, in declaration and domain order."""
    out = []
    s0 = machine.initial()
    for ti, task in enumerate(machine.spec.tasks):
        fn = machine.goal(ti)
        source = (f"on {task.page}: " if task.page else "") + expr_to_fsm(task.goal)
        for args in machine.task_args(task):
            bindings = machine.bindings(s0, task.params, args)
            goal = Goal(
                id=task_goal_id(task, args), kind="task", instruction=render_template(task.instruction, bindings),
                source=source, page=task.page, task=task.name, args=args,
                params={p.name: a for p, a in zip(task.params, args, strict=True)}, retrieval=task.answer is not None)
            out.append((goal, ti, fn))
    return out


# ---------------------------------------------------------------- derived goal families


class Family:
    """A family of derived goals: `key(state)` names the goal a state reaches (or None); `make` builds it."""

    kind = ""

    def __init__(self, pages: set[int] | None = None, slots: list[int] | None = None) -> None:
        self.goals: dict[Any, Goal] = {}
        self.full = False
        self.pages = pages  # the pages on which key() can be other than None; None: every page
        self.slots = slots  # the state slots key() reads (0: the page); None: any

    def key(self, s: State) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def make(self, key: Any) -> Goal:  # pragma: no cover - overridden
        raise NotImplementedError

    def goal_of(self, s: State) -> Goal | None:
        k = self.key(s)
        if k is None:
            return None
        g = self.goals.get(k)
        if g is None and not self.full:
            g = self.goals[k] = self.make(k)
            self.full = len(self.goals) >= MAX_PER_FAMILY
        return g


def asks_for_page(task: ir.Task) -> bool:
    """Whether a task asks only to be on its page (`on P: true`): a terminal page's own task, such as an imported
    AutoWebWorld world's, which then stands for the terminal goal."""
    return task.page is not None and not task.params and task.goal == ir.Lit(value=True)


class TerminalFamily(Family):
    """The terminal pages of the site, but those that a task of the spec asks for as they are (`on P: true`)."""

    kind = "terminal"

    def __init__(self, machine: Machine):
        asked = {t.page for t in machine.spec.tasks if asks_for_page(t)}
        super().__init__({machine.page_index[t] for t in machine.spec.site.terminals
                          if t in machine.page_index and t not in asked}, [0])
        self.machine = machine
        self.terminal = self.pages or set()

    def key(self, s: State) -> Any:
        return s[0] if s[0] in self.terminal else None

    def make(self, key: Any) -> Goal:
        page = self.machine.pages[key]
        return Goal(id=f"terminal/{page.name}", kind="terminal", instruction=f'Reach the "{page_title(page)}" page.',
                    source=f"on {page.name}: true", page=page.name, match={"page": page.name, "vars": {}})


class ContentsFamily(Family):
    """One-element values of one set or map variable (session-wide, or of one page)."""

    kind = "contents"

    def __init__(self, machine: Machine, var: ir.Var, slot: int, page: int | None):
        super().__init__(None if page is None else {page}, [slot] if page is None else [0, slot])
        self.machine, self.var, self.slot, self.page = machine, var, slot, page

    def key(self, s: State) -> Any:
        if self.page is not None and s[0] != self.page:
            return None
        v = s[self.slot]
        return v if len(v) == 1 else None

    def _describe(self, key: Any) -> tuple[str, str, str]:
        t = self.var.type.inner if isinstance(self.var.type, ir.OptionalType) else self.var.type
        m = self.machine
        if isinstance(t, ir.MapType):
            k, v = key[0]
            name = display(m, t.key, k)
            value = t.value.inner if isinstance(t.value, ir.OptionalType) else t.value
            what = f"{v} × {name}" if isinstance(value, ir.IntType) else f"{name} ({display(m, t.value, v)})"
            return what, f"{format_value(k)}x{format_value(v)}", literal(key)
        assert isinstance(t, ir.SetType)
        x = key[0]
        return display(m, t.elem, x), format_value(x), literal(key)

    def make(self, key: Any) -> Goal:
        what, tag, literal = self._describe(key)
        page = None if self.page is None else self.machine.pages[self.page].name
        where = f' on the "{page_title(self.machine.pages[self.page])}" page' if self.page is not None else ""
        return Goal(
            id=f"contents/{self.var.name}/{page + '/' if page else ''}{tag}", kind="contents",
            instruction=f"Make the {humanize(self.var.name)}{where} contain exactly {what}.",
            source=(f"on {page}: " if page else "") + f"{self.var.name} == {literal}", page=page,
            match={"page": page, "vars": {self.var.name: json_value(key)}})


class ValueFamily(Family):
    """The values of one scalar variable (session-wide, or of one page), but the one it starts with."""

    kind = "value"

    def __init__(self, machine: Machine, var: ir.Var, slot: int, page: int | None):
        super().__init__(None if page is None else {page}, [slot] if page is None else [0, slot])
        self.machine, self.var, self.slot, self.page = machine, var, slot, page
        self.start = self._start(machine, var, slot, page)

    @staticmethod
    def _start(machine: Machine, var: ir.Var, slot: int, page: int | None) -> Any:
        """The value that is no goal: a session variable's initial value, a page variable's default
        (unless some navigation carries the variable in, when any value may arrive with it)."""
        if page is None:
            return machine.initial()[slot]
        name = machine.pages[page].name
        if any(var.name in a.carry for p in machine.pages for a in p.actions if a.goto == name):
            return object()
        return machine.page_defaults(page)[slot - 1 - len(machine.spec.session)]

    def key(self, s: State) -> Any:
        if self.page is not None and s[0] != self.page:
            return None
        v = s[self.slot]
        return None if v == self.start else (v,)

    def make(self, key: Any) -> Goal:
        m, (x,) = self.machine, key
        page = None if self.page is None else m.pages[self.page]
        said = f"set {humanize(self.var.name)} to {display(m, self.var.type, x)}"
        instruction = f'On the "{page_title(page)}" page, {said}.' if page else said[0].upper() + said[1:] + "."
        where = f"{page.name}/" if page else ""
        return Goal(
            id=f"value/{self.var.name}/{where}{format_value(x) if x is not None else 'none'}", kind="value",
            instruction=instruction, source=(f"on {page.name}: " if page else "") + f"{self.var.name} == {literal(x)}",
            page=page.name if page else None, match={"page": page.name if page else None,
                                                      "vars": {self.var.name: json_value(x)}})


class ViewFamily(Family):
    """Combinations of the page variables that a page's views filter and sort by."""

    kind = "view"

    def __init__(self, machine: Machine, page: int, slots: list[int]):
        super().__init__({page}, [0, *slots])
        self.machine, self.page, self.view_slots = machine, page, slots
        decls = (*machine.spec.session, *machine.pages[page].vars)
        self.vars = [decls[k - 1] for k in slots]
        base = 1 + len(machine.spec.session)
        defaults = machine.page_defaults(page)
        carried = {n for p in machine.pages for a in p.actions if a.goto == machine.pages[page].name for n in a.carry}
        # a variable some navigation carries in has no meaningful default: always say its value
        self.defaults = [object() if decls[k - 1].name in carried else defaults[k - base] for k in slots]

    def key(self, s: State) -> Any:
        return tuple(s[k] for k in self.view_slots) if s[0] == self.page else None

    def make(self, key: Any) -> Goal:
        m, page = self.machine, self.machine.pages[self.page]
        parts = [f"{humanize(v.name)} to {'any' if x is None else display(m, v.type, x)}"
                 for v, x, d in zip(self.vars, key, self.defaults, strict=True) if x != d]
        if not parts:
            said = "leave every filter and the sorting as they are when the page opens"
        else:
            said = "set " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])
            if len(parts) < len(self.vars):
                said += ", leaving the rest as it is when the page opens"
        conds = " and ".join(f"{v.name} == {literal(x)}" for v, x in zip(self.vars, key, strict=True))
        tag = ",".join(format_value(x) if x is not None else "none" for x in key)
        return Goal(
            id=f"view/{page.name}/{tag}", kind="view",
            instruction=f'On the "{page_title(page)}" page, {said}.', source=f"on {page.name}: {conds}",
            page=page.name, match={"page": page.name, "vars": {v.name: json_value(x) for v, x in zip(self.vars, key, strict=True)}})


def _pins(task: ir.Task) -> bool:
    """Whether a task without parameters only pins one variable to a value (`v == "x"`)."""
    g = task.goal
    return not task.params and isinstance(g, ir.Binary) and g.op == "==" and isinstance(g.left, ir.Name) \
        and isinstance(g.right, ir.Lit)


def _goal_names(spec: ir.Spec, page: str | None = None, pins: bool = True) -> set[str]:
    """The names task goals read: every task's (page None), or those of the tasks on `page`; without `pins`,
    those of the tasks that do more than pin one variable to a value."""
    out: set[str] = set()
    for task in spec.tasks:
        if (page is None or task.page == page) and (pins or not _pins(task)):
            ir.expr_names(task.goal, out)
    return out


def _is_container(t: ir.Type) -> bool:
    t = t.inner if isinstance(t, ir.OptionalType) else t
    return isinstance(t, (ir.SetType, ir.MapType))


def _contents_families(machine: Machine) -> Iterator[Family]:
    spec = machine.spec
    wanted = _goal_names(spec)
    for i, var in enumerate(spec.session):
        if _is_container(var.type) and (var.name in wanted or not spec.tasks):
            yield ContentsFamily(machine, var, 1 + i, None)
    base = 1 + len(spec.session)
    for pi, page in enumerate(machine.pages):
        here = _goal_names(spec, page.name)
        for j, var in enumerate(page.vars):
            if _is_container(var.type) and var.name in here:
                yield ContentsFamily(machine, var, base + j, pi)


def _value_families(machine: Machine, views: list[ViewFamily]) -> Iterator[Family]:
    spec = machine.spec
    wanted = _goal_names(spec, pins=False)
    for i, var in enumerate(spec.session):
        if not _is_container(var.type) and var.name in wanted:
            yield ValueFamily(machine, var, 1 + i, None)
    base = 1 + len(spec.session)
    in_views = {(f.page, k) for f in views for k in f.view_slots}
    for pi, page in enumerate(machine.pages):
        here = _goal_names(spec, page.name, pins=False)
        for j, var in enumerate(page.vars):
            if not _is_container(var.type) and var.name in here and (pi, base + j) not in in_views:
                yield ValueFamily(machine, var, base + j, pi)


def _view_families(machine: Machine) -> Iterator[ViewFamily]:
    base = 1 + len(machine.spec.session)
    for pi, page in enumerate(machine.pages):
        if not page.views:
            continue
        slots = reads(machine, page, [ir.Name(id=v.name) for v in page.views], ())
        paging = {v.page_var for v in page.views if v.page_var}
        own = [k for k in slots if k >= base and page.vars[k - base].name not in paging]
        if own:
            yield ViewFamily(machine, pi, own)


def derived_families(machine: Machine) -> list[Family]:
    """The derived goal families of a machine, in a fixed order: terminal, contents, view, value."""
    views = list(_view_families(machine))
    return [TerminalFamily(machine), *_contents_families(machine), *views, *_value_families(machine, views)]


def goal_holds(machine: Machine, goal: dict[str, Any], state: State) -> bool | str:
    """Whether a goal (its JSON form, as trajectories.jsonl records it) holds in `state`, or why it cannot be told."""
    if goal.get("kind") == "task":
        task = next((t for t in machine.spec.tasks if t.name == goal.get("task")), None)
        if task is None:
            return f"the spec has no task {goal.get('task')!r}"
        params = goal.get("params") or {}
        try:
            args = tuple(params[p.name] for p in task.params)
        except KeyError as err:
            return f"the goal lacks parameter {err}"
        return bool(machine.holds(task, args, state))
    match = goal.get("match")
    if not isinstance(match, dict):
        return "the goal has neither a task nor a match"
    js = machine.to_json(state)
    if match.get("page") is not None and match["page"] != js["page"]:
        return False
    want = match.get("vars") or {}
    return all(name in js["vars"] and js["vars"][name] == value for name, value in want.items())


def holds_before_end(machine: Machine, goal: dict[str, Any], moves: list[Move]) -> bool:
    """Whether the goal holds in a state the moves pass through before their last (where an episode would end)."""
    s = machine.initial()
    for mv in moves:
        if goal_holds(machine, goal, s) is True:
            return True
        s = machine.step(s, mv)
    return False
