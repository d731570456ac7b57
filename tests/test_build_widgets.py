"""A spec exercising every GUI pattern the site generator supports; the conformance test walks it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmc import Machine
from fsmc.frontend import load_text

WIDGETS_SPEC = """# Widgets: every GUI pattern the site generator supports, in one small spec.
site widgets { title "Widget Travel" entry search terminal booked }

enum Cabin { "economy", "premium", "business" }


table cities(id: str, name: str, country: str) key id {
  ("oslo", "Oslo", "Norway")
  ("rome", "Rome", "Italy")
  ("lima", "Lima", "Peru")
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


@pytest.mark.parametrize("op", ["opener", "hover", "select", "input"])
def test_layout_uses_each_widget_kind(op: str) -> None:
    from fsmc.codegen.layout import decide_layout

    kinds = {p.kind for page in decide_layout(load_text(WIDGETS_SPEC, "widgets.fsm")) for p in page.placements}
    assert op in kinds
