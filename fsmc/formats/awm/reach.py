"""What the imported world cannot do: terminal pages no state reaches, actions never enabled; a warning for each.

AutoWebWorld's generator silently finds no path to many of the terminals their worlds declare, and
never fires some actions. The importer explores the imported spec (up to REACH_CAP states): a terminal
no reachable state is on is kept as a page but no longer declared terminal, and a W009 says which action
would lead there and which of its requires never holds; an action of a reached page that no reachable
state enables is left out, with a W009 naming the require that never holds. When the search is capped,
nothing changes.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from fsmc import ir
from fsmc.formats.awm.importer import Importer
from fsmc.printer import expr_to_fsm

__all__ = ["REACH_CAP", "settle_reach"]

REACH_CAP = 200_000
State = tuple[Any, ...]


def _reachable(machine: Any) -> dict[str, list[State]] | None:
    """The reachable states by page, or None past REACH_CAP."""
    start = machine.initial()
    seen, queue = {start}, deque([start])
    while queue:
        for _, nxt in machine.successors(queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
                if len(seen) > REACH_CAP:
                    return None
    by_page: dict[str, list[State]] = {}
    for s in seen:
        by_page.setdefault(machine.page_of(s), []).append(s)
    return by_page


def _never(machine: Any, page: ir.Page, action: ir.Action, states: list[State]) -> str:
    """The first require of `action` false in every state of its page for every argument, as fsmc text."""
    moves = [mv for mv in machine.moves(page.name) if mv.action.name == action.name]
    scope = machine.scope(machine.page_index[page.name], action.params)
    for req in action.requires:
        code = machine.compile_expr(req, scope)[0]
        holds = eval(f"lambda s, a: (lambda m: {code})({{}})", machine.namespace)  # noqa: S307 - our own code
        if not any(holds(s, mv.args) for s in states for mv in moves):
            return f"`{expr_to_fsm(req)}` never holds on '{page.name}'"
    return "its requires never hold together"


def _blockers(spec: ir.Spec, machine: Any, by_page: dict[str, list[State]], terminal: str) -> list[str]:
    """Why no state reaches `terminal`: each action of a reached page that navigates towards it, and its require."""
    import networkx as nx  # here: a fifth of a second to import, which reading a .fsm spec does not need

    graph = nx.DiGraph((p.name, a.goto) for p in spec.pages for a in p.actions if a.goto is not None)
    towards = ({terminal} | nx.ancestors(graph, terminal)) if terminal in graph else {terminal}
    out = []
    for page in spec.pages:
        if page.name in by_page:
            out += [f"'{page.name}.{a.name}' is never enabled: {_never(machine, page, a, by_page[page.name])}"
                    for a in page.actions if a.goto in towards and a.goto not in by_page]
    if out:
        return out
    others = sorted(towards - {terminal})
    return [f"no page links to it or to the pages that lead to it ({', '.join(others)}) from outside them"
            if others else "no page links to it"]


def settle_reach(imp: Importer, spec: ir.Spec) -> ir.Spec:
    """The spec without the declared terminals no reachable state is on, nor the actions none enables (W009 each)."""
    try:
        from fsmc.semantics import Machine

        machine = Machine(spec)
    except Exception:  # noqa: BLE001 - the checks say why the spec does not compile
        return spec
    by_page = _reachable(machine)
    if by_page is None:
        return spec
    imp.reached = {page: set(states) for page, states in by_page.items()}
    return _drop_dead_actions(imp, _demote_terminals(imp, spec, machine, by_page), machine, by_page)


def _demote_terminals(imp: Importer, spec: ir.Spec, machine: Any, by_page: dict[str, list[State]]) -> ir.Spec:
    missing = [t for t in spec.site.terminals if t not in by_page]
    for t in missing:
        k = list(imp.data["meta"]["terminal_pages"]).index(t) if t in imp.data["meta"]["terminal_pages"] else 0
        why = "; ".join(_blockers(spec, machine, by_page, t)[:3])
        imp.note(f"meta.terminal_pages[{k}]", f"terminal page '{t}' cannot be reached ({why}); it is imported as a "
                 "page that is not terminal", hint="their generator finds no path to it either; fix the precondition "
                 "or the effect that should make it hold")
    site = spec.site.model_copy(update={"terminals": tuple(t for t in spec.site.terminals if t not in missing)})
    return spec.model_copy(update={"site": site})


def _drop_dead_actions(imp: Importer, spec: ir.Spec, machine: Any, by_page: dict[str, list[State]]) -> ir.Spec:
    enabled = {(machine.page_of(s), mv.action.name) for states in by_page.values() for s in states
               for mv, _ in machine.successors(s)}
    pages = []
    for k, page in enumerate(spec.pages):
        if page.name not in by_page:
            pages.append(page)  # an unreachable page is reported as one by the checks
            continue
        dead = [a for a in page.actions if (page.name, a.name) not in enabled]
        for a in dead:
            imp.note(_where(imp, k, a.name), f"action '{page.name}.{a.name}' is never enabled "
                     f"({_never(machine, page, a, by_page[page.name])} in its {len(by_page[page.name]):,} reachable "
                     "states): it is left out", hint="their generator never fires it either; fix the precondition or "
                     "the effect that should make it hold")
        pages.append(page.model_copy(update={"actions": tuple(a for a in page.actions if a not in dead)}) if dead else page)
    return spec.model_copy(update={"pages": tuple(pages)})


def _where(imp: Importer, page: int, action: str) -> str:
    """The JSON path of an action of the k-th page, found by its fsmc name."""
    from fsmc.formats.awm.importer import fsmc_name

    raw = imp.data["pages"][page].get("actions") or []
    k = next((i for i, a in enumerate(raw) if isinstance(a, dict) and fsmc_name(str(a.get("id"))) == action), 0)
    return f"pages[{page}].actions[{k}]"
