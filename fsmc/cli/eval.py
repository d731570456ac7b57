"""`fsmc eval`: a policy against a site's live environments; success rates per site and goal type, traces, a gallery."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsmc.cli.common import EXIT_OK, Failure, Unreadable, Usage, writing

NAME = "eval"
HELP = "Evaluate an agent (the oracle, random, a Python callable or an OpenAI-compatible model) on a site's tasks."
DESCRIPTION = HELP + """

Each episode resets an environment to a task and asks the policy for one action a step (the export's
action format, pixels of the 1280x720 screenshot) until the task is done (the semantics decide),
the episode ends, or --max-steps steps. Policies:

  oracle                   the actions the exported datasets teach for the task's shortest kept
                           trajectory of a replay (--data, default data/<site>), at the same pixels:
                           it must score 100 %, which proves the datasets
  random                   random pixel actions, seeded (--seed): the same seed, the same output
  callable:MODULE:FUNCTION fn(observation, info) -> action dict or None, sync or async
  openai                   a vision-language model behind any OpenAI-compatible endpoint (vLLM,
                           llama.cpp, a local server): --model, --base-url or $OPENAI_BASE_URL,
                           --api-key or $OPENAI_API_KEY

OUT gets results.json (success rate per site and goal type, mean steps, a row per episode),
episodes.jsonl (each step's action, reward, state change and the model's reply), screens/ and
gallery/index.html. OUT is replaced as a whole at the end; an interrupted run leaves it as it was.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = DESCRIPTION
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("--site", required=True, action="append", help="the site's name (repeat for several sites)")
    p.add_argument("--sites", default="generated_sites", help="where the built sites are (default: generated_sites)")
    p.add_argument("--dist", help="the built site's dist/ (one --site only; default: the backend the spec declares, "
                                  "if it declares one, else SITES/<site>/dist)")
    p.add_argument("--tasks-from", metavar="OUT", help="the `fsmc enumerate` output (one --site only; default out/<site>)")
    p.add_argument("--spec", help="the spec, where the enumerate output's manifest does not find it (one --site only)")
    p.add_argument("--policy", required=True, help="oracle, random, callable:MODULE:FUNCTION or openai")
    p.add_argument("--data", metavar="DATA", help="the oracle's replay folder, whose exported actions it acts out "
                   "(one --site only; default data/<site>)")
    p.add_argument("--model", help="the openai policy's model")
    p.add_argument("--base-url", help="the openai policy's endpoint (default $OPENAI_BASE_URL, else OpenAI's)")
    p.add_argument("--api-key", help="the openai policy's key (default $OPENAI_API_KEY; local servers take any)")
    p.add_argument("--prompt", choices=("json", "fsmc"), default="json",
                   help="json (default): ask for a JSON object, with response_format json_object; fsmc: the exported "
                        "datasets' <think>/<action> format, for models trained on them")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per model request (default 60)")
    p.add_argument("--retries", type=int, default=2, help="retries of a request on a timeout, 429 or 5xx (default 2)")
    p.add_argument("--tasks", nargs="+", metavar="TASK",
                   help="task ids (buy/p01), id prefixes (buy, view/search) or goal types (task, view); default all")
    p.add_argument("--episodes", type=int, help="draw this many episodes from the tasks with --seed (default: each once)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draw and of each episode (default 0)")
    p.add_argument("-n", "--envs", type=int, default=4,
                   help="environments at once per site (default 4; a cloned application runs one)")
    p.add_argument("--max-steps", type=int, default=30, help="steps before an episode is cut off (default 30)")
    p.add_argument("--image-format", choices=("jpeg", "png"), default="jpeg", help="screenshots (default jpeg)")
    p.add_argument("-o", "--out", required=True, help="folder for the results (replaced as a whole)")


def _sites(args: argparse.Namespace) -> list[Any]:
    from fsmc.env.pool import Site

    if len(args.site) > 1 and (args.dist or args.tasks_from or args.spec):
        raise ValueError("--dist, --tasks-from and --spec go with one --site only")
    sites = [Site.find(args.tasks_from or os.path.join("out", name), args.dist, args.sites, spec=args.spec, name=name)
             for name in args.site]
    for s in sites:
        if s.tasks.site != s.name:
            raise ValueError(f"{s.tasks.out} holds the tasks of {s.tasks.site!r}, not of {s.name!r}")
    return sites


