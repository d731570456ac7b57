"""A project of many specs: fsmc init, fsmc run (every stage, skipped when unchanged, a broken site reported while
the others go on), located project-file errors, the commands without a SPEC, and Ray against a local run."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fsmc.cli import main
from fsmc.project import STAGES

TINY = """\
# A tiny site: a form with a choice and a switch, then a terminal page.
site tiny {
  title "Tiny"
  entry home
  terminal done
}

page home "Home" {
  var size: {"s", "m", "l"} = "s"
  var gift: bool = false
  action pick(v: {"s", "m", "l"}) "Pick {v}" {
    require v != size
    size := v
    gui { select "size" "{v}" }
  }
  action wrap "Gift wrap" {
    toggle gift
    gui { click "gift" }
  }
  action send "Send" {
    goto done
    gui { click "send" }
  }
}

page done "Sent" {
  action back {
    goto home
    gui { click "back" }
  }
}

task order(v: {"m", "l"}) on home {
  goal size == v and gift
  instruction "Order size {v} as a gift"
}
"""

BROKEN_WORLD = """\
{
  "meta": {"app": "broken", "initial_page_id": "home", "terminal_pages": ["home"]},
  "pages": [
    {"id": "home", "signature_schema": {"q": "string|null"},
     "actions": [{"id": "go", "name": "click", "is_navigation": false, "from": "home", "to": "home",
                  "preconditions": [{"path": "$.q", "cond": "frobnicate", "value": 1}],
                  "effects": [], "gui_procedure": [{"op": "click", "selector": "#go"}]}]}
  ]
}
"""


def checkout_path() -> str:
    """PYTHONPATH with this checkout first: the commands run here import its fsmc wherever the project's folder is
    (an fsmc installed from another checkout would be imported otherwise)."""
    return os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent), os.environ.get("PYTHONPATH")]))


def fsmc(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": checkout_path()}  # read now: Ray's driver sets variables the commands need
    return subprocess.run([sys.executable, "-m", "fsmc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env=env)


def tree(root: Path, skip: tuple[str, ...] = (".fsmc", "node_modules")) -> dict[str, str]:
    """Every file under `root` (but those under a folder named in `skip`) → the sha256 of its bytes."""
    out = {}
    for where, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = Path(where) / name
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def stage_lines(stderr: str, site: str) -> dict[str, str]:
    """What `fsmc run` said of each stage of `site`: "skipped", "failed: ..." or the seconds and the note."""
    found = re.findall(rf"^{re.escape(site)}\s+({'|'.join(STAGES)})\s+(.*)$", stderr, re.M)
    return {stage: text.strip() for stage, text in found}


def copy_project(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


# ---------------------------------------------------------------- fsmc init, then fsmc run, end to end


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, subprocess.CompletedProcess[str]]]:
    """`fsmc init` in a new folder, the caps made small, then `fsmc run` there."""
    folder = tmp_path_factory.mktemp("started") / "proj"
    made = fsmc(folder.parent, "init", "proj")
    assert made.returncode == 0, made.stderr
    assert "wrote proj/fsmc.toml" in made.stdout and "fsmc run" in made.stdout
    toml = folder / "fsmc.toml"
    text = toml.read_text().replace("max_depth = 25", "max_depth = 3").replace("limit = 50", "limit = 2")
    toml.write_text(text)
    yield folder, fsmc(folder, "run")


def test_init_then_run_takes_the_example_through_every_stage(started: tuple[Path, subprocess.CompletedProcess[str]]
                                                              ) -> None:
    folder, done = started
    assert done.returncode == 0, done.stderr
    said = stage_lines(done.stderr, "example")
    assert list(said) == list(STAGES) and not any(s.startswith(("skipped", "failed")) for s in said.values()), said
    assert "2/2 kept" in said["replay"] and "Traceback" not in done.stderr
    assert (folder / "out/example/manifest.json").is_file() and (folder / "out/example/graph.svg").is_file()
    assert (folder / "generated_sites/example/dist/index.html").is_file()
    assert (folder / "data/example/report.json").is_file()
    assert list((folder / "datasets/example-sft/data").glob("*.parquet"))
    assert not (folder / "data/example/runs.jsonl").exists() and not (folder / "data/example/progress.jsonl").exists()
    index = (folder / "out/index.html").read_text()
    for link in ("../data/example/gallery/index.html", "example/stats.png", "example/graph.svg"):
        assert f'href="{link}"' in index and (folder / "out" / link).is_file(), link
    # the summary table's row: 100 % of the 2 trajectories replayed, a run the caps made partial, which it says
    row = (r"^example\s+3\s+[\d,]+\s+\d+\s+[\d,]+\s+100\.0%\s+\d+\s+[\d.]+ s\s+ok, partial: "
           r"states capped \(max_depth 3, max_states [\d,]+\); replayed 2 of [\d,]+ trajectories \(limit 2\)$")
    assert re.search(row, done.stdout, re.M), done.stdout
    assert "1 of 1 sites ok, partial: example (see the status column); 6 stages run, 0 skipped" in done.stdout
    assert "ok, partial: states capped (max_depth 3" in index


def test_a_second_run_skips_every_stage_and_changes_nothing(started: tuple[Path, subprocess.CompletedProcess[str]],
                                                            tmp_path: Path) -> None:
    folder = copy_project(started[0], tmp_path / "proj")
    before = tree(folder)
    again = fsmc(folder, "run")
    assert again.returncode == 0, again.stderr
    assert stage_lines(again.stderr, "example") == {stage: "skipped  unchanged" for stage in STAGES}
    assert "0 stages run, 6 skipped as unchanged" in again.stdout
    assert tree(folder) == before


def test_a_changed_spec_runs_its_stages_again(started: tuple[Path, subprocess.CompletedProcess[str]],
                                             tmp_path: Path) -> None:
    folder = copy_project(started[0], tmp_path / "proj")
    spec = folder / "specs/example.fsm"
    spec.write_text(spec.read_text().replace('title "Example shop"', 'title "Example store"'))
    again = fsmc(folder, "run")
    assert again.returncode == 0, again.stderr
    said = stage_lines(again.stderr, "example")
    assert not any(s.startswith("skipped") for s in said.values()), said
    assert "Example store" in (folder / "generated_sites/example/dist/index.html").read_text() or any(
        "Example store" in p.read_text() for p in (folder / "generated_sites/example/dist/assets").glob("*.js"))


def test_a_broken_world_is_reported_with_its_json_path_and_the_other_sites_go_on(
        started: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    folder = copy_project(started[0], tmp_path / "proj")
    (folder / "specs/broken.json").write_text(BROKEN_WORLD)
    toml = folder / "fsmc.toml"
    toml.write_text(toml.read_text().replace('specs = ["specs/*.fsm"]', 'specs = ["specs/*.fsm", "specs/*.json"]'))
    done = fsmc(folder, "run")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "specs/broken.json:6:37: error[E009]: pages[0].actions[0].preconditions[0]: unknown cond 'frobnicate'" \
        in done.stderr
    reason = "broken.json cannot be read: pages[0].actions[0].preconditions[0]: unknown cond 'frobnicate'"
    assert stage_lines(done.stderr, "broken") == {"check": f"failed: {reason}"}
    assert set(stage_lines(done.stderr, "example").values()) == {"skipped  unchanged"}
    assert "1 of 2 sites ok, failed: broken" in done.stdout
    assert 'class="failed"' in (folder / "out/index.html").read_text()


# ---------------------------------------------------------------- the project file


def _write(folder: Path, toml: str) -> Path:
    (folder / "specs").mkdir(parents=True, exist_ok=True)
    for name in ("a", "b"):
        (folder / "specs" / name).mkdir(exist_ok=True)
        (folder / "specs" / name / "tiny.fsm").write_text(TINY)
    (folder / "fsmc.toml").write_text(toml)
    return folder


@pytest.mark.parametrize(("toml", "expected"), [
    ('specs = ["specs/a/tiny.fsm"]\n\n[[site]]\nspec = "specs/missing.fsm"\n',
     "fsmc.toml:4:1: error: no such spec file: specs/missing.fsm"),
    ('specs = ["specs/nothing/*.fsm"]\n', "fsmc.toml:1:10: error: specs/nothing/*.fsm: matches no file"),
    ('specs = ["specs/a/tiny.fsm",\n         "specs/b/tiny.fsm"]\n',
     "fsmc.toml:2:10: error: duplicate site name 'tiny' (first at line 1)"),
    ('specs = ["specs/a/tiny.fsm"]\n[enumerate]\nmax_depht = 3\n',
     "fsmc.toml:3:1: error: unknown key 'max_depht' in enumerate\n  |\n3 | max_depht = 3\n  | ^\n"
     "  hint: did you mean 'max_depth'?"),
    ('spec = ["specs/a/tiny.fsm"]\n', "fsmc.toml:1:1: error: unknown key 'spec' in the project file"),
    ('specs = ["specs/a/tiny.fsm"]\n[replay]\nlimit = 0\n',
     "fsmc.toml:3:1: error: replay.limit: Input should be greater than or equal to 1"),
    ('specs = ["specs/a/tiny.fsm"\n', "fsmc.toml:1:28: error: not valid TOML: Unclosed array"),
])
def test_project_file_problems_are_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str], toml: str, expected: str) -> None:
    monkeypatch.chdir(_write(tmp_path, toml))
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path}/{expected}" in err, err
    assert "Traceback" not in err


def test_a_pyproject_table_is_a_project_and_a_named_site_takes_its_options(tmp_path: Path) -> None:
    from fsmc.project import find_project_file, load_project

    _write(tmp_path, "")
    (tmp_path / "fsmc.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.fsmc]\nspecs = ["specs/a/*.fsm"]\n\n'
                                              '[[tool.fsmc.site]]\nspec = "specs/b/tiny.fsm"\nname = "other"\n'
                                              'enumerate = { max_depth = 3 }\n[tool.fsmc.enumerate]\nseed = 7\n')
    file = find_project_file(tmp_path / "specs" / "a")
    assert file == tmp_path / "pyproject.toml"
    project = load_project(file)
    assert [(s.name, s.enumerate) for s in project.sites] == [("other", {"max_depth": 3, "seed": 7}),
                                                              ("tiny", {"seed": 7})]
    assert project.sites[0].out == tmp_path / "out" / "other"


# ---------------------------------------------------------------- the commands without a SPEC


def test_commands_without_a_spec_act_on_every_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(_write(tmp_path, '[[site]]\nspec = "specs/a/tiny.fsm"\nname = "one"\n'
                                       '[[site]]\nspec = "specs/b/tiny.fsm"\nname = "two"\n[replay]\nlimit = 2\n'))
    assert main(["check"]) == 0
    assert main(["enumerate", "--max-depth", "3"]) == 0
    assert main(["verify"]) == 0
    assert main(["build"]) == 0
    assert main(["replay"]) == 0
    assert main(["export"]) == 0
    out = capsys.readouterr().out
    for site in ("one", "two"):
        assert f"out/{site}: " in out and f"data/{site}: 2/2 trajectories kept" in out, out
        assert list((tmp_path / f"datasets/{site}-sft/data").glob("*.parquet"))
    assert '"max_depth": 3' in (tmp_path / "out/one/manifest.json").read_text()
    assert (tmp_path / "generated_sites/tiny/dist/index.html").is_file()  # the name the spec declares
    assert main(["enumerate", "-o", "elsewhere"]) == 64  # a usage error
    assert "-o/--out goes with a SPEC" in capsys.readouterr().err


def test_without_a_spec_or_a_project_the_command_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 2
    assert "no SPEC given, and no fsmc.toml here or in a folder above" in capsys.readouterr().err
    assert main(["init"]) == 0
    assert main(["init"]) == 1
    assert "a project is already here; nothing was written" in capsys.readouterr().err
    assert main(["run", "nosuch"]) == 1
    assert "no site named 'nosuch' in the project; its sites: example" in capsys.readouterr().err


# ---------------------------------------------------------------- Ray


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """A local Ray cluster of three CPUs for the module (more than the sites: replays are split); its address."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def test_ray_gives_the_bytes_of_a_local_run(ray_cluster: str, tmp_path: Path) -> None:
    """Sites and replay shards as Ray tasks: the same files as one local run (the timings stay in .fsmc/)."""
    toml = ('[[site]]\nspec = "specs/a/tiny.fsm"\nname = "one"\n'
            '[[site]]\nspec = "specs/b/tiny.fsm"\nname = "two"\nreplay = { limit = 3 }\n'
            '[paths]\nbuild = "generated_sites/{site}"\n'
            '[enumerate]\nmax_depth = 5\n[replay]\nshard_size = 5\n')
    local, cluster = _write(tmp_path / "local" / "p", toml), _write(tmp_path / "ray" / "p", toml)
    here = fsmc(local, "run")
    assert here.returncode == 0, here.stderr
    there = fsmc(cluster, "run", "--ray", ray_cluster)
    assert there.returncode == 0, there.stderr
    assert "on the Ray cluster at" in there.stderr and "8/8 kept, 12 steps in 2 shards" in there.stderr
    assert "one  done" in there.stderr and "two  done" in there.stderr
    assert "one  replay" in here.stderr and "8/8 kept" in here.stderr and "shards" not in here.stderr
    assert "3/3 kept, 5 steps\n" in there.stderr  # too few to split
    assert tree(local) == tree(cluster)
    assert len(tree(local)) > 30


def test_an_unreachable_cluster_is_said_at_once(tmp_path: Path) -> None:
    done = fsmc(_write(tmp_path, '[[site]]\nspec = "specs/a/tiny.fsm"\n'), "run", "--ray", "127.0.0.1:1", timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "fsmc run: error: cannot reach the Ray cluster at 127.0.0.1:1: Connection refused" in done.stderr
