"""The start-up benchmark's clocks: the bots' stamps reach it through the log and the bare loop, in order."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import botstart
from bench.referee import BOT

pytestmark = pytest.mark.process


def test_a_bot_stamps_its_first_request_and_its_last_answer() -> None:
    lines = ['{"type":"hello"}', *(f'{{"type":"request","id":{i},"legal":["stock"]}}' for i in (1, 2)),
             '{"type":"goodbye"}']  # fmt: skip
    done = subprocess.run([sys.executable, str(BOT), "--stamps"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert done.stdout.count('"type": "answer"') == 2
    first, last = botstart._stamps([done.stderr])
    assert 0 < first <= last
    quiet = subprocess.run([sys.executable, str(BOT)], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert quiet.stderr == ""  # without --stamps the bot is the referee benchmarks' opponent, unchanged


def test_a_run_and_the_bare_loop_each_give_a_start_a_shutdown_and_a_cpu_time(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(BOT, bots / BOT.name)
    command = [sys.executable, str(bots / BOT.name), "--stamps"]
    spec = botstart._bare_spec(tmp_path, bots, command)
    config = botstart._config(tmp_path, bots, command, sandbox=False, transcript=False)
    for start, stop, cpu in (botstart.golfref_run(config), botstart.bare_run(spec)):
        assert start > 0 and stop > 0 and cpu > 0
    assert not list(bots.glob("*.json")) and sorted(p.name for p in bots.iterdir()) == [BOT.name]


def test_the_start_split_times_each_fresh_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = botstart.start_split(1, tmp_path)
    assert list(split) == list(botstart.SPLIT)
    assert all(wall > 0 and cpu > 0 for wall, cpu in split.values())
    printed = capsys.readouterr().out
    assert all(label in printed for label in botstart.SPLIT)
    assert not list(tmp_path.iterdir())  # the typer app does nothing, and nothing is left


def test_the_typer_app_fails_as_typer_does_on_a_missing_argument() -> None:
    done = subprocess.run([sys.executable, str(botstart.TYPER_APP), "run"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Missing argument" in done.stderr
