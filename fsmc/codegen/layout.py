"""Decides where each GUI operation of each action is rendered on its page, and how each view is shown.

The runtime (templates/site/src/fsmc/store.js) turns these placements into concrete elements for the
current state; anything an enabled move needs that no placement shows lands in a fallback group, so a
placement decision can make a page look worse but never make a move unreachable.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from fsmc import ir
from fsmc.semantics import types as T

_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)?\}")

# Elements are claimed by the first place that renders their data-testid, in this order.
PLACE_ORDER = ("nav", "view", "form", "filters", "chips", "pager", "carousel", "actions", "more")


@dataclass
class Placement:
    """One GUI operation of one action: which element kind it needs and where it goes."""

    aid: int
    op: int
    kind: str  # button | card | opener | input | select | hover | drag | drop | none
    place: str  # nav | view:NAME | form | filters | chips | actions | pager | carousel
    bind: int = -1  # index of the parameter bound to the row of a view (place view:NAME)
    menu: int = -1  # index of the hover or opener operation whose menu holds this element
    group: str = ""  # heading of a chip group
    label_param: int = -1  # the parameter whose value (a row's title for references) labels the element


@dataclass
class ViewLayout:
    """How a view is displayed: as cards, a list, a table with quantities, or a carousel."""

    key: str  # "page.view"
    name: str
    table: str
    style: str  # grid | list | cart | carousel
    title_col: int
    price_col: int
    detail_cols: list[int]
    qty_var: int = -1  # state slot of the map a cart view shows quantities from
    page_var: int = -1
    page_size: int = 0
    carousel_next: str = ""  # data-testid of the button that steps a carousel
    pager: bool = False  # this view's footer holds the page's pagination buttons (first paginated view only)
    hidden: bool = False  # only feeds another view and nothing acts on its rows: not shown


@dataclass
class PageLayout:
    name: str
    title: str
    index: int
    views: list[ViewLayout] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    detail_var: int = -1  # state slot of a row reference shown as a detail panel
    detail_table: str = ""
    has_place: dict[str, bool] = field(default_factory=dict)


def humanise(name: str) -> str:
    return re.sub(r"[_\-]+", " ", name).strip().capitalize()


def _params_in(template: str | None) -> set[str]:
    return set(_PLACEHOLDER.findall(template or ""))


def _title_col(table: ir.Table) -> int:
    for name in ("title", "name", "label", "subject"):
        for i, c in enumerate(table.columns):
            if c.name == name:
                return i
    for i, c in enumerate(table.columns):
        if c.type == "str" and c.name != table.key:
            return i
    return 0


def _price_col(table: ir.Table) -> int:
    for i, c in enumerate(table.columns):
        if c.type == "num" and c.name in ("price", "total", "fare", "cost", "amount"):
            return i
    return -1


class LayoutDecider:
    """Computes the PageLayout of every page of a spec."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.tables = {t.name: t for t in spec.tables}
        self.nsess = len(spec.session)
        self._carousel_buttons: set[str] = set()
        self._paged = False
        self._commits: set[str | None] = set()

    def slot_of(self, page: ir.Page, name: str) -> tuple[int, ir.Type] | None:
        for i, v in enumerate(page.vars):
            if v.name == name:
                return 1 + self.nsess + i, v.type
        for i, v in enumerate(self.spec.session):
            if v.name == name:
                return 1 + i, v.type
        return None

    def view_table(self, page: ir.Page, view: ir.View, depth: int = 0) -> str:
        if view.source in self.tables or depth > 20:
            return view.source
        src = next((v for v in page.views if v.name == view.source), None)
        return self.view_table(page, src, depth + 1) if src else view.source

    def view_layout(self, page: ir.Page, view: ir.View, carousels: dict[str, str]) -> ViewLayout:
        table = self.tables[self.view_table(page, view)]
        title, price = _title_col(table), _price_col(table)
        details = [i for i, c in enumerate(table.columns) if i not in (title, price) and c.name != table.key][:3]
        layout = ViewLayout(key=f"{page.name}.{view.name}", name=view.name, table=table.name, style="grid",
                            title_col=title, price_col=price, detail_cols=details)
        where = view.where
        if (isinstance(where, ir.Binary) and where.op == "in" and isinstance(where.left, ir.Name)
                and where.left.id == view.alias and isinstance(where.right, ir.Name)):
            slot = self.slot_of(page, where.right.id)
            if slot and isinstance(T.strip_optional(slot[1]), ir.MapType):
                layout.style, layout.qty_var = "cart", slot[0]
            elif slot:
                layout.style = "list"
        if len(table.columns) > 4 and layout.style == "grid" and price < 0:
            layout.style = "list"
        if view.name in carousels:
            layout.style, layout.carousel_next = "carousel", carousels[view.name]
        if view.page_var and view.page_size:
            slot = self.slot_of(page, view.page_var)
            layout.page_var, layout.page_size = (slot[0] if slot else -1), view.page_size
        return layout

    def required_view(self, page: ir.Page, action: ir.Action, param: str) -> str | None:
        """The view a parameter must be shown in (`require p in V`), if the action says so."""
        views = {v.name for v in page.views}
        for r in action.requires:
            for e in _conjuncts(r):
                if (isinstance(e, ir.Binary) and e.op == "in" and isinstance(e.left, ir.Name) and e.left.id == param
                        and isinstance(e.right, ir.Name) and e.right.id in views):
                    return e.right.id
        return None

    def row_view(self, page: ir.Page, action: ir.Action, param: ir.Param) -> str | None:
        required = self.required_view(page, action, param.name)
        if required:
            return required
        ref = T.strip_optional(param.type)
        if isinstance(ref, ir.RefType):
            for v in page.views:
                if self.view_table(page, v) == ref.table:
                    return v.name
        return None

    def place_action(self, aid: int, page: ir.Page, action: ir.Action) -> list[Placement]:
        out: list[Placement] = []
        parent = -1  # the hover target or opener whose menu holds the rest of the procedure
        for k, op in enumerate(action.gui):
            used = _params_in(op.selector) & {p.name for p in action.params}
            kind, place, bind = self.kind_of(op), "actions", -1
            if used:
                pname = sorted(used)[0]
                pi = [p.name for p in action.params].index(pname)
                view = self.row_view(page, action, action.params[pi])
                if view is not None and len(used) == 1:
                    place, bind = f"view:{view}", pi
                    if kind == "button" and "card" in (op.selector or ""):
                        kind = "card"
                else:
                    place = "filters" if _sets_page_var(page, action) else "chips"
            elif op.op in ("type", "select", "drag", "press"):
                place = "form" if op.op != "select" else "filters"
            elif (op.selector or "").startswith("nav") or (action.goto is not None and op.op == "click" and not action.params):
                place = "nav" if (op.selector or "").startswith("nav") else "actions"
            if place == "actions" and self._paged and op.op == "click" and re.search(r"next|prev|page", op.selector or ""):
                place = "pager"
            if op.op == "repeat_click" and op.selector in self._carousel_buttons:
                place = "carousel"
            opener = op.op == "click" and k < _last_live(action) and op.selector not in self._commits and parent < 0
            if opener:
                kind = "opener"
            menu = parent if parent >= 0 and op.op in ("click", "type", "select", "press", "repeat_click") else -1
            names = [p.name for p in action.params]
            out.append(Placement(aid=aid, op=k, kind=kind, place=place, bind=bind, menu=menu, group=humanise(action.name),
                                 label_param=_first_param(op.selector, names) if op.op == "drag" else -1))
            if op.op == "drag" and op.text:
                tused = _params_in(op.text) & set(names)
                out.append(Placement(aid=aid, op=k, kind="drop", place="form" if not tused else place,
                                     group=humanise(action.name), label_param=_first_param(op.text, names)))
            if (op.op == "hover" or opener or _is_combobox(action, k)) and parent < 0:
                parent = k
        return out

    @staticmethod
    def kind_of(op: ir.GuiOp) -> str:
        return {"click": "button", "type": "input", "select": "select", "hover": "hover", "drag": "drag",
                "repeat_click": "button", "press": "none", "scroll_until_visible": "none", "wait": "none"}[op.op]

    def carousels(self, page: ir.Page) -> dict[str, str]:
        """Views whose cards are reached by `repeat click NEXT until visible CARD`: shown as carousels."""
        out: dict[str, str] = {}
        for action in page.actions:
            for op in action.gui:
                if op.op != "repeat_click" or not op.selector:
                    continue
                for p in action.params:
                    if "{" + p.name + "}" in (op.until or ""):
                        view = self.row_view(page, action, p)
                        if view:
                            out[view] = op.selector
        return out

    def page(self, index: int, page: ir.Page, first_aid: int) -> PageLayout:
        layout = PageLayout(name=page.name, title=page.title or humanise(page.name), index=index)
        carousels = self.carousels(page)
        self._carousel_buttons = set(carousels.values())
        self._paged = any(v.page_var for v in page.views)
        self._commits = {a.gui[_last_live(a)].selector for a in page.actions if _last_live(a) >= 0}
        layout.views = [self.view_layout(page, v, carousels) for v in page.views]
        bound = {p.place[5:] for p in layout.placements if p.place.startswith("view:")}
        sources = {v.source for v in page.views}
        for v in layout.views:
            v.hidden = v.name in sources and v.name not in bound and v.carousel_next == ""
        paged = [v for v in layout.views if v.page_var >= 0 and not v.hidden]
        if paged:
            paged[0].pager = True
        else:  # no visible paginated view to hold them
            for p in layout.placements:
                p.place = "actions" if p.place == "pager" else p.place
        for j, action in enumerate(page.actions):
            layout.placements.extend(self.place_action(first_aid + j, page, action))
        shown = {v.table for v in layout.views}
        for i, var in enumerate(page.vars):
            ref = var.type  # an optional reference is often unset: not worth a panel
            if (isinstance(ref, ir.RefType) and ref.table in self.tables and layout.detail_var < 0
                    and ref.table not in shown):
                layout.detail_var, layout.detail_table = 1 + self.nsess + i, ref.table
        places = {p.place.split(":")[0] for p in layout.placements}
        layout.has_place = {name: name in places for name in PLACE_ORDER}
        return layout


