"""Bad input through the real command line: every file gets a located diagnostic and a non-zero exit, fast.

Empty, binary, huge, deeply nested, non-UTF-8 and non-spec files, views defined in a cycle, domains
of absurd size, broken table files: `fsmc check` prints `file:line:col: error[CODE]` and exits 2
when the file is no readable spec, 1 when the spec has errors; never a traceback, never a hang.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 60  # seconds; on an idle machine every case takes well under one
UNREADABLE, ERRORS = 2, 1

SITE = "site s { entry p }\n"


def _spec(body: str) -> str:
    return SITE + body


def _action(require: str) -> str:
    return _spec(f'page p {{\n  var x: bool = false\n  action a {{ require {require}  x := true  gui {{ click "a" }} }}\n}}\n')


def _goal(goal: str) -> str:
    return _spec('page p {\n  var n: int[0..2] = 0\n  action a { require n < 2  n += 1  gui { click "a" } }\n}\n'
                 f'task t on p {{ instruction "Reach it."  goal {goal} }}\n')


def _table(load: str) -> str:
    return _spec(f'table t(id: str, n: int) key id = load "{load}"\npage p {{ action a {{ gui {{ click "a" }} }} }}\n')


def _domain(var: str) -> str:
    return _spec(f'page p {{\n  var v: {var} = {{}}\n  action a {{ require len(v) == 0  clear v  gui {{ click "a" }} }}\n}}\n')


# name -> (files to write: relative path -> text or bytes, the file to check, exit code, diagnostic code)
Files = dict[str, "str | bytes"]
CASES: dict[str, tuple[Callable[[], Files], str, int, str]] = {
    "empty": (lambda: {"empty.fsm": ""}, "empty.fsm", UNREADABLE, "E002"),
    "only whitespace": (lambda: {"blank.fsm": " \n\t\n"}, "blank.fsm", UNREADABLE, "E002"),
    "png image": (lambda: {"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))}, "logo.png",
                  UNREADABLE, "E002"),
    "binary with NUL bytes": (lambda: {"blob.fsm": bytes(range(256)) * 8}, "blob.fsm", UNREADABLE, "E002"),
    "Latin-1 text": (lambda: {"latin.fsm": _spec('page p "Café" { }\n').encode("latin-1")}, "latin.fsm",
                     UNREADABLE, "E002"),
    "UTF-16 text": (lambda: {"wide.fsm": _spec("page p { }\n").encode("utf-16")}, "wide.fsm", UNREADABLE, "E002"),
    "JSON that is no spec": (lambda: {"package.json": json.dumps({"name": "x", "version": "1.0"})}, "package.json",
                             UNREADABLE, "E002"),
    "JSON list": (lambda: {"list.json": "[1, 2, 3]"}, "list.json", UNREADABLE, "E002"),
    "broken JSON": (lambda: {"broken.json": '{"site": {"name": '}, "broken.json", ERRORS, "E001"),
    "JSON nested 100,000 deep": (lambda: {"deep.json": "[" * 100_000 + "]" * 100_000}, "deep.json", ERRORS, "E004"),
    "IR JSON of the wrong shape": (lambda: {"ir.json": json.dumps({"site": {"name": 3}, "pages": "no"})}, "ir.json",
                                   ERRORS, "E005"),
    "a Python file": (lambda: {"script.py": "import os\nprint(os.getcwd())\n"}, "script.py", ERRORS, "E001"),
    "comments only": (lambda: {"notes.fsm": "# nothing here\n"}, "notes.fsm", ERRORS, "E007"),
    "500 nested parentheses": (lambda: {"parens.fsm": _action("(" * 500 + "y" + ")" * 500)}, "parens.fsm",
                               ERRORS, "E104"),  # deeper than the fast path goes: lark reads it, the checks report `y`
    "10,000 nested parentheses": (lambda: {"parens.fsm": _action("(" * 10_000 + "x" + ")" * 10_000)}, "parens.fsm",
                                  ERRORS, "E004"),
    "a 5 MB spec": (lambda: {"big.fsm": _action("x" + " or x" * 1_000_000)}, "big.fsm", UNREADABLE, "E002"),
    "10,000 nested `not`": (lambda: {"nots.fsm": _action("not " * 10_000 + "x")}, "nots.fsm", ERRORS, "E004"),
    "300 nested `not`": (lambda: {"nots300.fsm": _action("not " * 300 + "x")}, "nots300.fsm", ERRORS, "E004"),
    "a sum of 5,000 terms": (lambda: {"sum.fsm": _action("x == " + " + ".join(["1"] * 5000))}, "sum.fsm",
                             ERRORS, "E004"),
    "3,000 nested set literals": (lambda: {"sets.fsm": _action("{" * 3000 + "}" * 3000 + " == {}")}, "sets.fsm",
                                  ERRORS, "E004"),
    "a 10,000-digit number": (lambda: {"digits.fsm": _action("x == " + "9" * 10_000)}, "digits.fsm", ERRORS, "E001"),
    "a goal past a float's range": (lambda: {"far.fsm": _goal("n * 1.5 > " + "9" * 400)}, "far.fsm", ERRORS,
                                    "E407"),  # the diagnostic prints the literal (copysign of it overflowed)
    "a goal on a 400-digit number": (lambda: {"far.fsm": _goal("n == " + "9" * 400)}, "far.fsm", ERRORS, "E407"),
    "views defined in a cycle": (lambda: {"cycle.fsm": _spec(
        'table t(id: str) key id { ("a") }\npage p {\n  view a = b as x\n  view b = a as y\n'
        '  action go { require count(a) > 0  gui { click "go" } }\n}\n')}, "cycle.fsm", ERRORS, "E230"),
    "int[0..1000000000]": (lambda: {"wide_int.fsm": _spec(
        'page p {\n  var n: int[0..1000000000] = 0\n  action inc { require n < 5  n += 1  gui { click "inc" } }\n}\n')},
        "wide_int.fsm", ERRORS, "E221"),
    "a range of 300,000,000 carried to another page": (lambda: {"carry.fsm": _spec(
        'page p {\n  var n: int[0..300000000] = 0\n  action go { goto q carry n  gui { click "go" } }\n}\n'
        'page q { var n: int[0..300000000] = 0 }\n')}, "carry.fsm", ERRORS, "E221"),  # compared by bounds, not listed
    "a set over a huge domain": (lambda: {"big_set.fsm": _domain("set<int[0..1000000]>")}, "big_set.fsm",
                                 ERRORS, "E221"),
    "a map over a huge domain": (lambda: {"big_map.fsm": _domain("map<int[0..100000], int[0..100000]>")},
                                 "big_map.fsm", ERRORS, "E221"),
    "sets of sets 30 deep": (lambda: {"tower.fsm": _domain("set<" * 30 + "bool" + ">" * 30)}, "tower.fsm",
                             ERRORS, "E221"),
    "a missing table file": (lambda: {"missing_table.fsm": _table("nope.json")}, "missing_table.fsm", ERRORS, "E003"),
    "a malformed JSON table": (lambda: {"t.json": '[{"id": "a", "n": 1},', "bad_json.fsm": _table("t.json")},
                               "bad_json.fsm", ERRORS, "E003"),
    "a JSON table of the wrong shape": (lambda: {"t.json": '{"a": 1, "b": 2}', "shape.fsm": _table("t.json")},
                                        "shape.fsm", ERRORS, "E003"),
    "a malformed CSV table": (lambda: {"t.csv": b'id,n\n"a\x00,1\n\xff\xfe', "bad_csv.fsm": _table("t.csv")},
                              "bad_csv.fsm", ERRORS, "E003"),
    "a CSV table with wrong cells": (lambda: {"t.csv": "id,n\na,one\nb,1e999\n", "cells.fsm": _table("t.csv")},
                                     "cells.fsm", ERRORS, "E003"),
    "a table that is a directory": (lambda: {"data/x.txt": "", "dir_table.fsm": _table("data")}, "dir_table.fsm",
                                    ERRORS, "E003"),
    "a table of 200,000 rows": (lambda: {"t.json": json.dumps([{"id": f"r{i}", "n": i} for i in range(200_000)]),
                                         "many.fsm": _table("t.json")}, "many.fsm", ERRORS, "E003"),
    "a directory": (lambda: {"folder.fsm/x": ""}, "folder.fsm", UNREADABLE, "E002"),
    "a missing file": (lambda: {}, "missing.fsm", UNREADABLE, "E002"),
}


def _write(root: Path, files: Files) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def _cli_child(argv: list[str], out: str, err: str) -> None:
    """In a forked child: the command line with stdout and stderr going to files, exiting with its code."""
    from fsmc.cli import main

    for fd, name in ((1, out), (2, err)):
        os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (pytest had replaced both)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    code = main(argv)  # an exception here prints its traceback to `err` and exits 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def fsmc_check(path: Path, *extra: str, subprocess_: bool = False) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `fsmc check PATH`; a hang fails the test.

    The command runs in a forked copy of this process (the imports are done already), or with
    `subprocess_` in a fresh `python -m fsmc`, exactly as a user starts it.
    """
    argv = ["check", *extra, str(path)]
    if subprocess_:
        try:
            run = subprocess.run([sys.executable, "-m", "fsmc", *argv], capture_output=True, text=True, cwd=ROOT,
                                 timeout=TIME_LIMIT, errors="replace")
        except subprocess.TimeoutExpired:
            pytest.fail(f"`fsmc check {path.name}` did not finish in {TIME_LIMIT} s")
        return run.returncode, run.stdout, run.stderr
    out, err = path.parent / f".{path.name}.out", path.parent / f".{path.name}.err"
    child = multiprocessing.get_context("fork").Process(target=_cli_child, args=(argv, str(out), str(err)))
    child.start()
    child.join(TIME_LIMIT)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f"`fsmc check {path.name}` did not finish in {TIME_LIMIT} s")
    read = lambda p: p.read_text(encoding="utf-8", errors="replace")  # noqa: E731
    return child.exitcode or 0, read(out), read(err)


