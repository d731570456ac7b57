"""A spec exercising every GUI pattern the site generator supports; the conformance test walks it too.

Besides the layout decisions, the browser tests here check that each component of the site library is really
rendered where a spec calls for it (date picker, modal, multi-step form, form validation, stepper, checklist,
slider, cart table, toast), that no page prints the FSM's variables, and that the harness stays hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fsmc import Compilation, Machine, load
from fsmc.codegen.layout import PageLayout, decide_layout
from fsmc.formats import load_text

WIDGETS_SPEC = """# Widgets: every GUI pattern the site generator supports, in one small spec.
site widgets { title "Widget Travel" entry search terminal booked }

enum Cabin { "economy", "premium", "business" }


table cities(id: str, name: str, country: str) key id {
  ("oslo", "Oslo", "Norway")
  ("rome", "Rome", "Italy")
  ("lima", "Lima", "Peru")
}

table users(id: str, name: str, email: str, password: str) key id {
  ("u1", "Ada Lovelace", "ada@example.com", "engine-1843")
}

table trips(id: int, city: ref cities, title: str, price: num, days: int) key id {
  (1, "oslo", "Fjord cruise", 420.0, 3)
  (2, "rome", "Ancient Rome walk", 89.5, 1)
  (3, "lima", "Andes trek", 999.0, 7)
  (4, "oslo", "Northern lights", 650.25, 2)
  (5, "rome", "Vatican tour", 120.0, 1)
}

session {
  var saved: set<ref trips> = {}
  var newsletter: bool = false
  var user: ref users? = none
}

page search "Find a trip" {
  var dest: ref cities? = none
  var day: int[1..5] = 1
  var cabin: Cabin = "economy"
  var trip: ref trips = 1
  view found = trips as t where dest == none or t.city == dest order by t.price desc

  # type as the last operation: the move happens when the text is complete
  action set_dest(d: ref cities) "Destination {d.name}" {
    require dest != d
    dest := d
    gui { type "dest-input" "{d.name}" }
  }
  # a date picker: an opener, then a day
  action pick_day(n: int[1..5]) "Day {n}" {
    require day != n
    day := n
    gui { click "date-picker" click "day-{n}" }
  }
  # a select that only guards a later click
  action choose_cabin(c: Cabin) "Cabin {c}" {
    require cabin != c
    cabin := c
    gui { select "cabin-select" "{c}" click "cabin-apply" }
  }
  action subscribe "Subscribe" {
    require not newsletter
    toggle newsletter
    gui { hover "newsletter-banner" }
  }
  action save(t: ref trips) "Save {t.title}" {
    require t in found and t not in saved
    add t to saved
    gui { click "save-{t}" }
  }
  action book(t: ref trips) "Book {t.title}" {
    require t in found
    trip := t
    goto details carry trip, cabin
    gui { click "trip-card-{t}" }
  }
  action clear_dest "Any destination" {
    require dest != none
    clear dest
    gui { press "dest-input" "Escape" }
  }
  # a form: typed fields, then a submit that checks them
  action sign_in(u: ref users) "Sign in as {u.name}" {
    require user == none
    user := u
    gui {
      type "login-email" "{u.email}"
      type "login-password" "{u.password}"
      click "login-submit"
    }
  }
}

page details "Traveller details" {
  var trip: ref trips = 1
  var cabin: Cabin = "economy"
  var step: int[1..2] = 1
  var adults: int[1..4] = 1

  action more_adults "More adults" {
    require step == 1
    adults += 1
    gui { click "adults-plus" }
  }
  action next "Next with {adults} adults in {cabin}" {
    require step == 1
    step := 2
    gui { click "form-next" }
  }
  action back "Back" {
    require step == 2
    step := 1
    gui { click "form-back" }
  }
  action confirm "Confirm booking" {
    require step == 2
    goto booked carry trip
    gui { click "open-confirm" click "confirm-yes" }
  }
  action cancel "Cancel" {
    goto search
    gui { click "nav-cancel" }
  }
}

