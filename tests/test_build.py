"""fsmc build without a browser: generated files, determinism, themes, error mapping, and the JS runtime in node."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from fsmc import Machine, State, load
from fsmc.cli import main
from fsmc.codegen import THEMES, default_theme, generate
from fsmc.codegen.bundle import explain
from fsmc.codegen.images import item_svg
from fsmc.codegen.npm import NODE_MODULES

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.fsm")) + [ROOT / "tests" / "fixtures" / "mini.fsm"]
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"

NODE_DRIVER = """
import * as M from './src/fsmc/machine.js'
import { readFileSync } from 'fs'
const states = JSON.parse(readFileSync(process.argv[2]))
console.log(JSON.stringify(states.map((st) => {
  const s = M.fromJson(st)
  const en = M.enabled(s)
  return { back: M.toJson(s), enabled: en.map(M.moveJson), next: en.map((mv) => M.toJson(M.step(s, mv.action, mv.args))) }
})))
"""


def sample_states(m: Machine, walks: int = 40, depth: int = 14, seed: int = 1) -> list[State]:
    rng = random.Random(seed)
    out = []
    for _ in range(walks):
        s = m.initial()
        for _ in range(depth):
            out.append(s)
            moves = m.enabled(s)
            if not moves:
                break
            s = m.step(s, rng.choice(moves))
    return list(dict.fromkeys(out))


def test_generated_project_has_its_parts_and_shares_node_modules(tmp_path: Path) -> None:
    project = generate(load(MINI), tmp_path, theme="harbor")
    root = project.root
    for rel in ("index.html", "vite.config.mjs", "src/main.js", "src/App.vue", "src/data.js", "src/site.js",
                "src/fsmc/runtime.js", "src/fsmc/store.js", "src/style.css"):
        assert (root / rel).is_file(), rel
    assert len(list((root / "src" / "pages").glob("*.vue"))) == 3
    assert (root / "node_modules").is_symlink()
    assert (root / "node_modules").resolve() == NODE_MODULES.resolve()
    assert len(list((root / "public" / "img" / "items").glob("*.svg"))) == 5


def test_generation_is_deterministic(tmp_path: Path) -> None:
    def snapshot(out: Path) -> dict[str, bytes]:
        root = generate(load(MINI), out).root
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and "node_modules" not in p.parts}

    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")


def test_stale_files_are_removed(tmp_path: Path) -> None:
    root = generate(load(MINI), tmp_path).root
    (root / "src" / "pages" / "Old.vue").write_text("<template/>")
    generate(load(MINI), tmp_path)
    assert not (root / "src" / "pages" / "Old.vue").exists()


def test_four_themes_and_a_stable_default() -> None:
    assert len(THEMES) >= 4
    assert len({(t.sidebar, t.columns, t.accent, t.font, t.gap) for t in THEMES.values()}) == len(THEMES)
    spec = load(MINI)
    assert default_theme(spec) == default_theme(spec) in THEMES


def test_images_are_deterministic_svg() -> None:
    a, b = item_svg("items", "a1", "Alpha lamp"), item_svg("items", "a1", "Alpha lamp")
    assert a == b and a.startswith("<svg") and "AL" in a
    assert item_svg("items", "b2", "Alpha lamp") != a


def test_bundler_errors_name_the_template_and_spec(tmp_path: Path) -> None:
    root = generate(load(MINI), tmp_path).root
    page = next(p.name for p in (root / "src" / "pages").glob("List*.vue"))
    message = explain(f"[vite:vue] src/pages/{page}:3:1: Unexpected token", root)
    assert "templates/site/src/pages/Page.vue.j2" in message
    assert "mini.fsm:" in message


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_js_runtime_agrees_with_the_semantics_in_node(spec_path: Path, tmp_path: Path) -> None:
    """The compiled runtime, run by node on sampled states: enabled moves and every successor."""
    spec = load(spec_path)
    m = Machine(spec)
    root = generate(spec, tmp_path).root
    (root / "driver.mjs").write_text(NODE_DRIVER)
    (root / "package.json").write_text('{"type": "module"}')
    states = sample_states(m)
    (root / "states.json").write_text(json.dumps([m.to_json(s) for s in states]))
    proc = subprocess.run(["node", "driver.mjs", "states.json"], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    for s, got in zip(states, json.loads(proc.stdout), strict=True):
        assert got["back"] == m.to_json(s)
        assert got["enabled"] == [mv.to_json() for mv in m.enabled(s)], m.to_json(s)
        assert got["next"] == [m.to_json(m.step(s, mv)) for mv in m.enabled(s)], m.to_json(s)


def test_cli_refuses_bad_input_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", str(tmp_path / "missing.fsm")]) == 2
    bad = tmp_path / "bad.fsm"
    bad.write_text('site s { entry nowhere }\n')
    assert main(["build", str(bad), "--out", str(tmp_path)]) == 1
    assert main(["serve", str(tmp_path / "nothing"), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no built site" in err
