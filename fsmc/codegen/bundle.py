"""Runs Vite on a generated project and maps bundler errors back to the template and spec behind them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

from fsmc.codegen.npm import BuildError, ensure_node_modules, vite_bin
from fsmc.codegen.site import MANIFEST

_PATH = re.compile(r"((?:src|public)/[\w./-]+|index\.html|vite\.config\.mjs)(?::(\d+)(?::(\d+))?)?")


_NOISE = re.compile(r"^\s+at |^\s*\}?\s*$|^\s*errors: \[")
MAX_LINES = 30


def explain(output: str, root: Path) -> str:
    """The bundler's message (without its stack trace) followed by where each generated file it names came from:
    the template line itself for files copied verbatim, else the template and the spec construct rendered."""
    try:
        sources = json.loads((root / MANIFEST).read_text(encoding="utf-8")).get("sources", {})
    except (OSError, ValueError):
        sources = {}
    message = [line for line in output.strip().splitlines() if not _NOISE.match(line)]
    lines = message[:MAX_LINES] + (["  …"] if len(message) > MAX_LINES else [])
    seen: set[str] = set()
    for m in _PATH.finditer(output):
        rel = m.group(1)
        if rel in seen or rel not in sources:
            continue
        seen.add(rel)
        src = sources[rel]
        where = "".join(f":{g}" for g in m.group(2, 3) if g)
        if src.get("verbatim"):
            lines.append(f"  {rel}{where} is {src['template']}{where}, copied as it is")
        else:
            lines.append(f"  {rel}{where} was generated from {src['template']} for {src['spec']}")
    return "\n".join(lines)


def bundle(root: Path, timeout: float = 300) -> float:
    """`vite build` in the project (dist/ beside it); returns seconds taken, raises BuildError with a mapped message."""
    ensure_node_modules()
    node = shutil.which("node")
    if node is None:
        raise BuildError("node was not found on PATH; install Node.js 20+ to bundle sites")
    start = time.perf_counter()
    try:
        proc = subprocess.run([node, str(vite_bin()), "build", "--logLevel", "warn"], cwd=root, capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"vite build in {root} took longer than {timeout:.0f}s") from None
    except OSError as err:
        raise BuildError(f"could not run vite: {err}") from None
    if proc.returncode != 0 or not (root / "dist" / "index.html").is_file():
        raise BuildError("vite build failed:\n" + explain(_strip_ansi(proc.stderr + "\n" + proc.stdout), root))
    return time.perf_counter() - start


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


__all__ = ["bundle", "explain"]
