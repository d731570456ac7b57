"""Exit codes across the command line: 2 unreadable input, 1 a spec with errors, 3 a bug in fsmc, 64 a usage error,
never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fsmc.archive.folder import CaptureError
from fsmc.cli import build_parser, main
from fsmc.cli import schema as schema_command
from fsmc.llm import LLMError
from fsmc.lock import FolderBusy
from fsmc.replay.inputs import InputError

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.fsm"
OK, ERRORS, UNREADABLE, INTERNAL, USAGE = 0, 1, 2, 3, 64


def _argv(command: str, spec: Path, out: Path) -> list[str]:
    """A command line of each command that loads a spec; what it would write goes under `out`."""
    return {
        "check": ["check", str(spec)],
        "convert": ["convert", str(spec), "--to", "ir", "-o", str(out / "ir.json")],
        "graph": ["graph", str(spec), "-o", str(out / "g.svg")],
        "enumerate": ["enumerate", str(spec), "-o", str(out / "o")],
        "build": ["build", str(spec), "-o", str(out / "site")],
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


@pytest.mark.parametrize(("error", "code"), [(InputError("out/shop: no manifest.json"), 2),
                                             (FolderBusy(Path("out"), None), 75),
                                             (CaptureError("no capture there", unreadable=True), 2),
                                             (CaptureError("the crawl found no page"), 1), (LLMError("no key"), 1)])
def test_an_error_a_command_leaves_unworded_exits_with_its_own_code(
        error: Exception, code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Every failure derives from FsmcError, whose exit code the command line reads in one place: no 'internal error'."""
    monkeypatch.setattr(schema_command, "run", _raise(error))
    assert main(["schema"]) == code
    assert capsys.readouterr().err == f"fsmc: error: {error}\n"


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


INTERRUPTED = """
import asyncio, sys
from fsmc.cli import main, schema

def interrupted(args):
    loop = asyncio.new_event_loop()
    failed = loop.create_future()
    failed.set_exception(ConnectionError("the page went away"))  # never retrieved: collected as the process ends
    raise KeyboardInterrupt

schema.run = interrupted
sys.exit(main(["schema"]))
"""


def test_an_interrupt_is_one_line_without_asyncio_s_leftovers() -> None:
    """Ctrl-C in the middle of an event loop's work (`fsmc run` replaying): the futures it leaves say nothing."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED], capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stderr) == (130, "interrupted\n")


@pytest.mark.parametrize("argv", [["convert", str(MINI)], ["nope"], [], ["check", "--bogus", str(MINI)],
                                  ["enumerate", str(MINI), "--engine", "nope"]])
def test_usage_errors_have_a_code_of_their_own(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:  # argparse's errors
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == USAGE != UNREADABLE and "usage: fsmc" in err and "internal error" not in err
    assert main(["enumerate", str(MINI)]) == USAGE  # the commands' own: -o OUT is needed with a SPEC


def test_the_exit_codes_are_in_the_help_and_the_readme(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["check", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == OK
        assert "64 usage error" in " ".join(capsys.readouterr().out.split())
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "2 unreadable input" in readme and "64 a usage error" in readme


PROBE = """
import sys
from fsmc.cli import build_parser, main
try:
    main({argv!r})
except SystemExit:
    pass
late = ("networkx", "numpy", "rich", "lark", "playwright", "fsmc.cli.", "fsmc.codegen", "fsmc.enumerate", "fsmc.replay",
        "fsmc.formats.awm")
nodes = sys.modules.get("fsmc.ir.nodes")
print("validators built:", nodes is not None and any(m.__pydantic_complete__ for m in (nodes.Lit, nodes.Spec)))
print(" ".join(sorted(m for m in sys.modules if m.startswith(late) or m in late)))
"""


@pytest.mark.parametrize(("argv", "imported"), [(["--version"], "fsmc.cli.exits"),
                                                (["check", str(MINI)], "fsmc.cli.check fsmc.cli.common fsmc.cli.exits")])
def test_a_command_imports_only_what_it_needs(argv: list[str], imported: str) -> None:
    """A fast start: `fsmc --version` imports no command; `fsmc check` neither networkx, numpy, rich, lark (the
    fast parser reads mini.fsm), the AutoWebWorld reader (mini.fsm is no fsm.json) nor any later stage; and pydantic
    builds no validator of the IR's models (the parser's nodes are `trusted`: building them took a third of the start)."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.splitlines()[-2:] == ["validators built: False", imported], done.stdout + done.stderr


WRITERS = ("build", "capture", "convert", "enumerate", "eval", "export", "graph", "import", "propose", "replay",
           "serve", "stats", "test", "view")


@pytest.mark.parametrize("command", WRITERS)
def test_every_command_that_writes_takes_its_output_as_o(command: str) -> None:
    parser = build_parser([command])
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # type: ignore[union-attr]
    assert any("-o" in a.option_strings for a in sub._actions), f"fsmc {command} has no -o"
