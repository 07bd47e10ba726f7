"""The live line of `golfref run`: on a terminal only, never with --quiet or --json."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from golfref.show.progress import clock_text, estimate_left, progress_text

ROOT = Path(__file__).resolve().parent.parent
LIVE_MARK = "elapsed"  # only the live line says it

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a pseudo-terminal")

CONFIG = """\
match: progress
rules: {preset: standard, holes: 2}
seed: 7
players:
  - {name: greedy, builtin: greedy}
  - {name: rando, builtin: random}
"""


def run(tmp_path: Path, *args: str, tty: bool) -> tuple[int, str, str]:
    """Run `golfref run` with stderr on a pseudo-terminal (or a pipe); returns (code, stdout, stderr)."""
    config = tmp_path / "match.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    command = [sys.executable, "-m", "golfref.cli.app", "run", str(config), "--log", str(tmp_path / "log.json"), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    if not tty:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, env=env
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert process.stdout is not None
        stdout = process.stdout.read().decode()
        code = process.wait(timeout=60)
    return code, stdout, b"".join(chunks).decode()


@pytest.mark.process
def test_live_line_on_a_terminal(tmp_path: Path) -> None:
    code, stdout, stderr = run(tmp_path, tty=True)
    assert code == 0, stderr
    assert "hole 0 of 0-1 · turn 0 · " in stderr
    assert "hole 1 of 0-1 · turn 0 · " in stderr
    assert "~" in stderr.split("hole 1 of 0-1 ·", 1)[1]  # an estimate once a hole has been timed
    assert "totals: greedy " in stderr
    # The hole-end lines stay, one a hole, and the standings on stdout are untouched.
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stderr).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    hole_ends = {line for line in lines if "rando" in line and LIVE_MARK not in line}
    assert len(hole_ends) == 2, lines
    assert stdout.startswith("place") and "\x1b" not in stdout


@pytest.mark.process
@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_no_live_line_with_quiet_or_json(tmp_path: Path, flag: str) -> None:
    code, stdout, stderr = run(tmp_path, flag, tty=True)
    assert code == 0, stderr
    assert LIVE_MARK not in stderr and "\x1b" not in stderr
    if flag == "--json":
        assert json.loads(stdout)["players"][0]["name"] == "greedy"


@pytest.mark.process
def test_no_live_line_off_a_terminal(tmp_path: Path) -> None:
    code, stdout, stderr = run(tmp_path, tty=False)
    assert code == 0, stderr
    assert LIVE_MARK not in stderr and "\x1b" not in stderr
    assert len(stderr.splitlines()) == 2  # one line per hole, as before


def test_estimate_comes_from_the_holes_played() -> None:
    assert estimate_left(5.0, [], 9) is None  # nothing timed yet
    # 2 holes in 20 s: 10 s a hole; 7 holes left, 4 s into the third.
    assert estimate_left(24.0, [8.0, 20.0], 9) == pytest.approx(66.0)
    assert estimate_left(100.0, [8.0, 20.0], 3) == 0.0  # a slow last hole never goes negative


def test_progress_text() -> None:
    line = progress_text(2, 9, 14, ["a", "b\x1b[2J"], [12, 30], 42.4, 65.0)
    assert line == "hole 2 of 0-8 · turn 14 · 0:42 elapsed, ~1:05 left · totals: a 12, b\\x1b[2J 30"
    assert "estimating" in progress_text(0, 9, 0, ["a"], [0], 1.0, None)
    assert clock_text(3725) == "1:02:05"
