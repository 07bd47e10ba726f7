"""The whole-run benchmark's accounting times the process layer without changing it, and accounts for all of a match."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

import pytest

from bench import wholerun
from bench.referee import BOT
from golfref.bots import bot_process, multiplex

pytestmark = pytest.mark.process


def test_the_buckets_add_up_to_the_match_and_the_patches_are_undone(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    send, read_line = bot_process.BotProcess.send, multiplex.BotPool.read_line
    config = wholerun._config(tmp_path, [sys.executable, str(BOT)], 1, sandbox=False, transcript=False)
    elapsed, buckets, decisions = wholerun._match_spent(config)
    assert decisions > 0
    assert set(buckets) == {"write", "read", "wait", "poll", "layer", "referee"}
    # Every system call of a decision was seen, and the buckets split the match's time, no more.
    assert all(buckets[k] > 0 for k in ("write", "read", "wait", "poll"))
    assert sum(buckets.values()) == pytest.approx(elapsed)
    assert bot_process.os is os and multiplex.select is select and bot_process.select is select
    assert bot_process.BotProcess.send is send and multiplex.BotPool.read_line is read_line


def test_a_pinned_round_runs_every_process_on_the_one_cpu_and_restores_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed = os.sched_getaffinity(0)
    one = {min(allowed)}
    seen: list[set[int]] = []

    def fake_run(config: Path) -> tuple[float, int, Path]:
        seen.append(os.sched_getaffinity(0))  # what a child started now would inherit
        return (2.0 if "h21" in config.name else 1.0), (20 if "h21" in config.name else 10), tmp_path

    def fake_bare(requests: object, rounds: int, bot: tuple[str, ...]) -> float:
        seen.append(os.sched_getaffinity(0))
        return 5.0

    monkeypatch.setattr(wholerun, "_run", fake_run)
    monkeypatch.setattr(wholerun, "_requests", lambda log: [])
    monkeypatch.setattr(wholerun, "baseline_round_trip", fake_bare)
    ref, base, extra = wholerun.per_decision(tmp_path, ["bot"], False, rounds=2, cpus=one)
    assert (ref, base, extra) == (1e5, 5.0, 10)
    assert seen[0] == allowed  # the recording run is not pinned
    assert seen[1:] == [one] * 6
    assert os.sched_getaffinity(0) == allowed
