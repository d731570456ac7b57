"""Shared fixtures (paths, compiled example specs, the shop built and replayed once) and the test layers.

Layers: every test file belongs to one or more layers, given as markers below (LAYERS); run one with
`pytest -m LAYER` (markers are declared in pyproject.toml and checked with --strict-markers):

- unit: the library in process: parser, IR, checks, semantics, printer, interop, compilation, graph;
- golden: fixture files that must give exactly the expected output (checks, the language doc);
- cli: the command line run as a user runs it (exit codes, bad input, enumerate, verify, stats);
- build: site generation and its JS runtime in node;
- property: Hypothesis tests (random specs, expressions, action sequences), set on every Hypothesis test;
- differential: two implementations that must agree (native or SPIN against Python, the site against the spec);
- native, spin: compile and run the native explorer's C, or SPIN's pan;
- browser: needs Chromium (replay, conformance, export, the widget pages), set on every test that uses one;
- train: the training scripts end to end;
- fast: the quick layer, `pytest -m fast`, under a minute: unit and golden tests but the slow ones (SLOW),
  the property tests and the browser ones. Run it while editing; run everything before a commit.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from fsmc import Machine, load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


# ---------------------------------------------------------------- layers: markers by file

LAYERS: dict[str, tuple[str, ...]] = {
    "test_architecture.py": ("unit",),
    "test_parser.py": ("unit",),
    "test_printer.py": ("unit",),
    "test_semantics.py": ("unit",),
    "test_interop.py": ("unit",),
    "test_awm_import.py": ("unit",),
    "test_keywords.py": ("unit",),
    "test_language_doc.py": ("unit", "golden"),
    "test_checks.py": ("unit",),
    "test_checks_golden.py": ("unit", "golden"),
    "test_checks_semantic.py": ("unit",),
    "test_compilation.py": ("unit",),
    "test_graph.py": ("unit",),
    "test_bad_input.py": ("cli",),
    "test_cli_exit_codes.py": ("cli",),
    "test_lock.py": ("unit",),
    "test_hardening.py": ("unit",),
    "test_enumerate_output.py": ("cli",),
    "test_enumerate_resume.py": ("cli",),
    "test_verify.py": ("cli",),
    "test_stats.py": ("cli",),
    "test_project.py": ("cli", "browser"),
    "test_build.py": ("build",),
    "test_build_widgets.py": ("build",),
    "test_realism.py": ("unit", "build"),
    "test_enumerate_search.py": ("differential",),
    "test_fuzz.py": ("differential",),
    "test_fuzz_inputs.py": ("cli",),
    "test_native.py": ("native", "differential"),
    "test_promela.py": ("spin", "differential"),
    "test_properties.py": ("unit", "spin", "differential"),
    "test_conformance.py": ("browser", "differential"),
    "test_replay.py": ("browser",),
    "test_export.py": ("browser",),
    "test_env.py": ("browser",),
    "test_dataset_env.py": ("browser",),
    "test_env_server.py": ("browser",),
    "test_env_server_input.py": ("browser",),
    "test_eval.py": ("browser",),
    "test_capture_app.py": ("browser",),
    "test_capture.py": ("browser",),
    "test_capture_import.py": ("browser",),
    "test_capture_post.py": ("browser",),
    "test_cloned.py": ("browser",),
    "test_tracker.py": ("browser",),
    "test_awm_app.py": ("build", "browser"),
    "test_train.py": ("train",),
    "test_train_online.py": ("train", "browser"),
    "test_llm.py": ("unit",),
    "test_propose.py": ("cli",),
    "test_agent.py": ("browser",),
    "test_bridges.py": ("browser",),
    "test_bridges_declared.py": ("browser",),
    "test_bridges_train.py": ("train", "browser"),
}
"""The layers of each test file; a new test file must be added here (collection fails otherwise)."""

FAST_LAYERS = {"unit", "golden"}
BROWSER_FIXTURES = {"browser", "sites", "shop_site", "shop_replayed"}

SLOW = {
    "test_architecture.py::test_no_module_imports_itself_back",
    "test_architecture.py::test_no_check_leans_on_another_check",
    "test_architecture.py::test_only_the_frontend_touches_lark",
    "test_architecture.py::test_importing_a_late_stage_does_not_load_the_parser",
    "test_checks.py::test_check_mini_exits_zero",
    "test_checks.py::test_json_output_parses",
    "test_checks.py::test_static_checks_pass_on_200_pages_and_2000_actions",
    "test_checks_semantic.py::test_semantic_checks_agree_with_exploration",
    "test_compilation.py::test_enumerate_explores_once_and_writes_the_same_files",
    "test_compilation.py::test_a_reused_space_is_the_one_the_caps_explore",
    "test_compilation.py::test_the_checks_space_is_reused_only_when_the_caps_would_explore_the_same",
    "test_graph.py::test_png_and_pdf_are_pictures",
    "test_graph.py::test_graphviz_engine",
    "test_interop.py::test_broken_files_give_diagnostics_never_tracebacks",
    "test_interop.py::test_convert_to_stdout_and_file",
    "test_keywords.py::test_effects_on_exactly_the_lvalue_keywords_fail_somewhere",
    "test_properties.py::test_the_example_specs_properties_hold",
    "test_properties.py::test_spin_agrees_on_the_toy_and_mini",
    "test_properties.py::test_spin_agrees_on_random_specs",
    "test_properties.py::test_spin_agrees_on_flights",
    "test_properties.py::test_the_doc_example_holds_and_its_counterexample_is_as_the_doc_says",
    "test_properties.py::test_fsmc_test_reports_each_property_and_writes_replayable_counterexamples",
    "test_properties.py::test_fsmc_test_exits_0_when_every_property_holds_and_refuses_bad_ones",
    # a site built with Vite and measured in Chromium: the build and browser layers' work, not a unit's
    "test_realism.py::test_a_spec_of_identifiers_builds_a_site_without_one_visible",
    "test_realism.py::test_every_control_has_a_role_and_a_name_of_its_own",
    "test_realism.py::test_fsmc_build_prints_what_it_invented",
    "test_realism.py::test_text_typed_for_a_placeholder_is_recorded_and_stays_in_its_field",
    "test_realism.py::test_words_in_capitals_by_css_are_read_as_written",
}
"""Tests of the fast layers that take seconds each (`pytest -m fast --durations=15` shows the next candidates)."""


def _layers(item: pytest.Item) -> set[str]:
    path = Path(str(item.fspath))
    if path.name not in LAYERS:
        raise pytest.UsageError(f"{path.name} has no layer: add it to LAYERS in tests/conftest.py")
    layers = set(LAYERS[path.name])
    if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
        layers.add("property")
    if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
        layers.add("browser")
    function = getattr(item, "originalname", item.name)
    if layers & FAST_LAYERS and not layers & {"property", "browser"} and f"{path.name}::{function}" not in SLOW:
        layers.add("fast")
    return layers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for layer in sorted(_layers(item)):
            item.add_marker(layer)


@pytest.fixture(scope="session")
def mini_machine() -> Machine:
    return Machine(load(FIXTURES / "mini.fsm"))


# ---------------------------------------------------------------- replay and export: the shop, built and replayed once

SHOP = ROOT / "specs" / "shop.fsm"
SAMPLE_SIZE = 24


def sample_trajectories(out: Path, size: int = SAMPLE_SIZE) -> list[str]:
    """Lines of OUT/trajectories.jsonl covering every GUI operation and both kinds of negatives, then the first others."""
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    picked: list[int] = []
    ops = sorted({g["op"] for r in records for m in r["moves"] for g in m["gui"]})
    for want in ops:
        picked.append(next(i for i, r in enumerate(records) if any(g["op"] == want for m in r["moves"] for g in m["gui"])))
    for label in ("truncated", "disabled_move"):
        picked.append(next(i for i, r in enumerate(records) if r["label"] == label))
    picked.append(next(i for i, r in enumerate(records) if r["answer"] is not None))  # a retrieval task
    # test_replay breaks pick_size and toggle_gift: it needs a trajectory reaching toggle_gift without pick_size
    picked.append(next(i for i, r in enumerate(records)
                       if {"toggle_gift"} <= {m["action"] for m in r["moves"]} and "pick_size" not in
                       {m["action"] for m in r["moves"]}))
    picked += [i for i in range(len(records)) if records[i]["kind"] == "positive"]
    chosen = list(dict.fromkeys(picked))[:size]
    return [lines[i] for i in sorted(chosen)]


def write_sample(out: Path, dest: Path, lines: list[str]) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out / "manifest.json", dest / "manifest.json")
    (dest / "trajectories.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return dest


@pytest.fixture(scope="session")
def shop_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop's built site (its dist/ folder)."""
    from fsmc.codegen import build_site

    return build_site(load(SHOP), tmp_path_factory.mktemp("sites")).dist


@pytest.fixture(scope="session")
def shop_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop enumerated with one alternative per goal and negatives."""
    from fsmc.enumerate import Options, enumerate_spec

    out = tmp_path_factory.mktemp("enumerated") / "shop"
    enumerate_spec(SHOP, out, Options(per_goal=1, negatives=True))
    return out


@pytest.fixture(scope="session")
def shop_sample(shop_out: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An enumerate output folder holding a sample of the shop's trajectories that uses every GUI operation."""
    return write_sample(shop_out, tmp_path_factory.mktemp("sample") / "out", sample_trajectories(shop_out))


@pytest.fixture(scope="session")
def shop_replayed(shop_sample: Path, shop_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample replayed in Chromium, uninterrupted, with two pages at once."""
    from fsmc.replay import replay

    data = tmp_path_factory.mktemp("replayed") / "data"
    replay(shop_sample, shop_site, data, workers=2)
    return data


def load_random_spec() -> Callable[[int], str]:
    """tests/test_native.py's generator of random specs, for the differential tests of the other engines."""
    spec = importlib.util.spec_from_file_location("test_native_specs", Path(__file__).parent / "test_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn: Callable[[int], str] = module.random_spec
    return fn
