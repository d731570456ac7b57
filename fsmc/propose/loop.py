"""The propose loop: the proposer writes a spec, fsmc validates it, the improver gets the diagnostics, until the
spec is clean or the rounds run out.

Each round is one model call and one validation. A reply that holds no spec (malformed or cut-off JSON) uses
up its round: the next asks again, saying why. `Round.seconds_fsmc` is fsmc's own time in the round (prompt,
reading the reply, validation), without the model's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fsmc.llm import Client, Request
from fsmc.propose.prompt import first_request, improve_request, read_spec
from fsmc.propose.validate import Budget, Verdict, validate


@dataclass
class Round:
    number: int
    kind: str  # "propose" or "improve"
    prompt: str  # the user message (the system prompt is the same every round)
    reply: str
    finish: str
    spec: str | None = None
    error: str | None = None  # why the reply held no spec
    verdict: Verdict | None = None
    seconds_model: float = 0.0
    seconds_fsmc: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The round as the transcript keeps it: no times, so that a cached rerun writes the same bytes."""
        v = self.verdict
        return {"round": self.number, "kind": self.kind, "prompt": self.prompt, "reply": self.reply,
                "finish": self.finish, "error": self.error,
                "diagnostics": [d.to_json() for d in v.diagnostics] if v else None,
                "report": v.report if v else None, "states": v.states if v else None,
                "clean": v.clean if v else False}


@dataclass
class Outcome:
    rounds: list[Round] = field(default_factory=list)

    @property
    def last(self) -> Round | None:
        """The last round that produced a spec."""
        return next((r for r in reversed(self.rounds) if r.verdict is not None), None)

    @property
    def clean(self) -> bool:
        """The last round's spec is clean (the loop stops there)."""
        verdict = self.rounds[-1].verdict if self.rounds else None
        return verdict is not None and verdict.clean


def propose(client: Client, task: str, *, name: str, file: str, rounds: int = 4, budget: Budget | None = None,
            allow_warnings: bool = False, max_tokens: int = 8192,
            on_round: Callable[[Round], None] | None = None) -> Outcome:
    """Up to `rounds` rounds until a clean spec; `file` is where its diagnostics are located (the output's
    .fsm name), `max_tokens` the longest reply. Raises LLMError when a call fails for good (the rounds so far
    have been passed to `on_round`)."""
    outcome, budget = Outcome(), budget or Budget()
    sent: list[Request] = []
    for number in range(1, rounds + 1):
        start = time.perf_counter()
        request = _next_request(outcome, task, name, budget, file, max_tokens)
        asked = time.perf_counter()
        response = client.complete(request, repeat=sent.count(request))  # a retry the same word for word: anew
        sent.append(request)
        answered = time.perf_counter()
        r = Round(number, request.purpose, request.messages[-1].text, response.text, response.finish)
        try:
            r.spec = read_spec(response.text)
        except ValueError as err:
            cut = " and was cut off at the token limit (--max-tokens)" if response.finish == "length" else ""
            r.error = f"{err}{cut}"
        if r.spec is not None:
            r.verdict = validate(r.spec, file, budget, allow_warnings=allow_warnings)
        r.seconds_model = answered - asked
        r.seconds_fsmc = (asked - start) + (time.perf_counter() - answered)
        outcome.rounds.append(r)
        if on_round is not None:
            on_round(r)
        if r.verdict is not None and r.verdict.clean:
            break
    return outcome


def _next_request(outcome: Outcome, task: str, name: str, budget: Budget, file: str, max_tokens: int) -> Request:
    """The proposer's request until a reply held a spec; then the improver's, with the last spec's diagnostics."""
    last = outcome.last
    note = outcome.rounds[-1].error if outcome.rounds else None
    if last is None or last.verdict is None or last.spec is None:
        return first_request(task, name, budget, note or "", max_tokens)
    report = last.verdict.report + (f"\n(and your last reply could not be used: {note})" if note else "")
    return improve_request(task, name, budget, last.spec, report, file, max_tokens)