page booked "Booked" {
  var trip: ref trips = 1
  action again "Plan another after {trip.title}" {
    goto search
    gui { click "nav-again" }
  }
}
"""


def write_widgets(folder: Path) -> Path:
    path = folder / "widgets.fsm"
    path.write_text(WIDGETS_SPEC, encoding="utf-8")
    return path


def test_widgets_spec_compiles() -> None:
    m = Machine(load_text(WIDGETS_SPEC, "widgets.fsm"))
    assert [mv.action.name for mv in m.enabled(m.initial())][:3] == ["set_dest", "set_dest", "set_dest"]


ROOT = Path(__file__).resolve().parent.parent

# A move that scrolls to a row by a testid no control has (as flights' `choose` scrolls to "flight-card-{f}"),
# then clicks the row's own button: the row itself must carry that testid. Enough rows to need a scroll.
ROWS_SPEC = """site rows { title "Row Hotels" entry list terminal done }

table hotels(id: str, name: str, city: str, stars: int, price: num) key id {
  ("h01", "Hotel Aurora", "Oslo", 2, 67.0)
  ("h02", "Hotel Birch", "Rome", 3, 74.0)
  ("h03", "Hotel Cedar", "Lima", 4, 81.0)
  ("h04", "Hotel Dune", "Kyiv", 5, 88.0)
  ("h05", "Hotel Elm", "Oslo", 1, 95.0)
  ("h06", "Hotel Fjord", "Rome", 2, 102.0)
  ("h07", "Hotel Grove", "Lima", 3, 109.0)
  ("h08", "Hotel Harbour", "Kyiv", 4, 116.0)
  ("h09", "Hotel Iris", "Oslo", 5, 123.0)
  ("h10", "Hotel Juniper", "Rome", 1, 130.0)
  ("h11", "Hotel Kestrel", "Lima", 2, 137.0)
  ("h12", "Hotel Linden", "Kyiv", 3, 144.0)
  ("h13", "Hotel Maple", "Oslo", 4, 151.0)
  ("h14", "Hotel Nordic", "Rome", 5, 158.0)
  ("h15", "Hotel Oak", "Lima", 1, 165.0)
  ("h16", "Hotel Pine", "Kyiv", 2, 172.0)
}

page list "Hotels" {
  var hotel: ref hotels = "h01"
  view shown = hotels as h
  action choose(h: ref hotels) "Choose {h.name}" {
    require h in shown
    hotel := h
    goto done carry hotel
    gui {
      scroll_until_visible "hotel-card-{h}"
      click "hotel-book-{h}"
    }
  }
}

