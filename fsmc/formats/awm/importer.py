"""Reads a foreign AutoWebWorld fsm.json: infers a finite domain for every field, or says what it cannot take.

How their constructs map (their behaviour is that of `trajectory/bfs/bfs.py` and `bfs_action.py`):

- A field's type string gives its kind (`boolean`, `integer`, `number`, `string`, `array<...>`) and
  `|null` makes it optional; its values are the default (`pages[i].signature`, else their rule from the
  type string), the literals written to it or compared with it, and the values of the parameters
  assigned to it. An integer that `inc` changes is bounded by the precondition of that same action
  that bounds it (`lt`/`lte` before an increment, `gt`/`gte` before a decrement). Fields with the same
  name on different pages are one domain, because navigation carries them over by name. A field that
  is never given a value other than null gets the placeholder domain `{""}?`.
- A parameter whose value is a scalar (`"{SKU_ANY}"`, `"newest"`) is a constant, as in their BFS
  (a placeholder loses its braces, `"SKU_ANY"`, so that fsmc templates do not expand it); a list of values is
  fsmc's extension: the parameter ranges over them, one edge per value. `"{ITEM_ANY}"` on a page that shows
  an array<object> field ranges over the keys of its rows (the app's, data.py, or invented).
- Navigation carries every field that the source and the target page share, as their merge does; a
  field of the target page that a navigation writes becomes a carry slot of the source page.
- `meta.global_signature_schema` fields become session variables, but those a page declares too, which are
  page variables (bfs_action.py reads only the pages' schemas).

What their generator (bfs_action.py) decides by itself is rewritten first (effects.py: `clear` by
the current value, `value_expr`, effects on data), array<object> fields become data (a table and a view),
and name-based rules become requires (conventions.py); each such decision is one W009 warning.

Refused with E009 (unsupported) or E005 (malformed), each message starting with the JSON path and located
at the construct's own line: `not_exists` (never evaluated by their BFS), a `clear` whose current value
nothing fixes, a `value_expr` of no form docs/semantics.md gives a meaning, `value_ref` to a `$.path` (the
two tools disagree), `data_effects`, conditions on array<object> fields other than length_gt, exists and
not_null, conditions telling null from [] on a nullable array (which starts empty), `inc` given `value` but
no `by`, nested objects and paths, fractional numbers, and integers that no precondition bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats.awm.where import position_of
from fsmc.frontend.keywords import RESERVED
from fsmc.source import recall

__all__ = ["Act", "Field", "Importer", "fsmc_name"]

JSON = Any
_CMP = {"eq": "==", "neq": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
SAMPLE_ROWS = 3  # rows of the table an array<object> field becomes (the file gives none)
NULL_ARRAY = ("a nullable array starts empty: bfs_action.py starts it at null (bfs.py at []), but fsmc arrays are "
              "sets, never null, and their BFS cannot tell null from [] by length_gt (false for both) or append_unique "
              "(null counts as []); a condition that could (exists, not_null, eq or neq null) is refused")
GLOBAL_AND_PAGE = ("a field of meta.global_signature_schema that a page's signature_schema declares too is a "
                   "variable of the pages that declare it (or use it), not of the session: bfs_action.py reads only "
                   "the pages' schemas, so the field starts at the page's default on each page that declares it and "
                   "its name-based rules (interceptors) apply there")
ITEM_ANY = "{ITEM_ANY}"
ITEMS = ('an "{ITEM_ANY}" parameter of an action on a page that shows an array<object> field ranges over the keys '
         "of that field's rows, one edge per row (their BFS keeps the placeholder, one abstract item); an action "
         "that opens the item a search matched or a scroll brought into view opens that one (every {ITEM_ANY} is "
         "the same item there), and the GUI names the row: a search types its key, a click or a scroll ends on it")
# Every word the grammar may read as a keyword where an imported name is used (fsmc.frontend.keywords).
_RESERVED = frozenset().union(*RESERVED.values())


def fsmc_name(raw: JSON) -> str:
    """A valid fsmc NAME for one of their ids (letters, digits and _; not a keyword)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", str(raw)) or "_"
    name = "_" + name if name[0].isdigit() else name
    return name + "_" if name in _RESERVED else name


