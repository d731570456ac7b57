"""Analyses over a spec that never change the IR: the page graph and the drawing of it, a property's conditions."""

from fsmc.analysis.pages import linked_pages, page_graph

__all__ = ["linked_pages", "page_graph"]
