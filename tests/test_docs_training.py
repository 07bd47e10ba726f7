"""docs/TRAINING.md keeps its promises: train, play in process, export, check-bot, a sandboxed gauntlet.

Every console command of the page runs in a fresh folder of examples (`golfref examples`), in
order, as a user types it, with fewer training episodes and deal sets than the page's own run (its
figures come from that run, not from here); the Python example runs there too. The exported bot
and the policy in process must choose alike at every request of a match the tournament played.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from golfref.kit import golfbot
from golfref.tools.rerun import load_script

from .conftest import ROOT, system_first_path, write_examples

pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install golfref[rl])")
pytestmark = [pytest.mark.process]

PAGE = (ROOT / "docs" / "TRAINING.md").read_text(encoding="utf-8")
EPISODES, DEAL_SETS = 20, 2


def blocks(kind: str) -> list[str]:
    """The page's fenced blocks of `kind`, in order."""
    return re.findall(rf"```{kind}\n(.*?)```", PAGE, flags=re.S)


def console_steps() -> list[tuple[str, list[str]]]:
    """Each `$ command` of the page's console blocks, with the lines it shows."""
    steps: list[tuple[str, list[str]]] = []
    for block in blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def run(argv: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": system_first_path(), "HOME": str(folder), "LANG": "C.UTF-8"}
    return subprocess.run(argv, cwd=folder, capture_output=True, text=True, env=env, timeout=600, check=False)


def test_every_step_of_the_page_runs_and_the_bot_plays_as_the_policy(shared: Path) -> None:
    # A folder every user may enter: the tournament sandboxes its bot, as a user of its own when run as root.
    tmp_path = write_examples(shared)
    for command, shown in console_steps():
        argv = shlex.split(command.replace("--episodes 3000", f"--episodes {EPISODES}"))
        if argv[0] == "cd":
            tmp_path = tmp_path / argv[1]
            config = tmp_path / "arena.yaml"
            continue
        if argv[0] == "python":
            argv[0] = sys.executable  # the environment needs the rl extra: this interpreter's
        elif argv[0] == "golfref":
            argv = [sys.executable, "-m", "golfref", *argv[1:]]
        if argv[-1] == "arena.yaml":  # fewer deal sets than the page's run
            data = yaml.safe_load(config.read_text(encoding="utf-8"))
            config.write_text(yaml.safe_dump({**data, "deal_sets": DEAL_SETS}), encoding="utf-8")
            config.chmod(0o600)  # as the page says: the seed is not for the bot's own user to read
        done = run(argv, tmp_path)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
        expected = [line.replace("3000 matches", f"{EPISODES} matches") for line in shown]
        assert done.stdout.splitlines()[: len(expected)] == expected, command
        if "check-bot" in argv:
            assert re.fullmatch(r"(\d+) checks: \1 passed, 0 failed", done.stdout.splitlines()[-2]), done.stdout
            assert re.fullmatch(r"house options: (\d+) checks: \1 passed, 0 failed", done.stdout.splitlines()[-1])
        if "tournament" in argv:
            assert re.search(r"^trained +random +2 ", done.stdout, flags=re.M), done.stdout
    # The tournament sandboxed its bot, and it chose at each request what the policy chooses in process.
    logs = sorted((tmp_path / "tournaments").rglob("*.json"))
    played = [p for p in logs if '"command"' in p.read_text(encoding="utf-8") and "trained" in p.read_text()]
    assert played, logs
    log = json.loads(played[0].read_text(encoding="utf-8"))
    seat = next(i for i, p in enumerate(log["players"]) if p["name"] == "trained")
    assert log["players"][seat]["sandbox"]["enabled"] is True
    sys.path.insert(0, str(tmp_path))
    try:
        from agent import agent  # the policy, in this process

        logged, chosen = [], []
        rules = time = None
        for message in load_script(str(played[0]), seat).messages:
            data = json.loads(message.line)
            if message.kind == "hello":
                rules, time = golfbot.Rules.from_json(data["rules"]), golfbot.TimeControl.from_json(data["time"])
            elif message.kind == "request":
                assert rules is not None and time is not None and message.expected is not None
                logged.append(message.expected.action)
                chosen.append(agent.choose(golfbot.View.from_request(data, rules, time), data["legal"]))
        assert logged and logged == chosen
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("agent", None)


def test_the_python_example_plays_the_policy_in_process(tmp_path: Path) -> None:
    tmp_path = write_examples(tmp_path) / "arena"
    assert run([sys.executable, "train.py", "--episodes", "5"], tmp_path).returncode == 0
    (example,) = blocks("python")[1:]  # the first block quotes agent.py
    (tmp_path / "example.py").write_text(example, encoding="utf-8")
    done = run([sys.executable, "example.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "(<SeatStatus.OK: 'ok'>, <SeatStatus.OK: 'ok'>) 0\n"
