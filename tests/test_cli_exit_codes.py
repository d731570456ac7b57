"""Exit codes across the command line: 2 unreadable input, 1 a spec with errors, 3 a bug in fsmc, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsmc.cli import main
from fsmc.cli import schema as schema_command

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
OK, ERRORS, UNREADABLE, INTERNAL = 0, 1, 2, 3


def _argv(command: str, spec: Path, out: Path) -> list[str]:
    """A command line of each command that loads a spec; what it would write goes under `out`."""
    return {
        "check": ["check", str(spec)],
        "convert": ["convert", str(spec), "--to", "ir", "-o", str(out / "ir.json")],
        "graph": ["graph", str(spec), "-o", str(out / "g.svg")],
        "enumerate": ["enumerate", str(spec), "-o", str(out / "o")],
        "build": ["build", str(spec), "--out", str(out / "site")],
    }[command]


COMMANDS = ["check", "convert", "graph", "enumerate", "build"]
# name -> (text of the spec file, or None for no file, the exit code every command gives, the diagnostic code)
SPECS = {
    "missing": (None, UNREADABLE, "E002"),
    "empty": ("", UNREADABLE, "E002"),
    "syntax error": ("site s { entry p }\npage p { var x: int[0..3] = }\n", ERRORS, "E001"),
    "repeated clause": ("site s { entry p }\npage p { action a { goto p goto p gui { click \"a\" } } }\n", ERRORS, "E010"),
    "missing table file": ('site s { entry p }\ntable t(id: str) key id = load "nope.json"\npage p { }\n', ERRORS, "E003"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", list(SPECS))
def test_every_command_exits_like_check_on_a_spec_it_cannot_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, case: str) -> None:
    text, code, diagnostic = SPECS[case]
    spec = tmp_path / "spec.fsm"
    if text is not None:
        spec.write_text(text, encoding="utf-8")
    assert main(_argv(command, spec, tmp_path)) == code
    err = capsys.readouterr().err
    assert f"error[{diagnostic}]" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["enumerate", "build"])
def test_commands_that_check_exit_1_on_check_errors(tmp_path: Path, command: str) -> None:
    spec = tmp_path / "bad.fsm"
    spec.write_text(MINI.read_text(encoding="utf-8").replace("goto done", "goto nowhere"), encoding="utf-8")
    assert main(_argv(command, spec, tmp_path)) == ERRORS


def _raise(error: BaseException) -> object:
    def run(args: object) -> int:
        raise error
    return run


def test_a_bug_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("FSMC_DEBUG", raising=False)
    monkeypatch.setattr(schema_command, "run", _raise(KeyError("site")))
    assert main(["schema"]) == INTERNAL
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines[0] == "fsmc: internal error: KeyError: 'site'"
    assert "please report this with the command you ran" in lines[1]
    assert "Traceback" not in captured.err and captured.out == ""


def test_fsmc_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FSMC_DEBUG", "1")
    monkeypatch.setattr(schema_command, "run", _raise(ZeroDivisionError("division by zero")))
    assert main(["schema"]) == INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("fsmc: internal error: ZeroDivisionError: division by zero\n")
    assert "Traceback (most recent call last)" in err and "please report this with the command you ran" in err


def test_interrupt_closed_pipe_and_memory(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(schema_command, "run", _raise(KeyboardInterrupt()))
    assert main(["schema"]) == 130
    monkeypatch.setattr(schema_command, "run", _raise(BrokenPipeError()))
    assert main(["schema"]) == 141
    monkeypatch.setattr(schema_command, "run", _raise(MemoryError()))
    assert main(["schema"]) == ERRORS
    assert "internal error" not in capsys.readouterr().err


def test_usage_errors_stay_argparse_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["convert", str(MINI)])  # --to is required
    assert exit_.value.code == 2 and "internal error" not in capsys.readouterr().err
