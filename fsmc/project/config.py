"""The project file: fsmc.toml (or `[tool.fsmc]` in pyproject.toml), found upwards from a folder as git finds .git.

    specs = ["specs/*.fsm"]              # globs relative to the file; each match is a site named after it
    [[site]]                              # or one table per site, with options of its own
    spec = "specs/shop.fsm"
    name = "shop"                         # default: the file's name without its suffix
    enumerate = { max_depth = 20 }
    [paths]                               # where each stage writes ({site}, and {format} for export)
    enumerate = "out/{site}"
    [enumerate]                           # options of every site: enumerate, build, replay, export
    max_depth = 25

Every problem is reported at once, each with the file, line and column it comes from (tomllib gives no
positions for keys, so the text is scanned for them), and nothing is half-loaded: `load_project` either
returns a whole Project or raises ProjectError.
"""

from __future__ import annotations

import glob
import re
import string
import tomllib
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from fsmc.errors import FsmcError

PROJECT_FILE = "fsmc.toml"
PYPROJECT = "pyproject.toml"
STAMPS = ".fsmc"  # beside the project file: what `fsmc run` recorded of each stage's last success

Key = tuple[str | int, ...]


# ---------------------------------------------------------------- the schema


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class EnumerateOptions(_Table):
    """`[enumerate]`: the options of `fsmc enumerate` (fsmc.enumerate.Options); a key left out takes its default."""

    max_depth: int | None = Field(None, ge=0)
    max_states: int | None = Field(None, ge=0)
    per_page_cap: int | None = Field(None, ge=0)
    per_goal: int | None = Field(None, ge=0)
    slack: int | None = Field(None, ge=0)
    negatives: bool | None = None
    seed: int | None = None
    derived: bool | None = None
    engine: str | None = None

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str | None) -> str | None:
        from fsmc.engines import ENGINES

        return _one_of(value, ENGINES)


class BuildOptions(_Table):
    """`[build]`: the site's theme (default: seeded from the spec)."""

    theme: str | None = None

    @field_validator("theme")
    @classmethod
    def _known_theme(cls, value: str | None) -> str | None:
        from fsmc.codegen.themes import THEMES

        return _one_of(value, sorted(THEMES))


class ReplayOptions(_Table):
    """`[replay]`: how many trajectories (`limit`: the first N), browser pages at once, screenshot encoding, and
    the trajectories to a shard when `fsmc run --ray` splits a site's replay into Ray tasks."""

    limit: int | None = Field(None, ge=1)
    workers: int | None = Field(None, ge=1)
    shard_size: int | None = Field(None, ge=1)  # trajectories to a shard when `fsmc run --ray` splits a replay
    image_format: Literal["jpeg", "png"] | None = None


class ExportOptions(_Table):
    """`[export]`: the dataset format (default sft) and its options."""

    format: str | None = None
    grounding_ratio: float | None = Field(None, ge=0, le=1)
    test_fraction: float | None = Field(None, ge=0, le=1)
    seed: int | None = None

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str | None) -> str | None:
        from fsmc.export.writer import FORMATS

        return _one_of(value, FORMATS)


def _one_of(value: str | None, choices: tuple[str, ...] | list[str]) -> str | None:
    if value is not None and value not in choices:
        raise ValueError(f"'{value}' is none of {', '.join(choices)}")
    return value


class Paths(_Table):
    """`[paths]`: where each stage writes, relative to the project file; {site} is the site's name.

    `build` is the folder sites are built in: each goes to BUILD/<the name its spec's `site` declares>.
    """

    enumerate: str = "out/{site}"
    build: str = "generated_sites"
    replay: str = "data/{site}"
    export: str = "datasets/{site}-{format}"
    index: str = "out/index.html"


class SiteEntry(_Table):
    """`[[site]]`: one spec, its name and options of its own over the project's."""

    spec: str
    name: str | None = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    enumerate: EnumerateOptions = EnumerateOptions()
    build: BuildOptions = BuildOptions()
    replay: ReplayOptions = ReplayOptions()
    export: ExportOptions = ExportOptions()


class ProjectFile(_Table):
    """The whole file (or `[tool.fsmc]`)."""

    specs: list[str] = []
    site: list[SiteEntry] = []
    paths: Paths = Paths()
    enumerate: EnumerateOptions = EnumerateOptions()
    build: BuildOptions = BuildOptions()
    replay: ReplayOptions = ReplayOptions()
    export: ExportOptions = ExportOptions()


# ---------------------------------------------------------------- what a loaded project is


