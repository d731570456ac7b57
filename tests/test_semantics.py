"""The reference semantics on a small hand-written shop, checked against docs/semantics.md by hand."""

from __future__ import annotations

import pytest

from fsmc import Machine, State


def go(m: Machine, s: State, action: str, **args: object) -> State:
    mv = m.find_move(m.page_of(s), action, args)
    assert m.is_enabled(s, mv), f"{mv} should be enabled in {m.to_json(s)}"
    return m.step(s, mv)


@pytest.fixture
def on_list(mini_machine: Machine) -> State:
    return go(mini_machine, mini_machine.initial(), "browse")


def test_initial_state_is_entry_page_with_defaults(mini_machine: Machine) -> None:
    assert mini_machine.to_json(mini_machine.initial()) == {
        "page": "home", "vars": {"cart": [], "seen": [], "member": False},
    }


def test_navigation_starts_target_from_defaults(mini_machine: Machine, on_list: State) -> None:
    assert mini_machine.to_json(on_list)["vars"] == {
        "cart": [], "seen": [], "member": False, "brand": None, "sort": "relevance", "pg": 1,
    }


def test_views_filter_sort_and_paginate(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    assert m.view(on_list, "hits") == ("a1", "b2")
    assert m.view(on_list, "hits", full=True) == ("a1", "b2", "c3", "d4", "e5")
    s = go(m, on_list, "order", o="price_desc")
    assert m.view(s, "hits", full=True) == ("c3", "e5", "b2", "d4", "a1")
    s = go(m, s, "filter", b="bolt")
    assert m.view(s, "hits") == ("b2", "d4")
    s = go(m, go(m, on_list, "next"), "next")
    assert m.view(s, "hits") == ("e5",)
    assert m.find_move("list", "next") not in m.enabled(s)


def test_result_set_change_resets_pagination(mini_machine: Machine, on_list: State) -> None:
    s = go(mini_machine, on_list, "next")
    assert mini_machine.to_json(s)["vars"]["pg"] == 2
    s = go(mini_machine, s, "filter", b="acme")
    assert mini_machine.to_json(s)["vars"]["pg"] == 1


def test_map_increment_clamps_at_domain_bound(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    s = on_list
    for _ in range(5):
        s = go(m, s, "add", i="a1")
    assert m.to_json(s)["vars"]["cart"] == [["a1", 3]]
    assert m.to_json(s)["vars"]["seen"] == ["a1"]


def test_sets_and_maps_are_kept_in_domain_order(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    s = go(m, go(m, on_list, "add", i="b2"), "add", i="a1")
    assert m.to_json(s)["vars"]["cart"] == [["a1", 1], ["b2", 1]]
    assert m.to_json(s)["vars"]["seen"] == ["a1", "b2"]


def test_disabled_move_is_a_noop(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    checkout = m.find_move("list", "checkout")
    assert not m.is_enabled(on_list, checkout)
    assert m.step(on_list, checkout) == on_list
    hidden = m.find_move("list", "add", {"i": "e5"})  # not on the first page of results
    assert m.step(on_list, hidden) == on_list


def test_move_of_another_page_is_a_noop(mini_machine: Machine) -> None:
    m = mini_machine
    s0 = m.initial()
    assert m.step(s0, m.find_move("list", "next")) == s0


def test_session_survives_navigation_and_clear_empties(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    s = go(m, go(m, on_list, "add", i="a1"), "checkout")
    assert m.page_of(s) == "done" and m.to_json(s)["vars"]["cart"] == [["a1", 1]]
    assert m.holds(0, ("a1",), s) and not m.holds(0, ("b2",), s)
    s = go(m, s, "again")
    assert m.to_json(s) == {"page": "home", "vars": {"cart": [], "seen": ["a1"], "member": False}}


def test_goal_and_answer(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    s = go(m, go(m, on_list, "filter", b="bolt"), "order", o="price_asc")
    assert m.holds(1, ("bolt",), s)
    assert not m.holds(1, ("acme",), s)
    assert m.answer(1, ("bolt",), s) == 35.25


def test_templates_render_params_and_columns(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    mv = m.find_move("list", "add", {"i": "b2"})
    assert m.render(mv.action.label or "", on_list, mv) == "Add Beta chair"
    assert m.render("add-{i}", on_list, mv) == "add-b2"
    assert m.render("{sort}/{pg}/{brand}", on_list) == "relevance/1/"


def test_enabled_moves_are_in_canonical_order(mini_machine: Machine, on_list: State) -> None:
    names = [repr(mv) for mv in mini_machine.enabled(on_list)]
    assert names == [
        "Move(list.filter(b='acme'))", "Move(list.filter(b='bolt'))",
        "Move(list.order(o='price_asc'))", "Move(list.order(o='price_desc'))",
        "Move(list.next())", "Move(list.add(i='a1'))", "Move(list.add(i='b2'))",
    ]


def test_json_round_trip(mini_machine: Machine, on_list: State) -> None:
    m = mini_machine
    s = go(m, go(m, on_list, "add", i="b2"), "add", i="a1")
    assert m.from_json(m.to_json(s)) == s


# ---------------------------------------------------------------- the lowered form: each decision made once


def test_lowered_effects_state_their_decisions(mini_machine: Machine) -> None:
    low = mini_machine.lowered
    lst = mini_machine.page_index["list"]
    add = next(a for a in mini_machine.spec.page("list").actions if a.name == "add")
    entry, insert = low.effects(add, lst)
    assert (entry.kind, entry.sign, entry.bounds, entry.slot.index) == ("add_entry", 1, (1, 3), 1)
    assert entry.order is not None and entry.order.values == ("a1", "b2", "c3", "d4", "e5")
    assert (insert.kind, insert.slot.index) == ("insert", 2)
    nxt = next(a for a in mini_machine.spec.page("list").actions if a.name == "next")
    (inc,) = low.effects(nxt, lst)
    assert (inc.kind, inc.bounds) == ("add_clamped", (1, 3))
    again = mini_machine.spec.page("done").actions[0]
    (clear,) = low.effects(again, mini_machine.page_index["done"])
    assert clear.kind == "empty"


def test_lowered_goto_resets_the_target_and_keeps_the_session(mini_machine: Machine) -> None:
    low = mini_machine.lowered
    browse = mini_machine.spec.page("home").actions[0]
    goto = low.goto(browse, mini_machine.page_index["home"])
    assert goto is not None
    assert (goto.page, goto.keep, goto.fresh) == (mini_machine.page_index["list"], 3, (None, None, None))


def test_lowered_view_sorts_last_key_first(mini_machine: Machine) -> None:
    (hits,) = mini_machine.lowered.views(mini_machine.page_index["list"])
    assert [s.desc for s in hits.sorts] == [True, False]
    assert (hits.table, hits.from_table, hits.page_slot, hits.page_size) == ("items", True, 6, 2)


def test_scope_resolves_innermost_first(mini_machine: Machine) -> None:
    from fsmc import ir
    from fsmc.semantics.lowered import ArgRef, VarRef, ViewRef

    scope = mini_machine.scope(mini_machine.page_index["list"], (ir.Param(name="brand", type=ir.BoolType()),))
    assert isinstance(scope.resolve("brand"), ArgRef)
    assert isinstance(scope.resolve("sort"), VarRef) and isinstance(scope.resolve("cart"), VarRef)
    assert isinstance(scope.resolve("hits"), ViewRef)
    assert scope.resolve("nothing") is None


def test_expression_compilers_refuse_an_unknown_node(mini_machine: Machine) -> None:
    from fsmc import ir
    from fsmc.codegen.js import JsExprCompiler

    class Odd(ir.Node):
        pass

    scope = mini_machine.scope(None)
    for compiler in (mini_machine._compiler, JsExprCompiler(mini_machine.spec)):
        with pytest.raises(TypeError, match="does not handle Odd"):
            compiler.expr(Odd(), scope)  # type: ignore[arg-type]
