"""Bots that start fast: a `golfref run`'s cost before the first request and after the last answer.

Each bot notes CLOCK_MONOTONIC when it reads its first request and when it writes each answer
(instant_bot's --stamps, written to its stderr, which the log keeps), and this process notes the
same clock just before it launches a program and just after that program has exited. Start-up is
launch to the first request any bot read; shutdown is the last answer any bot wrote to the exit.
A 1-hole match of two instant bots under `golfref run` (a fresh process, its log outside the
bots' folder) takes turns with the bare loop of bench/bare_start.py, a fresh plain Python program
that starts the same bot programs with subprocess, sends the same hello and first request lines
(the lines golfref sent, from a transcript), and sends goodbye and waits; the interpreter's own
start is in both. Medians of interleaved rounds, for instant C and Python bots, the sandbox off
and on (the bare loop never sandboxes: the sandbox's share is golfref's too). The CPU time is of
the whole run, so golfref's holds the hole's decisions too (printed), which the bare loop has not.

Both are started with PYTHONDONTWRITEBYTECODE removed from their environment: a user's golfref
imports its cached bytecode, which a session that sets the variable would compile afresh.

Where golfref's start goes: fresh processes of the interpreter alone, of a bare typer app shaped
like `golfref run` (bench/typer_app.py: typer's floor, before golfref imports anything), and of
the interpreter importing golfref's command line (typer's share included), each timed as above.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from golfref.bots.sandbox import bubblewrap_problem

from .referee import BOT, compile_c_bot
from .wholerun import SYSTEM_PYTHON

BARE = Path(__file__).resolve().parent / "bare_start.py"
TYPER_APP = Path(__file__).resolve().parent / "typer_app.py"
RATIO_GOAL = 1.5
SANDBOX_MS_PER_BOT = 5.0
BOTS = 2


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _config(folder: Path, bots: Path, command: list[str], sandbox: bool, transcript: bool) -> Path:
    """A 1-hole 2-bot standard match config in `folder`; the bots' own folder is `bots`, the log outside it."""
    seats = [{"name": f"bot{i}", "command": command, "cwd": str(bots)} for i in range(BOTS)]
    config = {
        "match": "botstart",
        "rules": {"preset": "standard", "holes": 1},
        "seed": 11,
        "players": seats,
        "time": {"startup_ms": 60_000, "move_ms": 60_000},
        "log": {"path": str(folder / "logs" / "botstart.json"), "transcript": transcript},
        "sandbox": {"enabled": sandbox},
    }
    path = folder / f"botstart-{Path(command[-2]).name}-{'on' if sandbox else 'off'}{'-t' if transcript else ''}.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return path


def _stamps(texts: list[str]) -> tuple[float, float]:
    """(first request read, last answer written) over the bots, in seconds of CLOCK_MONOTONIC."""
    pairs = []
    for text in texts:
        line = [x for x in text.splitlines() if x.startswith("stamps ")][-1]
        pairs.append([int(n) / 1e9 for n in line.split()[1:]])
    return min(first for first, _ in pairs), max(last for _, last in pairs)


def _timed(argv: list[str], cwd: Path | None = None) -> tuple[float, float, float, str]:
    """Run `argv` to its end: (monotonic launch, monotonic exit, CPU seconds of its whole tree, stdout).

    The CPU time is the program's and every process it waited for (its bots: wait4's rusage), which
    the machine's load moves much less than the wall clock.
    """
    launch = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)  # its few lines of output fit in the pipes
    exited = time.monotonic()
    child.returncode = os.waitstatus_to_exitcode(status)
    out, err = (stream.read().decode() for stream in (child.stdout, child.stderr))  # type: ignore[union-attr]
    child.stdout.close(), child.stderr.close()  # type: ignore[union-attr]
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])}: exit {child.returncode}: {err.strip()[-300:]}")
    return launch, exited, usage.ru_utime + usage.ru_stime, out


def golfref_run(config: Path) -> tuple[float, float, float]:
    """One fresh `golfref run`: seconds from launch to the first request, from the last answer to exit, of CPU."""
    log = Path(json.loads(config.read_text(encoding="utf-8"))["log"]["path"])
    for stale in log.parent.glob(log.stem + "*"):
        stale.unlink()
    launch, exited, cpu, _ = _timed([sys.executable, "-m", "golfref", "run", str(config), "--quiet"])
    first, last = _stamps([p["stderr"] for p in json.loads(log.read_text(encoding="utf-8"))["players"]])
    return first - launch, exited - last, cpu


def bare_run(spec: Path) -> tuple[float, float, float]:
    """One fresh bare loop: seconds from launch to the first request, from the last answer to exit, of CPU."""
    launch, exited, cpu, out = _timed([sys.executable, str(BARE), str(spec)])
    first, last = _stamps(out.splitlines())
    return first - launch, exited - last, cpu


def _bare_spec(folder: Path, bots: Path, command: list[str]) -> Path:
    """The bare loop's seats: the hello and first request golfref sends each, from a transcript."""
    config = _config(folder, bots, command, sandbox=False, transcript=True)
    golfref_run(config)
    log = Path(json.loads(config.read_text(encoding="utf-8"))["log"]["path"])
    seats = []
    decisions = 0
    for seat in range(BOTS):
        lines = [
            json.loads(x)["line"] for x in log.with_suffix(f".seat{seat}.transcript.jsonl").read_text().splitlines()
        ]
        lines = [x for x in lines if x.startswith(('{"type":"hello"', '{"type":"request"'))]
        decisions += len(lines) - 1
        seats.append({"command": command, "cwd": str(bots), "hello": lines[0], "request": lines[1]})
    path = folder / f"bare-{Path(command[-2]).name}.json"
    path.write_text(json.dumps(seats), encoding="utf-8")
    name = Path(command[-2]).name
    print(f"  {name}: the hole takes {decisions} decisions (in golfref's CPU time, not in the bare loop's)")
    return path


