"""Shared by the static checks: declarations by name, scopes, and every expression with its scope."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal
from weakref import WeakKeyDictionary

from fsmc import ir
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import did_you_mean
from fsmc.semantics import template_names

BindingKind = Literal["param", "alias", "var", "view", "session"]
Role = Literal["default", "where", "order", "when", "require", "value", "key", "goal", "answer"]


@dataclass
class PageIndex:
    """The declarations of one page by name; the first declaration of a name wins."""

    page: ir.Page
    vars: dict[str, ir.Var] = field(default_factory=dict)
    views: dict[str, ir.View] = field(default_factory=dict)
    actions: dict[str, ir.Action] = field(default_factory=dict)


@dataclass
class SpecIndex:
    """The declarations of a spec by name; the first declaration of a name wins."""

    spec: ir.Spec
    pages: dict[str, PageIndex] = field(default_factory=dict)
    tables: dict[str, ir.Table] = field(default_factory=dict)
    enums: dict[str, ir.Enum] = field(default_factory=dict)
    session: dict[str, ir.Var] = field(default_factory=dict)

    def view_table(self, page: PageIndex | None, view: ir.View) -> str | None:
        """The table a view's rows come from, or None when its source chain is broken or loops."""
        seen: set[str] = set()
        while view.source not in self.tables:
            if page is None or view.name in seen or view.source not in page.views:
                return None
            seen.add(view.name)
            view = page.views[view.source]
        return view.source


def _first(items: Iterable[tuple[str, ir.Node]]) -> dict[str, ir.Node]:
    out: dict[str, ir.Node] = {}
    for name, node in items:
        out.setdefault(name, node)
    return out


def _page_index(page: ir.Page) -> PageIndex:
    pi = PageIndex(page)
    for v in page.vars:
        pi.vars.setdefault(v.name, v)
    for w in page.views:
        pi.views.setdefault(w.name, w)
    for a in page.actions:
        pi.actions.setdefault(a.name, a)
    return pi


def build_index(spec: ir.Spec) -> SpecIndex:
    idx = SpecIndex(spec)
    for p in spec.pages:
        idx.pages.setdefault(p.name, _page_index(p))
    for t in spec.tables:
        idx.tables.setdefault(t.name, t)
    for e in spec.enums:
        idx.enums.setdefault(e.name, e)
    for v in spec.session:
        idx.session.setdefault(v.name, v)
    return idx


_CACHE: WeakKeyDictionary[CheckContext, SpecIndex] = WeakKeyDictionary()


def index_of(ctx: CheckContext) -> SpecIndex:
    """The index of the context's spec, built once per context."""
    if ctx not in _CACHE:
        _CACHE[ctx] = build_index(ctx.spec)
    return _CACHE[ctx]


def declared_types(spec: ir.Spec) -> Iterator[ir.Type]:
    """Every type written in the spec: variables and parameters."""
    for v in spec.session:
        yield v.type
    for page in spec.pages:
        for v in page.vars:
            yield v.type
        for a in page.actions:
            yield from (p.type for p in a.params)
    for task in spec.tasks:
        yield from (p.type for p in task.params)


def effect_var(idx: SpecIndex, page: PageIndex | None, eff: ir.Effect) -> ir.Var | None:
    """The variable an effect changes: a variable of the page, else a session variable."""
    if page is not None and eff.var in page.vars:
        return page.vars[eff.var]
    return idx.session.get(eff.var)


@dataclass(frozen=True)
class Binding:
    kind: BindingKind
    node: ir.Var | ir.View | ir.Param
    page: str | None = None  # the page of a page variable or view


@dataclass(frozen=True)
class Scope:
    """What names mean at one place, innermost first: params, row alias, page vars, page views, session vars."""

    index: SpecIndex
    page: PageIndex | None = None
    params: Mapping[str, ir.Param] = field(default_factory=dict)
    alias: tuple[str, ir.View] | None = None

    def resolve(self, name: str) -> Binding | None:
        if name in self.params:
            return Binding("param", self.params[name])
        if self.alias is not None and name == self.alias[0]:
            return Binding("alias", self.alias[1], self.page_name)
        if self.page is not None and name in self.page.vars:
            return Binding("var", self.page.vars[name], self.page_name)
        if self.page is not None and name in self.page.views:
            return Binding("view", self.page.views[name], self.page_name)
        if name in self.index.session:
            return Binding("session", self.index.session[name])
        return None

    @property
    def tables(self) -> Mapping[str, ir.Table]:
        return self.index.tables

    def view_table(self, view: ir.View) -> str | None:
        return self.index.view_table(self.page, view)

    @property
    def page_name(self) -> str | None:
        return self.page.page.name if self.page is not None else None

    def names(self) -> list[str]:
        """Every name visible here (for "did you mean" hints)."""
        out = list(self.params)
        if self.alias is not None:
            out.append(self.alias[0])
        if self.page is not None:
            out += list(self.page.vars) + list(self.page.views)
        return out + list(self.index.session)

    def with_params(self, params: tuple[ir.Param, ...]) -> Scope:
        return Scope(self.index, self.page, {**self.params, **_first((p.name, p) for p in params)}, self.alias)  # type: ignore[dict-item]

    def with_alias(self, view: ir.View) -> Scope:
        return Scope(self.index, self.page, self.params, (view.alias, view))


@dataclass(frozen=True)
class ExprSite:
    """One expression of the spec, where it occurs and what its names mean there."""

    expr: ir.Expr
    scope: Scope
    role: Role
    owner: ir.Node  # the var, view, action, effect or task it belongs to


