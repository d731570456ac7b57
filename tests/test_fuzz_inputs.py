"""Malformed input of every format, as a careful user makes it, with a fixed seed: 0 internal errors, 0 unlocated
diagnostics.

Specs (.fsm), IR JSON and AutoWebWorld fsm.json files are mutated as text (lines deleted, duplicated or swapped,
tokens swapped, the file cut short, NUL and non-UTF-8 bytes, huge numbers, deep nesting) and, for the JSON formats,
as data (a member dropped, a value of the wrong type, an element repeated); special files are given as the spec.
Each goes through `Compilation(...).diagnostics`, as `fsmc check` runs it: any exception but SpecError is an
internal error, and every diagnostic must name its file, a line and a column.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fsmc import Compilation, load
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats import to_ir_json

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SEED = 23
CASES = 160  # per format: about half a minute in all on a quiet machine
TOKEN = re.compile(r"\w+|[^\w\s]")
HUGE = ("9" * 40, "9" * 400, "-" + "9" * 40, "1e999", "18446744073709551616", "0" * 5000 + "1")


def _lines(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    match rng.randrange(3):
        case 0:
            del lines[i]
        case 1:
            lines.insert(i, lines[j])
        case _:
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _tokens(text: str, rng: random.Random) -> str:
    found = list(TOKEN.finditer(text))
    a, b = sorted(rng.sample(found, 2), key=lambda m: m.start())
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


def _number(text: str, rng: random.Random) -> str:
    numbers = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", text))
    if not numbers:
        return text + rng.choice(HUGE)
    m = rng.choice(numbers)
    return text[:m.start()] + rng.choice(HUGE) + text[m.end():]


def _nesting(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) + 1)
    depth = rng.choice((50, 400, 3000))
    opening, closing = rng.choice((("(", ")"), ("[", "]"), ("{", "}"), ("not ", "")))
    return text[:i] + opening * depth + "1" + closing * depth + text[i:]


TEXT_MUTATIONS: tuple[Callable[[str, random.Random], str], ...] = (
    _lines, _tokens, _number, _nesting,
    lambda text, rng: text[:rng.randrange(len(text))],  # cut short
)


def _bytes(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice((b"\x00", b"\xff\xfe", b"\xc3", b"\xe2\x82", b"\r", b"\x1b[2J")) + data[i:]


def _mutated_text(text: str, rng: random.Random) -> bytes:
    for _ in range(rng.randrange(1, 3)):
        text = rng.choice(TEXT_MUTATIONS)(text, rng)
    data = text.encode("utf-8")
    return _bytes(data, rng) if rng.random() < 0.15 else data


def _places(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every JSON path in `data` (members and elements)."""
    found = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            found += _places(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += _places(v, (*path, i))
    return found


WRONG = (None, True, -1, 10**30, 1.5, "", "x" * 300, [], {}, [[[[[]]]]], {"kind": "int"})


def _mutated_data(data: Any, rng: random.Random) -> Any:
    """The data with one value dropped, replaced by one of the wrong kind, or repeated."""
    data = json.loads(json.dumps(data))
    path = rng.choice(_places(data)[1:])
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    match rng.randrange(3):
        case 0:
            del parent[last]
        case 1:
            parent[last] = rng.choice(WRONG)
        case _:
            if isinstance(parent, list):
                parent.insert(last, parent[last])
            else:
                parent[last] = rng.choice(WRONG)
    return data


def _seeds() -> dict[str, list[tuple[str, str]]]:
    """The inputs mutated, by format: (file name, text)."""
    fsm = [FIXTURES / "mini.fsm", *sorted((FIXTURES / "checks").glob("*.fsm"))[::4]]
    return {
        "fsm": [(p.name, p.read_text(encoding="utf-8")) for p in fsm],
        "ir": [("mini.ir.json", to_ir_json(load(FIXTURES / "mini.fsm")))],
        "awm": [(p.name, p.read_text(encoding="utf-8")) for p in sorted((FIXTURES / "autowebworld").glob("*.json"))],
    }


def _diagnostics(path: Path) -> tuple[Diagnostic, ...]:
    try:
        return Compilation(str(path)).diagnostics
    except SpecError as err:
        return err.diagnostics


def _judge(path: Path, case: str, internal: list[str], unlocated: list[str]) -> None:
    try:
        found = _diagnostics(path)
    except Exception as err:  # noqa: BLE001 - what the test counts
        internal.append(f"{case}: {type(err).__name__}: {str(err)[:200]}")
        return
    for d in found:
        if d.span.file != str(path) or d.span.line < 1 or d.span.col < 1:
            unlocated.append(f"{case}: {d.span}: {d.code} {d.message[:120]}")


@pytest.mark.parametrize("fmt", ["fsm", "ir", "awm"])
def test_malformed_input_never_breaks_fsmc_and_is_always_located(tmp_path: Path, fmt: str) -> None:
    rng = random.Random(f"{SEED}-{fmt}")
    seeds = _seeds()[fmt]
    internal: list[str] = []
    unlocated: list[str] = []
    for n in range(CASES):
        name, text = rng.choice(seeds)
        path = tmp_path / f"{n}-{name}"
        if fmt != "fsm" and rng.random() < 0.5:
            path.write_text(json.dumps(_mutated_data(json.loads(text), rng), indent=rng.choice((None, 2))),
                            encoding="utf-8")
        else:
            path.write_bytes(_mutated_text(text, rng))
        _judge(path, f"case {n} ({name})", internal, unlocated)
        path.unlink()
    assert internal == [], "\n".join(internal[:10])
    assert unlocated == [], "\n".join(unlocated[:10])


def test_special_files_as_the_spec(tmp_path: Path) -> None:
    loop = tmp_path / "loop.fsm"
    loop.symlink_to(loop)
    pipe = tmp_path / "pipe.fsm"
    os.mkfifo(pipe)
    folder = tmp_path / "folder.fsm"
    folder.mkdir()
    dangling = tmp_path / "dangling.fsm"
    dangling.symlink_to(tmp_path / "nowhere")
    internal: list[str] = []
    unlocated: list[str] = []
    for path in (loop, pipe, folder, dangling, Path("/dev/null"), Path("/dev/zero")):
        _judge(path, path.name, internal, unlocated)
        assert [d.code for d in _diagnostics(path)] == ["E002"], path
    assert internal == [] and unlocated == []
