"""The CI gate of docs/TOURNAMENTS.md runs as written: its GitHub Actions workflow's steps, played here.

The runner's Python (actions/setup-python: an installation under /opt/hostedtoolcache) is a
copy of the system's Python installed outside /usr (tests/test_sandbox_python's interpreters),
and a fresh virtual environment over it stands for what that action puts first on PATH: the
workflow's own `python -m pip install ci/golfref-...whl` installs golfref's wheel into it. pip
and golfref's dependencies are this test run's own, named by a .pth file, and pip is told to use
no index (the runner downloads them; this machine may not). The steps run in a folder laid out as
the page says (ci/gate.yaml, the wheel, two bots), with bubblewrap and without it (hidden by a
mount over it, as on a machine that lacks it); the apt-get step is what those two stand for, and
the `uses:` steps are the set-up above. A bot project's own workflow (`golfref init`) is played
the same way, as a hosted runner's ordinary user without bubblewrap (tests/test_wheel_user.py
runs its ci.sh with bubblewrap).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
from pathlib import Path

import pytest
import yaml

from golfref.bots.sandbox import bubblewrap_problem
from tests.test_sandbox_python import Pythons, interpreters  # noqa: F401 - the fixture, shared
from tests.test_wheel_user import Installed, installed, venv_with_test_dependencies  # noqa: F401 - the fixture

from .conftest import ROOT, private_to_root
from .test_junit import SCHEMA

pytestmark = pytest.mark.process

TOURNAMENTS_MD = (ROOT / "docs" / "TOURNAMENTS.md").read_text(encoding="utf-8")


def _block(starts: str) -> str:
    (block,) = [
        b for b in re.findall(r"^```yaml\n(.*?)^```$", TOURNAMENTS_MD, flags=re.M | re.S) if b.startswith(starts)
    ]
    return block


@pytest.fixture
def runner(interpreters: Pythons, shared: Path) -> Path:  # noqa: F811 - the imported fixture, used
    """A fresh virtual environment over the Python installed outside /usr, as `shared/python`: a folder every user
    may enter (without bubblewrap, as root, each bot runs as a user of its own, on that Python)."""
    venv_with_test_dependencies(interpreters.python, shared / "python")
    return shared


def _steps(workflow: str) -> list[str]:
    """The `run:` steps a machine of the test plays: all but the one that installs bubblewrap."""
    (job,) = yaml.safe_load(workflow)["jobs"].values()
    return [step["run"] for step in job["steps"] if "run" in step and "apt-get" not in step["run"]]


NOBODY = 65534


def _play(
    steps: list[str], cwd: Path, python: Path, bubblewrap: bool, user: str
) -> list[subprocess.CompletedProcess[str]]:
    """Run each step as the runner's shell would, in `cwd`, `python`'s environment first on PATH, as `user`
    (`root`, or `ordinary`: nobody, as a hosted runner's user has no privileges); stop at a failure."""
    if bubblewrap and bubblewrap_problem() is not None:
        pytest.skip(f"needs bubblewrap: {bubblewrap_problem()}")
    hide: list[str] = []
    if not bubblewrap and shutil.which("bwrap") is not None:
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            pytest.skip("hiding bubblewrap needs root and unshare (a mount namespace of the test's own)")
        hide = ["unshare", "-m", "sh", "-c", f'mount --bind /dev/null {shutil.which("bwrap")} && exec "$@"', "sh"]
    if user == "ordinary":
        if os.geteuid() != 0 or shutil.which("setpriv") is None:
            pytest.skip("needs root and setpriv, to play the steps as an ordinary user")
        unreadable = private_to_root(*site.getsitepackages(), python)
        if unreadable:
            pytest.skip(unreadable)
        for folder in [cwd.parent, *cwd.parent.rglob("*")]:
            os.lchown(folder, NOBODY, NOBODY)
        hide += ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(PATH=f"{python / 'bin'}{os.pathsep}{os.environ.get('PATH') or os.defpath}", PIP_NO_INDEX="1",
               PIP_NO_DEPS="1")  # fmt: skip
    done = []
    for step in steps:
        ran = subprocess.run(
            [*hide, "bash", "-e", "-c", step], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        done.append(ran)
        if ran.returncode != 0:
            break
    return done


@pytest.mark.parametrize(
    ("bubblewrap", "user"), [(True, "root"), (False, "ordinary"), (False, "root")],
    ids=["bubblewrap", "no-bubblewrap", "no-bubblewrap-root"],
)  # fmt: skip
def test_the_docs_ci_gate_passes_on_the_runners_python(
    bubblewrap: bool,
    user: str,
    runner: Path,
    installed: Installed,  # noqa: F811 - the imported fixture, used
    interpreters: Pythons,  # noqa: F811 - the imported fixture, used
) -> None:
    repo = runner / "repo"
    (repo / "ci").mkdir(parents=True)
    (repo / "ci" / "gate.yaml").write_text(_block("# ci/gate.yaml\n"), encoding="utf-8")
    shutil.copy(installed.wheel, repo / "ci" / installed.wheel.name)
    (repo / "bots").mkdir()
    samples = ROOT / "sample_matches" / "bots"
    for name, sample in (
        ("new_bot.py", "greedy_bot.py"),
        ("old_bot.py", "random_bot.py"),
        ("golfbot.py", "golfbot.py"),
    ):
        shutil.copy(samples / sample, repo / "bots" / name)
    workflow = _block("# .github/workflows/")
    steps = _steps(workflow)
    assert steps[0] == f"python -m pip install ci/{installed.wheel.name}", "the page names the wheel of this golfref"
    done = _play(steps, repo, runner / "python", bubblewrap, user)
    assert [d.returncode for d in done] == [0] * len(steps), done[-1].stdout[-3000:] + done[-1].stderr[-3000:]
    assert re.search(r"^gate: pass: new - old = -\d+\.\d{3} points per hole", done[-1].stdout, flags=re.M)
    SCHEMA.validate(str(repo / "gate.xml"))
    # The bots ran on the runner's Python, by its own installation's interpreter.
    (log, *_) = sorted((repo / "tournaments" / "gate").rglob("m*.json"))
    ran = json.loads(log.read_text(encoding="utf-8"))["players"][0]["sandbox"]
    assert ran["enabled"] and ran["bubblewrap"] == bubblewrap
    assert Path(ran["interpreter"]["executable"]).resolve() == interpreters.python.resolve()


def test_a_bot_projects_own_workflow_passes_on_the_runners_python(
    runner: Path,
    installed: Installed,  # noqa: F811 - the imported fixture, used
    interpreters: Pythons,  # noqa: F811 - the imported fixture, used
) -> None:
    # `golfref init` from the installed wheel, a Python bot: its workflow installs the wheel init saved and
    # runs ci.sh (the bot built, checked in every situation, gated against random), on the runner's Python.
    made = installed.run(["golfref", "init", "repo", "--lang", "python"], runner)
    assert made.returncode == 0, made.stderr
    repo = runner / "repo"
    steps = _steps((repo / ".github" / "workflows" / "golfref.yml").read_text(encoding="utf-8"))
    assert steps == [f"python -m pip install ci/{installed.wheel.name}", "sh ci.sh"]
    done = _play(steps, repo, runner / "python", bubblewrap=False, user="ordinary")
    assert [d.returncode for d in done] == [0, 0], done[-1].stdout[-3000:] + done[-1].stderr[-3000:]
    assert "gate: pass: repo - random" in done[-1].stdout
    for report in ("check-bot.xml", "tournament.xml"):
        SCHEMA.validate(str(repo / report))
