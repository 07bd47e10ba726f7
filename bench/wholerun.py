"""The referee's cost per decision as users live it: whole `golfref run` processes, by subtraction.

A match of 21 holes and one of 1 hole between the same two instant bots, each a fresh
`golfref run` process timed by the wall clock: their difference divided by the difference in
bot decisions is what one more decision costs, start-up and shutdown cancelled out. Beside it,
interleaved in the same rounds, a bare exchange from a plain Python loop: the same recorded
request lines (the 21-hole match's, from its transcript) written to the same bots over buffered
pipes, each answer read with `readline` and decoded with `json.loads`; per decision the same
way. Medians of the rounds. This is the figure the in-harness rows of bench/referee.py leave out:
the process's own start, the journal, the log and everything a run does per decision.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from golfref.bots.sandbox import bubblewrap_problem
from golfref.record.matchlog import Chooser, read_match_log

from .referee import BOT, baseline_round_trip, compile_c_bot

SYSTEM_PYTHON = "/usr/bin/python3"
LONG, SHORT = 21, 1


def _config(folder: Path, command: list[str], holes: int, sandbox: bool, transcript: bool) -> Path:
    """A 2-bot standard match config in `folder`, its log there too."""
    seats = [{"name": f"bot{i}", "command": command, "cwd": str(folder)} for i in range(2)]
    config = {
        "match": "wholerun",
        "rules": {"preset": "standard", "holes": holes},
        "seed": 11,
        "players": seats,
        "time": {"startup_ms": 60_000, "move_ms": 60_000},
        "log": {"path": str(folder / "logs" / f"h{holes}.json"), "transcript": transcript},
        "sandbox": {"enabled": sandbox},
    }
    path = folder / f"h{holes}-{'on' if sandbox else 'off'}{'-t' if transcript else ''}.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return path


def _run(config: Path) -> tuple[float, int, Path]:
    """One fresh `golfref run` process: (wall-clock seconds, bot decisions, the log)."""
    log = Path(json.loads(config.read_text(encoding="utf-8"))["log"]["path"])
    for stale in log.parent.glob(log.stem + "*"):
        stale.unlink()
    argv = [sys.executable, "-m", "golfref", "run", str(config), "--quiet"]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"golfref run {config.name}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    decisions = sum(1 for _, s in read_match_log(json.loads(log.read_text())).decisions() if s.by is Chooser.BOT)
    return elapsed, decisions, log


def _requests(log: Path) -> list[tuple[int, str]]:
    """The request lines each seat was sent, in the order they were sent: (seat, line)."""
    found = []
    for seat in (0, 1):
        for entry in map(json.loads, log.with_suffix(f".seat{seat}.transcript.jsonl").read_text().splitlines()):
            if entry["dir"] == "to_bot" and entry["line"].startswith('{"type":"request"'):
                found.append((json.loads(entry["line"])["id"], seat, entry["line"]))
    return [(seat, line) for _, seat, line in sorted(found)]


def per_decision(
    folder: Path, command: list[str], sandbox: bool, rounds: int, cpus: set[int] | None = None
) -> tuple[float, float, int]:
    """Medians over `rounds` interleaved rounds: (us per decision of whole runs, of the bare exchange, decisions).

    With `cpus`, every process of both (the bench's children inherit its affinity) runs on those CPUs only.
    """
    long, short = (_config(folder, command, h, sandbox, transcript=False) for h in (LONG, SHORT))
    _, _, recorded = _run(_config(folder, command, LONG, sandbox, transcript=True))
    requests = _requests(recorded)
    runs, bare = [], []
    extra = 0
    allowed = os.sched_getaffinity(0)
    try:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
        for _ in range(rounds):
            t_long, d_long, _ = _run(long)
            t_short, d_short, _ = _run(short)
            extra = d_long - d_short
            runs.append((t_long - t_short) / extra * 1e6)
            bare.append(baseline_round_trip(requests, rounds=1, bot=tuple(command)))
    finally:
        os.sched_setaffinity(0, allowed)
    return statistics.median(runs), statistics.median(bare), extra


def _row(label: str, ref: float, base: float, extra: int, goal: float, rounds: int) -> None:
    ratio = ref / base
    print(
        f"  {label}: whole runs {ref:.1f} us per decision, bare exchange {base:.1f} us, ratio {ratio:.2f}x "
        f"(goal at most {goal}x: {'met' if ratio <= goal else 'missed'}; medians of {rounds} interleaved rounds, "
        f"{LONG} - {SHORT} holes = {extra} decisions)"
    )


def _accounting_row(spent: dict[str, float], base: float, rounds: int) -> None:
    calls = sum(spent[k] for k in ("write", "wait", "read", "poll"))
    print(
        f"  where one more decision goes, instant C bots, sandbox off, the match played in the bench's own process "
        f"(medians of {rounds}): {spent['all']:.1f} us = system calls {calls:.1f} (the request's write "
        f"{spent['write']:.1f}, the wait {spent['wait']:.1f}, the answer's read {spent['read']:.1f}, the poll for "
        f"unasked lines {spent['poll']:.1f}; the bare exchange's write and read: {base:.1f}) + the process layer's "
        f"Python {spent['layer']:.1f} + the referee's Python {spent['referee']:.1f} (the timers' own cost included)"
    )


def _pinned_row(folder: Path, command: list[str], goal: float, rounds: int) -> None:
    """The same whole runs and bare exchange with every process on one CPU: no hand-off waits for another core."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        print("  instant C bots, sandbox off, on one CPU: skipped:"
              " this process may use one CPU only, as every row above")  # fmt: skip
        return
    ref, base, extra = per_decision(folder, command, False, rounds, cpus={allowed[0]})
    _row(f"instant C bots, sandbox off, every process on CPU {allowed[0]} alone", ref, base, extra, goal, rounds)


