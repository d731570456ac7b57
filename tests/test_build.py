"""fsmc build without a browser: generated files, determinism, themes, error mapping, and the JS runtime in node."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fsmc import Machine, State, load
from fsmc.cli import main
from fsmc.codegen import THEMES, BuildError, bundle, default_theme, generate
from fsmc.codegen import site as site_module
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


def test_four_themes_differ_in_layout_palette_typography_and_density(tmp_path: Path) -> None:
    themes = list(THEMES.values())
    assert len(themes) >= 4
    assert len({t.sidebar for t in themes}) >= 3  # filters left, right, or in a bar above the results
    assert len({t.header_style for t in themes}) == len(themes)
    assert len({t.columns for t in themes}) >= 3
    assert len({t.accent for t in themes}) == len({t.bg for t in themes}) == len(themes)
    assert len({t.font for t in themes}) >= 3 and len({t.heading_font for t in themes}) >= 3
    assert len({(t.font_size, t.gap) for t in themes}) == len(themes)
    css = {t.name: (generate(load(MINI), tmp_path / t.name, theme=t.name).root / "src" / "style.css").read_text()
           for t in themes}
    assert len(set(css.values())) == len(themes)
    assert all(f"--accent: {t.accent}" in css[t.name] for t in themes)


def test_the_default_theme_is_seeded_from_the_reference() -> None:
    spec = load(MINI)
    assert default_theme(spec) == default_theme(spec) in THEMES
    chosen = {default_theme(spec.model_copy(update={"site": spec.site.model_copy(update={"reference": f"r{i}.example"})}))
              for i in range(40)}
    assert len(chosen) == len(THEMES)


def test_sites_have_no_transitions_so_settled_screenshots_repeat(tmp_path: Path) -> None:
    root = generate(load(MINI), tmp_path).root
    styles = [root / "src" / "style.css", *sorted((root / "src" / "components").glob("*.vue"))]
    assert not [p.name for p in styles if re.search(r"\b(transition|animation)\s*:(?!\s*none)", p.read_text())]


def test_images_are_deterministic_svg() -> None:
    a, b = item_svg("items", "a1", "Alpha lamp"), item_svg("items", "a1", "Alpha lamp")
    assert a == b and a.startswith("<svg") and "AL" in a
    assert item_svg("items", "b2", "Alpha lamp") != a


def test_explain_names_the_template_and_spec(tmp_path: Path) -> None:
    root = generate(load(MINI), tmp_path).root
    page = next(p.name for p in (root / "src" / "pages").glob("List*.vue"))
    message = explain(f"[vite:vue] src/pages/{page}:3:1: Unexpected token\n    at parse (x.js:1:2)", root)
    assert "templates/site/src/pages/Page.vue.j2" in message
    assert "mini.fsm:" in message
    assert "at parse" not in message  # the bundler's stack trace says nothing about the spec


def _broken_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rel: str) -> None:
    """A copy of templates/site in which one template has lost a closing tag, used in place of the real one."""
    copy = tmp_path / "site-templates"
    shutil.copytree(site_module.SITE_TEMPLATES, copy)
    path = copy / rel
    path.write_text(path.read_text().replace("</template>", "<div></template>", 1))
    monkeypatch.setattr(site_module, "SITE_TEMPLATES", copy)


def test_a_bundler_error_in_a_page_is_mapped_to_its_template_and_spec_page(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_templates(tmp_path, monkeypatch, "src/pages/Page.vue.j2")
    root = generate(load(MINI), tmp_path / "out").root
    with pytest.raises(BuildError) as err:
        bundle(root)
    message = str(err.value)
    assert "Element is missing end tag" in message  # the bundler's own words
    assert "was generated from templates/site/src/pages/Page.vue.j2 for" in message
    spec_lines = MINI.read_text().splitlines()
    places = {line.split(" for ")[-1] for line in message.splitlines() if "Page.vue.j2 for" in line}
    assert places and all(p.startswith(str(MINI.relative_to(ROOT))) or "mini.fsm:" in p for p in places)
    line = int(next(iter(places)).split(":")[-2])
    assert spec_lines[line - 1].startswith("page ")  # the page of the spec whose file failed


def test_a_bundler_error_in_a_component_points_at_the_template_line(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_templates(tmp_path, monkeypatch, "src/components/SiteFooter.vue")
    root = generate(load(MINI), tmp_path / "out").root
    with pytest.raises(BuildError) as err:
        bundle(root)
    message = str(err.value)
    assert "Element is missing end tag" in message
    assert "is templates/site/src/components/SiteFooter.vue:" in message


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