def _ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def run(quick: bool = False) -> None:
    """Print start-up and shutdown of `golfref run` against the bare loop: C and Python bots, sandbox off and on."""
    rounds = 3 if quick else 9
    one, five, fifteen = os.getloadavg()
    print(f"bot start-up and shutdown: 1-hole `golfref run` of {BOTS} instant bots against a bare Python loop "
          f"starting the same bots; medians of {rounds} interleaved rounds; load {one:.2f} {five:.2f} {fifteen:.2f}")  # noqa: E501  # fmt: skip
    print("  (start: launch to the first request; shutdown: the last answer to exit; CPU: of the whole process tree)")
    with tempfile.TemporaryDirectory(prefix="golfref-botstart-") as tmp:
        folder = Path(tmp)
        folder.chmod(0o755)  # a sandboxed bot runs as a user of its own, which must reach its folder
        (folder / "logs").mkdir()
        bots = folder / "bots"  # the bots' folder, fingerprinted at every run: nothing else is written there
        bots.mkdir()
        bots.chmod(0o755)
        c_bot = compile_c_bot(str(bots))
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        shutil.copy(BOT, bots / BOT.name)
        kinds = [("instant Python bots", [python, str(bots / BOT.name), "--stamps"])]
        if isinstance(c_bot, str):
            print(f"  instant C bots: skipped: {c_bot}")
        else:
            kinds.insert(0, ("instant C bots", [*c_bot, "--stamps"]))
        problem = bubblewrap_problem() or (None if python == SYSTEM_PYTHON else f"{SYSTEM_PYTHON} is missing")
        if problem is not None:
            print(f"  sandbox on: skipped: {problem}")
        cases = []
        for label, command in kinds:
            spec = _bare_spec(folder, bots, command)
            for sandbox in (False, True) if problem is None else (False,):
                cases.append((label, sandbox, _config(folder, bots, command, sandbox, transcript=False), spec))
        runs: dict[tuple[str, bool], list[tuple[float, float]]] = {(c[0], c[1]): [] for c in cases}
        bares: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in kinds}
        for _ in range(rounds):
            for label, sandbox, config, spec in cases:
                runs[label, sandbox].append(golfref_run(config))
                if not sandbox:
                    bares[label].append(bare_run(spec))
        for label, _ in kinds:
            bare = _Figures(bares[label])
            for sandbox in (False, True):
                if (label, sandbox) in runs:
                    _row(f"{label}, sandbox {'on' if sandbox else 'off'}", _Figures(runs[label, sandbox]), bare,
                         _Figures(runs[label, False]) if sandbox else None)  # fmt: skip
        start_split(rounds, folder)
    print(f"  after: load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


SPLIT = {
    "the interpreter alone (python -c pass)": ["-c", "pass"],
    "a bare typer app shaped like `golfref run` (bench/typer_app.py)": [str(TYPER_APP), "run", "match.yaml", "-q"],
    "importing golfref's command line, typer's share included": ["-c", "import golfref.cli.app"],
}


def start_split(rounds: int, folder: Path) -> dict[str, tuple[float, float]]:
    """Print and return (wall ms, CPU ms) of a fresh process of each of SPLIT, medians of `rounds` interleaved."""
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in SPLIT}
    for _ in range(rounds):
        for label, argv in SPLIT.items():
            launch, exited, cpu, _ = _timed([sys.executable, *argv], cwd=folder)
            runs[label].append((exited - launch, 0.0, cpu))
    print("  where golfref's start goes, fresh processes (wall / CPU):")
    split = {}
    for label in SPLIT:
        figures = _Figures(runs[label])
        split[label] = (figures.start, figures.cpu)
        print(f"    {label}: {figures.start:.0f} / {figures.cpu:.0f} ms")
    return split


class _Figures:
    """Medians in milliseconds of (start, shutdown, CPU) runs."""

    def __init__(self, runs: list[tuple[float, float, float]]) -> None:
        self.start, self.stop, self.cpu = (_ms([r[i] for r in runs]) for i in (0, 1, 2))
        self.total = _ms([r[0] + r[1] for r in runs])


def _row(label: str, got: _Figures, bare: _Figures, sandbox_off: _Figures | None) -> None:
    allowance = SANDBOX_MS_PER_BOT * BOTS if sandbox_off is not None else 0.0
    wall_ok = got.total <= RATIO_GOAL * bare.total + allowance
    cpu_ok = got.cpu <= RATIO_GOAL * bare.cpu + allowance
    goal = f"{RATIO_GOAL}x" + (f" + {SANDBOX_MS_PER_BOT:.0f} ms per bot" if sandbox_off is not None else "")
    print(f"  {label}: golfref start {got.start:.0f} + shutdown {got.stop:.0f} = {got.total:.0f} ms wall, "
          f"{got.cpu:.0f} ms CPU; bare loop {bare.start:.0f} + {bare.stop:.0f} = {bare.total:.0f} ms wall, "
          f"{bare.cpu:.0f} ms CPU")  # fmt: skip
    line = f"    ratio {got.total / bare.total:.2f}x wall, {got.cpu / bare.cpu:.2f}x CPU (goal at most {goal}: "
    line += f"wall {'met' if wall_ok else 'missed'}, CPU {'met' if cpu_ok else 'missed'})"
    if sandbox_off is not None:
        line += (f"; the sandbox's share per bot {(got.total - sandbox_off.total) / BOTS:+.1f} ms wall, "
                 f"{(got.cpu - sandbox_off.cpu) / BOTS:+.1f} ms CPU")  # fmt: skip
    print(line)
