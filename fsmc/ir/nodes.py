"""The IR: small, typed, frozen pydantic nodes with source spans that do not take part in equality."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self, cast

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    """Base of the IR's models: frozen, no extra fields, validators built once for all models when first needed."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    def __init__(self, /, **data: Any) -> None:
        build_models()
        super().__init__(**data)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        build_models()
        return cast(Self, super().model_validate(obj, **kwargs))

    @classmethod
    def trusted(cls, **fields: Any) -> Self:
        """A node from fields our own code has already typed (the .fsm parser's: ints from int(), tuples, nodes),
        not validated again: pydantic then never builds the validators for a command that needs none (`fsmc
        check` of a .fsm starts in about two thirds of the time)."""
        return cast(Self, cls.model_construct(**fields))


class Span(Frozen):
    """A region of a source file, 1-based lines and columns, end exclusive."""

    file: str = ""
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span.trusted()


class Node(Frozen):
    """Base of every IR node: a span ignored by ==."""

    span: Span = Field(default=NO_SPAN, repr=False)

    def _key(self) -> tuple[Any, ...]:
        return (type(self),) + tuple(getattr(self, f) for f in type(self).model_fields if f != "span")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


# ---------------------------------------------------------------- types (finite domains)


class BoolType(Node):
    kind: Literal["bool"] = "bool"


class IntType(Node):
    kind: Literal["int"] = "int"
    lo: int
    hi: int


class ChoiceType(Node):
    """A string from a finite set; `name` is the enum's name when it was declared as one."""

    kind: Literal["choice"] = "choice"
    values: tuple[str, ...]
    name: str | None = None


class NamedType(Node):
    """A reference to an enum by name, replaced by its ChoiceType when the IR is resolved."""

    kind: Literal["named"] = "named"
    name: str


class RefType(Node):
    """The key of one row of a data table."""

    kind: Literal["ref"] = "ref"
    table: str


class SetType(Node):
    kind: Literal["set"] = "set"
    elem: Type


class MapType(Node):
    """A finite partial function, e.g. a cart from product to quantity."""

    kind: Literal["map"] = "map"
    key: Type
    value: Type


class OptionalType(Node):
    kind: Literal["optional"] = "optional"
    inner: Type


Type = Annotated[
    BoolType | IntType | ChoiceType | NamedType | RefType | SetType | MapType | OptionalType,
    Field(discriminator="kind"),
]

# ---------------------------------------------------------------- expressions

Value = bool | int | float | str | None


class Lit(Node):
    kind: Literal["lit"] = "lit"
    value: Value


class Name(Node):
    """A variable, parameter, view or row alias, looked up by scope."""

    kind: Literal["name"] = "name"
    id: str


class GetField(Node):
    """`row.column` on a reference to a table row."""

    kind: Literal["field"] = "field"
    obj: Expr
    field: str


class Index(Node):
    """`map[key]`."""

    kind: Literal["index"] = "index"
    obj: Expr
    key: Expr


class Call(Node):
    """A built-in function: len, count, first, last, min, max, sum."""

    kind: Literal["call"] = "call"
    func: str
    args: tuple[Expr, ...]


class Unary(Node):
    kind: Literal["unary"] = "unary"
    op: Literal["not", "-"]
    operand: Expr


BinOp = Literal["and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "contains", "+", "-", "*"]


class Binary(Node):
    kind: Literal["binary"] = "binary"
    op: BinOp
    left: Expr
    right: Expr


class SetLit(Node):
    kind: Literal["set"] = "set"
    items: tuple[Expr, ...]


Expr = Annotated[
    Lit | Name | GetField | Index | Call | Unary | Binary | SetLit,
    Field(discriminator="kind"),
]



# ---------------------------------------------------------------- declarations


class Column(Node):
    name: str
    type: Literal["str", "int", "num", "bool"] | str  # "ref:<table>" for references


class Table(Node):
    """A data table; rows are loaded into the IR even when the spec names a file."""

    name: str
    key: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Value, ...], ...]
    source: str | None = None


class Enum(Node):
    name: str
    values: tuple[str, ...]


class Var(Node):
    name: str
    type: Type
    default: Expr


class OrderKey(Node):
    expr: Expr
    desc: bool = False
    when: Expr | None = None


