'''The `.fsm` language as the proposer is taught it: a condensed reference and a complete, clean example.

Condensed from docs/language.md (the whole page is about 10 k tokens; this is about a third of it): what a
model needs to write a spec that `fsmc check` accepts. tests/test_propose.py checks that EXAMPLE is clean.
'''

from __future__ import annotations

EXAMPLE = """\
# Town Library: browse the catalogue, put up to two books on a loan list, borrow them.
site library {
  title "Town Library"
  entry catalogue
  terminal receipt
}

enum Sort { "title", "year" }

table books(id: str, title: str, author: str, genre: str, year: int) key id {
  ("b1", "The Long Field",  "Ana Ruiz", "novel",   2019)
  ("b2", "Rivers of Salt",  "Tom Hale", "history", 2004)
  ("b3", "Small Engines",   "Lee Park", "science", 2021)
  ("b4", "Night Harbour",   "Ana Ruiz", "novel",   2012)
  ("b5", "The Clockmakers", "Ida Berg", "history", 2016)
}

session {
  # The books on the loan list; it survives every page change.
  var loans: set<ref books> = {}
}

page catalogue "Catalogue" {
  var genre: {"any", "novel", "history", "science"} = "any"
  var sort: Sort = "title"
  var page_no: int[1..3] = 1

  view shelf = books as b
    where genre == "any" or b.genre == genre
    order by b.title when sort == "title",
             b.year desc when sort == "year"
    page page_no size 2

  action pick_genre(g: {"any", "novel", "history", "science"}) "Genre: {g}" {
    require genre != g
    genre := g
    page_no := 1
    gui { click "genre-{g}" }
  }

  action sort_by(s: Sort) "Sort by {s}" {
    require sort != s
    sort := s
    page_no := 1
    gui { select "sort-select" "{s}" }
  }

  action next_page "Next page" {
    require page_no < pages(shelf)
    page_no += 1
    gui { click "next-page" }
  }

  action prev_page "Previous page" {
    require page_no > 1
    page_no -= 1
    gui { click "prev-page" }
  }

  action hold(b: ref books) "Hold {b.title}" {
    require b in shelf and b not in loans and len(loans) < 2
    add b to loans
    gui { click "hold-{b}" }
  }

  action release(b: ref books) "Release {b.title}" {
    require b in loans
    remove b from loans
    gui { click "release-{b}" }
  }

  action borrow "Borrow" {
    require len(loans) > 0
    goto receipt
    gui {
      click "borrow"
      wait 300
    }
  }
}

page receipt "Enjoy your books" {
  view borrowed = books as b where b in loans
}

task borrow(b: ref books) on receipt {
  goal b in loans
  instruction "Borrow {b.title} by {b.author}."
}

task newest_history on catalogue {
  goal genre == "history" and sort == "year" and page_no == 1
  instruction "Which is the most recent history book in the catalogue?"
  answer first(shelf).title
}
"""

REFERENCE = """\
# The .fsm language (condensed)

A .fsm file describes a website as a finite state machine. A state is the current page plus the values of
its variables; every variable has a small finite domain. Top-level items in any order; exactly one `site`.

## Items
- `site NAME { title "..." entry PAGE terminal P1, P2 }`: entry is required; terminal pages end an episode.
- `enum Name { "a", "b" }`: an ordered list of strings, usable as a type.
- `table T(id: str, col: str|int|num|bool|ref U, ...) key id { ("k1", ...) ... }`: the site's data, one row
  per line, written inline (never `load` a file). Actions never change tables.
- `session { var x: TYPE = DEFAULT }`: variables kept across pages for the whole episode.
- `page NAME "Title" { var ... view ... action ... }`: page variables start from their defaults each time
  the page is entered (except the ones carried). A page variable may not share a session variable's name.
- `task NAME(P: TYPE, ...) on PAGE { goal COND  instruction "... {P} ..."  answer EXPR }`: `on PAGE` makes
  the page's variables and views visible; `answer` (optional) is a retrieval question's single value.

## Types (all finite)
`bool`, `int[LO..HI]`, an enum, a choice `{"a", "b"}`, `ref T` (the key of a row of T), optional `T?`
(value or `none`), `set<T>`, `map<K, V>`. No free str/num/int. Defaults: a constant of the domain; sets and
maps start `{}`. The number of states is the product of the reachable combinations: keep variables few and
domains small.

## Views
`view NAME = SOURCE as ROW [where COND] [order by KEY [asc|desc] [when COND], ...] [page VAR size N]`
SOURCE is a table or another view of the same page; VAR is an `int[1..K] = 1` page variable. Read with
`x in v` (shown on the current page), `len(v)`, `count(v)` (before pagination), `pages(v)`, `first(v)`,
`last(v)`. An action that changes what a paginated view filters or sorts by must reset its page variable.

## Actions
```
action NAME(PARAM: TYPE, ...) "Label {PARAM}" {
  require COND          # any number, all must hold
  EFFECT                # any number
  goto PAGE carry VAR   # optional; carry copies same-named page variables to the target page
  gui { OPERATION ... } # required
}
```
Parameter types: bool, int range, enum, choice, `ref T`, optionals of these. Effects: `x := e`,
`m[k] := e`, `x += e`, `x -= e`, `toggle x`, `add e to s`, `remove e from s`, `clear x`. An action may change
only session variables and its own page's variables. GUI operations, each naming an element by its
data-testid: `click "S"`, `type "S" "text"`, `press "S" "Enter"`, `hover "S"`, `scroll_until_visible "S"`,
`select "S" "value"`, `drag "S" "T"`, `wait 300`, `repeat click "S" until visible "T" max N`. Selectors
and texts are templates: `{p}` (a parameter or variable; a row reference gives its key) and `{p.col}`.

## Expressions
`or`, `and`, `not`, `== != < <= > >=`, `x in S`, `x not in S`, `a contains b` (substring, case-insensitive),
`+ - *` (no division, no string concatenation), `r.col`, `m[k]`, `{a, b}`, `{}`, `len count pages first last
sum`. Literals: numbers, "strings" (double quotes), true, false, none. Comments start with `#`. Do not
name a variable after a keyword (to, page, goal, order, view, table, task, site, entry, ...).

## What fsmc check demands (errors and warnings alike must be fixed)
- Every action: a `gui` block; selectors unique on the page; a parameterised action's selector contains
  each parameter (`"hold-{b}"`), so its moves are told apart.
- Every action must be enabled in some reachable state, and every value of its parameters too: guard
  parameters over a table with `require p in VIEW` or a condition every row can meet.
- Every action changes something: `require x != v` before `x := v`; bound `+=` and `-=` with a require
  so they are never clamped (`require n < 3` before `n += 1`).
- Every variable is read somewhere (a require, a view, a goal) and takes more than one value.
- Every page is reachable from the entry; terminal pages have no actions that leave them; a non-terminal
  page always has some enabled action.
- Every task (and every parameter value of it) can succeed in some reachable state.
- Keep the state count small (hundreds to a few thousand states).

## A complete, clean example
```fsm
""" + EXAMPLE + "```\n"
