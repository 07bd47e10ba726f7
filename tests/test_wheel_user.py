"""golfref as a user who installed its wheel has it: the wheel built from the checkout, installed in a
fresh virtual environment outside the checkout, that environment's `python3` and `golfref` first
on PATH, every command run from a folder of the user's own.

The environment gets golfref from the wheel, with pip (no index, no dependencies); the
dependencies are this test run's own, named by a .pth file after the environment's own
site-packages, so that nothing is downloaded. It is built once per test session, under a lock,
whichever pytest-xdist worker comes first.

From there: `golfref init` for every language whose toolchain is here, and in each project the
run, check-bot and the gated tournament as its README says (sandboxed where bubblewrap is); the
README's quick start, as written, from an empty folder; and every command of docs/ that reads
files (tests/test_docs_commands.py finds them) from a folder `golfref examples` wrote.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from golfref import __version__
from golfref.bots.sandbox import bubblewrap_problem
from tests.kitbuild import KIT_NAMES, usable
from tests.test_docs_commands import doc_commands, prepare, words
from tests.test_packaging import _NOT_SOURCE, _build

from .conftest import ROOT

pytestmark = pytest.mark.process

GENEROUS = 1200  # seconds a whole command may take on a loaded machine (a tournament of a JVM bot, sandboxed)


@dataclass(frozen=True)
class Installed:
    """golfref installed from its wheel in a virtual environment of its own."""

    venv: Path
    wheel: Path

    def env(self) -> dict[str, str]:
        """The environment a user of that virtual environment has: its bin first on PATH, nothing of the tests'."""
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
        env["PATH"] = os.pathsep.join([str(self.venv / "bin"), os.environ.get("PATH") or os.defpath])
        return env

    def run(self, command: str | list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
        """Run `command` (a shell line, or argv) as that user, in `cwd`."""
        return subprocess.run(
            command, cwd=cwd, env=self.env(), shell=isinstance(command, str), capture_output=True, text=True,
            timeout=GENEROUS, stdin=subprocess.DEVNULL, **kwargs,  # type: ignore[call-overload]
        )  # fmt: skip


def _install(root: Path) -> Installed:
    tree = root / "source" / "golfref"
    shutil.copytree(ROOT, tree, ignore=_NOT_SOURCE)
    shutil.copytree(ROOT / "tests" / "logs", tree / "tests" / "logs", ignore=shutil.ignore_patterns("__pycache__"))
    wheel = _build("wheel", tree, out=root / "dist")
    venv = venv_with_test_dependencies(Path(getattr(sys, "_base_executable", sys.executable)), root / "venv")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-deps",
         "--no-index", str(wheel)], capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return Installed(venv, wheel)