def _symbol(value: JSON) -> JSON:
    """`"{ITEM_ANY}"` → `"ITEM_ANY"`: the same symbolic value, without braces that fsmc templates would expand."""
    m = re.fullmatch(r"\{(\w+)\}", value) if isinstance(value, str) else None
    return m.group(1) if m else value


def _ordered_add(values: list[JSON], v: JSON) -> None:
    if not any(v == w and type(v) is type(w) for w in values):
        values.append(v)


@dataclass
class Field:
    """What the file says about one signature field, gathered over every page that declares it."""

    name: str
    base: str
    elem: str | None
    nullable: bool
    where: str
    values: list[JSON] = field(default_factory=list)
    bounds: list[int] = field(default_factory=list)


@dataclass
class DataField:
    """An `array<object>` field: rows the pages that declare it show (a table and a view), never state."""

    name: str
    where: str
    pages: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=lambda: ["id"])
    numbers: set[str] = field(default_factory=set)  # columns a value_expr sums: numbers, not text
    nullable: bool = False  # declared `|null` somewhere: bfs_action.py starts it at null there

    def noun(self) -> str:
        """What one row is, from the field's name: `repositories` → `repository`, `pulls` → `pull`."""
        name = self.name
        if name.endswith("ies") and len(name) > 4:
            return name[:-3] + "y"
        if name.endswith(("ches", "shes", "xes", "sses")):
            return name[:-2]  # branches → branch, boxes → box
        return name[:-1] if name.endswith("s") and not name.endswith("ss") else name

    rows: list[tuple[JSON, ...]] | None = None  # the app's own rows (data.py), columns as `columns`; else invented

    def ids(self) -> list[str]:
        """The keys of the table's rows: the app's, or invented (`repository-1`...) where the world gives none."""
        if self.rows is not None:
            return [str(r[0]) for r in self.rows]
        return [f"{self.noun()}-{k}" for k in range(1, SAMPLE_ROWS + 1)]


@dataclass
class Act:
    """One of their actions, with its parameters split into constants and ranges, and its effects as imported."""

    where: str
    page: str
    raw: dict[str, JSON]
    consts: dict[str, JSON] = field(default_factory=dict)
    ranges: dict[str, list[JSON]] = field(default_factory=dict)
    samples: dict[str, str] = field(default_factory=dict)  # "{p}" naming no parameter: the value typed and recorded
    items: dict[str, str] = field(default_factory=dict)  # "{ITEM_ANY}" parameters: the data field whose rows they range over
    effects: list[tuple[str, JSON]] = field(default_factory=list)  # (JSON path, effect), after effects.py


