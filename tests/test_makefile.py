"""The Makefile's environment: a .venv made with a Python older than requires-python is
rebuilt, not reused. Runs the real Makefile in a temporary folder with stub pythons, so no
virtual environment is made and nothing is downloaded."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def stub_python(path: Path, version: str, calls: Path) -> None:
    """A `python` that reports `version`, logs its arguments, and otherwise does nothing."""
    major, minor = (int(part) for part in version.split(".")[:2])
    too_old = (major, minor) < (3, 11)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f'echo "$0 $*" >> {calls}\n'
        f'case "$1" in -V|--version) echo "Python {version}"; exit 0;; esac\n'
        # `-c CODE` is only the Makefile's version check: answer it as that python would.
        f'if [ "$1" = -c ]; then exit {1 if too_old else 0}; fi\n'
        # `-m venv DIR`: make DIR/bin/python, a python of the same version.
        'if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
        '  mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0\n'
        "fi\n"
        "exit 0\n",  # `-m pip install ...`: nothing to do
        encoding="utf-8",
    )
    path.chmod(0o755)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def make(project: Path, python: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", f"PYTHON={python}", *targets],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.process
def test_a_venv_with_an_old_python_is_rebuilt(project: Path) -> None:
    calls = project / "calls.log"
    stub_python(project / ".venv" / "bin" / "python", "3.10.4", calls)
    (project / ".venv" / ".installed").touch()  # installed once, and up to date for make
    python = project / "host" / "python3"
    stub_python(python, "3.12.1", calls)

    result = make(project, python, "install")
    assert result.returncode == 0, result.stderr
    message = (
        f"make: .venv has Python 3.10.4 but golfref needs Python 3.11 or newer: rebuilding it with {python}\n"
    )
    assert result.stdout == message
    assert "Python 3.12.1" in subprocess.run(
        [project / ".venv" / "bin" / "python", "-V"], capture_output=True, text=True
    ).stdout
    log = calls.read_text(encoding="utf-8")
    assert f"{python} -m venv .venv" in log
    assert "-m pip install --quiet -e .[test,cluster,rl]" in log
    assert (project / ".venv" / ".installed").exists()

    # Once rebuilt, the environment is reused: no message, no new venv.
    calls.unlink()
    again = make(project, python, "install")
    assert again.returncode == 0, again.stderr
    assert "rebuilding" not in again.stdout
    assert "-m venv" not in calls.read_text(encoding="utf-8")


@pytest.mark.process
def test_an_old_host_python_is_refused_with_a_hint(project: Path) -> None:
    python = project / "host" / "python3"
    stub_python(python, "3.9.18", project / "calls.log")
    result = make(project, python, "install")
    assert result.returncode != 0
    assert (
        f"make: {python} is Python 3.9.18 but golfref needs Python 3.11 or newer: "
        "run make PYTHON=python3.11 (or newer)"
    ) in result.stdout
    assert not (project / ".venv").exists()  # not left behind to be reused


@pytest.mark.process
def test_the_minimum_is_read_from_pyproject(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('requires-python = ">=3.11"', 'requires-python = ">=3.13"'),
        encoding="utf-8",
    )
    python = project / "host" / "python3"
    stub_python(python, "3.12.1", project / "calls.log")  # the stub's check answers for 3.11
    result = make(project, python, "-pn", "install")
    assert "MIN_PYTHON := 3.13" in result.stdout


@pytest.mark.process
def test_demo_installs_what_a_match_needs_and_install_everything(project: Path) -> None:
    calls = project / "calls.log"
    python = project / "host" / "python3"
    stub_python(python, "3.12.1", calls)
    # `make demo` first needs the run install: golfref and its dependencies, none of the extras.
    assert make(project, python, ".venv/.installed-run").returncode == 0
    log = calls.read_text(encoding="utf-8")
    assert "-m pip install --quiet -e .\n" in log and "[test" not in log
    for folder in ("golfref/kit", "kits/python", "sample_matches/bots"):  # what `samples` copies
        (project / folder).mkdir(parents=True)
    (project / "golfref/kit/golfbot.py").write_text("")
    demo = make(project, python, "-n", "demo").stdout
    assert "pip install" not in demo and ".venv/bin/golfref run sample_matches/quickstart.yaml" in demo
    # `make install` (and `make test`) adds the extras, and the run install counts as done with it.
    assert make(project, python, "install").returncode == 0
    assert "-m pip install --quiet -e .[test,cluster,rl]" in calls.read_text(encoding="utf-8")
    assert make(project, python, "-q", ".venv/.installed-run").returncode == 0
