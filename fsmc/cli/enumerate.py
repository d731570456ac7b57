"""`fsmc enumerate`: BFS over a spec's states into tasks, verified trajectories, bfs.json and a manifest."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fsmc.cli.common import (
    EXIT_OK,
    Failure,
    Usage,
    compile_spec,
    each_site,
    given,
    nonnegative,
    require_clean,
    shown,
    writing,
)
from fsmc.cli.models import add_model_arguments, model_client
from fsmc.enumerate import ENGINES, EngineError, Options, OutputError, Summary, enumerate_spec
from fsmc.enumerate.progress import progress_display
from fsmc.semantics import CompileError

if TYPE_CHECKING:
    from fsmc.compilation import Compilation
    from fsmc.llm import Client

NAME = "enumerate"
HELP = ("Explore every reachable state breadth-first and write tasks, shortest and alternative trajectories "
        "(and negatives), bfs.json and a manifest to OUT.")

DESCRIPTION = HELP + """

Goals come from the spec's tasks (one per parameter tuple) and, unless --no-derived, from the state
space: each terminal page; each one-element value of a set or map variable a task goal reads (e.g.
"the cart holds exactly 2 x Ridgeline shell"); each filter/sort combination of a page's views;
each value of any other variable a task goal reads (e.g. "gift wrapping on"), but its starting one
(tasks that only pin a variable to a value, one task a value, name its values themselves).
Each goal gets its shortest trajectory and up to --per-goal others ending in other states, at most
--slack moves longer, drawn with --seed. The same spec, options and seed give byte-identical files,
with either engine. OUT is written into a hidden sibling folder and moved into place at the end, so
an interrupted run leaves the previous OUT as it was; run the same command again and it resumes
from its checkpoint in the hidden folder .OUT.resume beside OUT (the same bytes as an uninterrupted
run; a checkpoint of another spec, other options or a corrupt one is dropped, with a note). Progress goes to stderr: a live display on a
terminal, a plain line every few seconds otherwise.

Writes OUT/trajectories.jsonl (one trajectory a line: moves, the state after each, GUI operations),
OUT/tasks.jsonl (one goal a line), OUT/bfs.json (AutoWebWorld's shape) and OUT/manifest.json (spec
hash, options, counts). Re-check them with `fsmc verify OUT`, summarise them with `fsmc stats OUT`.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("spec", nargs="?", help="a .fsm file, an fsmc IR .json or an AutoWebWorld fsm.json "
                                                 "(default: every spec of the project, each into its folder)")
    parser.add_argument("-o", "--out", metavar="OUT", help="output folder (replaced as a whole); needed with a SPEC")
    parser.add_argument("--max-depth", type=nonnegative, help="longest trajectory explored (default 25)")
    parser.add_argument("--max-states", type=nonnegative, help="states kept at most (default 2,000,000)")
    parser.add_argument("--per-page-cap", type=nonnegative, metavar="N", help="states kept at most per page")
    parser.add_argument("--per-goal", type=nonnegative, metavar="K",
                        help="other trajectories per goal besides the shortest (default 2)")
    parser.add_argument("--slack", type=nonnegative,
                        help="how many moves longer than the shortest the others may be (default 2)")
    parser.add_argument("--negatives", action="store_const", const=True,
                        help="also write negative trajectories (truncated, or ending with a disabled move)")
    parser.add_argument("--seed", type=int, help="seed for every choice (default 0)")
    parser.add_argument("--no-derived", dest="derived", action="store_const", const=False,
                        help="only the spec's tasks and terminal pages as goals")
    parser.add_argument("--engine", choices=ENGINES,
                        help="auto (default: native where a C compiler is found, else python with a note), "
                             "python (the reference semantics) or native (generated C, needs gcc); "
                             "every engine writes the same bytes")
    parser.add_argument("--paraphrase", type=nonnegative, metavar="K",
                        help="also K model-written instructions per task, each kept only if it names every parameter "
                             "value of the task verbatim, in OUT/paraphrases.jsonl (cached; the model flags below)")
    add_model_arguments(parser)


def _run(args: argparse.Namespace, opts: Options, on_phase: Callable[[str, int, int, int], None] | None) -> int:
    c = compile_spec(args.spec)
    client = _paraphraser(args) if getattr(args, "paraphrase", None) else None  # no key: exit 2 before the work
    if on_phase is not None:
        on_phase("check", 0, 0, 0)
    require_clean(c, "enumerated")  # the checks' machine and explored states serve the enumeration too
    started = time.perf_counter()
    try:
        summary = enumerate_spec(c, args.out, opts, on_phase=on_phase, on_note=_note(args))
    except (EngineError, OutputError) as err:
        raise Failure(f"{args.spec}: error: {err}", err) from None
    except CompileError as err:
        raise Failure(f"{args.spec}: error: the spec cannot be executed: {err}", err) from None
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - a state beyond what `fsmc check` explored broke an expression
        raise Failure(f"{args.spec}: error: evaluating the spec failed beyond the states `fsmc check` explored: "
                      f"{type(err).__name__}: {err}") from None
    _report(args, summary, time.perf_counter() - started)
    if client is not None:
        _paraphrase(args, c, client)
    return EXIT_OK


def _paraphraser(args: argparse.Namespace) -> Client:
    out = Path(args.out)
    return model_client(args, out.parent / f"{out.name}.ledger.jsonl", "fsmc enumerate")


def _paraphrase(args: argparse.Namespace, c: Compilation, client: Client) -> None:
    """OUT/paraphrases.jsonl: K instructions per task from a model, each naming every value of its task."""
    from fsmc.enumerate.paraphrases import paraphrase_output, task_values
    from fsmc.llm import LLMError

    out = Path(args.out)
    try:
        n = paraphrase_output(client, out, task_values(c.machine), args.paraphrase)
    except LLMError as err:
        raise Failure(f"{args.out}: error: cannot paraphrase: {err.message}", err) from None
    print(f"{out / 'paraphrases.jsonl'}: {n['kept']:,} paraphrases of {n['tasks']:,} tasks; {n['rejected']:,} "
          f"rejected for not naming every value verbatim, {n['failed']:,} replies unusable")


def _note(args: argparse.Namespace) -> Callable[[str], None]:
    return lambda text: print(f"{args.spec}: note: {text}", file=sys.stderr, flush=True)


def _report(args: argparse.Namespace, s: Summary, seconds: float) -> None:
    d = s.to_json()
    goals, reached = sum(s.goals.values()), sum(s.reached.values())
    capped = "" if s.complete else " (capped: not every reachable state was explored)"
    print(f"{args.out}: {s.states:,} states to depth {s.max_depth}{capped}; {reached:,}/{goals:,} goals reached; "
          f"{d['trajectories']:,} trajectories in {seconds:.1f}s")


OPTIONS = ("max_depth", "max_states", "per_page_cap", "per_goal", "slack", "negatives", "seed", "derived", "engine")


def run(args: argparse.Namespace) -> int:
    if args.spec is None:
        return each_site(args, _enumerate, lambda site: {"spec": shown(site.spec), "out": shown(site.out),
                                                         "project_options": site.enumerate},
                         only_with_spec={"out": "-o/--out"})
    if args.out is None:
        raise Usage("fsmc enumerate: -o OUT is needed with a SPEC")
    return _enumerate(args)


def _enumerate(args: argparse.Namespace) -> int:
    """One spec; the options typed win over the project's (`project_options`, for a site of a project)."""
    opts = Options(**given(args, OPTIONS, getattr(args, "project_options", {})))
    with writing(args.out, NAME), progress_display("fsmc enumerate") as show:
        return _run(args, opts, show)
