"""The Promela backend: SPIN stores exactly as many states as the reference semantics reaches."""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from fsmc import Compilation, Machine, load_text
from fsmc.engines.native import LoweringError
from fsmc.engines.promela import to_promela
from fsmc.engines.python import explore

ROOT = Path(__file__).resolve().parent.parent
# Specs the backend cannot write as Promela, and why (it must say so, not write a wrong model).
NOT_PROMELA = {"flights.fsm": "too large to write as Promela expressions"}
# pan counts the same states whatever the optimisation: the small models compile 4-5 times faster at -O0
# (bench/enumerate.py keeps -O2, where the speed of the search is measured). The mail spec's 23 MB pan.m is
# the exception: gcc takes many minutes on it at -O0 as at -O2 (over 9 CPU minutes each), so it keeps the -O2
# it had and is compiled in the background from the start of the session (start_background_builds).
PAN_CFLAGS = ("-O0", "-DBFS", "-DSAFETY", "-DNOREDUCE")
BUILT_EARLY = {"mail.fsm": ("-O2", "-DBFS", "-DSAFETY", "-DNOREDUCE")}
_EARLY: dict[str, tuple[Path, subprocess.Popen[bytes]]] = {}


@pytest.fixture(autouse=True)
def spin_is_installed() -> None:
    assert shutil.which("spin") and shutil.which("gcc"), "these tests need spin and gcc: run scripts/setup.sh"


def compile_pan(workdir: Path, cflags: tuple[str, ...] = PAN_CFLAGS) -> None:
    """SPIN's verifier for the workdir's model.pml, as workdir/pan."""
    subprocess.run(["spin", "-a", "model.pml"], cwd=workdir, check=True, capture_output=True)
    subprocess.run(["gcc", *cflags, "-o", "pan", "pan.c"], cwd=workdir, check=True, capture_output=True)


def spin_states(model: str, workdir: Path, built: Path | None = None, cflags: tuple[str, ...] = PAN_CFLAGS) -> int:
    """SPIN's `states stored` for a model, run the way the docs say (BFS, safety, no reduction).

    `built`: a folder where pan was compiled already; used only if its model.pml is exactly `model`.
    `cflags`: how gcc compiles pan otherwise.
    """
    if built is not None and (built / "pan").is_file() and (built / "model.pml").read_text() == model:
        workdir = built
    else:
        (workdir / "model.pml").write_text(model)
        compile_pan(workdir, cflags)
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
    if spec.name in NOT_PROMELA:
        with pytest.raises(LoweringError, match=NOT_PROMELA[spec.name]):
            to_promela(comp.machine)
        return
    space = explore(comp.machine, max_states=400_000)
    assert space.complete, f"{spec.name} has more than 400k states: too many for this test"
    model = to_promela(comp.machine)
    assert spin_states(model, tmp_path, built_early(spec.name), BUILT_EARLY.get(spec.name, PAN_CFLAGS)) == len(space)


def start_background_builds(items: list[pytest.Item]) -> None:
    """Starts compiling pan for the selected BUILT_EARLY specs in other processes (tests/conftest.py calls it)."""
    for item in items:
        spec = getattr(item, "callspec", None) and item.callspec.params.get("spec")
        if isinstance(spec, Path) and spec.name in BUILT_EARLY and spec.name not in _EARLY:
            folder = Path(tempfile.mkdtemp(prefix=f"fsmc-pan-{spec.stem}-"))
            proc = subprocess.Popen([sys.executable, __file__, str(spec), str(folder)], cwd=ROOT, start_new_session=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _EARLY[spec.name] = (folder, proc)


def built_early(name: str) -> Path | None:
    """The folder where pan was built in the background for this spec, once done; None if it was not or failed."""
    if name not in _EARLY:
        return None
    folder, proc = _EARLY[name]
    return folder if proc.wait() == 0 else None


@atexit.register
def _stop_background_builds() -> None:
    for folder, proc in _EARLY.values():
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


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


def load_random_spec() -> Callable[[int], str]:
    spec = importlib.util.spec_from_file_location("test_native_specs", ROOT / "tests" / "test_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn: Callable[[int], str] = module.random_spec
    return fn


@pytest.mark.parametrize("seed", [1014, 1044, 7, 99, 12345])  # 1014, 1044: a variable only carried onto itself
def test_random_specs_state_count_equals_spin(seed: int, tmp_path: Path) -> None:
    machine = Machine(load_text(load_random_spec()(seed), f"rnd{seed}.fsm"))
    space = explore(machine, max_states=20_000)
    assert space.complete
    assert spin_states(to_promela(machine), tmp_path) == len(space)


if __name__ == "__main__":  # python tests/test_promela.py SPEC FOLDER: the background build of SPEC's pan
    folder = Path(sys.argv[2])
    (folder / "model.pml").write_text(to_promela(Compilation(Path(sys.argv[1])).machine))
    compile_pan(folder, BUILT_EARLY[Path(sys.argv[1]).name])