def page_scope(idx: SpecIndex, page: ir.Page) -> Scope:
    return Scope(idx, idx.pages.get(page.name) or _page_index(page))


def task_scope(idx: SpecIndex, task: ir.Task) -> Scope:
    page = idx.pages.get(task.page) if task.page is not None else None
    return Scope(idx, page).with_params(task.params)


def _view_sites(scope: Scope, view: ir.View) -> Iterator[ExprSite]:
    inner = scope.with_alias(view)
    if view.where is not None:
        yield ExprSite(view.where, inner, "where", view)
    for key in view.order:
        yield ExprSite(key.expr, inner, "order", view)
        if key.when is not None:
            yield ExprSite(key.when, scope, "when", view)  # `when` is about the state, not the row


def _action_sites(scope: Scope, action: ir.Action) -> Iterator[ExprSite]:
    inner = scope.with_params(action.params)
    for r in action.requires:
        yield ExprSite(r, inner, "require", action)
    for eff in action.effects:
        if eff.key is not None:
            yield ExprSite(eff.key, inner, "key", eff)
        if eff.value is not None:
            yield ExprSite(eff.value, inner, "value", eff)


def _page_sites(idx: SpecIndex, page: ir.Page) -> Iterator[ExprSite]:
    scope = page_scope(idx, page)
    for var in page.vars:
        yield ExprSite(var.default, scope, "default", var)
    for view in page.views:
        yield from _view_sites(scope, view)
    for action in page.actions:
        yield from _action_sites(scope, action)


def _task_sites(idx: SpecIndex, task: ir.Task) -> Iterator[ExprSite]:
    scope = task_scope(idx, task)
    yield ExprSite(task.goal, scope, "goal", task)
    if task.answer is not None:
        yield ExprSite(task.answer, scope, "answer", task)


_SITES: WeakKeyDictionary[CheckContext, list[ExprSite]] = WeakKeyDictionary()


def expr_sites(ctx: CheckContext) -> list[ExprSite]:
    """Every expression of the spec with its scope, in source order of declarations."""
    if ctx not in _SITES:
        idx = index_of(ctx)
        out = [ExprSite(v.default, Scope(idx), "default", v) for v in ctx.spec.session]
        for page in ctx.spec.pages:
            out.extend(_page_sites(idx, page))
        for task in ctx.spec.tasks:
            out.extend(_task_sites(idx, task))
        _SITES[ctx] = out
    return _SITES[ctx]


@dataclass(frozen=True)
class NameUse:
    """A name read by an expression, and what it means there (None: nothing)."""

    node: ir.Name
    binding: Binding | None
    site: ExprSite


_USES: WeakKeyDictionary[CheckContext, list[NameUse]] = WeakKeyDictionary()


def name_uses(ctx: CheckContext) -> list[NameUse]:
    """Every name read by every expression of the spec, resolved once."""
    if ctx not in _USES:
        _USES[ctx] = [NameUse(n, site.scope.resolve(n.id), site) for site in expr_sites(ctx)
                      for n in ir.walk(site.expr) if type(n) is ir.Name]
    return _USES[ctx]


@dataclass(frozen=True)
class TemplateSite:
    """One templated string (label, instruction, GUI selector or text) with its scope."""

    text: str
    scope: Scope
    owner: ir.Node  # the action, GUI operation or task
    what: str  # "label", "instruction", "selector", ...


def _action_templates(scope: Scope, action: ir.Action) -> Iterator[TemplateSite]:
    inner = scope.with_params(action.params)
    if action.label:
        yield TemplateSite(action.label, inner, action, "label")
    for op in action.gui:
        for what, text in (("selector", op.selector), ("text", op.text), ("selector", op.until)):
            if text:
                yield TemplateSite(text, inner, op, what)


def template_sites(ctx: CheckContext) -> Iterator[TemplateSite]:
    idx = index_of(ctx)
    for page in ctx.spec.pages:
        scope = page_scope(idx, page)
        for action in page.actions:
            yield from _action_templates(scope, action)
    for task in ctx.spec.tasks:
        yield TemplateSite(task.instruction, task_scope(idx, task), task, "instruction")


def placeholders(text: str) -> list[tuple[str, str | None]]:
    """The `{x}` and `{x.col}` placeholders of a template as (name, column or None)."""
    out: list[tuple[str, str | None]] = []
    for ref in template_names(text):
        name, _, col = ref.partition(".")
        out.append((name, col or None))
    return out


def unknown_name_hint(name: str, scope: Scope) -> str:
    """The hint for a name that means nothing in its scope: a table, a close name, or where it is declared."""
    if name in scope.index.tables:
        return f"'{name}' is a table: read it through a view or a parameter `x: ref {name}`"
    return did_you_mean(name, scope.names()) or _elsewhere(name, scope) or "declare it as a variable or a parameter"


def _elsewhere(name: str, scope: Scope) -> str | None:
    """Where else the name is declared: a hint for names used outside their page."""
    pages = [p for p, pi in scope.index.pages.items() if name in pi.vars or name in pi.views]
    if not pages:
        return None
    if scope.page is None:
        return f"'{name}' belongs to page '{pages[0]}': write `task ... on {pages[0]}` to use it in the goal"
    return (f"'{name}' belongs to page '{pages[0]}'; carry it here with `goto {scope.page_name} carry {name}` "
            f"into a variable of this page, or make it a session variable")
