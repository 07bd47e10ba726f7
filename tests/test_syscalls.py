"""System calls per bot decision, counted with strace (a count, not a timing: issue 11).

The referee's calls on the bots' pipes and its waits are counted for two matches that differ
only in their number of holes; the difference over the difference in bot decisions is the
cost of one decision, whatever a match costs to start and end.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import BOTS, ROOT

pytestmark = pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (apt-get install strace)")

TRACED = "read,write,epoll_wait,epoll_pwait,poll,ppoll,select,pselect6"
PER_DECISION_NOW = 4
"""A poll that finds nothing left of earlier lines before the request, the request's write,
a wait and a read of the answer: the count this test holds the referee to."""


def _traced_match(tmp_path: Path, holes: int, transcript: bool = False) -> tuple[dict[str, int], int]:
    """The referee process's pipe calls and waits by name, and its bot decisions, for one match."""
    log = tmp_path / f"m{holes}.json"
    config = tmp_path / f"m{holes}.yaml"
    config.write_text(
        f"match: m\nrules: {{preset: standard, holes: {holes}}}\nseed: 5\n"
        f"players:\n  - {{name: e, command: [{json.dumps(sys.executable)}, {json.dumps(str(BOTS / 'echo_bot.py'))}]}}\n"
        f"  - {{name: g, builtin: greedy}}\n"
        f"log: {{path: {json.dumps(str(log))}, transcript: {str(transcript).lower()}}}\n",
        encoding="utf-8",
    )
    trace = tmp_path / f"m{holes}.trace"
    done = subprocess.run(
        ["strace", "-f", "-y", "-e", f"trace={TRACED}", "-o", str(trace),
         sys.executable, "-m", "golfref", "run", str(config), "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    referee = lines[0].split()[0]
    counts: dict[str, int] = {}
    for line in lines:
        pid, call = (line.split(None, 1) + [""])[:2]  # strace pads a short pid with spaces
        name = call.split("(", 1)[0]
        if pid != referee or not re.match(r"[a-z_0-9]+\(", call):
            continue
        if name in ("read", "write") and "<pipe:" not in call.split(",", 1)[0]:
            continue  # files (the log, modules), not a bot's pipes
        counts[name] = counts.get(name, 0) + 1
    steps = [s for h in json.loads(log.read_text(encoding="utf-8"))["holes"] for s in h["steps"]]
    return counts, sum(1 for s in steps if s["by"] == "bot")


@pytest.mark.process
@pytest.mark.parametrize("transcript", [False, True], ids=["no-transcript", "transcript"])
def test_system_calls_per_bot_decision(tmp_path: Path, transcript: bool) -> None:
    # With transcripts the referee keeps each bot's stderr per request from what it reads anyway:
    # a bot that writes no stderr costs it no call more per decision.
    few, few_decisions = _traced_match(tmp_path, 1, transcript)
    many, many_decisions = _traced_match(tmp_path, 5, transcript)
    assert many_decisions - few_decisions > 50
    extra = sum(many.values()) - sum(few.values())
    per_decision = extra / (many_decisions - few_decisions)
    # Each hole also sends its end to the bot: a few calls a hole, a fraction per decision.
    assert per_decision <= PER_DECISION_NOW + 0.5, (per_decision, few, many)
    print(f"system calls per bot decision: {per_decision:.2f}")
    assert per_decision >= 2, (per_decision, few, many)  # a write and a read at the least: the count is real
