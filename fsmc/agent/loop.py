"""The agent's loop: ask for an action, do it under the workspace's guard, answer, until done or out of budget.

Before the first tool runs the project is hooked to its custom area, built, and checked on the conformance
sample (a custom area left by an earlier run that fails is set aside as custom.rejected/); the first model
call comes before that, so a wrong server or model fails at once. Each turn is one model
call and one tool; the budget is counted before each call: turns, and tokens in and out of this run's calls
as the ledger records them (cached replies included, so a cached rerun stops where the first run stopped).
Whatever stops the run, the site's dist/ is the last build that passed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsmc.agent import area
from fsmc.agent.protocol import SCHEMA, Turn, messages, read_action, task_text
from fsmc.agent.sample import Browser, choose_sample, describe
from fsmc.agent.workspace import Result, Workspace
from fsmc.errors import FsmcError
from fsmc.llm import Client, Request
from fsmc.semantics import Machine

DEFAULT_BRIEF = ("Give this site a distinctive, polished look that suits what it is, and write its content: a "
                 "welcoming headline and a line or two of copy on its pages, and an SVG illustration or logo.")
TRANSCRIPT = "agent.transcript.jsonl"
LEDGER = "agent.ledger.jsonl"


class AgentError(FsmcError):
    """The run cannot start (the generated site does not build or fails its own sample, or no browser)."""


@dataclass(frozen=True)
class Options:
    brief: str = DEFAULT_BRIEF
    max_turns: int = 30
    max_tokens: int = 400_000  # tokens in and out over the run
    reply_tokens: int = 8192  # the longest reply
    sample: int = 32  # transitions checked after every edit


@dataclass
class Outcome:
    """How the run ended: `done` with the agent's summary, or `stopped` saying why; edits kept; the turns."""

    turns: list[Turn] = field(default_factory=list)
    done: bool = False
    summary: str = ""
    stopped: str | None = None
    edits: int = 0
    transcript: Path | None = None


def build_with_agent(client: Client, machine: Machine, root: Path, options: Options = Options(),
                     on_turn: Callable[[Turn], None] | None = None) -> Outcome:
    """Let the model restyle the generated project at `root` (already generated and built). Raises AgentError
    when the run cannot start and LLMError when a model call fails; either way dist/ is a passing build (or the
    one given) and the transcript (`root/agent.transcript.jsonl`) says what happened."""
    sample = choose_sample(machine, options.sample)
    transcript = Transcript(root / TRANSCRIPT, {
        "site": machine.spec.site.name, "provider": client.provider.name, "model": client.model,
        "brief": options.brief, "max_turns": options.max_turns, "max_tokens": options.max_tokens,
        "sample": [describe(machine, t) for t in sample.transitions]})
    outcome = Outcome(transcript=transcript.path)
    browser = Browser(machine)
    workspace = Workspace(root, machine, sample, browser)
    try:
        task = task_text(machine, root, options.brief, f"{options.max_turns} turns, {options.max_tokens:,} tokens")
        _turns(client, workspace, task, options, outcome, transcript, on_turn)
    except BaseException as err:  # a failed call, a browser that will not start, an interrupt: said, then raised
        transcript.add({"stopped": getattr(err, "message", None) or str(err) or type(err).__name__})
        raise
    finally:
        browser.close()
    outcome.edits = workspace.edits
    transcript.add({"done": outcome.summary} if outcome.done else {"stopped": outcome.stopped})
    return outcome


def _baseline(workspace: Workspace) -> str:
    """Check the starting site; set aside a custom area an earlier run left if the site fails with it."""
    try:
        error = workspace.baseline()
    except area.AreaError as err:
        raise AgentError(str(err)) from None
    if error is None:
        return f"the starting site passes the conformance sample ({len(workspace.sample.transitions)} transitions)"
    if not area.snapshot(workspace.root):
        raise AgentError(f"the generated site fails its own check (an fsmc bug, please report it): {error}")
    rejected = workspace.root / f"{area.CUSTOM}.rejected"
    shutil.rmtree(rejected, ignore_errors=True)
    (workspace.root / area.CUSTOM).rename(rejected)
    again = workspace.baseline()
    if again is not None:
        raise AgentError(f"the generated site fails its own check (an fsmc bug, please report it): {again}")
    return f"the custom area from an earlier run failed and was set aside as {rejected.name}/: {error}"


def _turns(client: Client, workspace: Workspace, task: str, options: Options, outcome: Outcome,
           transcript: Transcript, on_turn: Callable[[Turn], None] | None) -> None:
    for number in range(1, options.max_turns + 1):
        used = _tokens(client)
        if used >= options.max_tokens:
            outcome.stopped = f"the token budget is spent ({used:,} of {options.max_tokens:,} tokens) before done"
            return
        request = Request(messages(task, outcome.turns), SCHEMA, max_tokens=options.reply_tokens, purpose="agent")
        response = client.complete(request)
        try:
            action = read_action(response.text)
        except ValueError as err:
            cut = " (cut off at the reply token limit: write smaller files)" if response.finish == "length" else ""
            turn = Turn(number, response.text, None, f"{err}{cut}", ok=False)
        else:
            if not workspace.ready:  # built and checked before the first tool, not before the first call
                transcript.add({"baseline": _baseline(workspace)})
            result = _act(workspace, action)
            turn = Turn(number, response.text, action, result.text, result.image, result.ok, result.reverted)
        outcome.turns.append(turn)
        transcript.add(_turn_json(turn))
        if on_turn is not None:
            on_turn(turn)
        if turn.action is not None and turn.action["tool"] == "done":
            outcome.done, outcome.summary = True, turn.action["content"]
            return
    outcome.stopped = f"the turn budget is spent ({options.max_turns} turns) before done"


def _act(workspace: Workspace, action: dict[str, str]) -> Result:
    tools: dict[str, Callable[[], Result]] = {
        "list_files": workspace.list_files,
        "read_file": lambda: workspace.read_file(action["path"]),
        "write_file": lambda: workspace.write_file(action["path"], action["content"]),
        "delete_file": lambda: workspace.delete_file(action["path"]),
        "build": workspace.build,
        "screenshot": lambda: workspace.screenshot(action["page"] or action["path"]),
        "conformance": workspace.conformance,
        "done": lambda: Result("done"),
    }
    return tools[action["tool"]]()


def _tokens(client: Client) -> int:
    return sum(e.get("tokens_in", 0) + e.get("tokens_out", 0) for e in client.ledger.entries
               if e.get("purpose") == "agent")


def _turn_json(t: Turn) -> dict[str, Any]:
    return {"turn": t.number, "reply": t.reply, "action": t.action, "result": t.result, "ok": t.ok,
            "reverted": t.reverted, "image_sha256": hashlib.sha256(t.image).hexdigest() if t.image else None}


class Transcript:
    """JSON lines: a header, the baseline, a line per turn, and how the run ended; started afresh each run."""

    def __init__(self, path: Path, header: dict[str, Any]):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"transcript": "fsmc build --agent", **header}, ensure_ascii=False) + "\n",
                        encoding="utf-8")

    def add(self, line: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
