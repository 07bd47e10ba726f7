"""Tournament speed: matches/s of a 200-match round robin of instant bots with 1 and 2 workers,
and the tournament's overhead per match beyond `run_match` itself.

The overhead is measured against the same matches played one after another by `run_match`
in this process (no pool, no store, no resume check): with one worker the difference is
what the tournament adds (scheduling, the process pool, pickling, SQLite, the progress).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from golfref.referee import run_match
from golfref.schedule import match_config, schedule
from golfref.tournament import run_tournament
from golfref.tournament_config import parse_tournament

HERE = Path(__file__).resolve().parent
BOT = HERE / "instant_bot.py"


def _config(matches: int, directory: str):
    bot = f"[{json.dumps(sys.executable)}, {json.dumps(str(BOT))}]"
    text = (
        "tournament: bench\nrules: {preset: standard, holes: 1}\n"
        f"players:\n  - {{name: a, command: {bot}}}\n  - {{name: b, command: {bot}}}\n"
        f"deal_sets: {matches // 2}\nseed: 1\nresults: {json.dumps(directory)}\n"
    )
    return parse_tournament(text, source="bench")


def _tournament(matches: int, workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = _config(matches, tmp)
        start = time.perf_counter()
        result = run_tournament(cfg, workers=workers)
        elapsed = time.perf_counter() - start
        assert len(result.records) == matches, result.errors
    return elapsed


def _direct(matches: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = _config(matches, tmp)
        start = time.perf_counter()
        for spec in schedule(cfg):
            run_match(match_config(cfg, spec), log_path=str(Path(tmp) / spec.log_name))
        return time.perf_counter() - start


def run(quick: bool = False) -> None:
    """Print matches/s with 1 and 2 workers and the overhead per match."""
    matches = 40 if quick else 200
    print(f"tournament: {matches}-match round robin of two instant bots (1 hole each)")
    direct = _direct(matches)
    one = _tournament(matches, 1)
    two = _tournament(matches, 2)
    print(f"  run_match alone, in turn: {matches / direct:.1f} matches/s")
    print(f"  1 worker: {matches / one:.1f} matches/s; 2 workers: {matches / two:.1f} matches/s "
          f"({one / two:.2f}x, goal >= 1.8x on two cores)")
    print(f"  overhead per match beyond run_match (1 worker): {(one - direct) / direct:+.1%} (goal < 5%)")