page done "Booked" {
  var hotel: ref hotels = "h01"
}
"""


def widgets_layout() -> dict[str, PageLayout]:
    return {p.name: p for p in decide_layout(load_text(WIDGETS_SPEC, "widgets.fsm"))}


def roles(layout: PageLayout) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in layout.placements:
        out.setdefault(p.role, set()).add(p.kind)
    return out


@pytest.mark.parametrize("op", ["opener", "hover", "select", "input"])
def test_layout_uses_each_widget_kind(op: str) -> None:
    kinds = {p.kind for page in widgets_layout().values() for p in page.placements}
    assert op in kinds


def test_widgets_are_chosen_from_what_actions_do() -> None:
    pages = widgets_layout()
    search, details = roles(pages["search"]), roles(pages["details"])
    assert "calendar" in search and "calendar-day" in search  # opener, then a day: a date picker
    assert search["submit"] == {"button"}  # typed fields, then a click: a form with a submit button
    assert "modal" in details  # opener, then one confirming click: a dialog
    assert "inc" in details  # more_adults: a stepper
    assert pages["details"].steps["count"] == 2  # `step` required equal to constants: a two-step form
    assert {p.step for p in pages["details"].placements} == {0, 1, 2}
    assert pages["details"].detail_mode == "full" and pages["booked"].detail_mode == "summary"
    assert pages["booked"].terminal


def test_example_specs_get_their_widgets() -> None:
    shop = {p.name: p for p in decide_layout(load(ROOT / "specs" / "shop.fsm"))}
    flights = {p.name: p for p in decide_layout(load(ROOT / "specs" / "flights.fsm"))}
    assert {"inc", "dec"} <= set(roles(shop["product"])) and "choice" in roles(shop["product"])
    assert {"inc", "dec"} <= set(roles(shop["cart"]))  # quantity steppers in the cart table
    assert "toggle" in roles(shop["review"]) and "check-add" in roles(shop["review"])
    slider = [p for p in shop["search"].placements if p.kind in ("drag", "drop")]
    assert len({p.gkey for p in slider}) == 1  # the handle and its stops are one widget
    assert shop["payment"].flow["names"] == ["Shipping", "Payment", "Review"]
    assert [c["label"] for c in shop["search"].context] == ["Query"] and shop["search"].context[0]["quote"]
    assert "calendar" in roles(flights["search"]) and "calendar-next" in roles(flights["search"])
    assert {"check-add", "check-remove", "clear"} <= set(roles(flights["results"]))
    assert flights["flight"].structure == "detail" and flights["seats"].detail_mode == "summary"
    assert any(p.place == "notice" for p in flights["search"].placements)  # the cookie banner
    assert all(p.hints == [] or p.primary for page in flights.values() for p in page.placements)


def test_a_row_scrolled_to_by_a_testid_no_control_has_is_an_anchor() -> None:
    """The scroll's target is the row (an anchor, nothing to act on); where a control already has the testid (the
    shop's product cards, mail's rows, pagination buttons) the scroll places nothing of its own."""
    rows = {p.name: p for p in decide_layout(load_text(ROWS_SPEC, "rows.fsm"))}
    scroll, click = rows["list"].placements
    assert (scroll.kind, scroll.place, scroll.bind, scroll.role) == ("anchor", "view:shown", 0, "")
    assert (click.kind, click.place, click.bind) == ("button", "view:shown", 0)
    flights = {p.name: p for p in decide_layout(load(ROOT / "specs" / "flights.fsm"))}
    assert [p.kind for p in flights["results"].placements if p.kind == "anchor"] == ["anchor"]
    for name in ("shop", "mail"):
        assert not any(p.kind == "anchor" for page in decide_layout(load(ROOT / "specs" / f"{name}.fsm"))
                       for p in page.placements)


# ---------------------------------------------------------------- in the browser
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Playwright's sync API here: these tests read the DOM a lot. (The conformance tests act through the async
    replay Actor; one Playwright session per thread at a time, so each module closes its own.)"""
    from playwright.sync_api import sync_playwright

    from fsmc.browser import CHROMIUM_ARGS, chromium_path

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser: Any, url: str) -> Any:
    """A 1280×720 page of the site whose requests anywhere else are blocked."""
    from fsmc.browser import VIEWPORT

    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.__fsmc !== undefined")
    return page


class Site:
    def __init__(self, machine: Machine, page: Any, url: str):
        self.m, self.page, self.url = machine, page, url
        self.errors: list[str] = []
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)

    def state(self) -> dict[str, Any]:
        return self.page.evaluate("() => window.__fsmc.state()")  # type: ignore[no-any-return]

    def reset(self, state: Any = None) -> None:
        self.page.evaluate("(s) => window.__fsmc.reset(s)", None if state is None else self.m.to_json(state))

    def centre(self, testid: str) -> tuple[float, float]:
        loc = self.page.locator(f'[data-testid="{testid}"]')
        loc.scroll_into_view_if_needed()
        box = loc.bounding_box()
        assert box is not None, testid
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def do(self, op: str, selector: str, text: str | None = None) -> None:
        """Click, type or drag at the element's centre, as an agent (and fsmc.backends.Actor) would."""
        mouse, at = self.page.mouse, self.centre(selector)
        if op == "drag":
            mouse.move(*at)
            mouse.down()
            mouse.move(*self.centre(text or ""), steps=4)
            mouse.up()
            return
        mouse.click(*at)
        if op == "type":
            self.page.keyboard.press("ControlOrMeta+A")
            self.page.keyboard.insert_text(text or "")

    def text(self, css: str = "body") -> str:
        return self.page.locator(css).first.inner_text()  # type: ignore[no-any-return]

    def walk_to(self, page: str, **want: Any) -> Any:
        """The nearest state on `page` whose variables satisfy `want` (name -> predicate), by breadth-first search."""
        from collections import deque

        start = self.m.initial()
        seen, queue = {start}, deque([start])
        while queue:
            s = queue.popleft()
            js = self.m.to_json(s)
            if js["page"] == page and all(ok(js["vars"][k]) for k, ok in want.items()):
                return s
            for mv in self.m.enabled(s):
                t = self.m.step(s, mv)
                if t not in seen and len(seen) < 300_000:
                    seen.add(t)
                    queue.append(t)
        raise AssertionError(f"page {page} not reached")


