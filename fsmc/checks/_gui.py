"""Which GUI event fires which move, for the checks of duplicate selectors and ambiguous navigation.

The generated site fires a move when the last operation of its GUI procedure (waits and scrolls
aside) happens on its element, provided the text typed and options picked earlier in the procedure
are the move's (fsmc/templates/site/src/fsmc/store.js, `fire`). Two moves of a page are therefore
indistinguishable when their procedures end in the same event with compatible earlier inputs:
the site can only ever run the first of them. Procedures are expanded over the parameter values;
`{x}` of a variable stays symbolic, as it renders the same for both moves in any one state.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from fsmc import ir
from fsmc.checks._index import SpecIndex, index_of
from fsmc.checks.context import CheckContext
from fsmc.ir.visit import conjuncts
from fsmc.semantics import format_value
from fsmc.types.domains import domain_values

MAX_MOVES = 2_000  # an action with more parameter tuples is not expanded
SKIPPED = ("wait", "scroll_until_visible")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\}")


@dataclass(frozen=True)
class Event:
    """A GUI event that fires a move: an operation on a concrete element, with its text if it has one."""

    op: str
    selector: str
    text: str | None

    def __str__(self) -> str:
        return f'{self.op} "{self.selector}"' + (f' "{self.text}"' if self.text is not None else "")


@dataclass(frozen=True)
class Firing:
    """One move's event, the inputs its procedure fills first, and its arguments."""

    action: ir.Action
    op: ir.GuiOp
    event: Event
    inputs: tuple[tuple[str, str, str], ...]  # (op, selector, text) of earlier type/select operations
    args: tuple[Any, ...]

    def shown_args(self) -> str:
        return ", ".join(f"{p.name}={'none' if v is None else repr(v)}" for p, v in zip(self.action.params, self.args, strict=False))


def live_ops(action: ir.Action) -> list[ir.GuiOp]:
    return [op for op in action.gui if op.op not in SKIPPED]


Part = str | tuple[int, str | None]  # literal text, or (parameter index, column)


def _parse(template: str | None, params: dict[str, int]) -> list[Part]:
    """A template as literal text and parameter slots; `{x}` of a variable stays literal (it is symbolic)."""
    parts: list[Part] = []
    pos = 0
    text = template or ""
    for m in _PLACEHOLDER.finditer(text):
        if m.group(1) in params:
            parts += [text[pos:m.start()], (params[m.group(1)], m.group(2))]
            pos = m.end()
    parts.append(text[pos:])
    return parts


class _Values:
    """The rendered text of every parameter value (and of its row's columns), computed once per action."""

    def __init__(self, idx: SpecIndex, action: ir.Action, domains: list[tuple[Any, ...]]):
        self.idx, self.action, self.domains = idx, action, domains
        self.cache: dict[tuple[int, str | None], list[str]] = {}

    def text(self, slot: tuple[int, str | None], j: int) -> str:
        if slot not in self.cache:
            i, col = slot
            t = self.action.params[i].type
            self.cache[slot] = [format_value(v if col is None else _column(self.idx, v, t, col)) for v in self.domains[i]]
        return self.cache[slot][j]

    def render(self, parts: list[Part], choice: tuple[int, ...]) -> str:
        return "".join(p if isinstance(p, str) else self.text(p, choice[p[0]]) for p in parts)


def _column(idx: SpecIndex, key: Any, t: ir.Type, col: str) -> Any:
    base = t.inner if isinstance(t, ir.OptionalType) else t
    table = idx.tables.get(base.table) if isinstance(base, ir.RefType) else None
    if table is None or key is None:
        return None
    names = [c.name for c in table.columns]
    if col not in names or table.key not in names:
        return None
    k, c = names.index(table.key), names.index(col)
    return next((row[c] for row in table.rows if len(row) > max(k, c) and row[k] == key), None)


def _domains(idx: SpecIndex, action: ir.Action) -> list[tuple[Any, ...]] | None:
    try:
        domains = [domain_values(p.type, idx.spec) for p in action.params]
    except (KeyError, ValueError):
        return None
    total = 1
    for d in domains:
        total *= len(d)
    return domains if total <= MAX_MOVES else None


def firings(idx: SpecIndex, action: ir.Action) -> list[Firing]:
    """Every move of the action with the event that fires it (none when it has no GUI or too many moves)."""
    ops = live_ops(action)
    domains = _domains(idx, action) if ops else None
    if not ops or domains is None:
        return []
    params = {p.name: i for i, p in enumerate(action.params)}
    last = ops[-1]
    op = "click" if last.op == "repeat_click" else last.op
    sel = _parse(last.selector, params)
    text = _parse(last.text, params) if last.op in ("type", "press", "select", "drag") else None
    inputs = [(o.op, _parse(o.selector, params), _parse(o.text, params)) for o in ops[:-1] if o.op in ("type", "select")]
    values = _Values(idx, action, domains)
    out = []
    for choice in itertools.product(*(range(len(d)) for d in domains)):
        event = Event(op, values.render(sel, choice), None if text is None else values.render(text, choice))
        filled = tuple((o, values.render(a, choice), values.render(b, choice)) for o, a, b in inputs)
        args = tuple(d[j] for d, j in zip(domains, choice, strict=True))
        out.append(Firing(action, last, event, filled, args))
    return out


