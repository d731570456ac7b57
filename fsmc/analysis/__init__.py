"""Analyses over a spec that never change the IR: the page graph and the reachable state space."""

from fsmc.analysis.pages import page_graph
from fsmc.analysis.statespace import StateSpace, explore

__all__ = ["StateSpace", "explore", "page_graph"]
