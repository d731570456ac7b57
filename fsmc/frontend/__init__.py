"""Front end: read a spec from .fsm text, IR JSON or AutoWebWorld fsm.json, and resolve it."""

from fsmc.frontend.load import load, load_text, read_source

__all__ = ["load", "load_text", "read_source"]