class View(Node):
    """A list of rows derived from a table or another view and the state: filter, sort, paginate."""

    name: str
    source: str
    alias: str
    where: Expr | None = None
    order: tuple[OrderKey, ...] = ()
    page_var: str | None = None
    page_size: int | None = None


class Param(Node):
    name: str
    type: Type


EffectOp = Literal["assign", "inc", "dec", "toggle", "add", "remove", "clear"]


class Effect(Node):
    """One local update of one variable (or one map entry when `key` is set)."""

    op: EffectOp
    var: str
    key: Expr | None = None
    value: Expr | None = None


GuiOpKind = Literal["click", "type", "press", "hover", "scroll_until_visible", "select", "drag", "wait", "repeat_click"]


class GuiOp(Node):
    """An atomic GUI operation; selectors are data-testid templates like "card-{p}"."""

    op: GuiOpKind
    selector: str | None = None
    text: str | None = None
    until: str | None = None
    limit: int | None = None


class Action(Node):
    name: str
    params: tuple[Param, ...] = ()
    label: str | None = None
    requires: tuple[Expr, ...] = ()
    effects: tuple[Effect, ...] = ()
    goto: str | None = None
    carry: tuple[str, ...] = ()
    gui: tuple[GuiOp, ...] = ()


class Page(Node):
    name: str
    title: str | None = None
    vars: tuple[Var, ...] = ()
    views: tuple[View, ...] = ()
    actions: tuple[Action, ...] = ()


class Task(Node):
    """A task template: a goal predicate (on a page, if given), an instruction and maybe an answer."""

    name: str
    params: tuple[Param, ...] = ()
    page: str | None = None
    goal: Expr
    instruction: str
    answer: Expr | None = None


PropertyKind = Literal["invariant", "never", "reachable", "leads_to"]


class Property(Node):
    """What the spec guarantees about its reachable states (docs/language.md, Properties).

    `invariant` holds in every reachable state, `never` in none, `reachable` in some; `leads_to` (written
    `always COND eventually THEN`) says that on every path, whenever `cond` holds, `then` holds then or later.
    """

    kind: PropertyKind
    name: str | None = None
    cond: Expr
    then: Expr | None = None


class Backend(Node):
    """What the spec is acted out on besides the generated site (docs/language.md, Backends).

    `kind` is `app` (a running application: `source` names its TOML sidecar: how to start it, reset it and
    read its state) or `capture` (`source` names a capture folder); the check of backends rejects any other.
    `source` is as written, relative to the spec's folder.
    """

    kind: str
    source: str


class Site(Node):
    name: str
    title: str | None = None
    reference: str | None = None
    entry: str
    terminals: tuple[str, ...] = ()


class Spec(Node):
    """A whole spec: the root of the IR."""

    site: Site
    enums: tuple[Enum, ...] = ()
    tables: tuple[Table, ...] = ()
    session: tuple[Var, ...] = ()
    pages: tuple[Page, ...] = ()
    tasks: tuple[Task, ...] = ()
    properties: tuple[Property, ...] = ()
    backends: tuple[Backend, ...] = ()  # at most one (checks/backends.py); none: the generated site

    def page(self, name: str) -> Page:
        for p in self.pages:
            if p.name == name:
                return p
        raise KeyError(name)

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


def build_models() -> None:
    """Build every model's validator once, in order (defer_build keeps a class statement from trying on its own: it
    failed on the forward references or built its children inline again). Done on the first node validated, so that
    a command whose nodes all come from the .fsm parser (`Node.trusted`) never pays for it (`fsmc check`'s start-up)."""
    global _built
    if _built:
        return
    _built = True
    for model in list(globals().values()):
        if isinstance(model, type) and issubclass(model, BaseModel) and model is not BaseModel:
            model.model_rebuild()


_built = False

__all__ = [
    "Action", "Backend", "BinOp", "Binary", "BoolType", "Call", "ChoiceType", "Column", "Effect", "EffectOp", "Enum",
    "Expr", "GetField", "GuiOp", "GuiOpKind", "Index", "IntType", "Lit", "MapType", "NO_SPAN", "Name",
    "NamedType", "Node", "OptionalType", "OrderKey", "Page", "Param", "Property", "PropertyKind", "RefType", "SetLit",
    "SetType", "Site", "Span", "Spec", "Table", "Task", "Type", "Unary", "Value", "Var", "View",
]