class Importer:
    """Imports one fsm.json object; `problems` collects every diagnostic before anything is raised."""

    def __init__(self, data: dict[str, JSON], file: str):
        self.data = data
        self.file = file
        self.problems: list[Diagnostic] = []
        self.fields: dict[str, Field] = {}
        self.page_fields: dict[str, list[str]] = {}
        self.defaults: dict[tuple[str, str], JSON] = {}
        self.global_names: list[str] = []
        self.declared: dict[str, set[str]] = {}  # the fields each page's signature_schema names
        self.acts: list[Act] = []
        self.types: dict[str, ir.Type] = {}
        self.refused: set[str] = set()  # declared with a type we do not take (already reported)
        self.data_fields: dict[str, DataField] = {}  # array<object> fields: data the page shows, not state
        self.decisions: dict[str, list[str]] = {}
        self.shadowed: dict[str, JSON] = {}  # fields of the global schema that pages declare too: their global default
        self.notes: list[Diagnostic] = []
        self.reached: dict[str, set[Any]] | None = None  # reachable states by page (None: not explored, or capped)

    @property
    def app(self) -> str:
        """The world's `meta.app` (`Neobank-Revolut_app`), or "" where it names none."""
        meta = self.data.get("meta")
        return str(meta.get("app") or "") if isinstance(meta, dict) else ""

    # ---------------------------------------------------------------- reporting

    def span(self, where: str) -> ir.Span:
        """Where the construct at JSON path `where` (or its nearest enclosing one) starts in the file's source."""
        source = recall(self.file)
        line, col = (position_of(source, where) if source is not None else None) or (1, 1)
        return ir.Span(file=self.file, line=line, col=col, end_line=line, end_col=col + 1)

    def report(self, where: str, message: str, code: str = "E009", hint: str | None = None) -> None:
        self.problems.append(Diagnostic(code, f"{where}: {message}", self.span(where), hint=hint))

    def decide(self, decision: str, where: str) -> None:
        """Record a place where the import follows a decision of its own (one W009 per decision, listing places)."""
        self.decisions.setdefault(decision, []).append(where)

    def note(self, where: str, message: str, hint: str | None = None) -> None:
        """A warning of its own (W009) about the world, such as a terminal page it cannot reach."""
        self.notes.append(Diagnostic("W009", f"{where}: {message}", self.span(where), severity="warning", hint=hint))

    def warnings(self) -> list[Diagnostic]:
        """One W009 per decision taken, at its first place, saying how many places it applies to; then the notes."""
        out = list(self.notes)
        for decision, places in self.decisions.items():
            more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
            out.append(Diagnostic("W009", f"{places[0]}{more}: {decision}", self.span(places[0]), severity="warning",
                                  hint="docs/semantics.md, section AutoWebWorld, says why"))
        return out

    def stop_if_problems(self) -> None:
        if self.problems:
            raise SpecError(self.problems)

    # ---------------------------------------------------------------- shape

    def _list(self, obj: dict[str, JSON], key: str, where: str) -> list[JSON]:
        value = obj.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list):
            self.report(f"{where}.{key}" if where else key, "is not a list", "E005")
            return []
        return value

    def _dict(self, obj: dict[str, JSON], key: str, where: str) -> dict[str, JSON]:
        value = obj.get(key, {})
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.report(f"{where}.{key}", "is not an object", "E005")
            return {}
        return value

    def check_shape(self) -> tuple[dict[str, JSON], list[dict[str, JSON]]]:
        meta = self.data.get("meta")
        if not isinstance(meta, dict):
            self.report("meta", "is not an object", "E005")
            meta = {}
        if not isinstance(meta.get("initial_page_id"), str):
            self.report("meta.initial_page_id", "is missing or not a string", "E005")
        terminals = self._list(meta, "terminal_pages", "meta")
        if not all(isinstance(t, str) for t in terminals):
            self.report("meta.terminal_pages", "must be a list of page ids", "E005")
        pages = self._list(self.data, "pages", "")
        for i, p in enumerate(pages):
            if not isinstance(p, dict) or not isinstance(p.get("id"), str):
                self.report(f"pages[{i}]", "is not a page object with a string 'id'", "E005")
                continue
            for j, a in enumerate(self._list(p, "actions", f"pages[{i}]")):
                if not isinstance(a, dict) or not isinstance(a.get("id"), str):
                    self.report(f"pages[{i}].actions[{j}]", "is not an action object with a string 'id'", "E005")
        self.stop_if_problems()
        return meta, pages

    # ---------------------------------------------------------------- fields and defaults

    def _parse_type(self, text: JSON, where: str) -> tuple[str, str | None, bool] | None:
        if isinstance(text, dict):
            self.report(where, "nested objects in a signature are not supported", hint="flatten the field into scalars")
            return None
        if not isinstance(text, str):
            self.report(where, f"type must be a string such as \"string|null\", not {text!r}", "E005")
            return None
        parts = text.replace(" ", "").lower().split("|")
        nullable = "null" in parts
        main = [p for p in parts if p != "null"]
        m = re.fullmatch(r"(boolean|integer|number|string|array|object)(?:<(\w+)>)?(>=1|>=0)?", main[0] if main else "")
        if len(main) != 1 or m is None:
            self.report(where, f"type {text!r} is not one of boolean, integer, number, string, array<...> (|null)")
            return None
        if m.group(1) == "object" or m.group(2) == "object":
            return "data", None, nullable
        return m.group(1), m.group(2), nullable

    def _declare(self, raw_name: str, text: JSON, where: str) -> str | None:
        name = fsmc_name(raw_name)
        parsed = self._parse_type(text, where)
        if parsed is None:
            self.refused.add(name)
            return None
        base, elem, nullable = parsed
        if base == "data" or name in self.data_fields:
            self._declare_data(name, raw_name, text, base, where)
            return None
        known = self.fields.get(name)
        if known is None:
            self.fields[name] = Field(name, base, elem, nullable, where)
        elif (known.base, known.elem) != (base, elem):
            self.report(where, f"field '{raw_name}' is {text!r} here but {known.base} at {known.where}",
                        hint="fields with one name are carried across pages, so they need one type")
        else:
            known.nullable = known.nullable or nullable
        if isinstance(text, str) and ">=1" in text.replace(" ", ""):
            _ordered_add(self.fields[name].values, 1)
        return name

    def _declare_data(self, name: str, raw_name: str, text: JSON, base: str, where: str) -> None:
        known = self.data_fields.setdefault(name, DataField(name, where))
        known.nullable = known.nullable or "null" in str(text).replace(" ", "").lower().split("|")
        if base != "data" or name in self.fields:
            self.report(where, f"field '{raw_name}' is {text!r} here but array<object> at {known.where}",
                        hint="fields with one name are carried across pages, so they need one type")
        page = re.match(r"pages\[(\d+)\]", where)
        if page:
            known.pages.append(fsmc_name(self.data["pages"][int(page.group(1))]["id"]))
        self.decide("array<object> fields are data the page shows (a table with sample rows and a view), not "
                    "state: their BFS starts them at null and never reads them", where)
        return None

    def _schema_default(self, f: Field, text: str, where: str) -> JSON:
        """Their default for this page's type string; where bfs.py and bfs_action.py disagree, a problem."""
        text = text.replace(" ", "").lower()
        nullable = "null" in text.split("|")
        if f.base == "array":
            if nullable:
                self.decide(NULL_ARRAY, where)
            return []
        if nullable:
            return None
        return {"boolean": False, "string": "", "number": 0}.get(f.base, 1 if ">=1" in text else 0)

    def read_fields(self, meta: dict[str, JSON], pages: list[dict[str, JSON]]) -> None:
        schema = self._dict(meta, "global_signature_schema", "meta")
        given = self._dict(meta, "global_signature", "meta")
        on_pages = {fsmc_name(k) for i, p in enumerate(pages)
                    for k in self._dict(p, "signature_schema", f"pages[{i}]")}
        for raw, text in schema.items():
            where = f"meta.global_signature_schema.{raw}"
            if fsmc_name(raw) in on_pages:
                self.decide(GLOBAL_AND_PAGE, where)
                self.shadowed[fsmc_name(raw)] = given.get(raw)
                continue
            name = self._declare(raw, text, where)
            if name is not None:
                self.global_names.append(name)
                self._default("", name, raw, given, text, where)
        for i, p in enumerate(pages):
            page = fsmc_name(p["id"])
            self.page_fields[page] = []
            given = self._dict(p, "signature", f"pages[{i}]")
            for raw, text in self._dict(p, "signature_schema", f"pages[{i}]").items():
                where = f"pages[{i}].signature_schema.{raw}"
                name = self._declare(raw, text, where)
                if name is not None and name not in self.global_names:
                    self.declared.setdefault(page, set()).add(name)
                    self.page_fields[page].append(name)
                    self._default(page, name, raw, given, text, where)

    def _default(self, page: str, name: str, raw: str, given: dict[str, JSON], text: JSON, where: str) -> None:
        f = self.fields[name]
        value = given[raw] if raw in given else self._schema_default(f, str(text), where)
        self.defaults[(page, name)] = value
        self.add_value(f, value, where)

    # ---------------------------------------------------------------- evidence

    def add_value(self, f: Field, value: JSON, where: str) -> None:
        if f.base == "array" and isinstance(value, list):
            for v in value:
                self.add_value(f, v, where)
            return
        if f.base == "array" and value is None:
            self.report(where, f"array field '{f.name}' is null here; fsmc arrays are sets, never null",
                        hint="use [] instead of null")
            return
        if isinstance(value, (dict, list)):
            self.report(where, f"value {value!r} of field '{f.name}' is not a scalar")
            return
        _ordered_add(f.values, value)

    def data_name(self, path: JSON) -> str | None:
        """The field's name if `path` is '$.' and an array<object> field, else None."""
        if isinstance(path, str) and path.startswith("$.") and fsmc_name(path[2:]) in self.data_fields:
            return fsmc_name(path[2:])
        return None

    def field_of(self, path: JSON, act: Act, where: str, write: bool = False) -> Field | None:
        if not isinstance(path, str) or not path.startswith("$."):
            self.report(where, f"path {path!r} is not a signature path starting with '$.'", "E005")
            return None
        if "." in path[2:]:
            self.report(where, f"nested path {path!r} is not supported", hint="flatten the field into scalars")
            return None
        name = fsmc_name(path[2:])
        if name in self.refused:
            return None
        if name in self.data_fields:
            self.report(where, f"{path} is an array<object> field: data the page shows, which fsmc keeps out of the "
                               "state, so no condition can read it", hint="test a scalar field instead")
            return None
        if name in self.global_names or name in self.declared.get(act.page, ()) or (write and self._slot(name, act)):
            return self.fields[name]
        if name in self.shadowed and name in self.fields:
            return self._adopt(name, act)
        self.report(where, f"path {path} is not a field of page '{act.page}' or of meta.global_signature_schema")
        return None

    def _slot(self, name: str, act: Act) -> bool:
        """A navigation may write a field of its target page: it becomes a carry slot of the source page.

        Their merge copies such a written field to the target; a variable of the same name on the source
        page, always at the target's default while the user is there, does exactly that in fsmc.
        """
        target = fsmc_name(act.raw.get("to", act.raw.get("to_page_id")))
        if not act.raw.get("is_navigation") or name not in self.declared.get(target, ()):
            return False
        if name not in self.page_fields[act.page]:
            self.page_fields[act.page].append(name)
            self.defaults[(act.page, name)] = self.defaults[(target, name)]
        return True

    def _adopt(self, name: str, act: Act) -> Field:
        """A field of both the global schema and some page, used on a page that does not declare it: a variable of
        that page too, starting where bfs_action.py reads it (absent: null, unless the global signature gives it)."""
        f = self.fields[name]
        if name not in self.page_fields[act.page]:
            default = self.shadowed[name] if self.shadowed[name] is not None or f.base != "array" else []
            self.page_fields[act.page].append(name)
            self.declared.setdefault(act.page, set()).add(name)
            self.defaults[(act.page, name)] = default
            self.add_value(f, default, act.where)
        return f

    def param_values(self, ref: str, act: Act, where: str) -> list[JSON] | None:
        name = ref[1:-1].strip()
        if name in act.consts:
            return [act.consts[name]]
        if name in act.ranges:
            return act.ranges[name]
        self.report(where, f"'{ref}' names no parameter of this action", "E005")
        return None

    # ---------------------------------------------------------------- actions

    def read_actions(self, pages: list[dict[str, JSON]]) -> None:
        for i, p in enumerate(pages):
            for j, a in enumerate(self._list(p, "actions", f"pages[{i}]")):
                act = Act(f"pages[{i}].actions[{j}]", fsmc_name(p["id"]), a)
                act.effects = [(f"{act.where}.effects[{k}]", e)
                               for k, e in enumerate(self._list(a, "effects", act.where))]
                self._params(act)
                self.acts.append(act)

    def _params(self, act: Act) -> None:
        for raw, value in self._dict(act.raw, "parameters", act.where).items():
            name = fsmc_name(raw)
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            if isinstance(value, list) and value and all(isinstance(v, (str, int, bool)) or v is None for v in value):
                act.ranges[name] = list(dict.fromkeys(value))
            elif value == ITEM_ANY and (data := self._item_data(act)) is not None:
                act.ranges[name], act.items[name] = data.ids(), data.name
                self.decide(ITEMS, f"{act.where}.parameters.{raw}")
            elif isinstance(value, (str, int, float, bool)) or value is None:
                act.consts[name] = _symbol(value)
            else:
                self.report(f"{act.where}.parameters.{raw}", "a parameter is a scalar or a non-empty list of scalars")

    def _item_data(self, act: Act) -> DataField | None:
        """The array<object> field an "{ITEM_ANY}" of this action picks from: the one its page shows, or of several
        the one whose name shares most words with the action's id (the first on a tie); None if the page shows none."""
        shown = [d for d in self.data_fields.values() if act.page in d.pages]
        said = set(str(act.raw.get("id", "")).lower().split("_"))

        def shared(d: DataField) -> int:
            return -len(said & {d.name, d.noun(), *d.name.split("_")})

        return min(shown, key=shared) if shown else None

    def gather(self) -> None:
        """Collect the values each field takes and the bounds that increments reach."""
        for act in self.acts:
            if "data_effects" in act.raw:
                self.report(f"{act.where}.data_effects", "data_effects change the data tables, which are fixed in fsmc",
                            hint="model the change as a signature field")
            for k, c in enumerate(self._list(act.raw, "preconditions", act.where)):
                self._gather_condition(c, act, f"{act.where}.preconditions[{k}]")
            for where, e in act.effects:
                self._gather_effect(e, act, where)

    def _operand_values(self, value: JSON, act: Act, where: str) -> list[JSON]:
        if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
            return self.param_values(value, act, where) or []
        if isinstance(value, str) and value.startswith("$."):
            return []
        return value if isinstance(value, list) else [value]

    def _gather_condition(self, c: JSON, act: Act, where: str) -> None:
        if not isinstance(c, dict):
            self.report(where, "a precondition is an object {path, cond, value}", "E005")
            return
        if self.data_name(c.get("path")) is not None:
            return  # decided against the table's rows when the spec is built
        f = self.field_of(c.get("path"), act, where)
        cond = c.get("cond")
        if f is None or not self._known_condition(f, c, where):
            return
        if cond in ("eq", "neq", "in", "oneof"):
            for v in self._operand_values(c.get("value"), act, where):
                self.add_value(f, v, where)

    def _known_condition(self, f: Field, c: dict[str, JSON], where: str) -> bool:
        cond, value = c.get("cond"), c.get("value")
        if cond == "not_exists":
            self.report(where, "cond 'not_exists' is not accepted: their BFS never evaluates it (it is always false "
                               "there)", hint='write {"cond": "eq", "value": null} for a field that must be empty')
        elif cond not in (*_CMP, "exists", "not_null", "length_gt", "in", "oneof"):
            self.report(where, f"unknown cond {cond!r}", hint="use eq neq gt gte lt lte exists not_null length_gt in oneof")
        elif f.base == "array" and f.nullable and (cond in ("exists", "not_null") or (cond in ("eq", "neq") and value is None)):
            self.report(where, f"cond {cond!r} tells null from [] on nullable array '{f.name}', which starts empty in "
                               "fsmc (bfs_action.py starts it at null, bfs.py at [])",
                        hint='test {"cond": "length_gt", "value": 0} instead, or give the default in the page\'s '
                             "'signature'")
        elif cond == "length_gt" and (f.base not in ("array", "string") or not isinstance(value, int)):
            self.report(where, f"length_gt needs an array or string field and an integer value (field '{f.name}' is {f.base})")
        elif cond in ("in", "oneof") and not isinstance(value, list) and not (isinstance(value, str) and value.startswith("$.")):
            self.report(where, f"cond {cond!r} needs a list of values or a '$.' path to an array, not {value!r}",
                        hint="a string value would be a substring test in bfs.py")
        else:
            return True
        return False

    def _gather_effect(self, e: JSON, act: Act, where: str) -> None:
        if not isinstance(e, dict):
            self.report(where, "an effect is an object {op, path, ...}", "E005")
            return
        f = self.field_of(e.get("path"), act, where, write=True)
        if f is None or not self._known_effect(f, e, where):
            return
        if e["op"] == "inc":
            self._gather_inc(f, e, act, where)
        elif "value_ref" in e:
            for v in self.param_values(e["value_ref"], act, where) or []:
                self.add_value(f, v, where)
        elif "value" in e:
            self.add_value(f, e["value"], where)
        elif "value_test" in e and f.base != "boolean":
            self.report(where, f"value_expr {e['value_test']!r} gives true or false, but field '{f.name}' is {f.base}")
        elif "value_test" in e:
            self.add_value(f, True, where)
            self.add_value(f, False, where)

    def _known_effect(self, f: Field, e: dict[str, JSON], where: str) -> bool:
        op, ref = e.get("op"), e.get("value_ref")
        if op not in ("set", "inc", "clear", "append_unique"):
            self.report(where, f"unknown effect op {op!r}", hint="use set, inc, clear or append_unique")
        elif op == "append_unique" and f.base != "array":
            self.report(where, f"append_unique on field '{f.name}', which is not an array")
        elif ref is not None and not (isinstance(ref, str) and ref.startswith("{") and ref.endswith("}")):
            self.report(where, f"value_ref {ref!r} is not accepted: bfs.py reads a '$.' path, bfs_action.py looks up a "
                               "parameter of that name", hint='use "{param}" or a literal value')
        elif op in ("set", "append_unique") and "value" not in e and ref is None and "value_test" not in e:
            self.report(where, f"{op} needs a value or a value_ref", "E005")
        else:
            return True
        return False

    def _bound(self, f: Field, act: Act, upward: bool) -> int | None:
        """The extreme value `f` can have when `act` is enabled, from its own preconditions on `f`."""
        for c in self._list(act.raw, "preconditions", act.where):
            path = c.get("path") if isinstance(c, dict) else None
            if not isinstance(path, str) or fsmc_name(path[2:]) != f.name:
                continue
            value = self._operand_values(c.get("value"), act, act.where)
            if len(value) != 1 or not isinstance(value[0], int) or isinstance(value[0], bool):
                continue
            n, cond = value[0], c.get("cond")
            if cond == "eq" or cond == ("lte" if upward else "gte"):
                return n
            if cond == ("lt" if upward else "gt"):
                return n - 1 if upward else n + 1
        return None

    def _gather_inc(self, f: Field, e: dict[str, JSON], act: Act, where: str) -> None:
        if "by" not in e and "value" in e:
            self.report(where, "inc with 'value' but no 'by' (bfs.py adds 1, bfs_action.py adds the value)",
                        hint="write the step as 'by'")
            return
        by = e.get("by", 1)
        if not isinstance(by, int) or isinstance(by, bool):
            self.report(where, f"inc 'by' must be an integer, not {by!r}")
            return
        if f.base not in ("integer", "number") or f.nullable:
            self.report(where, f"inc on field '{f.name}', which is not a non-nullable integer")
            return
        bound = self._bound(f, act, by > 0)
        if bound is None:
            cond = "lt/lte" if by > 0 else "gt/gte"
            self.report(where, f"cannot bound integer field '{f.name}': this action changes it by {by} with no "
                               f"precondition ({cond} or eq) on it", hint=f"add a precondition such as "
                               f"{{\"path\": \"$.{f.name}\", \"cond\": \"{cond[:2]}\", \"value\": N}}")
            return
        f.bounds.append(bound + by)

    # ---------------------------------------------------------------- domains

    def infer_types(self) -> None:
        for f in self.fields.values():
            t = self._type(f)
            if t is not None:
                self.types[f.name] = t

    def _scalar_type(self, f: Field, kind: str, values: list[JSON]) -> ir.Type | None:
        if kind == "boolean":
            wrong = [v for v in values if not isinstance(v, bool)]
            return None if self._misfit(f, wrong, "boolean") else ir.BoolType()
        if kind in ("integer", "number"):
            ints = [int(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v == int(v)]
            wrong = [v for v in values if not isinstance(v, (int, float)) or isinstance(v, bool) or v != int(v)]
            if self._misfit(f, wrong, "integer"):
                return None
            if not ints + f.bounds:
                return ir.IntType(lo=0, hi=0)  # never given a number: the placeholder domain
            return ir.IntType(lo=min(ints + f.bounds), hi=max(ints + f.bounds))
        wrong = [v for v in values if not isinstance(v, str)]
        strings = [v for v in values if isinstance(v, str)]
        return None if self._misfit(f, wrong, "string") else ir.ChoiceType(values=tuple(strings or [""]))

    def _misfit(self, f: Field, wrong: list[JSON], kind: str) -> bool:
        if wrong:
            self.report(f.where, f"field '{f.name}' is {kind} but takes {wrong[0]!r}"
                        + (" (fsmc has no fractional variables)" if isinstance(wrong[0], float) else ""))
        return bool(wrong)

    def _type(self, f: Field) -> ir.Type | None:
        values = [v for v in f.values if v is not None]
        if f.base == "array":
            kind = {"integer": "integer", "number": "integer", "boolean": "boolean"}.get(f.elem or "", "string")
            if f.elem is None and values and all(isinstance(v, int) for v in values):
                kind = "integer"
            elem = self._scalar_type(f, kind, values)
            return None if elem is None else ir.SetType(elem=elem)
        t = self._scalar_type(f, f.base, values)
        if t is not None and (f.nullable or None in f.values):
            return ir.OptionalType(inner=t)
        return t

    # ---------------------------------------------------------------- building the IR

    @staticmethod
    def lit(value: JSON) -> ir.Expr:
        if isinstance(value, list):
            return ir.SetLit(items=tuple(ir.Lit(value=v) for v in value))
        if isinstance(value, float) and value == int(value):
            value = int(value)
        return ir.Lit(value=value)

    def operand(self, value: JSON, f: Field, act: Act, where: str) -> ir.Expr | None:
        """A condition's or effect's value: a literal, a parameter (or its constant), or another field."""
        if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
            name = fsmc_name(value[1:-1].strip())
            if name in act.ranges:
                return ir.Name(id=name)
            return self.lit(act.consts.get(name)) if name in act.consts else None
        if isinstance(value, str) and value.startswith("$."):
            other = self.field_of(value, act, where)
            return None if other is None else ir.Name(id=other.name)
        return self.lit(value)

    def var(self, page: str, name: str) -> ir.Var:
        return ir.Var(name=name, type=self.types[name], default=self.lit(self.defaults[(page, name)]))

