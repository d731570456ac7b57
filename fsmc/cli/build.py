"""`fsmc build`: write a spec's Vue 3 + Vite site to OUT/<site>/ and bundle it to dist/."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsmc.cli.agent_build import add_agent_arguments, agent_client, run_agent
from fsmc.cli.common import EXIT_OK, Failure, compile_spec, each_site, print_diagnostics, require_clean, shown, writing
from fsmc.codegen import THEMES, BuildError, build_site, default_theme
from fsmc.codegen.inventory import invented
from fsmc.compilation import Compilation
from fsmc.diagnostics import SpecError
from fsmc.semantics import CompileError, Machine

if TYPE_CHECKING:
    from fsmc.llm import Client

NAME = "build"
HELP = "Build a spec into a Vue 3 site (generated_sites/<site>/dist) whose JS runtime is compiled from the spec."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json "
                                                 "(default: every spec of the project, into its build folder)")
    parser.add_argument("--theme", choices=sorted(THEMES), help="look of the site (default: seeded from the spec's reference)")
    parser.add_argument("-o", "--out", help="folder the project is written to (default: generated_sites)")
    parser.add_argument("--screenshots", action="store_true", help="also save a 1280×720 PNG of every page to <site>/screenshots/")
    add_agent_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.spec is None:
        return each_site(args, _build, lambda site: {"spec": shown(site.spec), "out": shown(site.build),
                                                     "theme": args.theme or site.theme},
                         only_with_spec={"out": "-o/--out"})
    return _build(argparse.Namespace(**{**vars(args), "out": args.out or "generated_sites"}))


def _build(args: argparse.Namespace) -> int:
    c = compile_spec(args.spec)
    require_clean(c, "built", static=True)  # the semantic checks explore the states: too slow for every build
    _require_executable(c)
    client = agent_client(args, Path(args.out) / c.ir.site.name) if args.agent else None  # no key: exit 2 first
    with writing(Path(args.out) / c.ir.site.name, NAME):
        return _write(args, c, client)


def _write(args: argparse.Namespace, c: Compilation, client: Client | None) -> int:
    """The site's project and its dist/ (with --agent: the agent's changes; with --screenshots: a picture of each
    page), under OUT/<the site's name>."""
    try:
        result = build_site(c.ir, args.out, args.theme)
    except BuildError as err:
        raise Failure(f"{args.spec}: error: {err}", err) from None
    theme = args.theme or default_theme(c.ir)
    print(f"built {c.ir.site.name} → {result.dist} (theme {theme}): "
          f"generate {result.generate_s:.2f} s, bundle {result.bundle_s:.2f} s")
    print(f"realism: invented {invented(c.ir).summary()}")
    if args.agent:
        run_agent(args, c, result.project.root, client)  # Exit(1 or 2) when it fails; dist/ stays a passing build
    if args.screenshots:
        return _screenshots(c, result.dist, result.project.root / "screenshots")
    return EXIT_OK


def _require_executable(c: Compilation) -> None:
    """Exit 1 when the semantics does not compile although the static checks passed (`fsmc check` says E400)."""
    if c.context.machine is not None:
        return
    try:
        Machine(c.ir)
    except CompileError as err:
        raise Failure(f"{c.path}: error: the spec cannot be executed: {err} (run `fsmc check {c.path}`)", err) from None


def _screenshots(c: Compilation, dist: Path, out: Path) -> int:
    from fsmc.backends import screenshot_states
    from fsmc.browser import BrowserMissing

    try:
        machine = c.machine
    except SpecError as err:
        print_diagnostics(err.diagnostics)
        raise Failure(f"{c.path}: no screenshots: the spec has the errors above", err) from None
    states = c.page_states()
    try:
        paths = screenshot_states(dist, out, [machine.to_json(s) for s in states.values()])
    except BrowserMissing as err:
        raise Failure(f"error: {err}", err) from None
    missing = [p.name for p in machine.pages if p.name not in states]
    print(f"screenshots: {len(paths)} in {out}" + (f" (not reached: {', '.join(missing)})" if missing else ""))
    _realism(c, dist, [machine.to_json(s) for s in states.values()])
    return EXIT_OK


def _realism(c: Compilation, dist: Path, states: list[dict[str, Any]]) -> None:
    """The realism figures of the pages just shot (bench/realism.py measures every view trajectories reach)."""
    from fsmc.backends.realism import measure

    f = measure(dist, c.ir, states).figures()
    print(f"realism: {f['views']} pages, {f['identifier_views']} showing an identifier, {f['thin_views']} thin "
          f"({f['thin_pct']}%), {f['duplicate_views']} with two controls of the same name"
          + (f" (identifiers: {', '.join(f['identifiers_seen'])})" if f["identifiers_seen"] else ""))
