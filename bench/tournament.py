"""Tournament speed: matches/s of a 200-match round robin of instant bots with 1 and 2 workers (and of a
100-match one of instant C bots, with the CPU time per match of every process, which bounds the speed-up),
the tournament's overhead per match beyond `run_match` itself, what the scheduling rule costs (no two
matches of one deal set that share a bot at once: the same tournaments on 2 workers with the rule and
without it), and the variance reduction that duplicate deals give between the sample bots.

The overhead is measured against the same matches played one after another by `run_match`
in this process (no pool, no store, no resume check): with one worker the difference is
what the tournament adds (scheduling, the process pool, pickling, SQLite, reading each log
back). In wall-clock time that difference hides work: with one worker, the parent stores
a result while the worker plays the next match, on the other core. So the overhead is
given as CPU time too, of every process involved (this one, the workers, the bots: each
is waited for, so `os.times` counts it), which is what the tournament really costs.

The three runs take turns, `repeats` times, and each keeps its fastest run, so a burst of
load from elsewhere weighs on none of them more than on the others; the load average is
printed before and after, since on a loaded machine the speed-up means little.

The rule is switched off for its comparison by making `schedule.clash` say no in this process
(the one that hands the matches out), so both runs play the very same matches; they take turns,
which goes first alternating, and each gives its median.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from golfref.config.tournament import TournamentConfig, load_tournament, parse_tournament
from golfref.match.referee import run_match
from golfref.stats.stats import compute_stats
from golfref.stats.tables import duplicate_deals_line
from golfref.tournament import schedule as schedule_module
from golfref.tournament.runner import run_tournament
from golfref.tournament.schedule import match_config, schedule

from .referee import compile_c_bot

HERE = Path(__file__).resolve().parent
BOT = HERE / "instant_bot.py"
SAMPLE = HERE.parent / "sample_matches" / "tournament.yaml"


def _config(matches: int, directory: str, command: tuple[str, ...] | None = None, bots: int = 2) -> TournamentConfig:
    """The round robin of `bots` bots (`matches` rounded down to whole deal sets); `command` (a compiled bot)
    plays in its own folder, the instant Python bot by default."""
    bot = json.dumps(list(command or (sys.executable, str(BOT))))
    if command is not None:
        bot += f", cwd: {json.dumps(str(Path(command[0]).parent))}"
    players = "".join(f"  - {{name: {chr(ord('a') + i)}, command: {bot}}}\n" for i in range(bots))
    per_deal_set = bots * (bots - 1)  # every pair, in both seatings
    text = (
        "tournament: bench\nrules: {preset: standard, holes: 1}\n"
        f"players:\n{players}"
        f"deal_sets: {max(1, matches // per_deal_set)}\nseed: 1\nresults: {json.dumps(directory)}\n"
        # The sandbox hides this file's interpreter (a venv); the sandbox's cost is its own section.
        "sandbox: {enabled: false}\n"
    )
    return parse_tournament(text, source="bench")


def _cpu() -> float:
    """CPU seconds of this process and of every child it (or its children) waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _tournament(matches: int, workers: int, command: tuple[str, ...] | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the whole tournament (its workers are joined before it returns)."""
    elapsed, own, children = _accounted(matches, workers, command)
    return elapsed, own + children


def _accounted(
    matches: int, workers: int, command: tuple[str, ...] | None = None, bots: int = 2
) -> tuple[float, float, float]:
    """Wall-clock seconds of the whole tournament, CPU seconds of this process, and of its workers and their bots.

    The pool's workers are joined before run_tournament returns and each reaped its bots, so
    `os.times`' children fields hold all of them.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cfg = _config(matches, tmp, command, bots)
        before, start = os.times(), time.perf_counter()
        result = run_tournament(cfg, workers=workers)
        elapsed, after = time.perf_counter() - start, os.times()
        assert len(result.records) == len(schedule(cfg)), result.errors
    own = after.user + after.system - before.user - before.system
    children = after.children_user + after.children_system - before.children_user - before.children_system
    return elapsed, own, children


def _c_scaling(matches: int, repeats: int) -> None:
    """1 and 2 workers with instant C bots, in turn: matches/s, and the CPU time per match that bounds the speed-up."""
    with tempfile.TemporaryDirectory() as tmp:
        c_bot = compile_c_bot(tmp)  # its folder, fingerprinted at every match, holds nothing else
        if isinstance(c_bot, str):
            print(f"  instant C bots: skipped: {c_bot}")
            return
        _accounted(4, 2, c_bot)  # warm-up
        runs: dict[int, list[tuple[float, float, float]]] = {1: [], 2: []}
        for _ in range(repeats):
            for workers in (1, 2):
                runs[workers].append(_accounted(matches, workers, c_bot))
    best = {w: min(r, key=lambda run: run[0]) for w, r in runs.items()}
    (one, one_own, one_children), (two, two_own, two_children) = best[1], best[2]
    cores = os.cpu_count() or 1
    per_match = (two_own + two_children) / matches
    ceiling = min(cores, 2) / per_match  # 2 workers can use at most 2 cores
    print(f"  instant C bots: 1 worker {matches / one:.1f} matches/s; 2 workers {matches / two:.1f} matches/s "
          f"({one / two:.2f}x, goal >= 1.8x on two cores)")  # fmt: skip
    print(f"    CPU per match (2 workers): {two_own / matches * 1000:.1f} ms the tournament's own process, "
          f"{two_children / matches * 1000:.1f} ms the workers and their bots; 1 worker: "
          f"{one_own / matches * 1000:.1f} + {one_children / matches * 1000:.1f} ms")  # fmt: skip
    print(f"    so two busy cores play at most {ceiling:.1f} matches/s, {ceiling * one / matches:.2f}x one worker's "
          f"measured rate; the wall clock used {(two_own + two_children) / two / min(cores, 2):.0%} of two cores "
          f"with 2 workers, {(one_own + one_children) / one:.0%} of one core with 1")  # fmt: skip


@contextlib.contextmanager
def _without_the_rule() -> Iterator[None]:
    """No two matches clash while it lasts: the executors then hand matches out as the workers free up."""
    rule = schedule_module.clash
    schedule_module.clash = lambda a, b: False
    try:
        yield
    finally:
        schedule_module.clash = rule


def _rule_cost(repeats: int) -> None:
    """The same tournaments on 2 workers with the scheduling rule and without it, in turn: medians and ratios."""
    shapes = [
        (100, 2, "100-match round robin of two instant bots (50 deal sets of 2 seatings sharing both bots)"),
        (6, 3, "one deal set of a round robin of three (6 matches, every two sharing a bot: the worst case)"),
    ]
    for matches, bots, what in shapes:
        _accounted(matches, 2, bots=bots)  # warm-up
        runs: dict[bool, list[float]] = {True: [], False: []}
        for i in range(repeats):
            for rule in (True, False) if i % 2 == 0 else (False, True):  # a burst of load falls on both alike
                with contextlib.nullcontext() if rule else _without_the_rule():
                    runs[rule].append(_accounted(matches, 2, bots=bots)[0])
        on, off = (statistics.median(runs[rule]) for rule in (True, False))
        print(f"  the scheduling rule, 2 workers, {what}: {matches / on:.1f} matches/s with it, {matches / off:.1f} "
              f"without ({on / off:.2f}x the time), medians of {repeats} each, in turn")  # fmt: skip


def _direct(matches: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds of the same matches through `run_match`, one after another."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = _config(matches, tmp)
        start, cpu = time.perf_counter(), _cpu()
        for spec in schedule(cfg):
            run_match(match_config(cfg, spec), log_path=str(Path(tmp) / spec.log_name))
        return time.perf_counter() - start, _cpu() - cpu


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


@contextlib.contextmanager
def _system_python_first() -> Iterator[None]:
    """PATH with /usr/bin first while the sample tournament plays: its bots are `python3`, sandboxed.

    The sandbox shows /usr/bin, not a pyenv shim or a virtual environment that may come first on the
    bench's own PATH, and refuses such a `python3` rightly (docs/SANDBOX.md); the sample's bots need
    nothing but the standard library, so the system's python3 is the one they are meant to run on.
    """
    before = os.environ.get("PATH", os.defpath)
    if os.path.exists("/usr/bin/python3"):
        os.environ["PATH"] = os.pathsep.join(["/usr/bin", *(p for p in before.split(os.pathsep) if p != "/usr/bin")])
    try:
        yield
    finally:
        os.environ["PATH"] = before


def _variance(deal_sets: int) -> None:
    """Play the sample tournament's pool with more deal sets; print what pairing did to each pair's spread."""
    with tempfile.TemporaryDirectory() as tmp, _system_python_first():
        cfg = replace(load_tournament(SAMPLE), deal_sets=deal_sets, results=Path(tmp), gate=None, sprt=None)
        result = run_tournament(cfg, workers=os.cpu_count() or 1)
        assert not result.errors, result.errors
    stats = compute_stats(result.records)
    players = ", ".join(p.name for p in cfg.players)
    print(f"  duplicate deals, sample tournament's pool ({players}), {deal_sets} deal sets, "
          f"{cfg.rules.holes} holes a match:")  # fmt: skip
    for pair in stats.pairs:
        paired = "-" if pair.paired_sd is None else f"{pair.paired_sd:.3f}"
        unpaired = "-" if pair.unpaired_sd is None else f"{pair.unpaired_sd:.3f}"
        ratio = "-" if pair.sd_ratio is None else f"{pair.sd_ratio:.2f}"
        print(f"    {pair.a} vs {pair.b}: SD of the per-deal-set difference {paired} paired, {unpaired} unpaired "
              f"(ratio {ratio})")  # fmt: skip
    print(f"    {duplicate_deals_line(stats)}")


def run(quick: bool = False) -> None:
    """Print matches/s with 1 and 2 workers, the overhead per match, and duplicate deals' variance reduction."""
    matches, repeats, deal_sets = (40, 1, 6) if quick else (200, 2, 30)
    print(f"tournament: {matches}-match round robin of two instant bots (1 hole each), best of {repeats}; "
          f"{_load()}")  # fmt: skip
    _direct(2)  # warm-up: the first match pays for lazy imports and schema compilation
    runs: dict[str, list[tuple[float, float]]] = {"direct": [], "one": [], "two": []}
    for _ in range(repeats):
        runs["direct"].append(_direct(matches))
        runs["one"].append(_tournament(matches, 1))
        runs["two"].append(_tournament(matches, 2))
    (direct, one, two), (direct_cpu, one_cpu, _) = ([min(r[i] for r in v) for v in runs.values()] for i in (0, 1))
    print(f"  run_match alone, in turn: {matches / direct:.1f} matches/s")
    print(f"  1 worker: {matches / one:.1f} matches/s; 2 workers: {matches / two:.1f} matches/s "
          f"({one / two:.2f}x, goal >= 1.8x on two cores)")  # fmt: skip
    print(f"  overhead per match beyond run_match (1 worker), CPU time of every process: "
          f"{(one_cpu - direct_cpu) / matches * 1000:+.1f} ms, {(one_cpu - direct_cpu) / direct_cpu:+.1%} "
          f"(goal < 5%); wall clock: {(one - direct) / matches * 1000:+.1f} ms, {(one - direct) / direct:+.1%} "
          "(the parent's share overlaps the next match)")  # fmt: skip
    _c_scaling(matches // 2, repeats)
    _rule_cost(3 if quick else 7)
    _variance(deal_sets)
    print(f"  after: {_load()}")
