"""Front end of the .fsm language: text → IR by one of two parsers over one IR builder, then the resolve pass.

It reads .fsm text only; fsmc.formats picks the reader of a file (.fsm, IR JSON, AutoWebWorld) and loads it.
"""

from fsmc.frontend.parser import parse
from fsmc.frontend.resolve import resolve

__all__ = ["parse", "resolve"]
