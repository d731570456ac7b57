"""Benchmark: the propose loop's own time per round, and what a proposed spec costs per verified trajectory.

    python bench/llm.py                 # the library example and a synthetic 20-page spec, 3 rounds each
    python bench/llm.py --repeat 5

Against the local stand-in (fsmc.testing.standin) through the real `openai` client: the "model" errs twice
(a static error, E104, then a semantic warning, W401) and then returns a clean spec, as in tests/test_propose.py.

- **Loop overhead**: fsmc's own time per round (building the prompt, reading the reply, validating the spec:
  parse, static and semantic checks, the state budget), apart from the model call; the model call's time
  against the stand-in (the client library, HTTP on 127.0.0.1, the cache and ledger writes: the floor any real
  model adds to); and a rerun answered from the cache, end to end.
- **Cost**: tokens in and out per proposed spec, from the ledger. The stand-in cannot count a real tokenizer's
  tokens, so its usage is estimated at 4 characters a token from the real prompts and specs (the reference
  prompt, the description, each spec and its diagnostics). Then the proposed spec is enumerated (free: no
  model) and the spec's cost at list prices is divided by the verified trajectories it yields. Each figure is
  the median of --repeat runs (fresh caches), but fsmc's time per round, the mean of all rounds (a round
  whose spec has a static error stops before the state search, so rounds differ by design).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fsmc.compilation import Compilation
from fsmc.enumerate import Options, enumerate_spec
from fsmc.llm import Cache, Client, Ledger, Prices, Settings, make_provider
from fsmc.propose import Budget, propose, validate
from fsmc.propose.reference import EXAMPLE
from fsmc.testing import synthetic_spec
from fsmc.testing.standin import Reply, Request, StandIn

MODELS = ("gpt-4o-mini", "gpt-4.1", "gemini-2.5-flash")
AUTOWEBWORLD_PER_TRAJECTORY = 0.04  # USD, as the AutoWebWorld paper reports


@dataclass
class Row:
    name: str
    chars: int
    states: int
    rounds: int
    fsmc_round: float  # seconds of fsmc's own time per round (the mean over rounds and repeats)
    validate: float  # seconds of the clean spec's validation alone
    model_round: float  # seconds of a model call against the stand-in
    rerun: float  # seconds of a whole rerun answered from the cache
    tokens_in: int
    tokens_out: int
    trajectories: int


def mutations(spec: str) -> list[str]:
    """Two wrong versions of a clean spec: an unknown name (E104, static), an unreachable page (W401, semantic)."""
    first = spec.index("require ") + len("require ")
    unknown = spec[:first] + "no_such_name and " + spec[first:]
    return [unknown, spec + '\npage orphan "Orphan" { }\n']


def usage(request: Request, text: str) -> Reply:
    """The reply with its usage estimated at 4 characters a token."""
    return Reply(text, usage=(sum(len(t) for t in request.texts) // 4, max(1, len(text) // 4)))


def one_run(spec: str, name: str) -> tuple[list[float], list[float], float, Ledger]:
    replies = [json.dumps({"spec": s}) for s in [*mutations(spec), spec]]
    with tempfile.TemporaryDirectory() as tmp, StandIn(lambda r: usage(r, replies[len(server.requests) - 1])) as server:
        settings = Settings(provider="openai", model=MODELS[0], base_url=server.openai_url)
        ledger = Ledger()
        client = Client(make_provider(settings), cache=Cache(Path(tmp)), ledger=ledger, retries=0)
        outcome = propose(client, f"the {name} site", name=name, file=f"{name}.fsm", rounds=3,
                          budget=Budget(200_000))
        assert outcome.clean and len(outcome.rounds) == 3, [r.verdict.summary() for r in outcome.rounds if r.verdict]
        start = time.perf_counter()
        again = propose(client, f"the {name} site", name=name, file=f"{name}.fsm", rounds=3, budget=Budget(200_000))
        rerun = time.perf_counter() - start
        assert len(server.requests) == 3 and again.rounds[-1].spec == outcome.rounds[-1].spec
    return ([r.seconds_fsmc for r in outcome.rounds], [r.seconds_model for r in outcome.rounds], rerun,
            Ledger(None, ledger.entries[:3]))


def measure(name: str, spec: str, repeat: int) -> Row:
    fsmc_times, model_times, reruns, validations = [], [], [], []
    ledger = Ledger()
    for _ in range(repeat):
        f, m, rerun, ledger = one_run(spec, name)
        fsmc_times += f
        model_times += m
        reruns.append(rerun)
        start = time.perf_counter()
        verdict = validate(spec, f"{name}.fsm", Budget(200_000))
        validations.append(time.perf_counter() - start)
    totals = ledger.totals()
    with tempfile.TemporaryDirectory() as out:
        summary = enumerate_spec(Compilation(f"{name}.fsm", text=spec), out, Options())
    return Row(name, len(spec), verdict.states or 0, 3, statistics.mean(fsmc_times), statistics.median(validations),
               statistics.median(model_times), statistics.median(reruns), totals["tokens_in"], totals["tokens_out"],
               sum(summary.trajectories.values()))


def print_tables(rows: list[Row]) -> None:
    prices = Prices.load()
    print("| spec | chars | states | rounds | fsmc per round | of it, validation | model call (stand-in) | "
          "cached rerun (3 rounds) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r.name} | {r.chars:,} | {r.states:,} | {r.rounds} | {r.fsmc_round * 1e3:.0f} ms | "
              f"{r.validate * 1e3:.0f} ms | {r.model_round * 1e3:.0f} ms | {r.rerun * 1e3:.0f} ms |")
    print()
    heads = " | ".join(f"{m}: spec / trajectory" for m in MODELS)
    print(f"| spec | tokens in | tokens out | verified trajectories | {heads} |")
    print("|---|---:|---:|---:|" + "---:|" * len(MODELS))
    for r in rows:
        cells = []
        for m in MODELS:
            cost = prices.cost(m, r.tokens_in, r.tokens_out) or 0.0
            cells.append(f"${cost:.4f} / ${cost / r.trajectories:.6f}")
        print(f"| {r.name} | {r.tokens_in:,} | {r.tokens_out:,} | {r.trajectories:,} | {' | '.join(cells)} |")
    print()
    r, m = rows[0], MODELS[0]
    p_in, p_out = prices.price(m) or (0.0, 0.0)
    cost = prices.cost(m, r.tokens_in, r.tokens_out) or 0.0
    print(f"Arithmetic ({r.name}, {m}): ({r.tokens_in:,} × ${p_in:.2f} + {r.tokens_out:,} × ${p_out:.2f}) / 1M tokens "
          f"= ${cost:.4f} for the spec; / {r.trajectories:,} trajectories = ${cost / r.trajectories:.6f} a trajectory "
          f"(AutoWebWorld reports ${AUTOWEBWORLD_PER_TRAJECTORY:.2f}, "
          f"{AUTOWEBWORLD_PER_TRAJECTORY * r.trajectories / cost:,.0f}× as much); enumeration and verification call "
          "no model.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    specs = {"library": EXAMPLE, "synthetic 20/200": synthetic_spec(20, 200)}
    rows = []
    for name, spec in specs.items():
        print(f"measuring {name} ...", file=sys.stderr)
        rows.append(measure(name.split()[0], spec, args.repeat))
        rows[-1].name = name
    print_tables(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
