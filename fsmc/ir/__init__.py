"""The typed, frozen, located intermediate representation of a spec, and the one way to walk its expressions."""

from fsmc.ir.nodes import *  # noqa: F403
from fsmc.ir.nodes import __all__ as _nodes
from fsmc.ir.visit import ExprVisitor, children, expr_names, params_in, unhandled, walk

__all__ = [*_nodes, "ExprVisitor", "children", "expr_names", "params_in", "unhandled", "walk"]  # noqa: PLE0604
