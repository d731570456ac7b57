"""The grammar of the .fsm language (fsm.lark beside this module, package data), loaded once into lark's LALR parser, and what it names."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Lark

GRAMMAR = Path(__file__).resolve().parent / "fsm.lark"

_TERMINALS = {
    "NAME": "a name", "STRING": "a string", "INT": "a number", "DECIMAL": "a number", "SIGNED_INT": "a number",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'",
}


@functools.cache
def lark_parser() -> Lark:
    """lark's LALR parser of the grammar, with positions on every tree node; built once per process."""
    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True, maybe_placeholders=True)


@functools.cache
def terminal_names() -> dict[str, str]:
    """How a hint names each terminal: its text in quotes (lark names some `__ANON_n`), or what it stands for."""
    return {t.name: _TERMINALS.get(t.name, f"'{t.pattern.value}'") for t in lark_parser().terminals}


@functools.cache
def keywords() -> frozenset[str]:
    """Every word of the grammar: where its parser state accepts one, the lexer reads it as the keyword."""
    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if t.pattern.type == "str" and re.fullmatch(r"[A-Za-z_]\w*", t.pattern.value))