def _replays(args: argparse.Namespace, sites: list[Any]) -> dict[str, Path]:
    """The oracle's replay folder of each site (--data, else data/<site>); none for the other policies."""
    if args.policy != "oracle":
        return {}
    if args.data and len(sites) > 1:
        raise ValueError("--data goes with one --site only")
    data = {s.name: Path(args.data or os.path.join("data", s.name)) for s in sites}
    for name, folder in data.items():
        if not (folder / "trajectories.jsonl").is_file():
            raise FileNotFoundError(f"the oracle acts out the actions the datasets of a replay teach, and {folder} holds "
                                    f"no replay: run `fsmc replay OUT --site {name} -o {folder}` or give --data DATA")
    return data


def _check_numbers(args: argparse.Namespace) -> None:
    for flag, value in (("-n", args.envs), ("--max-steps", args.max_steps), ("--episodes", args.episodes),
                        ("--timeout", args.timeout)):
        if value is not None and value < 1:
            raise Usage(f"fsmc eval: {flag} must be at least 1")
    if args.retries < 0:
        raise Usage("fsmc eval: --retries must be 0 or more")
    if args.policy == "openai" and not args.model:
        raise Usage("fsmc eval: --policy openai needs --model")


def _progress(total: int) -> Callable[[dict[str, Any]], None]:
    """A line on stderr every 10 s (and at the end): episodes done and successes so far."""
    done, wins, last = [0], [0], [time.monotonic()]

    def show(record: dict[str, Any]) -> None:
        done[0] += 1
        wins[0] += record["success"]
        if time.monotonic() - last[0] >= 10 or done[0] == total:
            last[0] = time.monotonic()
            print(f"fsmc eval: {done[0]}/{total} episodes, {wins[0]} succeeded", file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    from fsmc.backends import IMAGE_FORMATS, BackendError
    from fsmc.browser import BrowserMissing
    from fsmc.diagnostics import SpecError
    from fsmc.enumerate.verify import VerifyError
    from fsmc.env.tasks import UnknownTask
    from fsmc.eval import PolicyUnavailable, evaluate, make_policy, plan
    from fsmc.eval.policies import Demonstrations
    from fsmc.replay.inputs import InputError

    _check_numbers(args)
    try:
        sites = _sites(args)
        planned = plan(sites, args.tasks, args.episodes, args.seed)
        data = _replays(args, sites)
        make = make_policy(args.policy, data, model=args.model, base_url=args.base_url, api_key=args.api_key,
                           prompt=args.prompt, timeout=args.timeout, max_retries=args.retries)
        if args.policy == "oracle":
            Demonstrations(data).check([(e.site, e.task.id) for e in planned])
    except (FileNotFoundError, VerifyError, SpecError, UnknownTask, ValueError, InputError, BackendError,
            LookupError) as err:
        # ValueError: UnknownPolicy; InputError, BackendError: the backend the spec declares is missing or wrong
        raise Unreadable(f"fsmc eval: {err}") from None
    meta = {"policy": args.policy, "seed": args.seed, "sites": [s.name for s in sites], "tasks": args.tasks,
            "episodes_asked": args.episodes}
    if args.policy == "openai":
        meta |= {"model": args.model, "prompt": args.prompt}
    try:
        with writing(args.out, NAME):
            results = asyncio.run(evaluate(sites, planned, make, args.out, n=args.envs, max_steps=args.max_steps,
                                           image=IMAGE_FORMATS[args.image_format], meta=meta,
                                           on_episode=_progress(len(planned))))
    except (FileExistsError, InputError) as err:
        raise Unreadable(f"fsmc eval: {err}") from None
    except (PolicyUnavailable, BrowserMissing, BackendError) as err:
        raise Failure(f"fsmc eval: {err} (nothing was written)") from None
    _print_table(results)
    print(f"{args.out}: results.json, episodes.jsonl, gallery/index.html")
    return EXIT_OK


def _print_table(results: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"fsmc eval: {results['policy']}", title_justify="left")
    for name, justify in (("", "left"), ("episodes", "right"), ("success", "right"), ("rate", "right"),
                          ("mean steps", "right"), ("failed steps", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]

    def row(label: str, g: dict[str, Any], end: bool = False) -> None:
        table.add_row(label, str(g["episodes"]), str(g["successes"]), f"{100 * g['success_rate']:.1f} %",
                      f"{g['mean_steps']:.1f}", str(g["failed_steps"]), end_section=end)

    for name, g in results["by_site"].items():
        row(f"site {name}", g, end=name == list(results["by_site"])[-1])
    for name, g in results["by_goal_type"].items():
        row(name, g, end=name == list(results["by_goal_type"])[-1])
    row("all", results)
    Console(width=100).print(table)