@dataclass(frozen=True)
class Site:
    """One spec of a project with its folders (absolute) and the options of each stage (only those given)."""

    name: str
    spec: Path
    out: Path  # `fsmc enumerate`'s output folder
    build: Path  # the folder the site is built in, as `fsmc build --out`
    data: Path  # `fsmc replay`'s
    datasets: str  # `fsmc export`'s, with {format} in it
    root: Path  # the project's folder: stages run there, so the spec is named as a user there names it
    enumerate: dict[str, Any] = field(default_factory=dict)  # keyword arguments of fsmc.enumerate.Options
    theme: str | None = None
    replay: dict[str, Any] = field(default_factory=dict)  # limit, workers, image_format
    export: dict[str, Any] = field(default_factory=dict)  # format, grounding_ratio, test_fraction, seed

    def dataset_for(self, fmt: str) -> Path:
        """`fsmc export`'s folder for a dataset format."""
        return Path(self.datasets.replace("{format}", fmt))

    @property
    def dataset(self) -> Path:
        """`fsmc export`'s folder for the project's format (sft unless [export] says otherwise)."""
        return self.dataset_for(self.export.get("format", "sft"))


@dataclass(frozen=True)
class Project:
    file: Path
    sites: tuple[Site, ...]
    index: Path

    @property
    def root(self) -> Path:
        return self.file.parent

    @property
    def stamps(self) -> Path:
        return self.root / STAMPS

    def select(self, names: list[str]) -> tuple[Site, ...]:
        """The sites named (all when none is); ProjectError names the unknown ones and the known."""
        if not names:
            return self.sites
        known = {s.name: s for s in self.sites}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ProjectError([Problem(self.file, 0, 0, f"no site named {', '.join(map(repr, unknown))} in the project; "
                                        f"its sites: {', '.join(known)}")])
        return tuple(known[n] for n in dict.fromkeys(names))


@dataclass(frozen=True)
class Problem:
    """One located problem of a project file (line 0: the file as a whole)."""

    file: Path
    line: int
    col: int
    message: str
    hint: str | None = None

    def render(self, text: str | None) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else str(self.file)
        out = [f"{where}: error: {self.message}"]
        lines = text.splitlines() if text is not None else []
        if 1 <= self.line <= len(lines):
            gutter = " " * len(str(self.line))
            out += [f"{gutter} |", f"{self.line} | {lines[self.line - 1]}", f"{gutter} | {' ' * (self.col - 1)}^"]
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class ProjectError(FsmcError):
    """A project file that cannot be used; str() renders every problem, located, as `fsmc check` does."""

    def __init__(self, problems: list[Problem], text: str | None = None):
        self.problems = sorted(problems, key=lambda p: (p.line, p.col))
        super().__init__("\n".join(p.render(text) for p in self.problems))


# ---------------------------------------------------------------- finding and loading