def run(quick: bool = False) -> None:
    """Print the whole-run figures: instant C and Python bots, the sandbox off and, where it can be, on."""
    rounds = 3 if quick else 5
    print(f"whole runs: `golfref run` of {LONG} holes minus {SHORT}, against a bare exchange of the same lines")
    with tempfile.TemporaryDirectory(prefix="golfref-wholerun-") as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)  # a sandboxed bot runs as a user of its own, which must reach its folder
        (folder / "logs").mkdir()
        c_bot = compile_c_bot(tmp)
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        shutil.copy(BOT, folder / BOT.name)  # the sandbox shows the bot's own folder
        bots = [("instant Python bots", [python, str(folder / BOT.name)], 1.25)]
        if isinstance(c_bot, str):
            print(f"  instant C bots: skipped: {c_bot}")
        else:
            bots.insert(0, ("instant C bots", list(c_bot), 2.0))
        problem = bubblewrap_problem() or (None if python == SYSTEM_PYTHON else f"{SYSTEM_PYTHON} is missing")
        for label, command, goal in bots:
            for sandbox in (False, True):
                if sandbox and problem is not None:
                    print(f"  {label}, sandbox on: skipped: {problem}")
                    continue
                ref, base, extra = per_decision(folder, command, sandbox, rounds)
                _row(f"{label}, sandbox {'on' if sandbox else 'off'}", ref, base, extra, goal, rounds)
                if label == "instant C bots" and not sandbox:
                    _accounting_row(accounting(folder, command, rounds), base, rounds)
                    _pinned_row(folder, command, goal, rounds)


def _timer(call, into: list[float]):
    """`call`, timed: each call adds its seconds and 1 to `into`."""
    clock = time.perf_counter

    def timed(*args):
        begun = clock()
        try:
            return call(*args)
        finally:
            into[0] += clock() - begun
            into[1] += 1

    return timed


class _Calls:
    """A stand-in for a module or object: the calls named in `timed` timed into `spent`, the rest its own."""

    def __init__(self, inner: object, timed: dict[str, str], spent: dict[str, list[float]]) -> None:
        self._inner = inner
        for name, bucket in timed.items():
            setattr(self, name, _timer(getattr(inner, name), spent.setdefault(bucket, [0.0, 0])))

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def _match_spent(config_path: Path) -> tuple[float, dict[str, float], int]:
    """Play the config's match in this process, timing the process layer's calls and system calls:
    (seconds of run_match, {bucket: seconds}, bot decisions). Buckets: each system call of a
    decision (write, poll, wait, read); `layer`, the process layer's own Python around them
    (`BotProcess.send`, `BotPool.read_line`); `referee`, everything else run_match does."""
    from golfref.bots import bot_process, multiplex
    from golfref.config.match import load_config
    from golfref.match.referee import run_match

    spent: dict[str, list[float]] = {}
    saved_modules = bot_process.os, multiplex.select, bot_process.select
    methods = [(bot_process.BotProcess, "send"), (multiplex.BotPool, "read_line")]
    saved_methods = [getattr(owner, name) for owner, name in methods]
    for owner, name in methods:
        setattr(owner, name, _timer(getattr(owner, name), spent.setdefault("layer", [0.0, 0])))
    bot_process.os = _Calls(os, {"write": "write", "read": "read"}, spent)  # type: ignore[assignment]
    fake = _Calls(select, {}, spent)
    fake.epoll = lambda: _Calls(select.epoll(), {"poll": "wait"}, spent)  # type: ignore[attr-defined]
    fake.poll = lambda: _Calls(select.poll(), {"poll": "poll"}, spent)  # type: ignore[attr-defined]
    multiplex.select = bot_process.select = fake  # type: ignore[assignment]
    try:
        config = load_config(str(config_path))
        begun = time.perf_counter()
        result = run_match(config)
        elapsed = time.perf_counter() - begun
    finally:
        bot_process.os, multiplex.select, bot_process.select = saved_modules
        for (owner, name), method in zip(methods, saved_methods, strict=True):
            setattr(owner, name, method)
    calls = {k: v[0] for k, v in spent.items() if k != "layer"}
    buckets = {**calls, "layer": spent["layer"][0] - sum(calls.values()), "referee": elapsed - spent["layer"][0]}
    decisions = sum(1 for _, s in read_match_log(result.log).decisions() if s.by is Chooser.BOT)
    return elapsed, buckets, decisions


def accounting(folder: Path, command: list[str], rounds: int) -> dict[str, float]:
    """Where one more decision's time goes in the referee's process, by the same subtraction (21
    holes minus 1, played in this process, medians of `rounds`): microseconds per decision in
    all (`all`) and in each bucket of `_match_spent`."""
    long, short = (_config(folder, command, h, False, transcript=False) for h in (LONG, SHORT))
    rows: dict[str, list[float]] = {}
    for _ in range(rounds):
        (t_long, b_long, d_long), (t_short, b_short, d_short) = _match_spent(long), _match_spent(short)
        extra = d_long - d_short
        rows.setdefault("all", []).append((t_long - t_short) / extra * 1e6)
        for bucket, seconds in b_long.items():
            rows.setdefault(bucket, []).append((seconds - b_short.get(bucket, 0.0)) / extra * 1e6)
    return {k: statistics.median(v) for k, v in rows.items()}
