"""`golfref init` writes a bot project that plays as it is, `golfref examples` the docs' files, and the
running golfref saves itself as a wheel the project's CI installs (golfref.tools.project, tools.wheel).

Where a real process is not what is tested (refusals, the files written), the commands run in
process; the projects' bots are built and played for real (a `process` test per kit). The
whole route from a wheel in a fresh virtual environment is tests/test_wheel_user.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from golfref import __version__
from golfref.cli.app import app
from golfref.config.match import load_config
from golfref.config.tournament import load_tournament
from golfref.tools.kits import KITS, Tool, kit
from golfref.tools.project import BOT_FOLDER, init_project
from golfref.tools.wheel import save_wheel, wheel_name
from tests.kitbuild import KIT_NAMES, usable

from .conftest import ROOT


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_init_list_names_every_kit_what_it_needs_and_whether_it_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Tool, "missing", lambda self: self.program == "rustc")
    code, output = _invoke("init", "--list")
    assert code == 0
    lines = output.splitlines()
    assert [line.split()[0] for line in lines] == [k.name for k in KITS]
    assert "needs rustc (Debian: rustc): missing rustc" in output
    assert "needs cc (Debian: gcc): ready" in output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["init", "x", "--lang", "cobol"], "init: --lang cobol: no kit for that language (the kits: python, "),
        (["init", "x", "--lang", "python", "--against", "nobody"], "--against nobody: not a built-in player"),
        (["init", "--lang", "python"], "init: give DIR and --lang LANG (golfref init --list names the languages)"),
        (["init", "x"], "init: give DIR and --lang LANG"),
    ],
)
def test_init_refuses_bad_usage_in_one_line_and_writes_nothing(
    args: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = _invoke(*args)
    assert code == 2 and said in output and len(output.strip().splitlines()) == 1, output
    assert list(tmp_path.iterdir()) == []


def test_init_refuses_a_folder_that_is_not_empty_and_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("mine")
    code, output = _invoke("init", str(tmp_path), "--lang", "python")
    assert code == 2 and "already there and not an empty folder; name a new one" in output
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_init_refuses_a_kit_whose_tool_is_missing_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Tool, "missing", lambda self: self.program == "rustc")
    code, output = _invoke("init", str(tmp_path / "bot"), "--lang", "rust")
    assert code == 2, output
    assert "the Rust kit needs rustc (Debian: rustc): rustc is not installed, so no bot was written" in output
    assert not (tmp_path / "bot").exists()


def test_a_project_holds_its_kit_configs_ci_and_this_golfref(tmp_path: Path) -> None:
    folder = tmp_path / "ace-bot"
    project = init_project(folder, kit("python"), "good")
    assert project.player == "ace-bot" and project.against == "good"
    bot = folder / BOT_FOLDER
    assert (bot / "bot.py").read_bytes() == (ROOT / "kits" / "python" / "bot.py").read_bytes()
    assert (bot / "golfbot.py").read_bytes() == (ROOT / "golfref" / "kit" / "golfbot.py").read_bytes()
    match = load_config(folder / "match.yaml")
    assert [p.name for p in match.players] == ["ace-bot", "good"]
    assert match.players[0].command == ("python3", "bot.py") and match.players[0].cwd == str(bot)
    tournament = load_tournament(folder / "tournament.yaml")
    assert [p.name for p in tournament.players] == ["ace-bot", "good", "random"]
    assert tournament.gate is not None and (tournament.gate.player, tournament.gate.baseline) == ("ace-bot", "random")
    # Nothing of golfref's own output lands in the bot's folder, which the sandbox shows and the fingerprint covers.
    assert match.log.path == "logs/{match_id}.json"
    assert (folder / "ci" / wheel_name()).is_file()
    workflow = yaml.safe_load((folder / ".github" / "workflows" / "golfref.yml").read_text())
    runs = [step.get("run", "") for step in workflow["jobs"]["gate"]["steps"]]
    assert f"python -m pip install ci/{wheel_name()}" in runs and "sh ci.sh" in runs
    assert (folder / "ci.sh").stat().st_mode & 0o111
    assert "golfref check-bot match.yaml --player ace-bot" in (folder / "README.md").read_text()


def test_a_project_named_like_a_builtin_plays_as_mine(tmp_path: Path) -> None:
    # Two players may not share a name: a folder called `random` would clash with the built-in of the tournament.
    assert init_project(tmp_path / "random", kit("python")).player == "mine"


def test_the_saved_wheel_holds_what_a_wheel_built_from_the_sources_holds(tmp_path: Path) -> None:
    path = save_wheel(tmp_path)
    assert path.name == f"golfref-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())
        record = wheel.read(f"golfref-{__version__}.dist-info/RECORD").decode()
        meta = wheel.read(f"golfref-{__version__}.dist-info/METADATA").decode()
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "golfref").rglob("*.py")}
    shipped |= {f"golfref/schemas/{p.name}" for p in (ROOT / "schemas").iterdir() if p.suffix in (".json", ".py")}
    shipped |= {f"golfref/kits/{p.relative_to(ROOT / 'kits').as_posix()}" for p in (ROOT / "kits").rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}  # fmt: skip
    assert shipped - names == set()
    assert "golfref/show/viewer/replay.js" in names and "golfref/samples/sample_logs/standard_2p.json" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".so"))]
    assert f"Version: {__version__}" in meta and "Requires-Dist: typer" in meta
    assert all(n in record for n in names)
    assert save_wheel(tmp_path / "again").read_bytes() == path.read_bytes()  # the same bytes at every save


@pytest.mark.process
def test_the_saved_wheel_installs_and_runs(tmp_path: Path) -> None:
    # pip itself reads the wheel (no index, no dependencies: they are this test's own), and the installed
    # golfref runs from there, not from the checkout.
    path = save_wheel(tmp_path / "dist")
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target),
         str(path)], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    code = "import golfref, golfref.tools.kits as k; print(golfref.__file__); print(len(list(k.kit_files(k.kit('c')))))"
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin"},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [str(target / "golfref" / "__init__.py"), "5"]


def test_examples_writes_the_samples_the_docs_use(tmp_path: Path) -> None:
    code, output = _invoke("examples", str(tmp_path / "ex"))
    assert code == 0, output
    written = sorted(p.relative_to(tmp_path / "ex").as_posix() for p in (tmp_path / "ex").rglob("*") if p.is_file())
    samples = ROOT / "sample_matches"
    expected = [
        p.relative_to(samples).as_posix() for p in samples.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ]
    assert written == sorted(set(expected) - {"__init__.py"})
    # A sample log is the very file of the tests' (sample_matches/sample_logs links to tests/logs, one copy
    # of each), and so is a test bot the docs run (sample_matches/test_bots links to tests/bots).
    echo = (tmp_path / "ex" / "test_bots" / "echo_bot.py").read_bytes()
    assert echo == (ROOT / "tests/bots/echo_bot.py").read_bytes()
    assert (tmp_path / "ex" / "sample_logs" / "standard_2p.json").read_bytes() == (
        ROOT / "tests/logs/standard_2p.json"
    ).read_bytes()
    assert not (tmp_path / "ex" / "__init__.py").exists()
    code, output = _invoke("examples", str(tmp_path / "ex"))
    assert code == 2 and "already there and not an empty folder" in output


@pytest.mark.process
@pytest.mark.parametrize("name", KIT_NAMES)
def test_init_builds_a_bot_that_plays_a_match_as_written(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    usable(name)
    monkeypatch.chdir(tmp_path)
    code, output = _invoke("init", "proj", "--lang", name)
    assert code == 0, output
    if name == "python":  # the tests' own interpreter, not whichever python3 comes first on PATH
        monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path / "proj")
    code, output = _invoke("run", "match.yaml", "--quiet", "--json")
    assert code == 0, output


def test_a_kit_answers_to_its_other_names_too() -> None:
    assert kit("c++") is kit("cpp") and kit("js") is kit("javascript") and kit("py") is kit("python")
    names = [name for k in KITS for name in (k.name, *k.aliases)]
    assert len(names) == len(set(names))


def test_a_project_that_cannot_be_written_leaves_its_empty_folder_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from golfref.tools import project

    def no_wheel(folder: Path) -> Path:
        raise project.WheelError("golfref is not installed as a distribution (no metadata to put in a wheel)")

    monkeypatch.setattr(project, "save_wheel", no_wheel)
    (tmp_path / "empty").mkdir()
    code, output = _invoke("init", str(tmp_path / "empty"), "--lang", "python")
    assert code == 2 and "cannot write the project: golfref is not installed as a distribution" in output, output
    assert list((tmp_path / "empty").iterdir()) == []
    code, output = _invoke("init", str(tmp_path / "new"), "--lang", "python")
    assert code == 2 and not (tmp_path / "new").exists()
