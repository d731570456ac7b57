"""Decides where each GUI operation of each action is rendered on its page, as which widget, and how views show.

The runtime (fsmc/templates/site/src/fsmc/store.js) turns these placements into concrete elements for the
current state; anything an enabled move needs that no placement shows lands in a fallback group, so a
placement decision can make a page look worse but never make a move unreachable.

Widgets come from what actions do, never from names alone: an action that assigns its parameter to a
variable is an option picker (its chosen value is highlighted), a pair of increment and decrement
actions is a quantity stepper, a toggle is a checkbox, an add/remove pair on a set is a checklist, an
opener followed by a day is a date picker, an opener followed by one confirming click is a modal. A row of a
view that a move scrolls to by a testid no control has (`scroll_until_visible "card-{f}"`, then a click on the
row's own button) is an anchor: the row itself carries that testid, and is no control.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from fsmc import ir
from fsmc.codegen.actions import (
    Facts,
    action_facts,
    assigned_from_param,
    common_affix,
    expr_names,
    first_param,
    is_calendar,
    is_combobox,
    is_menu,
    is_modal,
    label_prefix,
    last_live,
    map_assign,
    pair_checklists,
    params_in,
    requirements,
    row_label,
    sets_page_var,
    typed_var,
    unset_checks,
)
from fsmc.codegen.app_images import app_pictures
from fsmc.codegen.present import (
    Pictures,
    decide_pictures,
    detail_columns,
    humanise,
    money_columns,
    price_index,
    row_table,
    site_copy,
    site_title,
    title_index,
    word,
)
from fsmc.codegen.words import (
    action_phrase,
    content_words,
    date_part,
    field_phrase,
    menu_option,
    option_phrase,
    split,
    value_words,
)
from fsmc.types import domains as T

_CHECKBOX = re.compile(r"(?i)checkbox|check-box|toggle|switch")

# Elements are claimed by the first place that renders their data-testid, in this order.
PLACE_ORDER = ("nav", "search", "notice", "view", "form", "filters", "chips", "pager", "carousel", "actions", "more")


@dataclass
class Placement:
    """One GUI operation of one action: which element kind it needs, where it goes and which widget it is part of."""

    aid: int
    op: int
    kind: str  # button | card | opener | input | select | hover | drag | drop | anchor | none
    place: str  # nav | search | notice | view:NAME | form | filters | chips | actions | pager | carousel
    bind: int = -1  # index of the parameter bound to the row of a view (place view:NAME)
    menu: int = -1  # index of the hover or opener operation whose menu holds this element
    group: str = ""  # heading of the widget the element belongs to
    label_param: int = -1  # the parameter whose value (a row's title for references) labels the element
    role: str = ""  # choice | inc | dec | toggle | add | remove | clear | submit | search | calendar | calendar-next
    #                 | calendar-day | modal | "" (a plain control)
    var: int = -1  # state slot the widget shows (the chosen value, the count, the set)
    value_param: int = -1  # the parameter whose value this element stands for (an option, a checklist entry)
    gkey: str = ""  # placements with the same key in one place are rendered as one widget
    hints: list[list[Any]] = field(default_factory=list)  # [conjunct index, field label]: what to fill in first
    field: str = ""  # label of a form field
    text: str = ""  # a fixed label, where the action's label would say too much ("Sign in", "Apply")
    step: int = 0  # the step of a multi-step form this element belongs to (0: every step)
    prefill: bool = False  # a field that shows the variable it sets until something is typed (a search box)
    primary: bool = False  # the main call to action of its place
    shows: int = -1  # state slot a text field shows once its move is done: the value its typing set
    shows_text: str = ""  # ... or, where that slot is a flag its typing set, the text typed, shown while it is true
    words: str = ""  # what the element reads as where no label of the action applies (an opener, a menu, a field)


@dataclass
class ViewLayout:
    """How a view is displayed: as cards, a list, a table with quantities, or a carousel."""

    key: str  # "page.view"
    name: str
    table: str
    style: str  # grid | list | cart | carousel | tiles
    title_col: int
    price_col: int
    detail_cols: list[list[int]]
    money_cols: list[int] = field(default_factory=list)  # other amounts (a fare per cabin), shown with labels
    qty_var: int = -1  # state slot of the map a cart view shows quantities from
    extra_maps: list[dict[str, Any]] = field(default_factory=list)  # other maps keyed by the row: more columns
    page_var: int = -1
    page_size: int = 0
    carousel_next: str = ""  # data-testid of the button that steps a carousel
    pager: bool = False  # this view's footer holds the page's pagination buttons (first paginated view only)
    hidden: bool = False  # only feeds another view and nothing acts on its rows: not shown
    image_col: int = -2  # -1: the row's own picture; i >= 0: the picture of the row column i refers to; -2: none
    image_style: str = ""  # photo | logo
    heading: str = ""


@dataclass
class PageLayout:
    name: str
    title: str
    index: int
    views: list[ViewLayout] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    detail_var: int = -1  # state slot of a row reference shown as a detail panel
    detail_table: str = ""
    detail_mode: str = ""  # full: the page is about this row | summary: a reminder beside the page's own work
    detail_image: dict[str, Any] = field(default_factory=dict)  # {"col", "style"} as for views
    detail_cols: list[list[int]] = field(default_factory=list)  # what a summary of the row shows
    structure: str = "form"  # listing (sidebar + results) | detail | form
    context: list[dict[str, Any]] = field(default_factory=list)  # carried-in values the results depend on
    summary: list[dict[str, Any]] = field(default_factory=list)  # carried-in choices shown as an order summary
    steps: dict[str, Any] = field(default_factory=dict)  # {"slot", "count"}: a multi-step form on one page
    flow: dict[str, Any] = field(default_factory=dict)  # {"names", "current"}: pages of one checkout flow
    terminal: bool = False
    has_place: dict[str, bool] = field(default_factory=dict)
    featured: dict[str, Any] = field(default_factory=dict)  # {"table", "heading", ...}: rows shown on a page without any
    lead: str = ""  # a line under the heading of a page that shows no rows: what its fields ask, or what the site holds
    note: str = ""  # small print under a form that every form of its kind carries (the terms a sign-in agrees to)


class LayoutDecider:
    """Computes the PageLayout of every page of a spec."""

    def __init__(self, spec: ir.Spec):
        self.spec = spec
        self.tables = {t.name: t for t in spec.tables}
        self.nsess = len(spec.session)
        self.pictures: Pictures = decide_pictures(spec, frozenset(app_pictures(spec)))
        self._carousel_buttons: set[str] = set()
        self._paged = False
        self._commits: set[str | None] = set()
        self._acted_on: set[str | None] = set()  # selectors of the page's operations other than scrolls and waits
        self.carried_in = self._carried_in()
        self.answers = self._answer_columns()

    # ---------------------------------------------------------------- facts about the spec
    def _carried_in(self) -> dict[str, dict[str, list[ir.Action]]]:
        """page -> variable -> the actions that arrive on the page carrying it."""
        out: dict[str, dict[str, list[ir.Action]]] = {}
        for page in self.spec.pages:
            for a in page.actions:
                if a.goto is not None:
                    for name in a.carry:
                        out.setdefault(a.goto, {}).setdefault(name, []).append(a)
        return out

    def _answer_columns(self) -> dict[str, set[str]]:
        """view name -> columns a retrieval task's answer reads from it (`first(hits).price`): always shown."""
        out: dict[str, set[str]] = {}

        def walk(root: ir.Expr | None) -> None:
            for e in ir.walk(root) if root is not None else ():
                if isinstance(e, ir.GetField) and isinstance(e.obj, ir.Call) and e.obj.args \
                        and isinstance(e.obj.args[0], ir.Name):
                    out.setdefault(e.obj.args[0].id, set()).add(e.field)

        for task in self.spec.tasks:
            walk(task.answer)
        return out

    def slot_of(self, page: ir.Page, name: str) -> tuple[int, ir.Type] | None:
        for i, v in enumerate(page.vars):
            if v.name == name:
                return 1 + self.nsess + i, v.type
        for i, v in enumerate(self.spec.session):
            if v.name == name:
                return 1 + i, v.type
        return None

    def var_show(self, page: ir.Page, name: str) -> dict[str, Any]:
        """How a variable's value is shown: {slot, label, kind, table, vtable}."""
        found = self.slot_of(page, name)
        assert found is not None
        slot, t = found
        base = T.strip_optional(t)

        def table_of(x: ir.Type) -> str | None:
            x = T.strip_optional(x)
            return x.table if isinstance(x, ir.RefType) else None

        table = vtable = None
        if isinstance(base, (ir.RefType, ir.ChoiceType)):
            table = row_table(self.spec, base)
        elif isinstance(base, ir.SetType):
            table = table_of(base.elem)
        elif isinstance(base, ir.MapType):
            table, vtable = table_of(base.key), table_of(base.value)
        return {"slot": slot, "label": word(name), "kind": base.kind, "table": table, "vtable": vtable}

    def view_table(self, page: ir.Page, view: ir.View, depth: int = 0) -> str:
        if view.source in self.tables or depth > 20:
            return view.source
        src = next((v for v in page.views if v.name == view.source), None)
        return self.view_table(page, src, depth + 1) if src else view.source

    # ---------------------------------------------------------------- views
    def view_layout(self, page: ir.Page, view: ir.View, carousels: dict[str, str]) -> ViewLayout:
        table = self.tables[self.view_table(page, view)]
        title, price = title_index(table), price_index(table)
        cols = [c.name for c in table.columns]
        must = tuple(cols.index(c) for c in sorted(self.answers.get(view.name, ())) if c in cols)
        picture = self.pictures.of(table)
        layout = ViewLayout(key=f"{page.name}.{view.name}", name=view.name, table=table.name, style="grid",
                            title_col=title, price_col=price, detail_cols=detail_columns(table, 3, must),
                            money_cols=money_columns(table),
                            image_col=picture["col"], image_style=picture["style"], heading=_heading(view.name))
        where = view.where
        if (isinstance(where, ir.Binary) and where.op == "in" and isinstance(where.left, ir.Name)
                and where.left.id == view.alias and isinstance(where.right, ir.Name)):
            slot = self.slot_of(page, where.right.id)
            if slot and isinstance(T.strip_optional(slot[1]), ir.MapType):
                layout.style, layout.qty_var = "cart", slot[0]
                layout.extra_maps = self.extra_maps(page, table.name, where.right.id)
            elif slot:
                layout.style = "list"
        if layout.style == "grid" and picture["style"] != "photo":
            layout.style = "tiles" if len(table.columns) <= 4 else "list"
        if layout.style == "list":
            layout.detail_cols = detail_columns(table, 7, must)
        if view.name in carousels:
            layout.style, layout.carousel_next = "carousel", carousels[view.name]
        if view.page_var and view.page_size:
            slot = self.slot_of(page, view.page_var)
            layout.page_var, layout.page_size = (slot[0] if slot else -1), view.page_size
        return layout

    def extra_maps(self, page: ir.Page, table: str, shown: str) -> list[dict[str, Any]]:
        """Other maps keyed by the cart's rows (the size of each line): more columns of the cart table."""
        out = []
        for v in [*self.spec.session, *page.vars]:
            base = T.strip_optional(v.type)
            if v.name == shown or not isinstance(base, ir.MapType):
                continue
            key = T.strip_optional(base.key)
            if isinstance(key, ir.RefType) and key.table == table and not isinstance(T.strip_optional(base.value), ir.IntType):
                out.append(self.var_show(page, v.name))
        return out

    def required_view(self, page: ir.Page, action: ir.Action, param: str) -> str | None:
        """The view a parameter must be shown in (`require p in V`), if the action says so."""
        views = {v.name for v in page.views}
        for e in requirements(action):
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

    # ---------------------------------------------------------------- placements
    @staticmethod
    def kind_of(op: ir.GuiOp) -> str:
        return {"click": "button", "type": "input", "select": "select", "hover": "hover", "drag": "drag",
                "repeat_click": "button", "press": "none", "scroll_until_visible": "none", "wait": "none"}[op.op]

    def place_op(self, page: ir.Page, action: ir.Action, k: int) -> tuple[str, str, int]:
        """(kind, place, bound parameter) of one operation, before widgets are considered."""
        op = action.gui[k]
        used = params_in(op.selector) & {p.name for p in action.params}
        kind, place, bind = self.kind_of(op), "actions", -1
        if used:
            pi = [p.name for p in action.params].index(sorted(used)[0])
            view = self.row_view(page, action, action.params[pi])
            if view is not None and len(used) == 1:
                place, bind = f"view:{view}", pi
                if kind == "button" and "card" in (op.selector or ""):
                    kind = "card"
                elif op.op == "scroll_until_visible" and op.selector not in self._acted_on:
                    kind = "anchor"  # a row scrolled to that no control names: the row itself carries the testid
            else:
                place = "filters" if sets_page_var(page, action) else "chips"
        elif op.op in ("type", "press"):
            place = "form"
        elif op.op in ("select", "drag"):
            place = "filters"
        elif (op.selector or "").startswith("nav"):
            place = "nav"
        if place == "actions" and self._paged and op.op == "click" and re.search(r"next|prev|page", op.selector or ""):
            place = "pager"
        if op.op == "repeat_click" and op.selector in self._carousel_buttons:
            place = "carousel"
        return kind, place, bind

    def place_action(self, aid: int, page: ir.Page, action: ir.Action, facts: Facts) -> list[Placement]:
        out: list[Placement] = []
        parent = -1  # the hover target or opener whose menu holds the rest of the procedure
        names = [p.name for p in action.params]
        last = last_live(action)
        guards = [k for k, op in enumerate(action.gui[:max(last, 0)]) if op.op in ("type", "select")]
        slot = self.slot_of(page, facts.var)[0] if facts.var else -1  # type: ignore[index]
        group = self.group_name(page, action, facts)
        fields = common_affix([action.gui[k].selector or "" for k in guards if action.gui[k].op == "type"])
        typed = iter(fields)
        for k, op in enumerate(action.gui):
            kind, place, bind = self.place_op(page, action, k)
            opener = op.op == "click" and k < last and op.selector not in self._commits and parent < 0
            if opener:
                kind = "opener"
            menu = parent if parent >= 0 and op.op in ("click", "type", "select", "press", "repeat_click") else -1
            # The widget's role belongs to the element that completes the move, and to the one that opens it;
            # text typed and options picked before a submit are fields of the same widget.
            owns = k == last or op.op in ("hover", "drag") or opener
            pl = Placement(aid=aid, op=k, kind=kind, place=place, bind=bind, menu=menu, group=group,
                           label_param=first_param(op.selector, names) if op.op == "drag" else -1,
                           role=facts.role if owns else "", var=slot, value_param=facts.value_param,
                           gkey=f"var:{slot}" if slot >= 0 and facts.role else f"action:{aid}")
            if op.op == "type":
                single = sum(o.op == "type" for o in action.gui) == 1
                name = common_affix([op.selector or ""])[0] if single else next(typed, op.selector or "")
                pl.field = (label_prefix(action) if single else "") or field_phrase(name)
                pl.prefill = single and slot >= 0 and facts.role == "choice"
                shown = typed_var(action, op)
                pl.shows = self.slot_of(page, shown[0])[0] if shown else -1  # type: ignore[index]
                pl.shows_text = shown[1] if shown else ""
            pl.words = self.element_words(page, action, k, pl)
            self.widget(pl, page, action, k, last, guards)
            out.append(pl)
            if op.op == "drag" and op.text:
                tused = params_in(op.text) & set(names)
                drop_place, drop_bind = (place, -1) if not tused else (place, bind)  # one widget: a slider
                if tused:
                    pi = names.index(sorted(tused)[0])
                    view = self.required_view(page, action, names[pi])
                    if view is not None:
                        drop_place, drop_bind = f"view:{view}", pi
                out.append(Placement(aid=aid, op=k, kind="drop", place=drop_place, bind=drop_bind, group=pl.group,
                                     label_param=first_param(op.text, names), role=pl.role, var=pl.var,
                                     gkey=pl.gkey, text="" if tused else value_words(op.text)))
            if (op.op == "hover" or opener or is_combobox(action, k)) and parent < 0:
                parent = k
        return out

    @staticmethod
    def element_words(page: ir.Page, action: ir.Action, k: int, pl: Placement) -> str:
        """What an element that is not the action's last step reads as: its field, or its selector in words."""
        op = action.gui[k]
        if pl.field:
            return pl.field
        if (part := date_part(op.selector or "")) is not None:
            return part
        if op.op in ("hover",) or pl.kind == "opener":
            ws = [w for w in content_words(op.selector or "") if w not in ("toggle", "open", "show", "expand", "dropdown")]
            return action_phrase("-".join(ws), page=page.name) if ws else "Menu"
        return action_phrase(op.selector or "", action_phrase(action.name, page=page.name), page.name)

    def widget(self, pl: Placement, page: ir.Page, action: ir.Action, k: int, last: int, guards: list[int]) -> None:
        """Refines a placement by the widget its action is: search box, form submit, date picker, modal, notice."""
        op = action.gui[k]
        sel = op.selector or ""
        if op.op in ("type", "press") and "search" in sel and action.goto is not None:
            pl.place, pl.role, pl.gkey = "search", "search", f"action:{pl.aid}"
        elif k == last and guards and op.op == "click" and not params_in(sel):
            typed = action.gui[guards[0]].op == "type"
            pl.place = "form" if typed else "filters"
            pl.role, pl.primary = "submit", typed
            pl.text = action_phrase(action.name, page=page.name) if typed else "Apply"
            pl.group = action_phrase(action.name, page=page.name) if typed else pl.group
        elif pl.role and pl.bind < 0 and pl.place in ("actions", "chips") and pl.menu < 0 and pl.kind != "hover":
            pl.place = "filters"
        elif pl.bind >= 0 and pl.role != "choice" and pl.kind in ("button", "none"):
            pl.text = row_label(action, action.params[pl.bind].name)
        if is_calendar(action, self.spec):
            opens = min(j for j, o in enumerate(action.gui) if o.op not in ("wait", "scroll_until_visible"))
            placed = pl.kind not in ("none", "anchor")
            pl.role = {opens: "calendar", last: "calendar-day"}.get(k, "calendar-next") if placed else ""
            if k == opens:
                pl.place = "filters"
        elif is_modal(action) and pl.kind == "opener":
            pl.role = "modal"
        elif is_modal(action) and k == last:
            pl.text = "Confirm"
        elif pl.role == "toggle" and k == last and not action.label and _CHECKBOX.search(sel):
            pl.text = option_phrase(action.name)  # the checkbox says what it stands for: "Private"
        elif is_menu(action) and k == last and not action.params:
            pl.text = menu_option(action.gui[k].selector or "", action.gui[0].selector or "")
        elif op.op == "drag" and (assigned := map_assign(action)) is not None:
            pl.role, pl.var, pl.value_param = "drag-assign", self.slot_of(page, assigned[0])[0], assigned[1]  # type: ignore[index]
            pl.group, pl.gkey = word(assigned[0]), f"var:{pl.var}"
        elif op.op == "drag" and pl.var < 0:
            pl.group = option_phrase(action.name)
        if pl.place == "actions" and re.search(r"cookie|consent", sel) and not action.params:
            pl.place = "notice"
        if pl.place == "actions" and action.goto is not None:
            here = [p.name for p in self.spec.pages].index(page.name)
            there = [p.name for p in self.spec.pages].index(action.goto)
            pl.primary = there > here and not re.search(r"back|cancel|edit|home|logo|modify|new", sel + action.name)
        if pl.kind == "opener" and pl.role == "modal":
            pl.primary = True

    def group_name(self, page: ir.Page, action: ir.Action, facts: Facts) -> str:
        """The heading of the widget an action is part of: what is being chosen, in the site's words."""
        prefix = label_prefix(action)
        if facts.var is None:
            refs = [T.strip_optional(p.type) for p in action.params]
            if not prefix and len(refs) == 1 and isinstance(refs[0], ir.RefType):
                return f"{action_phrase(action.name, page=page.name)} {humanise(refs[0].table).lower()}"  # "Browse categories"
            return prefix or action_phrase(action.name, page=page.name)
        shown = self.var_show(page, facts.var)
        if facts.role in ("check-add", "check-remove", "add"):
            return humanise(shown["table"]) if shown["table"] else word(facts.var)
        if facts.role in ("inc", "dec", "toggle", "clear"):
            return word(facts.var)
        return prefix or word(facts.var)

    # ---------------------------------------------------------------- the page
    def page(self, index: int, page: ir.Page, first_aid: int) -> PageLayout:
        layout = PageLayout(name=page.name, title=_page_title(self.spec, page), index=index,
                            terminal=page.name in self.spec.site.terminals)
        carousels = self.carousels(page)
        self._carousel_buttons = set(carousels.values())
        self._paged = any(v.page_var for v in page.views)
        self._commits = {a.gui[last_live(a)].selector for a in page.actions if last_live(a) >= 0}
        self._acted_on = {sel for a in page.actions for op in a.gui if op.op not in ("scroll_until_visible", "wait")
                          for sel in (op.selector, op.text if op.op == "drag" else None) if sel}
        layout.views = [self.view_layout(page, v, carousels) for v in page.views]
        facts = [action_facts(page, a) for a in page.actions]
        pair_checklists(page, facts)
        for j, action in enumerate(page.actions):
            layout.placements.extend(self.place_action(first_aid + j, page, action, facts[j]))
        self.finish_views(page, layout)
        self.decide_detail(page, layout)
        self.decide_featured(page, layout)
        self.decide_lead(page, layout)
        self.decide_steps(page, layout, first_aid)
        self.decide_flow(page, layout)
        self.decide_shown_vars(page, layout)
        self.decide_hints(page, layout, first_aid)
        places = {p.place.split(":")[0] for p in layout.placements}
        layout.has_place = {name: name in places for name in PLACE_ORDER}
        results = any(not v.hidden and (v.page_var >= 0 or self._sorted(page, v.name)) for v in layout.views)
        if layout.detail_mode == "full":
            layout.structure = "detail"
        elif results:
            layout.structure = "listing"
        return layout

    def _sorted(self, page: ir.Page, view: str) -> bool:
        return any(v.name == view and v.order for v in page.views)

    def finish_views(self, page: ir.Page, layout: PageLayout) -> None:
        bound = {p.place[5:] for p in layout.placements if p.place.startswith("view:")}
        sources = {v.source for v in page.views if v.source != v.name}  # a view named after its table feeds nothing
        for v in layout.views:
            v.hidden = v.name in sources and v.name not in bound and v.carousel_next == ""
        paged = [v for v in layout.views if v.page_var >= 0 and not v.hidden]
        if paged:
            paged[0].pager = True
        else:  # no visible paginated view to hold them
            for p in layout.placements:
                p.place = "actions" if p.place == "pager" else p.place

    def decide_featured(self, page: ir.Page, layout: PageLayout) -> None:
        """A page that shows no rows of its own shows some of the site's: those of the table its name speaks of
        (the followers page, its followers), or on the start page and on a page that asks nothing (an overview, a
        confirmation) the richest table's, as a site's home or a dashboard would."""
        if any(not v.hidden for v in layout.views) or layout.detail_mode == "full" or not self.spec.tables:
            return
        mine = set(content_words(page.name)) | {w.rstrip("s") for w in content_words(page.name)}
        table = next((t for t in self.spec.tables if t.rows and
                      (set(content_words(t.name)) | {w.rstrip("s") for w in content_words(t.name)}) & mine), None)
        entry = page.name == self.spec.site.entry
        asks = any(p.place in ("form", "filters", "chips") for p in layout.placements)
        if table is None and (entry or not asks):  # a page of buttons only (an overview, a confirmation) too
            table = max(self.spec.tables, key=lambda t: (len(t.rows) > 0, len(t.columns)))
        if table is None or not table.rows:
            return
        cols = detail_columns(table, 2)
        layout.featured = {"table": table.name, "heading": "Featured" if entry else humanise(table.name),
                           "title_col": title_index(table), "detail_cols": cols, "count": min(4, len(table.rows))}

    def decide_lead(self, page: ir.Page, layout: PageLayout) -> None:
        """A page that shows no rows of its own says in a line what it is and what it asks for (its fields, by their
        labels), or else what the site holds (its tables) or where the page leads, as a form's or a dashboard's
        introduction would; the start page says first what the site is for, in its kind's words."""
        if any(not v.hidden for v in layout.views) or layout.detail_mode == "full":
            return
        asking = [p for p in layout.placements if p.place in ("form", "filters", "chips") and p.role != "submit"]
        typed = list(dict.fromkeys(p.field for p in asking if p.field))
        chosen = list(dict.fromkeys(p.text for p in asking if p.text and not p.field))
        site, said = site_title(self.spec), _said(page)
        where = f"{layout.title}." if site in layout.title else f"{layout.title} on {site}."
        if page.name == self.spec.site.entry and (tagline := site_copy(self.spec, site, "")["tagline"]):
            where = f"{where} {tagline}"
        account = next((form for form in ACCOUNT_FORMS if typed and re.search(form[0], said)), None)
        ask = " ".join(([f"Fill in {_and(typed)}."] if typed else []) + ([f"Choose {_and(chosen)}."] if chosen else []))
        if account is not None:
            layout.lead, layout.note = (text.format(site=site, fields=_and(typed)) for text in account[1:])
        elif ask and re.search(SETTINGS, said):
            topic = " ".join(w for w in split(page.title or page.name) if w not in ("settings", "setting"))
            layout.lead = f"Manage your {topic} settings on {site}. {ask}"
            layout.note = "You can change these settings at any time."
        elif ask:  # what the page is, on which site, what it asks and what comes of it
            then = self._main_move(page, layout)
            layout.lead = f"{where} {ask[:-1]}" + (f", then {then[:1].lower()}{then[1:]}." if then else ".")
        elif self.spec.tables:
            layout.lead = f"Browse {_and([humanise(t.name) for t in self.spec.tables[:4]])} on {site}."
        elif moves := self._moves(page, layout):  # a site without data: where its page leads, in its buttons' words
            layout.lead = f"{where} From here you can {_and(moves)}."

    def _moves(self, page: ir.Page, layout: PageLayout) -> list[str]:
        """The words of the page's buttons (at most four), as a sentence lists them: "go to inbox"."""
        first = min((p.aid for p in layout.placements), default=0)
        said = [action_phrase(page.actions[p.aid - first].name, page=page.name) for p in layout.placements
                if p.kind == "button"]
        return [w[:1].lower() + w[1:] for w in dict.fromkeys(said)][:4]

    def _main_move(self, page: ir.Page, layout: PageLayout) -> str:
        """The words of the page's main call to action (a form's submit, the way on), or "" if it has none."""
        first = min((p.aid for p in layout.placements), default=0)
        main = next((p for p in layout.placements if p.primary or p.role == "submit"), None)
        return action_phrase(page.actions[main.aid - first].name, page=page.name) if main else ""

    def decide_detail(self, page: ir.Page, layout: PageLayout) -> None:
        """A row reference carried onto the page is what the page is about (full) or a reminder (summary)."""
        shown = {v.table for v in layout.views if not v.hidden}
        arrivals = self.carried_in.get(page.name, {})
        for i, var in enumerate(page.vars):
            # an optional reference is often unset: not worth a panel; a choice of a table's keys is set on arrival
            table = row_table(self.spec, var.type) if not isinstance(var.type, ir.OptionalType) or isinstance(
                T.strip_optional(var.type), ir.ChoiceType) else None
            if table is None or table in shown or var.name not in arrivals:
                continue
            layout.detail_var, layout.detail_table = 1 + self.nsess + i, table
            layout.detail_image = self.pictures.of(self.tables[table])
            layout.detail_cols = detail_columns(self.tables[table], 5)
            chosen = any(assigned_from_param(a, var.name) for a in arrivals[var.name])
            layout.detail_mode = "full" if chosen else "summary"
            return

    def decide_steps(self, page: ir.Page, layout: PageLayout, first_aid: int) -> None:
        """An int variable that actions require to equal a constant and set to constants: steps of one form."""
        for i, var in enumerate(page.vars):
            if not (isinstance(var.type, ir.IntType) and var.type.lo == 1 and 2 <= var.type.hi <= 6):
                continue
            step_of = {}
            for j, a in enumerate(page.actions):
                for c in requirements(a):
                    if (isinstance(c, ir.Binary) and c.op == "==" and isinstance(c.left, ir.Name)
                            and c.left.id == var.name and isinstance(c.right, ir.Lit) and isinstance(c.right.value, int)):
                        step_of[first_aid + j] = c.right.value
            sets = any(e.var == var.name and e.op == "assign" and isinstance(e.value, ir.Lit)
                       for a in page.actions for e in a.effects)
            if step_of and sets:
                layout.steps = {"slot": 1 + self.nsess + i, "count": var.type.hi}
                for p in layout.placements:
                    p.step = step_of.get(p.aid, 0)
                return

    def decide_flow(self, page: ir.Page, layout: PageLayout) -> None:
        """Pages titled "Checkout: shipping", "Checkout: payment", ... are steps of one flow."""
        def split(title: str | None) -> tuple[str, str] | None:
            if title and ":" in title:
                head, tail = title.split(":", 1)
                return head.strip(), tail.strip()
            return None

        mine = split(page.title)
        if mine is None:
            return
        names = [s[1] for p in self.spec.pages if (s := split(p.title)) and s[0] == mine[0]]
        if len(names) >= 2:
            layout.flow = {"names": [n[:1].upper() + n[1:] for n in names], "current": names.index(mine[1]),
                           "label": mine[0]}

    def decide_hints(self, page: ir.Page, layout: PageLayout, first_aid: int) -> None:
        """A main button that is disabled names the fields on the page that its preconditions still wait for."""
        fields: dict[str, str] = {}
        names = {1 + self.nsess + i: v.name for i, v in enumerate(page.vars)}
        for p in layout.placements:
            if p.var in names and (p.role or p.kind in ("select", "input")) and p.role != "submit":
                fields.setdefault(names[p.var], p.group)
        for p in layout.placements:
            action = page.actions[p.aid - first_aid]
            if not p.primary or action.params or p.op != last_live(action):
                continue
            for i, c in enumerate(requirements(action)):
                label = next((fields[n] for n in sorted(unset_checks(c)) if n in fields), None)
                if label and [i, label] not in p.hints and label not in [h[1] for h in p.hints]:
                    p.hints.append([i, label])

    def decide_shown_vars(self, page: ir.Page, layout: PageLayout) -> None:
        """Carried-in values: those the results depend on head the page, the others form a summary."""
        arrivals = self.carried_in.get(page.name, {})
        changed = {e.var for a in page.actions if a.goto is None for e in a.effects}
        read = set()
        for v in page.views:
            read |= expr_names(v.where) | {n for k in v.order for n in expr_names(k.expr) | expr_names(k.when)}
        detail = page.vars[layout.detail_var - 1 - self.nsess].name if layout.detail_var >= 0 else None
        for var in page.vars:
            if var.name not in arrivals or var.name in changed or var.name == detail:
                continue
            shown = self.var_show(page, var.name)
            shown["quote"] = var.name in ("query", "q", "term", "terms", "search", "keyword", "keywords")
            (layout.context if var.name in read else layout.summary).append(shown)


