"""The Dask back end's cost: a 200-match round robin of instant bots on 2 local workers and on a
LocalCluster of 2 Dask workers (the per-match overhead of the cluster), and on 1 and 2 Dask
workers (the scaling); a 100-match one on 2 Dask workers with the scheduling rule and without it
(its cost there); and the time control on workers loaded to their match slots: bots that think
50 ms (on their CPU) under a 100 ms limit, every timeout counted.

Each cluster is started before it is timed and warmed up by a small tournament (its workers'
match processes start once and are reused, as in a long tournament). The runs take turns,
`repeats` times, each keeping its fastest, but for the rule's, which take turns as in
`bench/tournament.py` and give medians; the load average is printed before and after.
"""

from __future__ import annotations

import contextlib
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from golfref.config.tournament import parse_tournament
from golfref.record.faults import FaultKind
from golfref.record.log import read_log
from golfref.record.matchlog import read_match_log
from golfref.tournament.executor import Executor
from golfref.tournament.runner import run_tournament

from .tournament import _config, _load, _without_the_rule

THINKING_BOT = Path(__file__).resolve().parent / "thinking_bot.py"


def thinking_timeouts(scheduler: str, matches: int) -> tuple[int, int, int]:
    """A tournament of bots thinking 50 ms under a 100 ms limit on the cluster: (timeouts, decisions, matches)."""
    bot = f"[{json.dumps(sys.executable)}, {json.dumps(str(THINKING_BOT))}]"
    from golfref.tournament.cluster import DaskExecutor

    with tempfile.TemporaryDirectory() as tmp:
        text = (
            "tournament: thinking\nrules: {preset: standard, holes: 1}\n"
            f"players:\n  - {{name: a, command: {bot}}}\n  - {{name: b, command: {bot}}}\n"
            f"deal_sets: {matches // 2}\nseed: 3\nresults: {json.dumps(tmp)}\n"
            "time: {move_ms: 100, grace_ms: 0}\nsandbox: {enabled: false}\n"
        )
        result = run_tournament(parse_tournament(text, source="bench"), executor=DaskExecutor(scheduler))
        timeouts = decisions = 0
        for log in Path(tmp, "logs").glob("*.json"):
            read = read_match_log(read_log(log))
            timeouts += sum(1 for f in read.faults if f.kind is FaultKind.TIMEOUT)
            decisions += sum(1 for _, s in read.decisions() if s.request is not None)
    return timeouts, decisions, len(result.records)


def _timed(matches: int, executor: Callable[[], Executor | None], workers: int = 2) -> float:
    """Wall-clock seconds of the whole tournament."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = _config(matches, tmp)
        start = time.perf_counter()
        result = run_tournament(cfg, workers=workers, executor=executor())
        elapsed = time.perf_counter() - start
        assert len(result.records) == matches, result.errors
    return elapsed


def _rule_cost(scheduler: str, matches: int, repeats: int) -> tuple[float, float]:
    """Median seconds of the round robin on the cluster with the scheduling rule and without, taking turns
    (which goes first alternates: a burst of load from elsewhere falls on both alike)."""
    from golfref.tournament.cluster import DaskExecutor

    runs: dict[bool, list[float]] = {True: [], False: []}
    for i in range(repeats):
        for rule in (True, False) if i % 2 == 0 else (False, True):
            with contextlib.nullcontext() if rule else _without_the_rule():
                runs[rule].append(_timed(matches, lambda: DaskExecutor(scheduler)))
    return statistics.median(runs[True]), statistics.median(runs[False])


def run(quick: bool = False) -> None:
    """Print matches/s on local and on Dask workers, the overhead per match, and the scaling to 2 Dask workers."""
    from distributed import LocalCluster

    from golfref.tournament.cluster import DaskExecutor, quiet_dask_logs

    quiet_dask_logs()
    matches, repeats = (40, 1) if quick else (200, 2)
    print(f"cluster: {matches}-match round robin of two instant bots (1 hole each), best of {repeats}; {_load()}")
    clusters = {
        n: LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": ":0"},
            silence_logs=logging.CRITICAL,
        )
        for n in (1, 2)
    }
    try:
        timeouts, decisions, played = thinking_timeouts(clusters[2].scheduler_address, 4 if quick else 12)
        print(
            f"  2 Dask workers, one match slot each (their cores: 1 thread), bots thinking 50 ms under move_ms 100 "
            f"(grace 0): {timeouts} timeouts in {decisions} decisions of {played} matches (goal: 0)"
        )
        runs: dict[str, list[float]] = {"local": [], "dask1": [], "dask2": []}
        for n, lc in clusters.items():
            _timed(2 * n, lambda lc=lc: DaskExecutor(lc.scheduler_address))  # warm-up: the match processes start
        for _ in range(repeats):
            runs["local"].append(_timed(matches, lambda: None))
            for n, lc in clusters.items():
                runs[f"dask{n}"].append(_timed(matches, lambda lc=lc: DaskExecutor(lc.scheduler_address)))
        rule = _rule_cost(clusters[2].scheduler_address, matches // 2, 2 if quick else 5)
    finally:
        for lc in clusters.values():
            lc.close()
    local, one, two = (min(v) for v in runs.values())
    print(f"  2 local workers: {matches / local:.1f} matches/s; 2 Dask workers: {matches / two:.1f} matches/s")
    print(f"  Dask's overhead per match over local workers (2 each, wall clock):"
          f" {(two - local) / matches * 1000:+.1f} ms, {(two - local) / local:+.1%} (goal <= 10%)")  # fmt: skip
    print(f"  1 Dask worker: {matches / one:.1f} matches/s; 2: {matches / two:.1f} matches/s "
          f"({one / two:.2f}x, goal >= 1.8x on two cores)")  # fmt: skip
    on, off = rule
    print(f"  the scheduling rule, 2 Dask workers, {matches // 2}-match round robin: {matches // 2 / on:.1f} "
          f"matches/s with it, {matches // 2 / off:.1f} without ({on / off:.2f}x the time), medians of "
          f"{2 if quick else 5} each, in turn")  # fmt: skip
    print(f"  after: {_load()}")
