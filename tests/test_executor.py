"""The local executor's worker processes (golfref/tournament/executor.py): forked with the stop signals blocked
until their own handlers are in place, so that a stop never raises in a copy of the parent's stack."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from golfref.config.tournament import parse_tournament
from golfref.match.stopping import STOP_SIGNALS
from golfref.tournament import executor
from golfref.tournament.runner import match_config
from golfref.tournament.schedule import schedule

_at_start: set[int] = set()  # in a worker: the signals blocked when its initializer began


def _recording_init(*args: Any) -> None:
    _at_start.update(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    real_init(*args)


def _masks(job: Any) -> tuple[set[int], set[int]]:
    return set(_at_start), set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


real_init = executor._worker_init


@pytest.mark.process
def test_workers_start_with_the_stop_signals_blocked_and_unblock_them_once_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "tournament: t\nplayers:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\ndeal_sets: 1\n"
    cfg = parse_tournament(text, base_dir=tmp_path)
    specs = schedule(cfg, seed=0)  # the config names none: a tournament would draw one
    jobs = [executor.MatchJob(s.index, s.deal_set, match_config(cfg, s), tmp_path / s.log_name) for s in specs]
    monkeypatch.setattr(executor, "_worker_init", _recording_init)  # forked workers see the patches too
    monkeypatch.setattr(executor, "_play", _masks)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    runner = executor.LocalExecutor(1)
    try:
        outcomes: list[Any] = list(runner.run(jobs))
    finally:
        runner.close()
    assert outcomes
    for at_start, playing in outcomes:
        assert set(STOP_SIGNALS) <= at_start  # a stop sent at the fork waits for the worker's handlers
        assert not set(STOP_SIGNALS) & playing  # and a match (and its bots) gets them
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before  # the tournament's own mask is as it was
