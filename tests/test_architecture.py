"""The package's shape holds: no import cycle between modules, stages import only what lies below them.

Imports are read from the source with `ast` (module level and inside functions alike, since a lazy import
still ties two modules), so these tests see what a reader of the code sees. Between parts (fsmc's top-level
packages and modules) the order is data, LAYERS: an import under `if TYPE_CHECKING:` is for the type checker
alone and does not count there.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

import fsmc

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fsmc"

# fsmc's parts from the bottom floor up: a part imports only parts on floors below its own.
CORE = (
    ("ir", "errors", "atomic"),  # the IR, the root error
    ("lock", "browser"),  # services that know nothing of a spec
    ("diagnostics", "printer", "archive", "llm"),  # a site's archive; the model providers
    ("types",),  # types worked out once: read by the checks, the semantics and the emitters
    ("semantics",),
    ("source", "analysis", "engines", "codegen", "backends", "export", "testing"),
    ("frontend",),
    ("formats", "checks"),
    ("compilation",),
    ("enumerate",),
    ("replay", "properties"),
)
PRODUCTS = (  # built on the core pipeline, which imports none of them
    ("capture", "propose", "agent"),
    ("env", "project"),
    ("eval", "bridges"),
    ("browsergym", "cli"),
    ("__main__",),
)
LAYERS = CORE + PRODUCTS


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A file of fsmc parsed once for every test of the module."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The fsmc modules `path` imports (a `from pkg import name` counts pkg.name when that is a module)."""
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {m for m in found if m in modules}


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    files = {_module(p): p for p in PACKAGE.rglob("*.py")}
    g = nx.DiGraph()
    g.add_nodes_from(files)
    for name, path in files.items():
        for target in _imports(path, set(files)):
            if target != name and not name.startswith(target + "."):  # a package's face is not a cycle
                g.add_edge(name, target)
    return g


def _between_files(g: nx.DiGraph) -> nx.DiGraph:
    """The graph without edges into package faces (__init__), which only hand names on."""
    faces = {n for n in g if (PACKAGE.parent / n.replace(".", "/") / "__init__.py").exists()}
    return g.subgraph(n for n in g if n not in faces).copy()


def test_no_module_imports_itself_back(graph: nx.DiGraph) -> None:
    cycles = [c for c in nx.simple_cycles(_between_files(graph)) if len(c) > 1]
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_check_leans_on_another_check(graph: nx.DiGraph) -> None:
    """Helpers shared by several checks live in the shared (underscore) modules, so any one check can go."""
    def is_check(m: str) -> bool:
        return m.startswith("fsmc.checks.") and not m.rsplit(".", 1)[1].startswith("_") and m != "fsmc.checks.context"

    leaning = [(a, b) for a, b in graph.edges if is_check(a) and is_check(b)]
    assert leaning == []


def _typing_only(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                                         or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _run_time_imports(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """(module, line) of every import, lazy ones too, but not those under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
            if node.module == "fsmc":  # `from fsmc import ir`, or a name the package's face takes from a part
                yield from ((FACE.get(a.name, f"fsmc.{a.name}"), node.lineno) for a in node.names)
        yield from _run_time_imports(ast.Module(body=node.orelse, type_ignores=[]) if _typing_only(node) else node)


FACE = dict(fsmc._WHERE)


def _part(module: str) -> str | None:
    """The top-level part of fsmc a module belongs to (None outside fsmc, or for the package's face itself)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "fsmc" and len(parts) > 1 else None


@pytest.fixture(scope="module")
def part_imports() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) parts → where: `fsmc/x/y.py:LINE` of each import."""
    parts = {p.stem if p.suffix else p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    found: dict[tuple[str, str], list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = _part(_module(path))
        for module, line in _run_time_imports(_tree(path)):
            target = _part(module)
            if source and target in parts and target != source:
                found.setdefault((source, target), []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_every_part_has_its_floor() -> None:
    floors = [p for floor in LAYERS for p in floor]
    parts = sorted(p.stem if p.suffix else p.name for p in PACKAGE.iterdir()
                   if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists())
    assert sorted(floors) == parts, "place each part of fsmc on one floor of LAYERS"


def test_a_part_imports_only_parts_below_it(part_imports: dict[tuple[str, str], list[str]]) -> None:
    floor = {p: n for n, parts in enumerate(LAYERS) for p in parts}
    upward = [f"{a} (floor {floor[a]}) imports {b} (floor {floor[b]}): {', '.join(where)}"
              for (a, b), where in sorted(part_imports.items()) if floor[b] >= floor[a]]
    assert upward == [], "\n".join(upward)


def test_no_cycle_among_parts(part_imports: dict[tuple[str, str], list[str]]) -> None:
    cycles = list(nx.simple_cycles(nx.DiGraph(list(part_imports))))
    assert cycles == [], cycles


CONTROL_FLOW = {"Bail", "_Fallback", "Transient"}  # raised and caught inside one stage, never a command's failure


def test_every_error_derives_from_fsmc_error() -> None:
    """A class that derives straight from a builtin exception also derives from FsmcError (which carries its exit
    code), so the command line maps every failure in one place."""
    import builtins

    strays = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name}" for path in PACKAGE.rglob("*.py")
              for node in ast.walk(_tree(path)) if isinstance(node, ast.ClassDef)
              and node.name not in CONTROL_FLOW and node.name != "FsmcError"
              and any(isinstance(b, ast.Name) and isinstance(getattr(builtins, b.id, None), type)
                      and issubclass(getattr(builtins, b.id), BaseException) for b in node.bases)
              and not any(isinstance(b, ast.Name) and b.id == "FsmcError" for b in node.bases)]
    assert strays == []


def test_no_command_chooses_an_exit_code_where_it_catches() -> None:
    """A command's `except` raises an FsmcError, whose class or cause carries the code; only the command line's edge
    (fsmc/cli/__init__.py, exits.py) turns a failure into a number."""
    edge = {"__init__.py", "exits.py"}
    chosen = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((PACKAGE / "cli").glob("*.py"))
              if path.name not in edge for handler in ast.walk(_tree(path))
              if isinstance(handler, ast.ExceptHandler) for stmt in handler.body for node in ast.walk(stmt)
              if isinstance(node, ast.Return) or (isinstance(node, ast.Name) and node.id.startswith("EXIT_"))]
    assert chosen == []


def test_only_the_frontend_touches_lark() -> None:
    users = sorted(_module(p) for p in PACKAGE.rglob("*.py")
                   if any(isinstance(n, ast.Import | ast.ImportFrom) and "lark" in ((getattr(n, "module", "") or "")
                          + " ".join(a.name for a in n.names))
                          for n in ast.walk(_tree(p))))
    assert users and all(u.startswith("fsmc.frontend.") for u in users), users


@pytest.mark.parametrize("stage", ["fsmc.export", "fsmc.ir", "fsmc.browser", "fsmc.backends"])
def test_importing_a_late_stage_does_not_load_the_parser(stage: str) -> None:
    code = f"import sys, {stage}; print(sorted(m for m in sys.modules if m == 'lark' or m.startswith('fsmc.checks')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert loaded.strip() == "[]"