def compatible_inputs(a: Firing, b: Firing) -> bool:
    """Whether some state of the inputs satisfies both procedures (no element needs two different texts)."""
    texts = {(op, sel): text for op, sel, text in a.inputs}
    return all(texts.get((op, sel), text) == text for op, sel, text in b.inputs)


# ---------------------------------------------------------------- exclusive preconditions

_NEGATION = {"==": "!=", "!=": "==", "in": "not in", "not in": "in", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _complementary(a: ir.Expr, b: ir.Expr) -> bool:
    if isinstance(a, ir.Unary) and a.op == "not":
        return a.operand == b
    if isinstance(b, ir.Unary) and b.op == "not":
        return b.operand == a
    if not (isinstance(a, ir.Binary) and isinstance(b, ir.Binary)):
        return False
    if _NEGATION.get(a.op) == b.op and a.left == b.left and a.right == b.right:
        return True
    return a.op == b.op == "==" and _different_constants(a, b)


def _different_constants(a: ir.Binary, b: ir.Binary) -> bool:
    """`x == "a"` and `x == "b"`."""
    for sa, ca in ((a.left, a.right), (a.right, a.left)):
        for sb, cb in ((b.left, b.right), (b.right, b.left)):
            if sa == sb and isinstance(ca, ir.Lit) and isinstance(cb, ir.Lit) and ca.value != cb.value:
                return True
    return False


def exclusive(a: ir.Action, b: ir.Action) -> bool:
    """Whether the preconditions of two actions visibly contradict each other (so one move at most is enabled)."""
    ca, cb = conjuncts(*a.requires), conjuncts(*b.requires)
    return any(_complementary(x, y) for x in ca for y in cb)


def pinned_params(action: ir.Action) -> set[int]:
    """Parameters a precondition fixes to a value of the state (`require p == x`): one move at most is enabled."""
    names = {p.name: i for i, p in enumerate(action.params)}
    out: set[int] = set()
    for c in conjuncts(*action.requires):
        if isinstance(c, ir.Binary) and c.op == "==":
            for side, other in ((c.left, c.right), (c.right, c.left)):
                if isinstance(side, ir.Name) and side.id in names and not _mentions(other, side.id):
                    out.add(names[side.id])
    return out


def _mentions(e: ir.Expr, name: str) -> bool:
    return any(isinstance(n, ir.Name) and n.id == name for n in ir.walk(e))


# ---------------------------------------------------------------- collisions


@dataclass(frozen=True)
class Collision:
    """Two moves of one page that the same GUI event fires (`first` comes first in canonical order)."""

    page: ir.Page
    first: Firing
    second: Firing


def _same_action(fs: list[Firing]) -> tuple[Firing, Firing] | None:
    pinned = pinned_params(fs[0].action)
    for i, a in enumerate(fs):
        for b in fs[i + 1:]:
            if compatible_inputs(a, b) and not any(a.args[k] != b.args[k] for k in pinned):
                return a, b
    return None


def _within(page: ir.Page, fs: list[Firing]) -> Iterator[Collision]:
    by_action: dict[int, list[Firing]] = {}
    for f in fs:
        by_action.setdefault(id(f.action), []).append(f)
    groups = list(by_action.values())
    for g in groups:
        found = _same_action(g) if len(g) > 1 else None
        if found is not None:
            yield Collision(page, *found)
    for i, ga in enumerate(groups):
        for gb in groups[i + 1:]:
            pair = _between(ga, gb)
            if pair is not None:
                yield Collision(page, *pair)


def _between(ga: list[Firing], gb: list[Firing]) -> tuple[Firing, Firing] | None:
    if exclusive(ga[0].action, gb[0].action):
        return None
    for a in ga:
        for b in gb:
            if compatible_inputs(a, b):
                return a, b
    return None


def _page_collisions(idx: SpecIndex, page: ir.Page) -> Iterator[Collision]:
    by_event: dict[Event, list[Firing]] = {}
    for action in page.actions:
        for f in firings(idx, action):
            by_event.setdefault(f.event, []).append(f)
    seen: set[tuple[int, int]] = set()
    for fs in by_event.values():
        if len(fs) < 2:
            continue
        for c in _within(page, fs):
            key = (id(c.first.action), id(c.second.action))
            if key not in seen:
                seen.add(key)
                yield c


_CACHE: WeakKeyDictionary[CheckContext, list[Collision]] = WeakKeyDictionary()


def collisions(ctx: CheckContext) -> list[Collision]:
    """Every pair of moves of a page that one GUI event fires, one pair per pair of actions."""
    if ctx not in _CACHE:
        idx = index_of(ctx)
        _CACHE[ctx] = [c for page in ctx.spec.pages for c in _page_collisions(idx, page)]
    return _CACHE[ctx]
