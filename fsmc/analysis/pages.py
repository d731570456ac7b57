"""The page graph: pages as nodes, navigating actions as edges, terminal and entry pages marked."""

from __future__ import annotations

import networkx as nx

from fsmc import ir


def page_graph(spec: ir.Spec) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph(name=spec.site.name)
    for page in spec.pages:
        g.add_node(page.name, title=page.title or page.name, terminal=page.name in spec.site.terminals,
                   entry=page.name == spec.site.entry)
    for page in spec.pages:
        for action in page.actions:
            if action.goto is not None and action.goto in g:
                g.add_edge(page.name, action.goto, key=action.name, action=action.name)
    return g
