"""The words the grammar reads as keywords where a declared name would later be used, and so cannot name it.

Lark's contextual lexer reads a word as a keyword wherever its LALR parser state accepts that keyword,
and as a NAME elsewhere. Declarations (`var NAME`, `view NAME`, `(NAME: ...)`, `enum NAME`) accept only
a NAME, so every word can be declared; the trouble comes where the name is used:

- an effect's variable may start an action item right after an expression (`require c` then `to := c`);
  LALR merges the lookaheads of every context an expression ends in, so there the words below are read
  as keywords (a property's expression ends before any top-level item, so those start words are among
  them), and so are the action items' own keywords anywhere (`goto := c`);
- where an expression starts, `true`, `false` and `none` are literals and `not` an operator;
- where a type is expected, `bool`, `int`, `ref`, `set` and `map` are the built-in types.

tests/test_fuzz.py recomputes the first two sets from lark's parse table, and tests/test_keywords.py
tries every keyword in every place a name is used.
"""

from __future__ import annotations

ATOM_KEYWORDS = frozenset(("true", "false", "none", "not"))
"""Read as a literal or an operator where an expression starts."""

LVALUE_KEYWORDS = frozenset((
    "action", "add", "always", "and", "backend", "answer", "asc", "carry", "clear", "contains", "desc", "entry", "enum",
    "eventually", "from", "goal", "goto", "gui", "in", "instruction", "invariant", "never", "not", "or", "order",
    "page", "reachable", "reference", "remove", "require", "session", "site", "table", "task", "terminal", "title",
    "to", "toggle", "var", "view", "when", "where",
))
"""Read as a keyword where an effect's variable may start an action item, in some context or all."""

ITEM_KEYWORDS = frozenset(("add", "clear", "goto", "gui", "remove", "require", "toggle"))
"""The keywords that start an action item: read as such wherever an item may start."""

TYPE_KEYWORDS = frozenset(("bool", "int", "ref", "set", "map"))
"""Read as a built-in type where a type is expected."""

RESERVED: dict[str, frozenset[str]] = {
    "variable": LVALUE_KEYWORDS | ATOM_KEYWORDS,  # read in expressions and assigned by effects
    "parameter": ATOM_KEYWORDS,  # read in expressions only
    "view": ATOM_KEYWORDS,
    "row": ATOM_KEYWORDS,
    "enum": TYPE_KEYWORDS,  # named in types only
}
"""Per kind of declaration, the words that cannot name it. Pages, tables, columns, actions and tasks are
named only where the grammar accepts nothing but a NAME, so any word does for them."""


KINDS = {"variable": "a variable", "parameter": "a parameter", "view": "a view", "row": "a view's row",
         "enum": "an enum"}


def reserved_message(word: str, kind: str) -> str:
    return f"`{word}` is a keyword of the language; it cannot name {KINDS[kind]}: rename it"


def keyword_use(word: str, kind: str) -> str | None:
    """Why `word` cannot name a declaration of this kind, or None when it can."""
    if word not in RESERVED.get(kind, frozenset()):
        return None
    if kind == "enum":
        return f"in a type, `{word}` is the built-in type"
    if word in ("true", "false", "none"):
        return f"in an expression, `{word}` is the literal"
    if word == "not" or kind != "variable":
        return f"in an expression, `{word}` is an operator"
    if word in ITEM_KEYWORDS:
        return f"`{word}` starts an action item, so `{word} := ...` never parses"
    return (f"after an expression, a `goto` or a `carry` list the parser reads `{word}` as a keyword, "
            f"so `{word} := ...` does not parse there")