@pytest.fixture(scope="module")
def sites(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Site]]:
    from contextlib import ExitStack

    from fsmc.browser import SiteServer
    from fsmc.codegen import build_site

    specs = {"widgets": write_widgets(tmp_path_factory.mktemp("spec")), "shop": ROOT / "specs" / "shop.fsm",
             "flights": ROOT / "specs" / "flights.fsm"}
    with ExitStack() as stack:
        out: dict[str, Site] = {}
        for name, path in specs.items():
            spec = load(path)
            url = stack.enter_context(SiteServer(build_site(spec, tmp_path_factory.mktemp("sites")).dist)).url
            out[name] = Site(Machine(spec), open_page(browser, url), url)
        yield out


def test_date_picker_form_validation_and_toast(sites: dict[str, Site]) -> None:
    site = sites["widgets"]
    site.reset()
    site.do("click", "date-picker")
    calendar = site.page.locator(".calendar[role=dialog]")
    assert calendar.is_visible() and calendar.locator(".cal-dow").count() == 7
    assert site.page.locator('[data-testid="day-1"]').get_attribute("class").split().count("chosen") == 1
    site.do("click", "day-3")
    assert site.state()["vars"]["day"] == 3 and not calendar.is_visible()
    assert "Day 3" in site.text('[data-testid="date-picker"]')
    assert site.page.locator(".toast.shown").inner_text() == "Day 3"
    site.do("click", "login-submit")  # nothing typed: the form says so, and nothing changes
    assert "fill in every field" in site.text("[role=alert]") and site.state()["vars"]["user"] is None
    site.do("type", "login-email", "ada@example.com")
    site.do("type", "login-password", "wrong")
    site.do("click", "login-submit")
    assert "do not match" in site.text("[role=alert]") and site.state()["vars"]["user"] is None
    site.do("type", "login-password", "engine-1843")
    site.do("click", "login-submit")
    assert site.state()["vars"]["user"] == "u1" and site.page.locator("[role=alert]").count() == 0


def test_multi_step_form_stepper_and_modal(sites: dict[str, Site]) -> None:
    site = sites["widgets"]
    site.reset(site.walk_to("details"))
    assert "Step 1 of 2" in site.text(".steps")
    assert site.page.locator('[data-testid="open-confirm"]').count() == 0  # a step-2 control, not shown on step 1
    assert site.text(".stepper output") == "1"
    site.do("click", "adults-plus")
    assert site.text(".stepper output") == "2"
    site.do("click", "form-next")
    assert "Step 2 of 2" in site.text(".steps") and site.page.locator('[data-testid="adults-plus"]').count() == 0
    site.do("click", "open-confirm")
    dialog = site.page.locator(".modal-backdrop [role=dialog][aria-modal=true]")
    assert dialog.is_visible() and dialog.locator('[data-testid="confirm-yes"]').is_visible()
    site.page.mouse.click(5, 700)  # outside the dialog: it closes, nothing happens
    assert not dialog.is_visible() and site.state()["page"] == "details"
    site.do("click", "open-confirm")
    site.do("click", "confirm-yes")
    assert site.state()["page"] == "booked" and "booked" in site.text(".success").lower()


def test_shop_cart_steppers_slider_and_checklist(sites: dict[str, Site]) -> None:
    site = sites["shop"]
    m = site.m
    cart = site.walk_to("cart", cart=lambda c: len(c) == 1 and c[0][1] == 1)
    site.reset(cart)
    (line,) = [k for k, _ in m.to_json(cart)["vars"]["cart"]]
    row = site.page.locator(f'[data-testid="cart-line-{line}"]')
    assert row.locator(".stepper").count() == 1 and row.locator(f'[data-testid="qty-plus-{line}"]').count() == 1
    assert "1" in site.text(".cart-pill")
    site.do("click", f"qty-plus-{line}")
    assert site.text(f'[data-testid="cart-line-{line}"] .stepper output') == "2" and "2" in site.text(".cart-pill")
    search = site.walk_to("search")
    site.reset(search)
    handle = site.page.locator('.slider [data-testid="price-slider-handle"]')
    before = handle.bounding_box()
    site.do("drag", "price-slider-handle", "price-slider-stop-over_100")
    assert site.state()["vars"]["band"] == "over_100" and handle.bounding_box()["x"] > before["x"] + 50
    review = site.walk_to("review")
    site.reset(review)
    email = site.page.locator('[role=checkbox][data-testid="notify-remove-email"]')
    assert email.get_attribute("aria-checked") == "true"
    site.do("click", "notify-remove-email")
    assert site.page.locator('[data-testid="notify-add-email"]').get_attribute("aria-checked") == "false"


