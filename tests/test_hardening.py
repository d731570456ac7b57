"""What a careful user tried: files written with the user's umask, and more of the command line's edges."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fsmc import Compilation, load
from fsmc.cli import main
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats import to_ir_json

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"


@pytest.mark.parametrize(("umask", "mode"), [("022", 0o644), ("027", 0o640)])
def test_convert_writes_with_the_users_umask(tmp_path: Path, umask: str, mode: int) -> None:
    out = tmp_path / "mini.ir.json"
    argv = [sys.executable, "-m", "fsmc", "convert", str(MINI), "--to", "ir", "-o", str(out)]
    done = subprocess.run(["sh", "-c", f'umask {umask} && exec "$@"', "sh", *argv], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode  # was 0600, the temporary file's mode


def _diagnostics(path: Path) -> tuple[Diagnostic, ...]:
    try:
        return Compilation(str(path)).diagnostics
    except SpecError as err:
        return err.diagnostics


def test_ir_json_diagnostics_say_where_in_the_file(tmp_path: Path) -> None:
    """Checks of an IR JSON point at the node's object in the file (they said `:0:0:`)."""
    ir_json = tmp_path / "mini.ir.json"
    text = to_ir_json(load(MINI)).replace('"table": "items"', '"table": "itemz"', 1)
    ir_json.write_text(text, encoding="utf-8")
    found = _diagnostics(ir_json)
    assert found and all(d.span.file == str(ir_json) and d.span.line > 0 and d.span.col > 0 for d in found)
    unknown = next(d for d in found if d.code == "E102")
    lines = text.splitlines()
    assert '"table": "itemz"' in "".join(lines[unknown.span.line - 1:unknown.span.line + 4])


def test_an_invalid_ir_is_located_at_its_json_path(tmp_path: Path) -> None:
    data = json.loads(to_ir_json(load(MINI)))
    data["pages"][1]["actions"][0]["name"] = 3
    path = tmp_path / "bad.ir.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    (d,) = _diagnostics(path)
    line = path.read_text(encoding="utf-8").splitlines()[d.span.line - 1]
    assert d.code == "E005" and "pages.1.actions.0.name" in d.message and line.strip() == '"name": 3,'


def test_check_says_how_many_states_are_reachable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(MINI)]) == 0
    assert capsys.readouterr().out == f"{MINI}: ok with 3 warnings; 25,536 reachable states, 22 moves deep at most\n"


@pytest.mark.parametrize("argv", [["verify", "{missing}"], ["stats", "{missing}"], ["view", "{missing}"],
                                  ["serve-env", "{missing}"], ["graph", "{missing}"], ["check", "{missing}"],
                                  ["import", "{missing}", "-o", "{tmp}/x.fsm"],
                                  ["replay", "{missing}", "--site", "{missing}", "-o", "{tmp}/data"]])
def test_an_unreadable_path_exits_2_and_leaves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       argv: list[str]) -> None:
    typed = [a.format(missing=tmp_path / "missing", tmp=tmp_path) for a in argv]
    assert main(typed) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "Traceback" not in err and "internal error" not in err
    assert list(tmp_path.iterdir()) == []  # no output folder, no lock file left behind
