"""Log validation speed: logs validated per second for 9-hole 4-player classic logs, and printing.

Two logs: the sample `tests/logs/classic_4p_9holes.json` (two greedy and two random
built-in players: greedy closes holes fast), and one played here by four random built-in
players, whose holes run long. Validation is timed from the file on disk to the report
(read, parse, digest, well-formedness, re-simulation). The full JSON Schema pass, which
the validator skips when its fast well-formedness check passes, is timed on its own, and the
fast check (golfref/record/schema_check.py) beside fastjsonschema compiling the same schema:
the figure that keeps the hand-made compiler (issue 22: kept while the library would make
validation about twice as slow).
"""

from __future__ import annotations

import statistics
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import fastjsonschema

from golfref.config.match import parse_config
from golfref.match.referee import run_match
from golfref.record.log import compute_digest, read_log
from golfref.record.matchlog import read_match_log
from golfref.record.validate import _schema_problem, _well_formed, log_schema, validate, validate_file

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "logs" / "classic_4p_9holes.json"


def random_classic_log(directory: str) -> Path:
    """Play a 9-hole 4-player classic match between random built-in players; returns its log."""
    players = "\n".join(f"  - {{name: r{i}, builtin: random}}" for i in range(4))
    text = (
        textwrap.dedent(
            """\
        match: bench-replay
        rules: {preset: classic, holes: 9}
        seed: 5
        players:
        """
        )
        + players
        + "\n"
    )
    path = Path(directory) / "random.json"
    run_match(parse_config(text, source="bench"), log_path=str(path))
    return path


def per_second(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of `fn`, over about `seconds`."""
    fn()  # warm up: schema loading, caches
    count = 0
    start = time.perf_counter()
    while True:
        fn()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median milliseconds of `repeats` calls of `fn`."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(label: str, path: Path, quick: bool) -> None:
    """Print the figures for one log."""
    runs = 3 if quick else 7
    window = 0.3 if quick else 1.0
    doc = read_log(path)
    report = validate(doc)
    assert report.ok, report
    steps = read_match_log(doc).step_count
    rate = statistics.median(per_second(lambda: validate_file(path), window) for _ in range(runs))
    size = path.stat().st_size / 1024
    print(
        f"  {label}: {steps} steps, {size:.0f} KiB: median {rate:.0f} logs/s validated "
        f"(goal >= 20/s; median of {runs} runs)"
    )
    parse = median_ms(lambda: read_log(path), 9)
    digest = median_ms(lambda: compute_digest(doc), 9)
    total = median_ms(lambda: validate(doc), 9)
    schema = median_ms(lambda: _schema_problem(doc), 3)
    print(
        f"    per log: read+parse {parse:.1f} ms, digest {digest:.1f} ms, validate (parsed) {total:.1f} ms; "
        f"the full JSON Schema pass it skips: {schema:.0f} ms"
    )
    check = _well_formed()
    library = fastjsonschema.compile(log_schema(), use_default=False, use_formats=False)
    ours = median_ms(lambda: check(doc), 9)
    theirs = median_ms(lambda: library(doc), 9)
    print(
        f"    well-formedness: the compiled check {ours:.2f} ms, fastjsonschema {theirs:.2f} ms "
        f"({theirs / ours:.0f}x; validate would take {(total - ours + theirs) / total:.1f}x as long)"
    )
    try:
        from golfref.show.pretty import render_match
    except ImportError:
        print("    pretty-print: not available (golfref.show.pretty is not importable)")
        return
    lines: list[str] = []

    def render() -> None:
        lines[:] = render_match(doc)

    ms = median_ms(render, 3 if quick else 5)
    print(f"    pretty-print the whole match (render_match): median {ms:.0f} ms ({len(lines)} lines)")


def run(quick: bool = False) -> None:
    """Print the log validation and printing figures."""
    print("replay: validating 9-hole 4-player classic logs")
    measure("sample (greedy and random)", SAMPLE, quick)
    with tempfile.TemporaryDirectory() as tmp:
        measure("random players", random_classic_log(tmp), quick)
