"""The sandbox's cost: per-decision round trip and bot start-up, sandbox on against off.

Both sides run the very same instant bot under the same system interpreter (the sandbox
shows /usr, not a virtual environment), with the same seed and config but for the
`sandbox` section; runs are interleaved so that the machine's load falls on both alike.
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import tempfile
import time

from golfref.bots.sandbox import bubblewrap_problem
from golfref.config.match import parse_config
from golfref.match.referee import _Referee
from golfref.record.matchlog import Chooser, read_match_log

from .referee import BOT

PYTHON = "/usr/bin/python3"


def _config(log_dir: str, holes: int, sandbox: bool):
    seats = "\n".join(f"  - {{name: bot{i}, command: [{PYTHON}, {json.dumps(str(BOT))}]}}" for i in range(2))
    text = (
        f"match: bench\nrules: {{preset: standard, holes: {holes}}}\nseed: 11\nplayers:\n{seats}\n"
        f"log:\n  path: {json.dumps(log_dir + '/{match_id}.json')}\n"
    )
    config = parse_config(text, source="bench")
    return dataclasses.replace(config, sandbox=config.sandbox.switched(sandbox))


def _match(log_dir: str, holes: int, sandbox: bool) -> tuple[float, float]:
    """One 2-bot match: (ms to set up and start both bots and have them ready, us per bot decision)."""
    referee = _Referee(_config(log_dir, holes, sandbox), None, None, None)
    start = time.perf_counter()
    referee.box_bots(())  # leasing the user ids and building the command lines is start-up too
    try:
        referee.start()
        started = time.perf_counter() - start
        start = time.perf_counter()
        referee.play()
        elapsed = time.perf_counter() - start
        result = referee.finish()
    finally:
        referee.release_sandboxes()
    decisions = sum(1 for _, s in read_match_log(result.log).decisions() if s.by is Chooser.BOT)
    for name in os.listdir(log_dir):
        os.unlink(os.path.join(log_dir, name))
    return started * 1000, elapsed / decisions * 1e6


def run(quick: bool = False) -> None:
    """Print the sandbox benchmark figures."""
    print("sandbox: bubblewrap, own user, limits; on against off")
    problem = bubblewrap_problem()
    if problem is not None or not os.path.exists(PYTHON):
        print(f"  skipped: {problem or PYTHON + ' is missing'}")
        return
    repeats = 5 if quick else 11
    holes = 3 if quick else 9
    on_start, off_start, on_rt, off_rt = [], [], [], []
    with tempfile.TemporaryDirectory() as log_dir:
        _match(log_dir, 1, True)  # warm the caches of both paths once
        _match(log_dir, 1, False)
        for _ in range(repeats):
            for sandbox, starts, trips in ((True, on_start, on_rt), (False, off_start, off_rt)):
                ms, us = _match(log_dir, holes, sandbox)
                starts.append(ms)
                trips.append(us)
    rt_on, rt_off = statistics.median(on_rt), statistics.median(off_rt)
    st_on, st_off = statistics.median(on_start), statistics.median(off_start)
    print(
        f"  round trip per decision: on {rt_on:.1f} us, off {rt_off:.1f} us, ratio {rt_on / rt_off:.2f}x "
        f"(goal <= 1.1x; medians of {repeats} interleaved {holes}-hole matches)"
    )
    print(
        f"  start-up of 2 bots to ready: on {st_on:.1f} ms, off {st_off:.1f} ms, "
        f"+{(st_on - st_off) / 2:.1f} ms per bot (goal <= +50 ms)"
    )
