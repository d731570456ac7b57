"""Code generation: a Vue 3 + Vite site per spec, with a JS runtime compiled from the IR.

    from fsmc.codegen import build_site
    result = build_site(spec, "generated_sites", theme="harbor")   # writes and bundles
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from fsmc import ir
from fsmc.codegen.bundle import bundle
from fsmc.codegen.js import compile_runtime
from fsmc.codegen.npm import BuildError, ensure_node_modules
from fsmc.codegen.site import SiteProject, generate
from fsmc.codegen.themes import THEMES, default_theme


@dataclass
class BuildResult:
    project: SiteProject
    generate_s: float
    bundle_s: float

    @property
    def dist(self) -> Path:
        return self.project.root / "dist"


def build_site(spec: ir.Spec, out: Path | str = "generated_sites", theme: str | None = None) -> BuildResult:
    """Generate the project for a spec and bundle it to dist/; raises BuildError (or KeyError for a bad theme)."""
    start = time.perf_counter()
    project = generate(spec, out, theme)
    generated = time.perf_counter() - start
    return BuildResult(project, generated, bundle(project.root))


__all__ = ["THEMES", "BuildError", "BuildResult", "SiteProject", "build_site", "bundle", "compile_runtime",
           "default_theme", "ensure_node_modules", "generate"]
