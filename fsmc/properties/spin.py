"""SPIN's opinion on `always A eventually B`: the spec's Promela model with a never claim, searched by `pan -a`.

fsmc decides every property itself (fsmc/properties/decide.py); SPIN, where it is installed, checks the
temporal ones a second time on the Promela backend's model, whose states are exactly the semantics'
states (tests/test_promela.py), and the two must agree.

    spin -a model.pml && gcc -O0 -DNOREDUCE -o pan pan.c && ./pan -a
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from functools import reduce
from pathlib import Path

from fsmc import ir
from fsmc.analysis.conditions import Cond, Junction, Leaf, Names, Not, PageTest, condition
from fsmc.engines.native.encoding import LoweringError
from fsmc.engines.native.lexpr import B, K, LExpr, conj, disj, neg
from fsmc.engines.native.lower import PAGE, ExprLowerer, ModelBuilder
from fsmc.engines.native.model import lower
from fsmc.engines.promela import render, shared_builder
from fsmc.errors import FsmcError
from fsmc.semantics import Machine

PAN_CFLAGS = ("-O0", "-DNOREDUCE")  # pan compiles several times faster at -O0, and these models search quickly
TIMEOUT = 600


class SpinError(FsmcError):
    """SPIN could not give an opinion (not installed, the model cannot be written, the search was cut short)."""


def spin_found() -> bool:
    return shutil.which("spin") is not None and shutil.which("gcc") is not None


def lower_condition(builder: ModelBuilder, c: Cond) -> LExpr:
    """The condition over the model's small-int variables (tables for what the moves do not compute)."""
    machine = builder.machine
    if isinstance(c, PageTest):
        none: LExpr = K(0)
        test = reduce(disj, (B("==", PAGE, K(machine.page_index[p])) for p in c.pages), none)
        return neg(test) if c.negated else test
    if isinstance(c, Leaf):
        page = None if c.page is None else machine.page_index[c.page]
        return ExprLowerer(builder, page, builder.scope_for(page, ()), (), ()).boolean(c.expr)
    if isinstance(c, Not):
        return neg(lower_condition(builder, c.operand))
    assert isinstance(c, Junction)
    join = conj if c.op == "and" else disj
    return reduce(join, (lower_condition(builder, p) for p in c.parts))


def leads_to_model(machine: Machine, prop: ir.Property) -> str:
    """The Promela model of the spec with the never claim of `always A eventually B`."""
    assert prop.kind == "leads_to" and prop.then is not None
    names = Names.of(machine.spec)
    try:
        model = lower(machine)
        builder = shared_builder(model)
        claim = (lower_condition(builder, condition(prop.cond, names)),
                 lower_condition(builder, condition(prop.then, names)))
        return render(model, goals=False, claim=claim)
    except LoweringError as err:
        raise SpinError(f"the spec cannot be written as Promela: {err}") from None


def spin_leads_to(machine: Machine, prop: ir.Property, states: int) -> bool:
    """Whether SPIN finds [](A -> <>B) to hold; `states`, the number of reachable states, sizes the search."""
    if not spin_found():
        raise SpinError("spin or gcc is not installed")
    with tempfile.TemporaryDirectory(prefix="fsmc-spin-") as tmp:
        work = Path(tmp)
        (work / "model.pml").write_text(leads_to_model(machine, prop), encoding="utf-8")
        _run(["spin", "-a", "model.pml"], work)
        _run(["gcc", *PAN_CFLAGS, "-o", "pan", "pan.c"], work)
        depth = max(10_000, 2 * states + 10)  # the depth-first stack holds at most every state of the product
        out = _run(["./pan", "-a", f"-m{depth}", "-w22"], work, check=False)
    if "max search depth too small" in out:
        raise SpinError("pan's search depth was too small")
    found = re.search(r"errors: (\d+)", out)
    if found is None:
        raise SpinError(f"pan did not finish: {out.strip().splitlines()[-1] if out.strip() else 'no output'}")
    return found.group(1) == "0"


def _run(command: list[str], cwd: Path, check: bool = True) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SpinError(f"`{' '.join(command)}` took more than {TIMEOUT} s") from None
    if check and done.returncode != 0:
        raise SpinError(f"`{' '.join(command)}` failed: {(done.stdout + done.stderr).strip()[-500:]}")
    return done.stdout + done.stderr
