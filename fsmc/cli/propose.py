"""`fsmc propose`: a model writes a spec from a description or a profile, fsmc checks it and the model fixes what
fsmc reports, until the spec is clean or the rounds run out; only a clean spec is written."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fsmc.cli.common import EXIT_OK, Failure, Unreadable, Usage, positive
from fsmc.cli.models import add_model_arguments, model_client, print_totals

if TYPE_CHECKING:  # the model layer is loaded only when the command runs
    from fsmc.propose import Budget, Outcome, Round

NAME = "propose"
HELP = ("Have a model write a spec from a description or a profile; fsmc validates each proposal and the model "
        "fixes what fsmc reports, until the spec is clean (written atomically) or --rounds run out (exit 1).")
TARGETS = ("fsm", "fsm-json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("description", nargs="?", default="", help='what the site is, in words: "a small bakery '
                        'shop with a cart and a checkout"')
    parser.add_argument("-o", "--out", "--output", dest="output", required=True, metavar="OUT", help="the spec to write: specs/NAME.fsm "
                        "(the site is named after it); beside it NAME.transcript.jsonl and NAME.ledger.jsonl")
    parser.add_argument("--profile", metavar="PROFILE", help="an AutoWebWorld-style profile instead of (or beside) "
                        'the description: "domain=recipe site,difficulty=easy|medium|hard,pages=N,actions=M", or a '
                        "JSON or TOML file with those keys")
    parser.add_argument("--to", choices=TARGETS, default="fsm", help="write the .fsm text (default) or "
                        "AutoWebWorld's fsm.json")
    parser.add_argument("--rounds", type=positive, default=4, help="the most rounds: one proposal, then "
                        "improvements (default 4)")
    parser.add_argument("--max-states", type=positive, default=50_000, help="the state budget (default 50,000)")
    parser.add_argument("--allow-warnings", action="store_true", help="call a spec with warnings but no error clean")
    parser.add_argument("--max-tokens", type=positive, default=8192, help="the longest reply, in tokens "
                        "(default 8,192; a spec cut off there uses up its round)")
    add_model_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from fsmc.llm import LLMError
    from fsmc.propose import Transcript, propose

    out = Path(args.output)
    task, budget = _task(args)
    file = str(out.with_suffix(".fsm"))  # where the diagnostics are located, for any --to
    client = model_client(args, out.with_suffix(".ledger.jsonl"), "fsmc propose")
    transcript = Transcript(out.with_suffix(".transcript.jsonl"), {
        "provider": client.provider.name, "model": client.model, "task": task, "max_states": budget.states,
        "pages": budget.pages, "actions": budget.actions, "rounds": args.rounds})

    def report(r: Round) -> None:
        transcript.add(r)
        _print_round(r)

    try:
        outcome = propose(client, task, name=_site_name(out), file=file, rounds=args.rounds, budget=budget,
                          allow_warnings=args.allow_warnings, max_tokens=args.max_tokens, on_round=report)
    except LLMError as err:
        transcript.stop(err.message)
        print_totals(client, transcript.path)
        raise Failure(f"fsmc propose: error: {err.message}; {out} not written", err) from None
    print_totals(client, transcript.path)
    return _write(outcome, out, args.to, len(outcome.rounds))


def _site_name(out: Path) -> str:
    """The site's name, from the output's: a name the language accepts (letters, digits, _)."""
    name = re.sub(r"\W", "_", out.name.split(".")[0]) or "site"
    return f"site_{name}" if name[0].isdigit() else name


def _task(args: argparse.Namespace) -> tuple[str, Budget]:
    from fsmc.propose import Budget, ProfileError, read_profile

    if not args.profile:
        if not args.description.strip():
            raise Usage("fsmc propose: error: say what to propose: a description, or --profile")
        return args.description, Budget(args.max_states)
    try:
        profile = read_profile(args.profile)
    except ProfileError as err:
        raise Unreadable(f"fsmc propose: error: {err}") from None
    task = f"{profile.describe()} {args.description}".strip()
    return task, Budget(args.max_states, profile.pages, profile.actions)


def _print_round(r: Round) -> None:
    said = r.verdict.summary() if r.verdict is not None else f"no spec: {r.error}"
    print(f"round {r.number} ({r.kind}): {said}", file=sys.stderr)



def _write(outcome: Outcome, out: Path, to: str, rounds: int) -> int:
    from fsmc.atomic import write_atomic
    from fsmc.cli.common import print_diagnostics
    from fsmc.formats import WRITER_ERRORS, WRITERS

    last = outcome.rounds[-1] if outcome.rounds else None
    if last is None or last.verdict is None or not outcome.clean:
        if last is not None and last.verdict is not None:
            print(last.verdict.report, file=sys.stderr)
        why = last.verdict.summary() if last is not None and last.verdict is not None else \
            f"the last reply held no spec ({last.error})" if last is not None else "no round ran"
        ok = last is not None and last.verdict is not None and last.verdict.check_ok
        also = "; `fsmc check` calls the last spec ok, but propose needs what is said above" if ok else ""
        raise Failure(f"{out}: not written: no clean spec after {rounds} round{'s' * (rounds != 1)} ({why}){also}; "
                      "raise --rounds, or read the transcript")
    assert last.spec is not None and last.verdict.spec is not None
    try:
        text = last.spec if to == "fsm" else WRITERS[to](last.verdict.spec)
    except WRITER_ERRORS as err:
        if hasattr(err, "diagnostics"):
            print_diagnostics(err.diagnostics)
        raise Failure(f"{out}: not written: cannot convert the spec to {to}: {err}") from None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text if text.endswith("\n") else text + "\n")
    except OSError as err:
        raise Failure(f"{out}: error: cannot write: {err.strerror or err}") from None
    print(f"{out}: clean after {rounds} round{'s' * (rounds != 1)} ({last.verdict.summary()})", file=sys.stderr)
    return EXIT_OK

