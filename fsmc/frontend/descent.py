"""The parser's fast path: fsmc/frontend/fsm.lark by recursive descent, building IR through the same IR builder as lark.

Lark's LALR parser is the reference. This module either returns exactly the IR it would (spans
included: a node spans its first to its last token, and a parenthesised expression keeps the
span of what is inside the parentheses) or gives up with `Bail`; the caller then runs lark, which
also reports every syntax error. It gives up on anything unusual, such as a keyword used as a
name, where lark's contextual lexer decides by parser state. tests/test_fuzz.py holds the two
paths to agreement on valid, random and mutated text.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from fsmc import ir
from fsmc.frontend.builder import LOCATED_RULES, IRBuilder
from fsmc.frontend.keywords import ATOM_KEYWORDS, LVALUE_KEYWORDS


class Bail(Exception):
    """The fast path does not handle this input; use lark."""


# One match: the whitespace and comments before a token, then the token; `end` matches only at the end.
_TOKEN = re.compile(
    r"""(?:[ \t\f\r\n]|\#[^\n]*+)*+
      (?:(?P<S>"(?:[^"\\\n]|\\.)*")
        |(?P<D>[0-9]+\.[0-9]+)
        |(?P<I>[0-9]+)
        |(?P<w>[A-Za-z_][A-Za-z0-9_]*)
        |(?P<op>:=|\+=|-=|==|!=|<=|>=|\.\.|[-+*<>{}()\[\],.:=?])
        |(?P<end>\Z))""",
    re.VERBOSE,
)
_NEWLINE = re.compile("\n")

# Lark's contextual lexer reads a word as a keyword only where its parser state accepts that
# keyword: where an expression starts, the literals and `not` (ATOM_KEYWORDS); where an effect's
# variable may start an action item, LVALUE_KEYWORDS (fsmc/frontend/keywords.py explains both).
_COMP = frozenset(("==", "!=", "<=", ">=", "<", ">"))
_GUI_ARGS = {
    "click": ("gui_click", "S"), "type": ("gui_type", "SS"), "press": ("gui_press", "SS"), "hover": ("gui_hover", "S"),
    "scroll_until_visible": ("gui_scroll", "S"), "select": ("gui_select", "SS"), "drag": ("gui_drag", "SS"),
    "wait": ("gui_wait", "I"),
}
_EFFECT_OPS = {":=": "eff_assign", "+=": "eff_inc", "-=": "eff_dec"}
_LITERALS = {"true": "true_lit", "false": "false_lit", "none": "none_lit"}
_NUMBER_LITS = {"I": "int_lit", "D": "num_lit", "S": "str_lit"}
_PROPERTIES = {"invariant": "prop_invariant", "never": "prop_never", "reachable": "prop_reachable",
               "always": "prop_leads_to"}


def tokenize(text: str) -> tuple[list[str], list[str], list[int]]:
    """Kinds ('w' word, 'S' string, 'I' int, 'D' decimal, the symbol itself, '$' the end), values and offsets."""
    kinds: list[str] = []
    values: list[str] = []
    starts: list[int] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            raise Bail  # a character no token starts with
        kind = m.lastgroup
        if kind is None:
            raise Bail
        start = m.start(kind)
        value = m.group(kind)
        kinds.append(value if kind == "op" else "$" if kind == "end" else kind)
        values.append(value)
        starts.append(start)
        pos = m.end()
        if kind == "end":
            return kinds, values, starts
    raise Bail


class Descent:
    """One parse of one text; `parse()` returns the Spec or raises Bail."""

    def __init__(self, text: str, builder: IRBuilder):
        self.kinds, self.values, self.starts = tokenize(text)
        self.newlines = [m.start() for m in _NEWLINE.finditer(text)]
        self.i = 0
        self.b = builder
        self.file = builder.file

    # ---------------------------------------------------------------- tokens
    def position(self, i: int) -> tuple[int, int]:
        """(line, column) of token i, both from 1, counted the way lark counts them."""
        pos = self.starts[i]
        line = bisect.bisect_right(self.newlines, pos)
        return line + 1, pos - (self.newlines[line - 1] if line else -1)

    def span(self, start: int) -> ir.Span:
        last = self.i - 1
        line, col = self.position(start)
        end_line, end_col = self.position(last)
        # All fields are plain ints of known shape: skip validation, it is the hot spot here.
        return ir.Span.model_construct(file=self.file, line=line, col=col, end_line=end_line,
                                       end_col=end_col + len(self.values[last]))

    def rule(self, name: str, start: int, children: list[Any]) -> Any:
        return LOCATED_RULES[name](self.b, self.span(start), children)

    def kind(self) -> str:
        return self.kinds[self.i]

    def at(self, kind: str) -> bool:
        return self.kinds[self.i] == kind

    def at_word(self, word: str) -> bool:
        return self.kinds[self.i] == "w" and self.values[self.i] == word

    def take(self, kind: str) -> str:
        if self.kinds[self.i] != kind:
            raise Bail
        self.i += 1
        return self.values[self.i - 1]

    def word(self, word: str) -> None:
        if self.kinds[self.i] != "w" or self.values[self.i] != word:
            raise Bail
        self.i += 1

    def name(self) -> str:
        """A NAME where lark's parser state accepts no keyword, so any word is a name."""
        return self.take("w")

    def maybe(self, kind: str) -> bool:
        if self.kinds[self.i] == kind:
            self.i += 1
            return True
        return False

    # ---------------------------------------------------------------- the spec
    def parse(self) -> ir.Spec:
        items: list[Any] = []
        parsers = {"site": self.site, "enum": self.enum, "table": self.table, "session": self.session,
                   "page": self.page, "task": self.task, "backend": self.backend,
                   **dict.fromkeys(_PROPERTIES, self.property)}
        while not self.at("$"):
            if not self.at("w") or self.values[self.i] not in parsers:
                raise Bail
            items.append(parsers[self.values[self.i]]())
        return self.b.assemble(items)

    def site(self) -> Any:
        start = self.i
        self.word("site")
        children: list[Any] = [self.name()]
        self.take("{")
        while not self.maybe("}"):
            s = self.i
            w = self.take("w")
            if w in ("title", "reference"):
                children.append(self.rule(f"site_{w}", s, [self.take("S")]))
            elif w == "entry":
                children.append(self.rule("site_entry", s, [self.name()]))
            elif w == "terminal":
                names = [self.name()]
                while self.maybe(","):
                    names.append(self.name())
                children.append(self.rule("site_terminal", s, names))
            else:
                raise Bail
        return self.rule("site", start, children)

    def enum(self) -> Any:
        start = self.i
        self.word("enum")
        children: list[Any] = [self.name()]
        self.take("{")
        children.append(self.take("S"))
        while self.maybe(","):
            if self.at("}"):
                break
            children.append(self.take("S"))
        self.take("}")
        return self.rule("enum", start, children)

    def table(self) -> Any:
        start = self.i
        self.word("table")
        children: list[Any] = [self.name()]
        self.take("(")
        children.append(self.column())
        while self.maybe(","):
            children.append(self.column())
        self.take(")")
        self.word("key")
        children.append(self.name())
        s = self.i
        if self.maybe("="):
            self.word("load")
            children.append(self.rule("table_load", s, [self.take("S")]))
        else:
            self.take("{")
            rows = []
            while self.at("("):
                rows.append(self.row())
            self.take("}")
            children.append(self.b.table_rows(rows))
        return self.rule("table", start, children)

    def column(self) -> Any:
        start = self.i
        name = self.name()
        self.take(":")
        w = self.take("w")
        if w == "ref":
            coltype = self.b.coltype_ref(["ref", self.name()])
        elif w in ("str", "int", "num", "bool"):
            coltype = self.b.coltype([w])
        else:
            raise Bail
        return self.rule("column", start, [name, coltype])

    def row(self) -> Any:
        self.take("(")
        cells = [self.cell()]
        while self.maybe(","):
            cells.append(self.cell())
        self.take(")")
        return self.b.row(cells)

    def cell(self) -> Any:
        start = self.i
        if self.maybe("-"):
            kind = self.kind()
            if kind not in ("I", "D"):
                raise Bail
            value = self.take(kind)
            return self.rule("neg_int_lit" if kind == "I" else "neg_num_lit", start, [value])
        return self.literal()

    def literal(self) -> Any:
        start = self.i
        kind = self.kind()
        if kind in _NUMBER_LITS:
            return self.rule(_NUMBER_LITS[kind], start, [self.take(kind)])
        if kind == "w" and self.values[self.i] in _LITERALS:
            self.i += 1
            return self.rule(_LITERALS[self.values[start]], start, [])
        raise Bail

    def session(self) -> Any:
        start = self.i
        self.word("session")
        self.take("{")
        variables = []
        while self.at_word("var"):
            variables.append(self.var())
        self.take("}")
        return self.rule("session", start, variables)

    def var(self) -> Any:
        start = self.i
        self.word("var")
        name = self.name()
        self.take(":")
        t = self.type()
        self.take("=")
        return self.rule("var", start, [name, t, self.expr()])

    # ---------------------------------------------------------------- types
    def type(self) -> Any:
        start = self.i
        t = self.base_type()
        if self.maybe("?"):
            return self.rule("opt_type", start, [t])
        return t

    def base_type(self) -> Any:
        start = self.i
        if self.maybe("{"):
            values = [self.take("S")]
            while self.maybe(","):
                values.append(self.take("S"))
            self.take("}")
            return self.rule("choice_type", start, values)
        w = self.take("w")
        if w == "bool":
            return self.rule("bool_type", start, [])
        if w == "int":
            self.take("[")
            lo = self.signed_int()
            self.take("..")
            hi = self.signed_int()
            self.take("]")
            return self.rule("int_type", start, [lo, hi])
        if w == "ref":
            return self.rule("ref_type", start, [self.name()])
        if w in ("set", "map"):
            self.take("<")
            args = [self.type()]
            if w == "map":
                self.take(",")
                args.append(self.type())
            self.take(">")
            return self.rule(f"{w}_type", start, args)
        return self.rule("named_type", start, [w])

    def signed_int(self) -> int:
        """SIGNED_INT is one token in lark: a minus sign only counts when the digits follow it at once."""
        if self.at("-"):
            i = self.i
            if self.kinds[i + 1] != "I" or self.starts[i + 1] != self.starts[i] + 1:
                raise Bail
            self.i += 2
            return self.b.signed_int(["-" + self.values[i + 1]])  # type: ignore[no-any-return]
        return self.b.signed_int([self.take("I")])  # type: ignore[no-any-return]

    # ---------------------------------------------------------------- pages
    def page(self) -> Any:
        start = self.i
        self.word("page")
        children: list[Any] = [self.name(), self.take("S") if self.at("S") else None]
        self.take("{")
        while not self.maybe("}"):
            if self.at_word("var"):
                children.append(self.var())
            elif self.at_word("view"):
                children.append(self.view())
            elif self.at_word("action"):
                children.append(self.action())
            else:
                raise Bail
        return self.rule("page", start, children)

    def view(self) -> Any:
        start = self.i
        self.word("view")
        children: list[Any] = [self.name()]
        self.take("=")
        children.append(self.name())
        self.word("as")
        children.append(self.name())
        while self.at("w"):
            s, w = self.i, self.values[self.i]
            if w == "where":
                self.i += 1
                children.append(self.rule("view_where", s, [self.expr()]))
            elif w == "order":
                self.i += 1
                self.word("by")
                keys = [self.order_key()]
                while self.maybe(","):
                    keys.append(self.order_key())
                children.append(self.rule("view_order", s, keys))
            elif w == "page" and self.kinds[self.i + 1] == "w" and self.values[self.i + 2] == "size":
                self.i += 1
                name = self.name()
                self.word("size")
                children.append(self.rule("view_page", s, [name, self.take("I")]))
            else:
                break
        return self.rule("view", start, children)

    def order_key(self) -> Any:
        start = self.i
        expr = self.expr()
        direction = None
        if self.at_word("asc") or self.at_word("desc"):
            direction = self.b.direction([self.values[self.i]])
            self.i += 1
        when = None
        if self.at_word("when"):
            self.i += 1
            when = self.expr()
        return self.rule("order_key", start, [expr, direction, when])

    def params(self) -> Any:
        self.take("(")
        params = [self.param()]
        while self.maybe(","):
            params.append(self.param())
        self.take(")")
        return self.b.params(params)

    def param(self) -> Any:
        start = self.i
        name = self.name()
        self.take(":")
        return self.rule("param", start, [name, self.type()])

    def action(self) -> Any:
        start = self.i
        self.word("action")
        children: list[Any] = [self.name(), self.params() if self.at("(") else None,
                               self.take("S") if self.at("S") else None]
        self.take("{")
        while not self.maybe("}"):
            children.append(self.action_item())
        return self.rule("action", start, children)

    def action_item(self) -> Any:
        start = self.i
        w = self.take("w")
        if w == "require":
            return self.rule("require", start, [self.expr()])
        if w == "goto":
            names = [self.name()]
            if self.at_word("carry"):
                self.i += 1
                names.append(self.name())
                while self.maybe(","):
                    names.append(self.name())
            return self.rule("goto", start, names)
        if w in ("toggle", "clear"):
            return self.rule(f"eff_{w}", start, [self.name()])
        if w in ("add", "remove"):
            value = self.expr()
            self.word("to" if w == "add" else "from")
            return self.rule(f"eff_{w}", start, [value, self.name()])
        if w == "gui":
            return self.gui(start)
        if w in LVALUE_KEYWORDS:
            raise Bail
        key = None
        if self.maybe("["):
            key = self.expr()
            self.take("]")
        lvalue = self.b.lvalue([w, key])
        op = self.kind()
        if op not in _EFFECT_OPS:
            raise Bail
        self.i += 1
        return self.rule(_EFFECT_OPS[op], start, [lvalue, self.expr()])

    def gui(self, start: int) -> Any:
        self.take("{")
        ops = []
        while not self.maybe("}"):
            s = self.i
            w = self.take("w")
            if w == "repeat":
                self.word("click")
                sel = self.take("S")
                self.word("until")
                self.word("visible")
                until = self.take("S")
                self.word("max")
                ops.append(self.rule("gui_repeat", s, [sel, until, self.take("I")]))
            elif w in _GUI_ARGS:
                rule, args = _GUI_ARGS[w]
                ops.append(self.rule(rule, s, [self.take(a) for a in args]))
            else:
                raise Bail
        return self.rule("gui", start, ops)

    # ---------------------------------------------------------------- tasks
    def task(self) -> Any:
        start = self.i
        self.word("task")
        children: list[Any] = [self.name(), self.params() if self.at("(") else None]
        page = None
        if self.at_word("on"):
            self.i += 1
            page = self.name()
        children.append(page)
        self.take("{")
        while not self.maybe("}"):
            s = self.i
            w = self.take("w")
            if w == "goal":
                children.append(self.rule("task_goal", s, [self.expr()]))
            elif w == "instruction":
                children.append(self.rule("task_instruction", s, [self.take("S")]))
            elif w == "answer":
                children.append(self.rule("task_answer", s, [self.expr()]))
            else:
                raise Bail
        return self.rule("task", start, children)

    # ---------------------------------------------------------------- properties
    def property(self) -> Any:
        start = self.i
        kind = self.take("w")
        name = None
        if self.at("w") and self.kinds[self.i + 1] == ":":
            if self.values[self.i] in ATOM_KEYWORDS:
                raise Bail  # lark reads the literal or `not` there, then fails at the colon
            name = self.b.property_name([self.values[self.i]])
            self.i += 2
        children = [name, self.expr()]
        if kind == "always":
            self.word("eventually")
            children.append(self.expr())
        return self.rule(_PROPERTIES[kind], start, children)

    # ---------------------------------------------------------------- backend
    def backend(self) -> Any:
        start = self.i
        self.word("backend")
        return self.rule("backend", start, [self.name(), self.take("S")])

    # ---------------------------------------------------------------- expressions
    def expr(self) -> Any:
        start = self.i
        left = self.and_expr()
        while self.at_word("or"):
            self.i += 1
            left = self.rule("or_", start, [left, self.and_expr()])
        return left

    def and_expr(self) -> Any:
        start = self.i
        left = self.not_expr()
        while self.at_word("and"):
            self.i += 1
            left = self.rule("and_", start, [left, self.not_expr()])
        return left

    def not_expr(self) -> Any:
        start = self.i
        if self.at_word("not"):
            self.i += 1
            return self.rule("not_", start, [self.not_expr()])
        left = self.sum()
        kind = self.kinds[self.i]
        if kind in _COMP:
            self.i += 1
            return self.rule("compare", start, [left, kind, self.sum()])
        if kind == "w":
            w = self.values[self.i]
            if w == "in" or w == "contains":
                self.i += 1
                return self.rule("in_" if w == "in" else "contains", start, [left, self.sum()])
            if w == "not" and self.kinds[self.i + 1] == "w" and self.values[self.i + 1] == "in":
                self.i += 2
                return self.rule("not_in", start, [left, self.sum()])
        return left

    def sum(self) -> Any:
        start = self.i
        left = self.product()
        while self.kinds[self.i] in ("+", "-"):
            op = self.values[self.i]
            self.i += 1
            left = self.rule("arith", start, [left, op, self.product()])
        return left

    def product(self) -> Any:
        start = self.i
        left = self.unary()
        while self.kinds[self.i] == "*":
            self.i += 1
            left = self.rule("arith", start, [left, "*", self.unary()])
        return left

    def unary(self) -> Any:
        start = self.i
        if self.maybe("-"):
            return self.rule("neg", start, [self.unary()])
        return self.postfix()

    def postfix(self) -> Any:
        start = self.i
        kind = self.kinds[self.i]
        if kind == "w" and self.kinds[self.i + 1] == "(" and self.values[self.i] not in ATOM_KEYWORDS:
            func = self.values[self.i]
            self.i += 2
            args: list[Any] = [func]
            if not self.at(")"):
                args.append(self.expr())
                while self.maybe(","):
                    args.append(self.expr())
            self.take(")")
            node = self.rule("call", start, args)
        else:
            node = self.atom()
        while True:
            kind = self.kinds[self.i]
            if kind == ".":
                self.i += 1
                node = self.rule("field", start, [node, self.name()])
            elif kind == "[":
                self.i += 1
                key = self.expr()
                self.take("]")
                node = self.rule("index", start, [node, key])
            else:
                return node

    def atom(self) -> Any:
        start = self.i
        kind = self.kinds[self.i]
        if kind == "w":
            w = self.values[self.i]
            if w in _LITERALS:
                return self.literal()
            if w == "not":
                raise Bail
            self.i += 1
            return self.rule("name", start, [w])
        if kind == "(":
            self.i += 1
            inner = self.expr()
            self.take(")")
            return inner
        if kind == "{":
            self.i += 1
            items: list[Any] = []
            if not self.at("}"):
                items.append(self.expr())
                while self.maybe(","):
                    items.append(self.expr())
            self.take("}")
            return self.rule("set_lit", start, items)
        return self.literal()


def parse_fast(text: str, builder: IRBuilder) -> ir.Spec:
    """The spec lark would build from `text`, or Bail."""
    try:
        return Descent(text, builder).parse()
    except (IndexError, RecursionError):
        raise Bail from None