def assert_reported(path: Path, rc: int, code: str, subprocess_: bool = False) -> str:
    got, out, err = fsmc_check(path, subprocess_=subprocess_)
    assert "Traceback" not in out + err, err[-3000:]
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: error\[{code}\]: ", err, re.M), err[:3000]
    assert got == rc, err[:3000]
    return err


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_reported(tmp_path: Path, case: str) -> None:
    make, target, rc, code = CASES[case]
    _write(tmp_path, make())
    assert_reported(tmp_path / target, rc, code)


def test_huge_file_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "huge.fsm"
    with path.open("wb") as f:
        f.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n" + SITE.encode())
    err = assert_reported(path, UNREADABLE, "E002", subprocess_=True)
    assert "52,428,8" in err and "at most" in err  # says how big it is and what the limit is
    assert len(err) < 1000  # and does not print the file to show where


def test_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.fsm"
    os.mkfifo(pipe)
    assert_reported(pipe, UNREADABLE, "E002")
    (tmp_path / "pipe_table.fsm").write_text(_table("pipe.fsm"))
    assert_reported(tmp_path / "pipe_table.fsm", ERRORS, "E003")


def test_long_lines_are_shown_around_the_caret(tmp_path: Path) -> None:
    path = tmp_path / "long.fsm"
    path.write_text(_action("{" + ", ".join(["1"] * 3000 + ["nope"] + ["1"] * 3000) + "} == {}"))
    lines = assert_reported(path, ERRORS, "E104").splitlines()
    excerpt = lines[next(i for i, line in enumerate(lines) if "error[E104]" in line) + 2]
    assert excerpt.startswith("4 | …1, 1") and "nope" in excerpt and len(excerpt) < 200


def test_json_format_reports_unreadable_input(tmp_path: Path) -> None:
    got, out, err = fsmc_check(tmp_path / "missing.fsm", "--format", "json")
    assert got == UNREADABLE and json.loads(out)[0]["code"] == "E002" and "Traceback" not in err


def test_a_loop_of_links_is_unreadable_input(tmp_path: Path) -> None:
    loop = tmp_path / "loop.fsm"
    loop.symlink_to(loop)
    err = assert_reported(loop, UNREADABLE, "E002")
    assert "Too many levels of symbolic links" in err


def test_lines_ending_in_a_carriage_return_alone_are_lines(tmp_path: Path) -> None:
    """Classic Mac OS line ends: the comment on the first line ends there, and positions count the lines."""
    path = tmp_path / "mac.fsm"
    path.write_bytes(b'# a comment\rsite s { entry p }\rpage p { action a { goto p gui { click "a" } } }\rpage q { }\r')
    got, _, err = fsmc_check(path)
    assert got == 0 and f"{path}:4:1: warning[W401]: page 'q' is unreachable" in err, err
    assert "4 | page q { }" in err
