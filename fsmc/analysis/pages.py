"""The page graph: pages as nodes, navigating actions as edges, terminal and entry pages marked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fsmc import ir

if TYPE_CHECKING:
    import networkx as nx


def page_graph(spec: ir.Spec) -> nx.MultiDiGraph:
    import networkx as nx  # here: networkx takes a fifth of a second to import, and `fsmc check` needs none of it

    g = nx.MultiDiGraph(name=spec.site.name)
    for page in spec.pages:
        g.add_node(page.name, title=page.title or page.name, terminal=page.name in spec.site.terminals,
                   entry=page.name == spec.site.entry)
    for page in spec.pages:
        for action in page.actions:
            if action.goto is not None and action.goto in g:
                g.add_edge(page.name, action.goto, key=action.name, action=action.name)
    return g


def linked_pages(spec: ir.Spec, start: str) -> set[str]:
    """The pages a path of navigating actions leads to from `start` (`start` included when it is a page): the nodes
    of the page graph reachable from it, walked without building the graph."""
    targets = {p.name: [a.goto for a in p.actions if a.goto is not None] for p in spec.pages}
    seen, todo = set(), [start]
    while todo:
        page = todo.pop()
        if page in targets and page not in seen:
            seen.add(page)
            todo.extend(targets[page])
    return seen
