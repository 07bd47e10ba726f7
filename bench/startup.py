"""Start-up time of the command line: `golfref --help` and `golfref score`, each a fresh process.

Wall-clock medians over several runs, the way a user meets them (the installed `golfref`
script next to this python, or `python -m golfref.cli.app` without one). A bare `python -c pass`
is timed beside them, for the interpreter's own share.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

GOAL_MS = 250
SCORE_GRID = "7S KH 5D / 7C 2S QD"


def golfref_command() -> list[str]:
    """How to start golfref: the installed script when there is one."""
    script = Path(sys.executable).parent / "golfref"
    return [str(script)] if script.exists() else [sys.executable, "-m", "golfref.cli.app"]


def median_ms(command: list[str], runs: int) -> float:
    """Median wall-clock milliseconds of `runs` runs of `command` (after one warm-up run)."""
    times = []
    for i in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        if i:  # the first run warms the file cache and writes .pyc files
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run(quick: bool = False) -> None:
    """Print the start-up figures."""
    runs = 5 if quick else 21
    golfref = golfref_command()
    print(f"startup: wall-clock, median of {runs} fresh processes ({' '.join(golfref)})")
    bare = median_ms([sys.executable, "-c", "pass"], runs)
    for label, args in (("golfref --help", ["--help"]), ("golfref score GRID", ["score", SCORE_GRID])):
        ms = median_ms([*golfref, *args], runs)
        print(f"  {label}: median {ms:.0f} ms (goal < {GOAL_MS} ms)")
    print(f"  python -c pass, for comparison: median {bare:.0f} ms")