def venv_with_test_dependencies(python: Path, venv: Path) -> Path:
    """A fresh virtual environment made by `python`, whose dependencies (golfref's, and pip) are this test run's
    own: a .pth file names them after the environment's own site-packages, where a package it installs goes
    first. Nothing is downloaded."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    (own,) = (venv / "lib").glob("python3.*/site-packages")
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (own / "zz-test-dependencies.pth").write_text("".join(f"{p}\n" for p in deps), encoding="utf-8")
    return venv


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """golfref's wheel in a fresh virtual environment, built once for the whole run (all xdist workers)."""
    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else None
    root = (shared or tmp_path_factory.getbasetemp()) / "wheel-user"
    root.mkdir(exist_ok=True)
    with open(root.parent / "wheel-user.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "installed"
        if done.is_file():
            return Installed(Path(done.read_text().split("\n")[0]), Path(done.read_text().split("\n")[1]))
        made = _install(root)
        done.write_text(f"{made.venv}\n{made.wheel}\n")
        return made


def _python_unreachable(installed: Installed) -> None:
    """Skip, saying why, where a sandboxed Python bot cannot run here: without bubblewrap, as root, each bot runs
    as a user of its own, which must reach the environment's base Python (a pyenv under a 0700 /root cannot be)."""
    from golfref.bots.sandbox import Access, others_cannot

    if bubblewrap_problem() is None or os.geteuid() != 0:
        return
    base = (installed.venv / "bin" / "python3").resolve()
    stop = others_cannot(base, Access.RUN)
    if stop is not None:
        pytest.skip(f"without bubblewrap, a sandboxed bot's own user cannot reach {base} here: {stop}")


def _ok(done: subprocess.CompletedProcess[str], what: str) -> str:
    assert done.returncode == 0, f"{what}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done.stdout


def test_the_installed_golfref_is_the_wheels(installed: Installed, shared: Path) -> None:
    assert _ok(installed.run("golfref --version", shared), "--version").strip() == f"golfref {__version__}"
    where = _ok(installed.run(["python3", "-c", "import golfref; print(golfref.__file__)"], shared), "import")
    assert Path(where.strip()).is_relative_to(installed.venv)
    assert not Path(where.strip()).is_relative_to(ROOT)


@pytest.mark.parametrize("lang", KIT_NAMES)
def test_an_init_project_runs_as_its_readme_says(lang: str, installed: Installed, shared: Path) -> None:
    usable(lang)
    if lang == "python":
        _python_unreachable(installed)
    _ok(installed.run(["golfref", "init", "bot", "--lang", lang], shared), "init")
    project = shared / "bot"
    readme = (project / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^## Run it\n\n```sh\n(.*?)^```$", readme, flags=re.M | re.S)
    commands = [line.split("#")[0].strip() for line in block.splitlines()]
    # The log's file name is the match's: the replay line names it by a placeholder, filled in here.
    sandbox = [] if bubblewrap_problem() is None else ["--no-sandbox"]  # sandboxed where bubblewrap is
    for command in commands:
        if command.startswith("golfref replay"):
            (log,) = (project / "logs").glob("*.json")
            command = command.replace("logs/<the log>.json", f"logs/{log.name}")
        if command.startswith("golfref tournament"):
            command = " ".join([command, "--quiet", *sandbox])
        output = _ok(installed.run(command, project), command)
        if command.startswith("golfref tournament"):
            assert "gate: pass:" in output, output
        if command.startswith("golfref check-bot"):
            assert re.search(r"^\d+ checks: \d+ passed, 0 failed", output, flags=re.M), output
    assert (project / "match.html").is_file()
    assert yaml.safe_load((project / "match.yaml").read_text())["players"][0]["name"] == "bot"
    if not sandbox:  # the project's CI runs the same from ci.sh, sandboxed
        _ok(installed.run("sh ci.sh", project), "ci.sh")
        assert (project / "check-bot.xml").is_file() and (project / "tournament.xml").is_file()


def test_the_readme_quick_start_runs_from_an_empty_folder(installed: Installed, shared: Path) -> None:
    _python_unreachable(installed)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Five minutes", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"^```sh\n(.*?)^```$", section, flags=re.M | re.S)
    done = installed.run(["sh", "-e", "-x", "-c", block], shared)
    _ok(done, "the README's quick start")
    assert "gate: pass:" in done.stdout
    assert (shared / "my-bot" / "first.html").is_file()


DOC_PAGES = sorted({c.page for c in doc_commands() if c.skip is None})


@pytest.mark.parametrize("page", DOC_PAGES)
def test_every_command_of_the_docs_runs_from_the_examples_it_wrote(
    page: str, installed: Installed, shared: Path
) -> None:
    # The commands tests/test_docs_commands.py runs in process, here with the wheel's `golfref` on PATH, in a
    # folder of examples that `golfref examples` wrote from the wheel's own package data.
    commands = [c for c in doc_commands() if c.page == page and c.skip is None]
    if any(c.argv[1] == "tournament" for c in commands):
        _python_unreachable(installed)
    for extra in {n for c in commands for n in c.needs}:
        pytest.importorskip({"cluster": "distributed", "rl": "gymnasium"}[extra], reason=f"needs the {extra} extra")
    _ok(installed.run(["golfref", "examples", "golf-examples"], shared), "golfref examples")
    examples = shared / "golf-examples"
    for command in commands:
        prepare(command, examples)
        done = installed.run(words(command, examples), examples / command.folder)
        where = f"{page}:{command.line}: $ {command.text}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert done.returncode in command.statuses, where
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, where