def _last_live(action: ir.Action) -> int:
    """Index of the operation that completes the action (waits and scrolls complete nothing), or -1."""
    live = [k for k, op in enumerate(action.gui) if op.op not in ("wait", "scroll_until_visible")]
    return live[-1] if live else -1


def _first_param(template: str | None, names: list[str]) -> int:
    for name in _PLACEHOLDER.findall(template or ""):
        if name in names:
            return names.index(name)
    return -1


def _is_combobox(action: ir.Action, k: int) -> bool:
    """`type X "..."` followed by a click on a parameterised option: the options drop down from the field."""
    ops = action.gui
    if ops[k].op != "type" or k + 1 >= len(ops) or ops[k + 1].op != "click":
        return False
    return bool(_params_in(ops[k + 1].selector) & {p.name for p in action.params})


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.Binary) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _sets_page_var(page: ir.Page, action: ir.Action) -> bool:
    names = {v.name for v in page.vars}
    return any(e.op == "assign" and e.var in names and e.key is None for e in action.effects)


def decide_layout(spec: ir.Spec) -> list[PageLayout]:
    decider = LayoutDecider(spec)
    pages, aid = [], 0
    for i, page in enumerate(spec.pages):
        pages.append(decider.page(i, page, aid))
        aid += len(page.actions)
    return pages


def layout_json(pages: list[PageLayout]) -> list[dict[str, Any]]:
    return [asdict(p) for p in pages]


__all__ = ["PLACE_ORDER", "PageLayout", "Placement", "ViewLayout", "decide_layout", "humanise", "layout_json"]
