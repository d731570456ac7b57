"""`fsmc build`: write a spec's Vue 3 + Vite site to OUT/<site>/ and bundle it to dist/."""

from __future__ import annotations

import argparse
import sys
from collections import deque
from pathlib import Path
from typing import Any

from fsmc import ir
from fsmc.checks import CHECKS, CheckContext
from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, load_or_report, print_diagnostics
from fsmc.codegen import THEMES, BuildError, build_site, default_theme
from fsmc.diagnostics import Diagnostic, has_errors
from fsmc.semantics import CompileError, Machine

NAME = "build"
HELP = "Build a spec into a Vue 3 site (generated_sites/<site>/dist) whose JS runtime is compiled from the spec."
SCREENSHOT_STATE_CAP = 50_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json")
    parser.add_argument("--theme", choices=sorted(THEMES), help="look of the site (default: seeded from the spec's reference)")
    parser.add_argument("--out", default="generated_sites", help="folder the project is written to (default: generated_sites)")
    parser.add_argument("--screenshots", action="store_true", help="also save a 1280×720 PNG of every page to <site>/screenshots/")


def first_state_per_page(machine: Machine, cap: int = SCREENSHOT_STATE_CAP) -> dict[str, Any]:
    """A state of each page: breadth-first searches of at most 5,000 states, restarted from each new page found."""
    found: dict[str, Any] = {}
    seeds, explored = deque([machine.initial()]), 0
    while seeds and explored < cap and len(found) < len(machine.pages):
        start = seeds.popleft()
        seen, queue = {start}, deque([start])
        while queue and len(seen) < 5000:
            s = queue.popleft()
            if machine.page_of(s) not in found:
                found[machine.page_of(s)] = s
                seeds.append(s)
            for _, t in machine.successors(s):
                if t not in seen:
                    seen.add(t)
                    queue.append(t)
        explored += len(seen)
    return found


def static_problems(spec: ir.Spec) -> list[Diagnostic]:
    """The static checks only: the semantic ones explore the state space, too slow for every build."""
    ctx = CheckContext(spec)
    return sorted({d for c in CHECKS for d in c(ctx)}, key=Diagnostic.sort_key)


def run(args: argparse.Namespace) -> int:
    spec = load_or_report(args.spec)
    if isinstance(spec, int):
        return spec
    problems = static_problems(spec)
    if has_errors(problems):
        print_diagnostics(problems)
        print(f"{args.spec}: not built: fix the errors above first", file=sys.stderr)
        return EXIT_ERRORS
    try:
        machine = Machine(spec)
        result = build_site(spec, args.out, args.theme)
    except CompileError as err:
        print(f"{args.spec}: error: the spec cannot be executed: {err} (run `fsmc check {args.spec}`)", file=sys.stderr)
        return EXIT_ERRORS
    except BuildError as err:
        print(f"{args.spec}: error: {err}", file=sys.stderr)
        return EXIT_ERRORS
    theme = args.theme or default_theme(spec)
    print(f"built {spec.site.name} → {result.dist} (theme {theme}): "
          f"generate {result.generate_s:.2f} s, bundle {result.bundle_s:.2f} s")
    if args.screenshots:
        return _screenshots(machine, result.dist, result.project.root / "screenshots")
    return EXIT_OK


def _screenshots(machine: Machine, dist: Path, out: Path) -> int:
    from fsmc.browser import BrowserMissing, screenshot_states

    states = first_state_per_page(machine)
    try:
        paths = screenshot_states(dist, out, [machine.to_json(s) for s in states.values()])
    except BrowserMissing as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ERRORS
    missing = [p.name for p in machine.pages if p.name not in states]
    print(f"screenshots: {len(paths)} in {out}" + (f" (not reached: {', '.join(missing)})" if missing else ""))
    return EXIT_OK
