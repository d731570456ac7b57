"""docs/language.md stays true: its complete specs load and check without errors, its fragments parse.

Convention of the document: a block fenced ```fsm spec is a complete spec; every other ```fsm block is a
fragment, which must parse as top-level items, or as the body of a page, of an action or of a gui block.
Table files named by `load` are looked up beside the example specs (specs/data/...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from fsmc import SpecError, load_text
from fsmc.checks import check
from fsmc.frontend.parser import parse, parse_lark

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "language.md"
BASE = ROOT / "specs"  # where `load "data/..."` in the examples finds its files

_FENCE = re.compile(r"^```fsm( spec)?[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

# Ways a fragment can stand in a spec, tried in order: (text before, text after).
_SITE = "site doc { entry p }\n"
WRAPPERS = (
    ("", ""),
    (_SITE, ""),
    (_SITE + "page p {\n", "\n}"),
    (_SITE + "page p { action a {\n", "\n} }"),
    (_SITE + "page p { action a { gui {\n", "\n} } }"),
)


@dataclass(frozen=True)
class Block:
    line: int  # the line of the doc where the block's text starts
    text: str
    complete: bool

    def __str__(self) -> str:
        return f"language.md:{self.line}"


def blocks() -> list[Block]:
    doc = DOC.read_text(encoding="utf-8")
    return [Block(doc.count("\n", 0, m.start(2)) + 1, m.group(2), bool(m.group(1))) for m in _FENCE.finditer(doc)]


def test_the_document_has_both_kinds_of_block() -> None:
    found = blocks()
    assert sum(b.complete for b in found) >= 3
    assert sum(not b.complete for b in found) >= 15


@pytest.mark.parametrize("block", [b for b in blocks() if b.complete], ids=str)
def test_complete_specs_load_and_check_without_errors(block: Block) -> None:
    spec = load_text(block.text, str(BASE / f"language-doc-{block.line}.fsm"), BASE)
    errors = [d for d in check(spec) if d.severity == "error"]
    assert not errors, "\n".join(str(d) for d in errors)


def _parses(text: str) -> SpecError | None:
    """None if text parses (with both the fast parser and the reference LALR grammar), else the error."""
    try:
        parse(text, "fragment.fsm", BASE)
        parse_lark(text, "fragment.fsm", BASE)
    except SpecError as err:
        return err
    return None


@pytest.mark.parametrize("block", [b for b in blocks() if not b.complete], ids=str)
def test_fragments_parse(block: Block) -> None:
    furthest: tuple[int, str] = (-1, "")
    for before, after in WRAPPERS:
        err = _parses(before + block.text + after)
        if err is None:
            return
        d = err.diagnostics[0]
        line = d.span.line - before.count("\n")  # the line inside the fragment
        if line > furthest[0]:
            furthest = (line, f"line {block.line + line - 1}: {d.code} {d.message} ({d.hint})")
    raise AssertionError(f"{block} does not parse as a fragment; the furthest it got: {furthest[1]}")


def test_the_worked_example_is_clean_and_as_big_as_the_doc_says() -> None:
    from fsmc import Compilation

    library = next(b for b in blocks() if b.complete and "site library" in b.text)
    spec = load_text(library.text, str(BASE / "library.fsm"), BASE)
    assert check(spec) == []  # "prints library.fsm: ok"
    space = Compilation(spec).state_space
    assert space is not None and space.complete and len(space) == 207


def test_the_first_look_has_five_states() -> None:
    from fsmc import Compilation

    counter = next(b for b in blocks() if b.complete and "site counter" in b.text)
    space = Compilation(load_text(counter.text, str(BASE / "counter.fsm"), BASE)).state_space
    assert space is not None and len(space) == 5
