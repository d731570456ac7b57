"""`fsmc build --agent MODEL`: after the build, a model restyles the site and writes its content in the project's
custom area, under the compiler's control (fsmc.agent); what `fsmc build` calls when --agent is given."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fsmc.cli.common import EXIT_OK, Failure, Unreadable, positive
from fsmc.cli.models import add_model_arguments, model_client, print_totals

if TYPE_CHECKING:  # the model layer and the agent are loaded only when --agent is given
    from fsmc.agent import Turn
    from fsmc.compilation import Compilation
    from fsmc.llm import Client

COMMAND = "fsmc build --agent"


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """--agent and its budget, and the model flags every command that asks a model has."""
    g = parser.add_argument_group("agent", "a model restyles the built site in its custom/ folder; every edit is "
                                  "built and replayed on a sample of transitions, and reverted if it breaks anything")
    g.add_argument("--agent", metavar="MODEL", help="after building, let MODEL (gpt-4.1, gemini-2.5-pro, a model your "
                   "--base-url serves) restyle the site and write its content in <site>/custom/; transcript and "
                   "ledger in the site's folder")
    g.add_argument("--agent-task", metavar="TEXT", help="what the agent should do (default: a distinctive look, "
                   "headlines and copy, an SVG illustration)")
    g.add_argument("--max-turns", type=positive, default=30, help="the most turns, one tool each (default 30)")
    g.add_argument("--max-tokens", type=positive, default=400_000, help="the most tokens in and out over the run, "
                   "as the ledger counts them (default 400,000)")
    g.add_argument("--reply-tokens", type=positive, default=8192, help="the longest reply (default 8,192)")
    g.add_argument("--sample", type=positive, default=32, help="transitions replayed after every edit "
                   "(default 32: the first of each action, then of each move)")
    add_model_arguments(parser)


def agent_client(args: argparse.Namespace, site_dir: Path) -> Client:
    """The agent's client (its ledger in the site's folder, or --ledger); exit 2 when the settings cannot work.
    Call it before building, so that a missing key stops the command before any work."""
    from fsmc.agent import LEDGER

    if args.model and args.model != args.agent:
        raise Unreadable(f"{COMMAND}: error: --agent {args.agent} and --model {args.model} name two models: give one")
    return model_client(argparse.Namespace(**{**vars(args), "model": args.agent}), Path(site_dir) / LEDGER, COMMAND)


def run_agent(args: argparse.Namespace, compilation: Compilation, site_dir: Path,
              client: Client | None = None) -> int:
    """Run the agent on the built project at `site_dir`: 0 when it said done, 1 when its budget ran out or a model
    call failed, 2 for settings that cannot work; dist/ is a passing build whatever happens."""
    from fsmc.agent import DEFAULT_BRIEF, TRANSCRIPT, AgentError, Options, build_with_agent
    from fsmc.browser import BrowserMissing
    from fsmc.diagnostics import SpecError
    from fsmc.llm import LLMError

    root = Path(site_dir)
    client = client or agent_client(args, root)
    try:
        machine = compilation.machine
    except SpecError as err:
        raise Failure(f"{compilation.path}: error: the spec cannot be executed ({len(err.diagnostics)} errors: run "
                      f"`fsmc check {compilation.path}`)") from None
    options = Options(brief=args.agent_task or DEFAULT_BRIEF, max_turns=args.max_turns, max_tokens=args.max_tokens,
                      reply_tokens=args.reply_tokens, sample=args.sample)
    dist = root / "dist"
    try:
        outcome = build_with_agent(client, machine, root, options, on_turn=_print_turn)
    except LLMError as err:
        print_totals(client, root / TRANSCRIPT)
        raise Failure(f"{COMMAND}: error: {err.message}; {dist} is the last good build", err) from None
    except (AgentError, BrowserMissing) as err:
        print_totals(client, root / TRANSCRIPT)
        raise Failure(f"{COMMAND}: error: {err}; {dist} is as `fsmc build` left it", err) from None
    print_totals(client, root / TRANSCRIPT)
    kept = f"{outcome.edits} edit{'s' * (outcome.edits != 1)} kept"
    if not outcome.done:
        raise Failure(f"{COMMAND}: stopped: {outcome.stopped}; {dist} is the last good build ({kept}); raise "
                      "--max-turns or --max-tokens, or read the transcript")
    print(f"agent done after {len(outcome.turns)} turns, {kept}: {outcome.summary or '(no summary)'} → {dist}")
    return EXIT_OK


def _print_turn(t: Turn) -> None:
    what = f"{t.action['tool']} {t.action['path'] or t.action['page']}".strip() if t.action else "no action"
    said = t.result.splitlines()[0] if t.result else ""
    print(f"turn {t.number} ({what}): {said[:200]}", file=sys.stderr)


__all__ = ["add_agent_arguments", "agent_client", "run_agent"]