def find_project_file(start: str | Path = ".") -> Path | None:
    """The nearest fsmc.toml from `start` upwards, or pyproject.toml with a [tool.fsmc] table (fsmc.toml wins)."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        if (folder / PROJECT_FILE).is_file():
            return folder / PROJECT_FILE
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and re.search(r"^\s*\[tool\.fsmc[.\]]", _read(pyproject) or "", re.M):
            return pyproject
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def load_project(file: str | Path) -> Project:
    """The project a project file describes; ProjectError with every problem, located, otherwise."""
    file = Path(file).resolve()
    text = _read(file)
    if text is None:
        raise ProjectError([Problem(file, 0, 0, "cannot be read as UTF-8 text")])
    prefix: Key = ("tool", "fsmc") if file.name == PYPROJECT else ()
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProjectError([_syntax_problem(file, err)], text) from None
    for part in prefix:
        raw = raw.get(str(part), {})
    where = KeyLines(text, prefix)
    try:
        parsed = ProjectFile.model_validate(raw)
    except ValidationError as err:
        raise ProjectError([_schema_problem(file, where, e) for e in err.errors()], text) from None
    problems: list[Problem] = []
    sites = _sites(file.parent, parsed, where, problems)
    problems += _path_problems(file, parsed.paths, where, len(sites))
    if problems:
        raise ProjectError(problems, text)
    return Project(file, tuple(_resolve(file.parent, parsed, entry, spec, name) for spec, name, entry in sites),
                   _absolute(file.parent, parsed.paths.index))


def _syntax_problem(file: Path, err: tomllib.TOMLDecodeError) -> Problem:
    found = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
    message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(err))
    if found:
        line, col = int(found[1]), int(found[2])
    else:  # "at end of document": where the text ends
        lines = (_read(file) or "").splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    return Problem(file, line, col, f"not valid TOML: {message}")


# ---------------------------------------------------------------- sites


SiteSource = tuple[Path, str, SiteEntry | None]  # the spec, the site's name, its [[site]] table (None: from a glob)


def _sites(root: Path, parsed: ProjectFile, where: KeyLines, problems: list[Problem]) -> list[SiteSource]:
    """Each site once: the [[site]] tables, then the glob matches they do not name; duplicate names are problems."""
    found: list[tuple[SiteSource, Key]] = []
    for i, entry in enumerate(parsed.site):
        spec = _absolute(root, entry.spec)
        if not spec.is_file():
            problems.append(where.problem(root, ("site", i, "spec"), f"no such spec file: {entry.spec}"))
        found.append(((spec, entry.name or default_name(spec), entry), ("site", i, "spec")))
    named = {s[0][0] for s in found}
    for i, pattern in enumerate(parsed.specs):
        key: Key = ("specs", i)
        matches = sorted(Path(p).resolve() for p in glob.glob(str(_absolute(root, pattern)), recursive=True)
                         if Path(p).is_file())
        if not matches:
            what = "matches no file" if glob.has_magic(pattern) else "no such spec file"
            problems.append(where.problem(root, key, f"{pattern}: {what}", value=pattern))
        found += [((m, default_name(m), None), key) for m in matches if m not in named]
        named |= set(matches)
    first: dict[str, Key] = {}
    for (_, name, _), key in found:
        if name in first:
            line = where.locate(first[name])[0]
            problems.append(where.problem(root, key, f"duplicate site name '{name}' (first at line {line})",
                                          hint="give one of them a `name` of its own in a [[site]] table",
                                          value=_value(parsed, key)))
        first.setdefault(name, key)
    return [s for s, _ in found]


def _value(parsed: ProjectFile, key: Key) -> str | None:
    return parsed.specs[key[1]] if key[0] == "specs" and isinstance(key[1], int) else None


def default_name(spec: Path) -> str:
    """A site's name from its spec file: shop.fsm, shop.json and shop.fsm.json give shop; a bare fsm.json its folder's."""
    name = spec.name
    for suffix in (".json", ".fsm"):
        name = name.removesuffix(suffix)
    if name == "fsm":
        name = spec.parent.name
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "site"


def _merged(*tables: BaseModel) -> dict[str, Any]:
    """The keys given in any of `tables`, the later ones winning."""
    out: dict[str, Any] = {}
    for t in tables:
        out.update(t.model_dump(exclude_none=True))
    return out


def _resolve(root: Path, parsed: ProjectFile, entry: SiteEntry | None, spec: Path, name: str) -> Site:
    own = entry or SiteEntry(spec=str(spec))
    paths = parsed.paths
    fill = {"site": name, "format": "{format}"}  # the dataset's folder is filled in for each format
    return Site(name=name, spec=spec, root=root, out=_absolute(root, paths.enumerate.format(**fill)),
                build=_absolute(root, paths.build.format(**fill)), data=_absolute(root, paths.replay.format(**fill)),
                datasets=str(_absolute(root, paths.export.format(**fill))),
                enumerate=_merged(parsed.enumerate, own.enumerate), theme=_merged(parsed.build, own.build).get("theme"),
                replay=_merged(parsed.replay, own.replay), export=_merged(parsed.export, own.export))


def _absolute(root: Path, path: str) -> Path:
    return (root / path).resolve() if not Path(path).is_absolute() else Path(path)


PLACEHOLDERS = {"enumerate": {"site"}, "build": {"site"}, "replay": {"site"}, "export": {"site", "format"},
                "index": set()}


def _path_problems(file: Path, paths: Paths, where: KeyLines, sites: int) -> list[Problem]:
    """Unknown placeholders, and a stage folder without {site} that several sites would share."""
    problems = []
    for stage, allowed in PLACEHOLDERS.items():
        value = getattr(paths, stage)
        try:
            used = {f for _, f, _, _ in string.Formatter().parse(value) if f is not None}
        except ValueError as err:
            problems.append(where.problem(file.parent, ("paths", stage), f"paths.{stage}: {err}"))
            continue
        if used - allowed:
            problems.append(where.problem(file.parent, ("paths", stage),
                                          f"paths.{stage}: unknown placeholder {{{sorted(used - allowed)[0]}}}; "
                                          f"it may use {', '.join('{' + a + '}' for a in sorted(allowed)) or 'none'}"))
        elif sites > 1 and stage in ("enumerate", "replay", "export") and "site" not in used:
            problems.append(where.problem(file.parent, ("paths", stage),
                                          f"paths.{stage}: the {sites} sites would share one folder; put {{site}} in it"))
    return problems


# ---------------------------------------------------------------- locating keys in the text


class KeyLines:
    """Where each key of a TOML text is declared (line, column), by its path: ("site", 1, "spec") is `spec` in the
    second [[site]] table. A scan of the text, since tomllib keeps no positions; enough for what a project holds."""

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"""^\s*((?:[\w-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[\w-]+|"[^"]*"|'[^']*'))*)\s*=""")
    _INLINE = re.compile(r"""[{,]\s*([\w-]+|"[^"]*"|'[^']*')\s*=""")

    def __init__(self, text: str, prefix: Key = ()):
        self.lines = text.splitlines()
        self.prefix = prefix
        self.found: dict[Key, tuple[int, int]] = {}
        arrays: dict[tuple[str, ...], int] = {}
        table: Key = ()
        for n, line in enumerate(self.lines, 1):
            header = self._HEADER.match(line)
            if header:
                path = _dotted(header[2])
                if header[1] == "[[":
                    arrays[path] = arrays.get(path, 0) + 1
                table = _indexed(path, arrays)
                self.found.setdefault(table, (n, header.start(2) + 1))
                continue
            key = self._KEY.match(line)
            if key:
                path_key = (*table, *_dotted(key[1]))
                self.found.setdefault(path_key, (n, key.start(1) + 1))
                for inner in self._INLINE.finditer(line, key.end()):
                    self.found.setdefault((*path_key, *_dotted(inner[1])), (n, inner.start(1) + 1))

    def locate(self, key: Key, value: str | None = None) -> tuple[int, int]:
        """The line and column of `key` (under the prefix), else of its longest declared prefix; with `value`, the line
        at or after that one that holds the value as a TOML string (an element of an array split over lines)."""
        full = (*self.prefix, *key)
        for n in range(len(full), 0, -1):
            if full[:n] in self.found:
                line, col = self.found[full[:n]]
                break
        else:
            return (1, 1) if self.lines else (0, 0)
        if value is not None:
            for m in range(line, len(self.lines) + 1):
                for quoted in (f'"{value}"', f"'{value}'"):
                    if quoted in self.lines[m - 1]:
                        return m, self.lines[m - 1].index(quoted) + 1
        return line, col

    def problem(self, root: Path, key: Key, message: str, *, hint: str | None = None,
                value: str | None = None) -> Problem:
        line, col = self.locate(key, value)
        file = root / (PYPROJECT if self.prefix else PROJECT_FILE)
        return Problem(file, line, col, message, hint)


def _dotted(text: str) -> tuple[str, ...]:
    """The parts of a dotted TOML key, quotes taken off."""
    parts = re.findall(r"""\s*("[^"]*"|'[^']*'|[^.]+)\s*(?:\.|$)""", text)
    return tuple(p.strip()[1:-1] if p.strip()[:1] in "\"'" else p.strip() for p in parts)


def _indexed(path: tuple[str, ...], arrays: dict[tuple[str, ...], int]) -> Key:
    """A table header's path with the index of the current element after each array of tables it passes through."""
    out: list[str | int] = []
    for n, part in enumerate(path, 1):
        out.append(part)
        if path[:n] in arrays:
            out.append(arrays[path[:n]] - 1)
    return tuple(out)


# ---------------------------------------------------------------- pydantic's errors, in the project's words


def _schema_problem(file: Path, where: KeyLines, error: Any) -> Problem:
    loc: Key = tuple(error["loc"])
    table = _name(loc[:-1])
    if error["type"] == "extra_forbidden":
        known = list(_model_at(loc[:-1]).model_fields)
        close = get_close_matches(str(loc[-1]), known, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"the keys {table} takes: {', '.join(known)}"
        return where.problem(file.parent, loc, f"unknown key '{loc[-1]}' in {table}", hint=hint)
    if error["type"] == "missing":
        return where.problem(file.parent, loc, f"{table} needs '{loc[-1]}'")
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "string_pattern_mismatch":
        message = "a name is letters, digits, '_', '.' and '-', starting with a letter or digit"
    return where.problem(file.parent, loc, f"{_name(loc)}: {message}")


def _name(loc: Key) -> str:
    """How a user reads a key path: `site[2].enumerate.max_depth`; the top level is `the project file`."""
    if not loc:
        return "the project file"
    return "".join(f"[{p + 1}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _model_at(loc: Key) -> type[BaseModel]:
    """The schema model that validates the table at `loc`."""
    model: type[BaseModel] = ProjectFile
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        inner = [a for a in (annotation, *get_args(annotation)) if isinstance(a, type) and issubclass(a, BaseModel)]
        model = inner[0]
    return model
