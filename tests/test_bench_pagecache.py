"""The page-cache bench (bench/pagecache.py): both ends in golfref's sandbox, its figures counted, none left running."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from bench import pagecache
from golfref.bots.sandbox import bubblewrap_problem


def test_the_capacity_is_the_rate_less_what_the_errors_cost() -> None:
    assert pagecache.Figures(bits=100, errors=0, seconds=0.5).capacity == 200
    assert pagecache.Figures(bits=100, errors=50, seconds=0.5).capacity == 0  # a coin toss carries nothing
    eleven = pagecache.Figures(bits=100, errors=11, seconds=1.0)  # H(0.11) is very nearly 1/2
    assert math.isclose(eleven.capacity, 50, rel_tol=0.01) and eleven.error_rate == 0.11


@pytest.mark.process
def test_a_block_goes_from_one_sandboxed_end_to_the_other_and_both_end() -> None:
    problem = bubblewrap_problem()
    if problem is not None or not os.path.exists(pagecache.PYTHON):
        pytest.skip(problem or f"needs {pagecache.PYTHON}")
    found = pagecache.shared_file()
    if found is None:
        pytest.skip(f"no file of {pagecache.SMALLEST >> 20} MiB under /usr that no process maps")
    path, pages = found
    assert os.path.getsize(path) >= pagecache.SMALLEST and path not in pagecache.mapped_files()
    figures = pagecache.measure(path, pages, blocks=1)
    assert set(figures) == {"time", "faults"}
    for f in figures.values():
        assert f.bits == pagecache.PAYLOAD and 0 <= f.errors <= f.bits and f.seconds > 0
    assert not [pid for pid in os.listdir("/proc") if pid.isdigit() and str(pagecache.BOT) in _cmdline(pid)]


def _cmdline(pid: str) -> str:
    """A process's command line, or nothing when it has gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""
