"""The Promela backend: SPIN stores exactly as many states as the reference semantics reaches."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import load_random_spec

from fsmc import Compilation, Machine, load_text
from fsmc.engines.native import LoweringError
from fsmc.engines.promela import to_promela
from fsmc.engines.python import explore

ROOT = Path(__file__).resolve().parent.parent
# pan counts the same states whatever the optimisation, and compiles 4-5 times faster at -O0
# (bench/enumerate.py keeps -O2, where the speed of the search is measured).
PAN_CFLAGS = ("-O0", "-DBFS", "-DSAFETY", "-DNOREDUCE")


@pytest.fixture(autouse=True)
def spin_is_installed() -> None:
    assert shutil.which("spin") and shutil.which("gcc"), "these tests need spin and gcc: run scripts/setup.sh"


def spin_states(model: str, workdir: Path) -> int:
    """SPIN's `states stored` for a model, run the way the docs say (BFS, safety, no reduction)."""
    (workdir / "model.pml").write_text(model)
    for command in (["spin", "-a", "model.pml"], ["gcc", *PAN_CFLAGS, "-o", "pan", "pan.c"]):
        done = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}"
    out = subprocess.run(["./pan", "-m10000000", "-w22"], cwd=workdir, capture_output=True, text=True).stdout
    assert "errors: 0" in out, out
    found = re.search(r"(\d+) states, stored", out)
    assert found, out
    return int(found.group(1))


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_enumerate", ROOT / "bench" / "enumerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_mini_state_count_equals_spin(mini_machine: Machine, tmp_path: Path) -> None:
    assert spin_states(to_promela(mini_machine), tmp_path) == len(explore(mini_machine))


@pytest.mark.parametrize("n", [3, 5])
def test_bench_model_state_count_equals_spin(n: int, tmp_path: Path) -> None:
    machine = Machine(load_text(load_bench().shop_spec(n), "bench.fsm"))
    assert spin_states(to_promela(machine), tmp_path) == len(explore(machine))


@pytest.mark.parametrize("spec", sorted((ROOT / "specs").glob("*.fsm")), ids=lambda p: p.name)
def test_example_specs_state_count_equals_spin(spec: Path, tmp_path: Path) -> None:
    comp = Compilation(spec)
    assert comp.ok, f"{spec.name} does not pass fsmc check"
    space = explore(comp.machine, max_states=400_000)
    assert space.complete, f"{spec.name} has more than 400k states: too many for this test"
    model = to_promela(comp.machine)
    assert spin_states(model, tmp_path) == len(space)


def test_model_shape(mini_machine: Machine) -> None:
    model = to_promela(mini_machine)
    assert "#define P_list 1" in model
    assert "byte cart[5] = 0;" in model and "int seen = 0;" in model
    assert model.count(":: d_step {") == len(mini_machine.all_moves)
    assert "/* list.add(i='c3') */" in model
    assert re.search(r"#define goal_buy_0 .*cart\[0\] != 0", model)


def test_write_only_variables_are_kept_read(mini_machine: Machine) -> None:
    text = (ROOT / "tests" / "fixtures" / "mini.fsm").read_text().replace(
        "var member: bool = false", "var member: bool = false\n  var visits: int[0..3] = 0").replace(
        "    toggle member\n", "    toggle member\n    visits := 2\n")
    model = to_promela(Machine(load_text(text, "visits.fsm")))
    assert re.search(r":: d_step \{ \(page == 255 && \(visits\) == 0\) -> skip \}", model)


def test_too_large_set_gives_a_clear_error() -> None:
    rows = "\n".join(f'  ("r{i}", "Row {i}", "acme", 1.0)' for i in range(40))
    text = (ROOT / "tests" / "fixtures" / "mini.fsm").read_text()
    text = re.sub(r'table items\(.*?\n\}', 'table items(id: str, name: str, brand: str, price: num) key id {\n'
                  + rows + "\n}", text, flags=re.S)
    text = text.replace('"a1"', '"r1"')
    with pytest.raises(LoweringError, match=r"set 'seen' has 40 possible elements"):
        to_promela(Machine(load_text(text, "big.fsm")))



@pytest.mark.parametrize("seed", [1014, 1044, 7, 99, 12345])  # 1014, 1044: a variable only carried onto itself
def test_random_specs_state_count_equals_spin(seed: int, tmp_path: Path) -> None:
    machine = Machine(load_text(load_random_spec()(seed), f"rnd{seed}.fsm"))
    space = explore(machine, max_states=20_000)
    assert space.complete
    assert spin_states(to_promela(machine), tmp_path) == len(space)