# What a sign-in or sign-up form says besides its fields, as every such form does: (words of its page, the line
# under its heading, its small print).
ACCOUNT_FORMS = (
    (r"\b(login|log in|signin|sign in)\b", "Sign in to {site} with your {fields}.",
     "By signing in, you agree to {site}'s Terms of Use and Privacy Notice."),
    (r"\b(register|registration|signup|sign up|create account|join)\b", "Create your {site} account with your {fields}.",
     "By creating an account, you agree to {site}'s Terms of Use and Privacy Notice."),
)


SETTINGS = r"\b(settings?|preferences|privacy|notifications|security)\b"  # a page of settings, by its words


def _said(page: ir.Page) -> str:
    """A page's name and title in lower-case words: "LOGIN_PAGE" -> "login page"."""
    return " ".join(split(page.name) + split(page.title or ""))


def _and(items: list[str]) -> str:
    """Labels in a sentence: "email, password and username"."""
    words = [w if w.isupper() else w[:1].lower() + w[1:] for w in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _heading(view: str) -> str:
    return {"hits": "Results", "results": "Results", "found": "Results", "lines": "Items in your cart",
            "listing": "Products", "my_orders": "Your orders", "my_addresses": "Your addresses",
            "my_cards": "Your cards", "carousel": "Featured", "bought": "Your order", "items": "Your order",
            "free": "Available"}.get(view, humanise(view))


def _page_title(spec: ir.Spec, page: ir.Page) -> str:
    title = page.title or humanise(page.name)
    if title.lower() in ("home", "index", "start", "main", "landing", "dashboard") and page.name == spec.site.entry:
        return f"Welcome to {site_title(spec)}"
    return title


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
