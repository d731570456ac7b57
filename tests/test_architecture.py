"""The package's shape holds: no import cycle between modules, stages import only what lies below them.

Imports are read from the source with `ast` (module level and inside functions alike, since a lazy import
still ties two modules), so these tests see what a reader of the code sees.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fsmc"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The fsmc modules `path` imports (a `from pkg import name` counts pkg.name when that is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


def test_only_the_frontend_touches_lark() -> None:
    users = sorted(_module(p) for p in PACKAGE.rglob("*.py")
                   if any(isinstance(n, ast.Import | ast.ImportFrom) and "lark" in ((getattr(n, "module", "") or "")
                          + " ".join(a.name for a in n.names))
                          for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert users and all(u.startswith("fsmc.frontend.") for u in users), users


@pytest.mark.parametrize("stage", ["fsmc.export", "fsmc.ir", "fsmc.browser", "fsmc.backends"])
def test_importing_a_late_stage_does_not_load_the_parser(stage: str) -> None:
    code = f"import sys, {stage}; print(sorted(m for m in sys.modules if m == 'lark' or m.startswith('fsmc.checks')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert loaded.strip() == "[]"
