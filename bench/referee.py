"""Referee speed: per-decision round trip against a bare pipe baseline, matches/s, memory.

The baseline is a Python parent that exchanges the very same request lines, one per
turn, with the very same instant bot over a pipe, and decodes each answer: everything
a referee must do at the least. The ratio is the referee's own overhead on top (engine,
views, JSON encoding, checks, log building, deadlines). It is measured with the instant
Python bot and with an instant C bot (compiled here with the system's C compiler), whose
own cost is so small that the ratio is nearly all the referee's.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import golfref
from golfref.bots import fingerprint as fingerprint_module
from golfref.bots.fingerprint import fingerprint
from golfref.config.match import parse_config
from golfref.game.engine import Game
from golfref.game.rules import resolve_rules
from golfref.match import protocol
from golfref.match.referee import _Referee, run_match
from golfref.match.seat_messages import EventMark, request_line
from golfref.record.log import Journal
from golfref.record.matchlog import Chooser, read_match_log

HERE = Path(__file__).resolve().parent
BOT = HERE / "instant_bot.py"
C_BOT = HERE / "instant_bot.c"
PYTHON_BOT = (sys.executable, str(BOT))


def compile_c_bot(directory: str) -> tuple[str, ...] | str:
    """The command of the instant C bot, compiled into `directory`; or why it cannot be."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return "no C compiler (cc, gcc or clang) on PATH"
    out = str(Path(directory) / "instant_bot")
    done = subprocess.run([cc, "-O2", "-o", out, str(C_BOT)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"{cc} failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    return (out,)


def _config(players: int, preset: str, holes: int, transcript: bool, log_dir: str, bot: tuple[str, ...] = PYTHON_BOT):
    command = json.dumps(list(bot))
    seats = "\n".join(f"  - {{name: bot{i}, command: {command}}}" for i in range(players))
    text = (
        textwrap.dedent(
            f"""\
        match: bench
        rules: {{preset: {preset}, holes: {holes}}}
        seed: 11
        players:
        """
        )
        + seats
        + f"\nlog:\n  path: {json.dumps(log_dir + '/{match_id}.json')}\n  transcript: {str(transcript).lower()}\n"
    )
    return parse_config(text, source="bench")


def referee_round_trip(
    holes: int, log_dir: str, transcript: bool, bot: tuple[str, ...] = PYTHON_BOT
) -> tuple[float, int, list[tuple[int, str]]]:
    """Play a 2-bot match; returns (microseconds per bot decision, decisions, requests).

    Requests come back as (seat, line) only with `transcript` (which costs time of its own).
    """
    cfg = _config(2, "standard", holes, transcript=transcript, log_dir=log_dir, bot=bot)
    referee = _Referee(cfg, None, None, None)
    referee.start()
    start = time.perf_counter()
    referee.play()  # only the decisions: bot start-up and shutdown are timed elsewhere
    elapsed = time.perf_counter() - start
    result = referee.finish()
    decisions = sum(1 for _, s in read_match_log(result.log).decisions() if s.by is Chooser.BOT)
    requests = []
    for seat in (0, 1):
        for path in sorted(Path(log_dir).glob(f"*.seat{seat}.transcript.jsonl")):
            for line in path.read_text().splitlines():
                entry = json.loads(line)
                if entry["dir"] == "to_bot" and entry["line"].startswith('{"type":"request"'):
                    requests.append((json.loads(entry["line"])["id"], seat, entry["line"]))
    for path in Path(log_dir).glob("*"):
        path.unlink()
    requests.sort()
    return elapsed / decisions * 1e6, decisions, [(seat, line) for _, seat, line in requests]


def baseline_round_trip(requests: list[tuple[int, str]], rounds: int, bot: tuple[str, ...] = PYTHON_BOT) -> float:
    """Microseconds per exchange of one request line and one answer line with an instant bot.

    Two children, one per seat, asked in the order the referee asked them, as in a match.
    Buffered pipes with a flush per line: the fastest honest parent (unbuffered, every
    readline would cost one system call per byte and flatter the referee).
    """
    children = [
        subprocess.Popen(list(bot), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    pipes = []
    for child in children:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(b'{"type":"hello"}\n')
        child.stdin.flush()
        child.stdout.readline()
        pipes.append((child.stdin, child.stdout))
    payload = [(pipes[seat], (line + "\n").encode()) for seat, line in requests]
    start = time.perf_counter()
    n = 0
    for _ in range(rounds):
        for (stdin, stdout), line in payload:
            stdin.write(line)
            stdin.flush()
            json.loads(stdout.readline())
            n += 1
    elapsed = time.perf_counter() - start
    for child in children:
        assert child.stdin is not None
        child.stdin.write(b'{"type":"goodbye"}\n')
        child.stdin.close()  # close flushes
        child.wait()
    return elapsed / n * 1e6


def _rewrite(path: Path, body: bytes) -> None:
    """The running log as written after every hole before the journal: sealed, whole, renamed over, unsynced."""
    data = body[:-1] + b',"digest":"sha256:' + hashlib.sha256(body).hexdigest().encode() + b'"}\n'
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def journal_costs(holes: int, log_dir: str) -> tuple[list[float], list[float]]:
    """Microseconds to record each hole of a long match of built-in players: (journal append, whole-log rewrite).

    The rewrite is what recording a hole cost before the journal: the running log sealed
    and written whole to a new file, here to another path, from the same snapshot.
    """
    text = (
        f"match: bench-journal\nrules: {{preset: classic, holes: {holes}}}\nseed: 3\nplayers:\n"
        + "".join(f"  - {{name: p{i}, builtin: greedy}}\n" for i in range(4))
        + f"log:\n  path: {json.dumps(log_dir + '/journal.json')}\n"
    )
    appends: list[float] = []
    rewrites: list[float] = []
    write = Journal.write
    rewritten = Path(log_dir) / "rewritten.json"

    def timed(self: Journal, doc: dict, hole_bytes: tuple[bytes, ...] = ()) -> None:
        start = time.perf_counter()
        write(self, doc, hole_bytes)
        appends.append((time.perf_counter() - start) * 1e6)
        if doc["holes"]:
            start = time.perf_counter()
            _rewrite(rewritten, referee.builder.canonical(doc))
            rewrites.append((time.perf_counter() - start) * 1e6)

    referee = _Referee(parse_config(text, source="bench"), None, None, None)
    Journal.write = timed  # type: ignore[method-assign]  # timed where the referee calls it
    try:
        referee.start()
        referee.play()
        referee.finish()
    finally:
        Journal.write = write  # type: ignore[method-assign]
    for path in Path(log_dir).glob("*"):
        path.unlink()
    return appends[1:], rewrites  # the first write is the header, before any hole


def in_process_work(holes: int, matches: int) -> float:
    """Microseconds per decision of the referee's least work with no pipes at all.

    The same standard 2-player games as the round trips: per decision, the request built
    as the referee sends it, an answer line decoded and matched to a legal action, and the
    move applied. Whatever the process layer costs comes on top, so (this + baseline) /
    baseline is the least ratio to the bare exchange the referee could reach.
    """
    rules = resolve_rules("standard", {"holes": holes}, 2)
    rng = random.Random(1)
    decisions = 0
    start = time.perf_counter()
    for _ in range(matches):
        game = Game(rules)
        marks: list[EventMark] = [(0, 0), (0, 0)]
        while not game.over:
            chance = game.chance
            if chance is not None:
                order = list(chance)
                rng.shuffle(order)
                game.apply_shuffle(order)
                continue
            seat, _ = game.turn()
            legal = game.legal_actions()
            decisions += 1
            _, marks[seat] = request_line(game, seat, decisions, marks[seat], 1000)
            answer = f'{{"type":"answer","id":{decisions},"action":"{rng.choice(legal).text}"}}'
            _, text = protocol.parse_answer(answer)
            game.apply(next(a for a in legal if a.text == text))
    return (time.perf_counter() - start) / decisions * 1e6


def fingerprint_costs(repeats: int) -> tuple[float, float, dict[str, Any]]:
    """Milliseconds to fingerprint a bot whose folder is large: hashed afresh, and again in the same process.

    The folder is this python's site-packages (settled files, capped at 64 MiB like any bot's
    folder), as for `python -m bot` run there. A tournament fingerprints every bot before
    every match, in worker processes that play many matches.
    """
    folder = sysconfig.get_paths()["purelib"]
    command = [sys.executable, "-m", "bot"]
    fresh, again = [], []
    found: dict[str, Any] = {}
    for _ in range(repeats):
        fingerprint_module._known.clear()
        start = time.perf_counter()
        found = fingerprint(command, folder) or {}
        fresh.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        fingerprint(command, folder)
        again.append((time.perf_counter() - start) * 1000)
    return statistics.median(fresh), statistics.median(again), found.get("directory", {})


def matches_per_second(count: int, log_dir: str) -> float:
    """Whole 1-hole matches (process start, handshake, play, shutdown) per second."""
    cfg = _config(2, "standard", 1, transcript=False, log_dir=log_dir)
    start = time.perf_counter()
    for _ in range(count):
        run_match(cfg)
    elapsed = time.perf_counter() - start
    for path in Path(log_dir).glob("*"):
        path.unlink()
    return count / elapsed


_MEMORY_PROBE = """
import json, resource, sys
sys.path[:0] = [{golfref_root!r}, {root!r}]  # the golfref this process runs (pure or compiled), then bench
from bench.referee import _config
from golfref.match.referee import _Referee, run_match
from golfref.game.rules import resolve_rules
from golfref.match.seat_messages import EventMark, request_line
cfg = _config(8, "classic", {holes}, transcript=False, log_dir={log_dir!r})
run_match(cfg)
# VmHWM, this process's own peak: ru_maxrss would keep the peak of the process that forked it (Linux
# carries it across exec), so a bench that had loaded numpy and PettingZoo measured itself.
print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")))
"""


def referee_peak_rss_mb(holes: int, log_dir: str) -> float:
    """Peak resident memory of a referee process running an 8-bot match, in MiB."""
    golfref_root = str(Path(golfref.__file__).resolve().parent.parent)
    code = _MEMORY_PROBE.format(golfref_root=golfref_root, root=str(HERE.parent), holes=holes, log_dir=log_dir)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def _round_trips(
    label: str, bot: tuple[str, ...], holes: int, repeats: int, log_dir: str
) -> tuple[float, float, int]:
    """Medians of the referee's and the baseline's per-decision round trip with `bot`, interleaved."""
    ref_runs, base_runs = [], []
    decisions = 0
    _, _, requests = referee_round_trip(holes, log_dir, transcript=True, bot=bot)
    for _ in range(repeats):
        us, decisions, _ = referee_round_trip(holes, log_dir, transcript=False, bot=bot)
        ref_runs.append(us)
        base_runs.append(baseline_round_trip(requests, rounds=2, bot=bot))
    ref, base = statistics.median(ref_runs), statistics.median(base_runs)
    print(f"referee: {label} over pipes")
    print(
        f"  round trip per decision: referee {ref:.1f} us, bare pipe baseline {base:.1f} us, "
        f"ratio {ref / base:.2f}x (medians of {repeats} interleaved runs, {decisions} decisions each)"
    )
    return ref, base, decisions


def run(quick: bool = False) -> None:
    """Print the referee benchmark figures."""
    repeats = 3 if quick else 5
    holes = 3 if quick else 9
    with tempfile.TemporaryDirectory() as log_dir:
        ref, base, _ = _round_trips("instant Python bots", PYTHON_BOT, holes, repeats, log_dir)
        print(f"  goal: at most 1.25x with an instant Python bot: {'met' if ref / base <= 1.25 else 'missed'}")
        mps = statistics.median(matches_per_second(10 if quick else 30, log_dir) for _ in range(repeats))
        print(f"  whole 1-hole matches between two instant bots: median {mps:.1f} matches/s")
        appends, rewrites = journal_costs(36, log_dir)
        early, late = statistics.median(appends[:5]), statistics.median(appends[-5:])
        print(
            f"  recording a hole in the journal, classic 4 players: {early:.0f} us at holes 1-5, {late:.0f} us at "
            f"holes 32-36 (a whole-log rewrite, as before: {statistics.median(rewrites[:5]):.0f} and "
            f"{statistics.median(rewrites[-5:]):.0f} us; the rewrite also syncs to the disk)"
        )
        fresh, again, folder = fingerprint_costs(repeats)
        print(
            f"  fingerprinting a bot with a large folder ({folder.get('files')} files, "
            f"{folder.get('bytes', 0) / 2**20:.0f} MiB): {fresh:.0f} ms hashed afresh, {again:.1f} ms again in the "
            "same process (digests kept while a file's size, mtime and ctime stay)"
        )
        rss = referee_peak_rss_mb(holes, log_dir)
        print(f"  referee peak RSS with 8 bots (classic, {holes} holes): {rss:.1f} MiB (goal < 100 MiB)")
        with tempfile.TemporaryDirectory() as build:
            c_bot = compile_c_bot(build)
            if isinstance(c_bot, str):
                print(f"referee: instant C bots: skipped: {c_bot}")
                return
            ref, base, _ = _round_trips("instant C bots", c_bot, holes, repeats, log_dir)
            print(f"  goal: at most 2x with an instant C bot: {'met' if ref / base <= 2 else 'missed'}")
            least = statistics.median(in_process_work(holes, 4 if quick else 10) for _ in range(repeats))
            print(
                f"  the referee's least work per decision, in-process with no pipes (request built, answer decoded "
                f"and matched, move applied): median {least:.1f} us; with a free process layer the C bot ratio "
                f"would still be {(least + base) / base:.2f}x"
            )
