"""No bot plays two seatings of one deal set at the same time (golfref/tournament/schedule.py's `Release`, which
both executors hand their matches out through), watched in real tournaments on 2 local workers and on a
LocalCluster of 2 Dask workers.

Each bot notes when it started and ended (tests/bots/clock_bot.py) under a tag that the match's log keeps as the
name it reported, so every match's span is known from its own bots. The pool is a round robin of a, b and the
built-in g, where a and b run one program: every two matches of a deal set share a bot (a-b and a-g share a, a-g
and b-g share the program of a and b), so none of them may overlap; matches of different deal sets may, and with
two workers they do.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from golfref.config.tournament import parse_tournament
from golfref.record.log import read_log
from golfref.record.matchlog import read_match_log
from golfref.tournament.runner import run_tournament
from golfref.tournament.store import Store

from .conftest import BOTS

NO_CLUSTER = "the cluster extra is not installed: pip install -e .[cluster]"
PAUSE_S = 0.3  # each bot thinks this long on its first request: a match lasts long enough for another to start


def _config(tmp: Path, results: str, out: Path) -> Any:
    clock = json.dumps([sys.executable, str(BOTS / "clock_bot.py"), str(out), str(PAUSE_S)])
    text = (
        "tournament: mirrored\nrules: {preset: standard, layout: 2x2, holes: 1}\nplayers:\n"
        f"  - {{name: a, command: {clock}}}\n  - {{name: b, command: {clock}}}\n  - {{name: g, builtin: greedy}}\n"
        "deal_sets: 2\nseed: 11\nsandbox: {enabled: false}\ntime: {startup_ms: 60000, move_ms: 60000}\n"
        f"results: {results}\n"
    )
    return parse_tournament(text, base_dir=tmp)


def _spans(results: Path, out: Path) -> list[tuple[int, int, frozenset[str], int, int]]:
    """Per stored match: its index, deal set, bots (names and programs) and span, from its bots' notes."""
    notes: dict[tuple[str, str], int] = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        word, tag, ns = line.split()
        notes[word, tag] = int(ns)
    spans = []
    with Store(results, create=False) as store:
        matches = store.matches()
    for m in matches:
        log = read_match_log(read_log(results / m.log_path))
        tags = [p.reported_name for p in log.players if p.reported_name is not None]
        assert tags and all(("start", t) in notes and ("end", t) in notes for t in tags), (m.log_path, tags)
        bots = set()
        for player in log.players:
            if player.command is not None:
                bots.update({f"name:{player.name}", f"program:{json.dumps(player.command)}"})
        start, end = min(notes["start", t] for t in tags), max(notes["end", t] for t in tags)
        spans.append((m.record.match_index, m.record.deal_set, frozenset(bots), start, end))
    return spans


def _check(results: Path, out: Path) -> None:
    spans = _spans(results, out)
    assert sorted(s[0] for s in spans) == list(range(12))
    overlapping = [(x, y) for i, x in enumerate(spans) for y in spans[i + 1 :] if x[3] < y[4] and y[3] < x[4]]
    mirrored = [(x[0], y[0]) for x, y in overlapping if x[1] == y[1] and x[2] & y[2]]
    assert not mirrored, f"matches of one deal set sharing a bot were in flight together: {mirrored}"
    assert overlapping, "no two matches ever ran at once: the second worker was never used"


@pytest.mark.process
def test_two_local_workers_never_run_two_matches_of_a_deal_set_that_share_a_bot(tmp_path: Path) -> None:
    out = tmp_path / "clock.txt"
    result = run_tournament(_config(tmp_path, "local", out), workers=2)
    assert not result.errors and result.played == 12
    _check(tmp_path / "local", out)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of two worker processes (one thread each), closed afterwards."""
    distributed = pytest.importorskip("distributed", reason=NO_CLUSTER)
    lc = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=50,
    )
    try:
        yield lc.scheduler_address
    finally:
        lc.close()


@pytest.mark.process
def test_two_dask_workers_never_run_two_matches_of_a_deal_set_that_share_a_bot(tmp_path: Path, scheduler: str) -> None:
    from golfref.tournament.cluster import DaskExecutor

    out = tmp_path / "clock.txt"
    result = run_tournament(_config(tmp_path, "dask", out), executor=DaskExecutor(scheduler))
    assert not result.errors and result.played == 12
    _check(tmp_path / "dask", out)
