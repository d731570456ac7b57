"""`fsmc graph` draws the page graph: a valid picture that names every page, in every format."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fsmc.analysis.draw import draw, layout, to_dot
from fsmc.cli import main
from fsmc.formats import load

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPECS = [FIXTURES / "mini.fsm", FIXTURES / "checks" / "E401_unreachable_pages.fsm"]


@pytest.mark.parametrize("spec_path", SPECS, ids=lambda p: p.stem)
def test_svg_names_every_page(spec_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "graph.svg"
    assert main(["graph", str(spec_path), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    ET.fromstring(text)  # well-formed XML
    for page in load(spec_path).pages:
        assert page.name in text and (page.title or page.name) in text
    assert "entry page" in text and "terminal page" in text  # the legend


def test_png_and_pdf_are_pictures(tmp_path: Path) -> None:
    assert main(["graph", str(SPECS[0]), "-o", str(tmp_path / "g.png")]) == 0
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["graph", str(SPECS[0]), "-o", str(tmp_path / "g.pdf")]) == 0
    assert (tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"


def test_svg_is_deterministic(tmp_path: Path) -> None:
    spec = load(SPECS[0])
    a, b = draw(spec, tmp_path / "a.svg"), draw(spec, tmp_path / "b.svg")
    assert a.read_bytes() == b.read_bytes()


def test_dot_marks_entry_terminal_and_edges(tmp_path: Path) -> None:
    spec = load(SPECS[0])
    dot = to_dot(spec)
    assert dot.startswith('digraph "mini"')
    assert '"home" -> "list" [label="browse"]' in dot
    assert "peripheries=2" in dot and "penwidth=2" in dot
    assert main(["graph", str(SPECS[0]), "-o", str(tmp_path / "g.dot")]) == 0


def test_layout_puts_entry_first_and_unreachable_last() -> None:
    lay = layout(load(SPECS[1]))
    assert lay.columns[0] == ["home"]
    assert set(lay.columns[-1]) == {"receipt", "help"}
    assert lay.kinds["help"] == "unreachable" and lay.kinds["done"] == "terminal"


def test_bad_format_and_missing_spec(tmp_path: Path) -> None:
    assert main(["graph", str(SPECS[0]), "-o", str(tmp_path / "g.xyz")]) == 1
    assert main(["graph", str(tmp_path / "missing.fsm"), "-o", str(tmp_path / "g.svg")]) == 2


def test_graphviz_engine(tmp_path: Path) -> None:
    out = tmp_path / "g.svg"
    assert main(["graph", str(SPECS[0]), "-o", str(out), "--engine", "graphviz"]) == 0
    assert "Items" in out.read_text(encoding="utf-8")