UNNAMED_CONTROLS = """() => [...document.querySelectorAll('button, input, select, textarea, a, [role=checkbox], [tabindex]')]
  .filter((el) => !el.closest('[data-testid]')).map((el) => el.outerHTML.slice(0, 80))"""
_RAW = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\bNone\b|\bnull\b|\bundefined\b|\bNaN\b|\[object")


@pytest.mark.parametrize("name", ["shop", "flights", "widgets"])
def test_pages_show_no_state_variables_or_raw_values(sites: dict[str, Site], name: str) -> None:
    """No debugging panel, no identifiers or None/null in the text, and every control carries a data-testid."""
    site = sites[name]
    for state in Compilation(site.m.spec).page_states().values():
        site.reset(state)
        text = site.text()
        assert not _RAW.findall(text), (site.m.page_of(state), _RAW.findall(text))
        names = {v.name for v in site.m.spec.session} | {v.name for p in site.m.spec.pages for v in p.vars}
        assert not [n for n in names if re.search(rf"(?m)^{n}$", text)]  # no "name  value" debugging lists
        assert site.page.evaluate(UNNAMED_CONTROLS) == [], site.m.page_of(state)
    site.reset()
    assert site.errors == []


def test_rows_scrolled_to_carry_the_testid_and_are_not_controls(sites: dict[str, Site]) -> None:
    """flights' `choose` scrolls to "flight-card-{f}" and clicks "flight-select-{f}": every result row is the card."""
    site = sites["flights"]
    site.reset(site.walk_to("results"))
    cards = site.page.locator('[data-testid^="flight-card-"]')
    shown = site.page.locator('[data-testid^="flight-select-"]')
    assert cards.count() == shown.count() > 0
    for i in range(cards.count()):
        card = cards.nth(i)
        flight = (card.get_attribute("data-testid") or "").removeprefix("flight-card-")
        assert card.locator(f'[data-testid="flight-select-{flight}"]').count() == 1
        assert "clickable" not in (card.get_attribute("class") or "").split()  # not a control of its own
    assert site.errors == []


def test_harness_is_hidden_and_only_transitions_move_the_fsm(sites: dict[str, Site]) -> None:
    site = sites["shop"]
    page = site.page
    site.reset()
    assert page.evaluate("() => Object.getOwnPropertyDescriptor(window, '__fsmc').enumerable") is False
    assert page.evaluate("() => { for (const k in window) if (k === '__fsmc') return true; return false }") is False
    assert page.evaluate("() => Object.isFrozen(window.__fsmc)") is True
    assert "__fsmc" not in page.content() and "__fsmc" not in page.locator("body").aria_snapshot()
    s = site.m.step(site.m.initial(), site.m.enabled(site.m.initial())[0])
    site.reset(s)
    for url in (site.url + "#/cart", site.url + "?page=cart#/confirmation", site.url + "#/reset"):
        page.goto(url)
        page.wait_for_function("() => window.__fsmc !== undefined")
        assert site.state() == site.m.to_json(s), url  # a typed URL neither moves nor resets the FSM
        assert page.evaluate("() => location.hash") == f"#/{site.m.page_of(s)}"
    page.reload()
    page.wait_for_function("() => window.__fsmc !== undefined")
    assert site.state() == site.m.to_json(s)
    site.reset()


def test_a_combobox_keeps_showing_what_was_typed_once_its_option_is_picked(sites: dict[str, Site]) -> None:
    site = sites["flights"]
    site.reset()
    site.do("type", "dest-input", "London")
    site.do("click", "dest-option-LHR")
    # the move set dest to the airport LHR: the field shows it as it was typed (its city), not the row's title
    assert site.state()["vars"]["dest"] == "LHR"
    assert site.page.locator('[data-testid="dest-input"]').input_value() == "London"
