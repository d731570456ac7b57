"""What the proposer and the improver are asked: the language reference once, then the task, then (to improve)
the spec and its diagnostics exactly as `fsmc check` prints them."""

from __future__ import annotations

import json
import re
from typing import Any

from fsmc.llm import Message, Request
from fsmc.propose.reference import REFERENCE
from fsmc.propose.validate import Budget

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"spec": {"type": "string", "description": "the whole .fsm text"}},
    "required": ["spec"],
    "additionalProperties": False,
}

SYSTEM = ("You write website specs in fsmc's .fsm language: a website as a finite state machine from which fsmc "
          "checks the model, enumerates every reachable state, builds the site and produces verified tasks. "
          'Reply with one JSON object {"spec": "..."} whose `spec` is the whole .fsm text, nothing else.\n\n'
          + REFERENCE)

FENCE_RE = re.compile(r"```(?:fsm)?\s*\n(.*?)```", re.S)


def goal(task: str, name: str, budget: Budget) -> str:
    """The task in words with the site's name and the budgets."""
    limits = [f"at most {budget.states:,} reachable states"]
    if budget.pages is not None:
        limits.append(f"at most {budget.pages} pages")
    if budget.actions is not None:
        limits.append(f"at most {budget.actions} actions")
    return (f"Write a spec of this website: {task.strip()}\n"
            f"Name the site `{name}`. Keep it within {', '.join(limits)}, with at least one task.")


def first_request(task: str, name: str, budget: Budget, note: str = "", max_tokens: int = 8192) -> Request:
    """The proposer's request; `note` says why a previous reply could not be used."""
    text = goal(task, name, budget) + (f"\n\nYour previous reply could not be used: {note}. {_ASK}" if note else "")
    return _request(text, "propose", max_tokens)


def improve_request(task: str, name: str, budget: Budget, spec: str, report: str, file: str,
                    max_tokens: int = 8192) -> Request:
    """The improver's request: the spec as it stands and what fsmc says about it."""
    text = (f"{goal(task, name, budget)}\n\nThis is the spec so far ({file}):\n```fsm\n{spec.rstrip()}\n```\n\n"
            f"`fsmc check {file}` reports:\n```\n{report}\n```\n\n"
            f"Fix every error and warning above and reply with the corrected whole spec. {_ASK}")
    return _request(text, "improve", max_tokens)


_ASK = 'Reply with one JSON object {"spec": "..."} holding the whole .fsm text.'


def _request(user: str, purpose: str, max_tokens: int) -> Request:
    return Request((Message("system", SYSTEM), Message("user", user)), schema=REPLY_SCHEMA, max_tokens=max_tokens,
                   purpose=purpose)


def read_spec(reply: str) -> str:
    """The spec in a reply: the JSON object's `spec`, else (a server without structured output) a fenced block.
    ValueError saying what is wrong."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as err:
        fenced = FENCE_RE.search(reply)
        if fenced:
            return fenced.group(1)
        raise ValueError(f"the reply is no valid JSON ({err.msg} at character {err.pos})") from None
    if not isinstance(data, dict) or not isinstance(data.get("spec"), str):
        raise ValueError('the reply is JSON but no object with a string "spec"')
    if not data["spec"].strip():
        raise ValueError("the reply's spec is empty")
    return str(data["spec"])
