"""The attacks of issue 10 ("fair play"), each a real hostile bot (tests/bots/hostile/) in a real
match played by `golfref run` against an honest bot, with the sandbox off and on.

Every test takes the `sandbox` parameter. With the sandbox off (today's referee, run as this
test's user, root on CI) the attacks that work are asserted to work, as they really do: these
assertions document what the sandbox must take away, and the log must record the sandbox as
off. With it on, the issue's promises: the attack fails, a limit faults the bot with
`resource_limit`, nothing survives the match, nothing is planted, and the honest opponent's
match is not disturbed.

Each hostile bot reports what it achieved as one `ATTACK-REPORT {json}` line on stderr
(kept in the log's `players[i].stderr`, so a sandboxed bot reports too) and in a file when it
can reach it; the test reads the stderr line. Everything an attack leaves on the machine (a
file in /tmp, a planted .pth, a process) is removed or killed here, by name or by pid, in a
`finally`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import BOTS, default_signals

HOSTILE = BOTS / "hostile"
sys.path.insert(0, str(HOSTILE))
import hostile  # noqa: E402
import referee_bot  # noqa: E402

# The bots run on the system interpreter when there is one: a sandbox shows a bot its own
# folder and the system, not this test's virtual environment (nor /root, where it may live).
BOT_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else os.path.realpath(sys.executable)
WAIT = 300.0  # seconds: only a hung referee takes this long (a loaded machine takes minutes)
SEED = 7_305_521_894_661_234_017  # distinctive, so that finding it in memory is no accident
HOSTILE_SEAT, HONEST_SEAT = 0, 1
BIG_FILE = 500 << 20  # disk_bot.SIZE
CHILDREN, FILES = 500, 5000

pytestmark = pytest.mark.process


@dataclass
class Match:
    """A finished `golfref run`: its exit status, stderr and log."""

    code: int
    stderr: str
    log: dict[str, Any]
    log_path: Path

    def report(self, seat: int = HOSTILE_SEAT) -> dict[str, Any] | None:
        """The seat's last attack report from its stderr, or None when it wrote none."""
        text = self.log["players"][seat]["stderr"] or ""
        lines = [line for line in text.splitlines() if line.startswith(hostile.REPORT_PREFIX)]
        return json.loads(lines[-1][len(hostile.REPORT_PREFIX) :]) if lines else None

    def faults(self, seat: int) -> list[dict[str, Any]]:
        """The faults of one seat."""
        return [f for f in self.log["faults"] if f["seat"] == seat]


def bot(name: str, *args: object) -> list[str]:
    """The command of a hostile (or victim) bot."""
    return [BOT_PYTHON, str(HOSTILE / name), *map(str, args)]


def play(
    tmp_path: Path,
    sandbox: bool,
    hostile_bot: list[str],
    honest_bot: list[str] | None = None,
    before: Callable[[], None] | None = None,
) -> Match:
    """Play one 1-hole match of `hostile_bot` (seat 0) against an honest bot (seat 1, by default victim_bot.py);
    `before` runs in the referee's process before it starts."""
    log_path = tmp_path / "log.json"
    data: dict[str, Any] = {
        "match": "attack",
        "seed": SEED,
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [
            {"name": "hostile", "command": hostile_bot},
            {"name": "honest", "command": honest_bot or bot("victim_bot.py", tmp_path / "victim.json")},
        ],
        "time": {"startup_ms": 60000, "move_ms": 30000},
        "faults": {"policy": "fallback", "fallback": "greedy", "max_faults": 3},
        "log": {"path": str(log_path)},
    }
    if sandbox:
        data["sandbox"] = {"enabled": True}
    config = tmp_path / "match.yaml"
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    referee = subprocess.Popen(
        [sys.executable, "-m", "golfref", "run", str(config), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True, preexec_fn=_then(default_signals(), before),
    )  # fmt: skip
    try:
        _, stderr = referee.communicate(timeout=WAIT)
    finally:
        if referee.poll() is None:
            os.killpg(referee.pid, signal.SIGKILL)  # its own group: the referee and nothing else of ours
            referee.wait()
    log = json.loads(log_path.read_text(encoding="utf-8"))
    return Match(referee.returncode, stderr, log, log_path)


def _then(first: Callable[[], None], then: Callable[[], None] | None) -> Callable[[], None]:
    def both() -> None:
        first()
        if then is not None:
            then()

    return both


def golfref(*args: str) -> subprocess.CompletedProcess[str]:
    """Run one golfref command to its end."""
    return subprocess.run([sys.executable, "-m", "golfref", *args], capture_output=True, text=True, timeout=WAIT)


def assert_valid(match: Match) -> None:
    """The log validates (`golfref replay --check`): a finished one wholly, an interrupted one
    as far as it goes (the check then says so and exits 1)."""
    done = golfref("replay", "--check", str(match.log_path))
    if match.log["status"] == "finished":
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert done.returncode == 1 and ": incomplete: " in done.stdout and " validates through " in done.stdout, (
            done.stdout + done.stderr
        )


def assert_protections_recorded(match: Match, sandbox: bool) -> None:
    """The log says, per external bot, whether the sandbox was on."""
    for player in match.log["players"]:
        if "command" not in player:
            continue
        if sandbox:
            assert player["sandbox"]["enabled"] is True
        else:
            assert player["sandbox"] == {"enabled": False, "user": None, "bubblewrap": False,
                                         "network_isolated": False, "limits": {}, "missing": []}  # fmt: skip


def assert_honest_undisturbed(match: Match) -> None:
    """The match finished, and the honest seat played it without a fault."""
    assert match.log["status"] == "finished", match.stderr
    assert match.log["players"][HONEST_SEAT]["status"] == "ok"
    assert match.faults(HONEST_SEAT) == []
    assert all(step.get("by") != "fallback" for step in steps_of(match, HONEST_SEAT))


def steps_of(match: Match, seat: int) -> list[dict[str, Any]]:
    """The decisions of one seat."""
    return [s for hole in match.log["holes"] for s in hole["steps"] if s.get("seat") == seat]


def assert_resource_limit(match: Match, what: str) -> None:
    """The hostile seat was faulted for hitting a limit that names `what`."""
    kinds = [(f["kind"], f["message"]) for f in match.faults(HOSTILE_SEAT)]
    assert any(kind == "resource_limit" and what in message for kind, message in kinds), kinds


def survivors(token: str) -> list[int]:
    """Live processes (zombies aside) whose command line holds `token`: what a match left running."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if stat[stat.rindex(b")") + 2 :].split()[0] != b"Z" and token.encode() in argv:
            found.append(int(entry))
    return found


def assert_none_survive(token: str) -> None:
    """No process of the hostile bot is left (a killed one may take a moment to go)."""
    deadline = time.monotonic() + 5.0
    while survivors(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert survivors(token) == []


@pytest.fixture
def token(tmp_path: Path) -> Iterator[str]:
    """The bot's report path, unique to the test: it is on the command line of every process
    the hostile bot starts. Whatever still runs with it at the end is killed, by pid."""
    out = str(tmp_path / "attack.json")
    yield out
    for pid in survivors(out):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_the_seed_and_the_referee_are_out_of_reach(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 1: the referee's memory holds the seed (every deal to come); ptrace stops the referee."""
    match = play(tmp_path, sandbox, bot("referee_bot.py", token, SEED ^ referee_bot.MASK))
    report = match.report()
    assert report is not None, match.log["players"][HOSTILE_SEAT]["stderr"]
    if sandbox:
        assert report["mem"] != "read"
        assert not report["pyint"] and not report["ascii"]
        assert SEED not in report.get("found_seeds", [])
        assert report["ptrace"] != "attached"
    else:
        assert report["mem"] == "read"
        assert report["pyint"]  # the seed, as the referee's own int object
        assert report["ptrace"] == "attached"
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_the_opponent_memory_is_out_of_reach(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 2: the opponent's memory holds what it keeps private (here victim_bot's secret)."""
    match = play(tmp_path, sandbox, bot("snoop_bot.py", token))
    report, victim = match.report(), match.report(HONEST_SEAT)
    assert report is not None and victim is not None
    if sandbox:
        assert report["secrets"] == []
        assert all(outcome != "read" for outcome in report["mem"].values())
    else:
        assert report["opponents"] == [victim["pid"]]
        assert report["secrets"] == [victim["secret"]]
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_a_junk_line_cannot_be_written_into_the_opponent_pipe(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 3a: a line written into the opponent's stdout through /proc/<pid>/fd/1 is charged to it."""
    match = play(tmp_path, sandbox, bot("sabotage_bot.py", "junk", token))
    report, victim = match.report(), match.report(HONEST_SEAT)
    assert report is not None and victim is not None
    if sandbox:
        assert "done" not in report["junk"].values()
        assert_honest_undisturbed(match)
    else:
        assert report["junk"] == {str(victim["pid"]): "done"}
        assert [(f["kind"], f["line"]) for f in match.faults(HONEST_SEAT)] == [
            ("unasked_output", "junk from the opponent")
        ]
        assert match.log["status"] == "finished"
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_the_opponent_cannot_be_stopped_or_killed(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 3b: SIGSTOP then SIGKILL to the opponent."""
    match = play(tmp_path, sandbox, bot("sabotage_bot.py", "stop-kill", token))
    report, victim = match.report(), match.report(HONEST_SEAT)
    assert report is not None and victim is not None
    if sandbox:
        assert "done" not in report["stop"].values() and "done" not in report["kill"].values()
        assert_honest_undisturbed(match)
    else:
        pid = str(victim["pid"])
        assert report["stop"] == {pid: "done"} and report["stopped_state"] == {pid: "T"}
        assert report["kill"] == {pid: "done"}
        assert [f["kind"] for f in match.faults(HONEST_SEAT)] == ["exited"]
        assert "SIGKILL" in match.faults(HONEST_SEAT)[0]["message"]
        assert match.log["players"][HONEST_SEAT]["status"] == "disqualified"
        assert match.log["status"] == "finished"
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_the_referee_cannot_be_stopped_by_a_bot(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 3c: SIGTERM to the referee, the bot's parent."""
    match = play(tmp_path, sandbox, bot("sabotage_bot.py", "term-referee", token))
    report = match.report()
    assert report is not None
    if sandbox:
        assert report["term"] != "sent"
        assert match.code == 0, match.stderr
        assert_honest_undisturbed(match)
    else:
        assert report["term"] == "sent"
        assert match.code == 128 + signal.SIGTERM
        assert match.log["status"] == "interrupted"
        assert "SIGTERM" in match.stderr
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on 127.0.0.1 for the match's length: its port, and what each connection sent."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.1)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                received.append(conn.recv(1024))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], received
    finally:
        stop.set()
        thread.join(timeout=10)
        server.close()


def test_no_connection_opens(
    tmp_path: Path, sandbox: bool, token: str, listener: tuple[int, list[bytes]]
) -> None:
    """Attack 4: a connection to the test's server on 127.0.0.1 and one outside (recorded only:
    the machine may be offline)."""
    port, received = listener
    match = play(tmp_path, sandbox, bot("net_bot.py", token, port))
    report = match.report()
    assert report is not None
    if sandbox:
        assert report["local"] != "sent"
        assert report["external"] != "connected"
        assert received == []
    else:
        assert report["local"] == "sent"
        assert received and received[0].startswith(b"ATTACK ")
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_the_memory_limit_faults_the_bot(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 5: allocate 4 GiB. Without a sandbox the pages are not touched, so as not to take
    4 GiB of a shared machine: the allocation alone shows nothing stops it."""
    match = play(tmp_path, sandbox, bot("memory_bot.py", token, "touch" if sandbox else "no-touch"))
    report = match.report()
    if sandbox:
        assert report is None or report["touched_bytes"] < 4 << 30
        assert_resource_limit(match, "memory")
    else:
        assert report == {"allocated": True, "touched_bytes": 0, "error": None}
        assert match.faults(HOSTILE_SEAT) == []
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_the_disk_limit_faults_the_bot(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 6: write 500 MiB to /tmp and leave it there."""
    big = Path("/tmp") / f"golfref-attack-{uuid.uuid4().hex}.bin"
    try:
        match = play(tmp_path, sandbox, bot("disk_bot.py", token, big))
        report = match.report()
        if sandbox:
            assert not big.exists()  # the bot's /tmp is its own, and gone with it
            assert report is None or report["written"] < BIG_FILE
            assert_resource_limit(match, "file")
        else:
            assert report == {"written": BIG_FILE, "error": None}
            assert big.stat().st_size == BIG_FILE
        assert_honest_undisturbed(match)
        assert_protections_recorded(match, sandbox)
        assert_valid(match)
    finally:
        big.unlink(missing_ok=True)


def test_processes_and_open_files_are_capped(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 7: fork 500 sleeping children and open 5000 files; none of the children outlives the match."""
    match = play(tmp_path, sandbox, bot("fork_bot.py", token, CHILDREN, FILES))
    report = match.report()
    assert report is not None
    if sandbox:
        assert len(report["children"]) < CHILDREN and report["fork_error"] == "EAGAIN"
        assert report["files"] < FILES and report["open_error"] == "EMFILE"
    else:
        assert len(report["children"]) == CHILDREN and report["fork_error"] is None
        assert report["files"] == FILES and report["open_error"] is None
    assert_none_survive(token)
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)


def test_nothing_is_planted_for_the_next_golfref(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 8: a .pth file in the referee's site-packages runs in every later golfref process."""
    name = f"golfref-attack-{uuid.uuid4().hex}"
    planted = Path(sysconfig.get_paths()["purelib"]) / f"{name}.pth"
    marker = tmp_path / "pth-marker"
    try:
        match = play(tmp_path, sandbox, bot("pth_bot.py", token, name, marker))
        report = match.report()
        assert report is not None
        for _ in range(2):
            assert golfref("--version").returncode == 0
        ran_in = {line.split()[0] for line in marker.read_text().splitlines()} if marker.exists() else set()
        if sandbox:
            assert report["planted"] is None
            assert not planted.exists()
            assert ran_in == set()
        else:
            assert report["planted"] == str(planted)
            assert len(ran_in) >= 2  # both golfref processes ran it (and replay --check below too)
        assert_honest_undisturbed(match)
        assert_protections_recorded(match, sandbox)
        assert_valid(match)
    finally:
        planted.unlink(missing_ok=True)


def test_nothing_survives_the_match(tmp_path: Path, sandbox: bool, token: str) -> None:
    """Attack 9: a double-forked, setsid() grandchild with its streams closed, left to run."""
    match = play(tmp_path, sandbox, bot("linger_bot.py", token))
    report = match.report()
    assert report is not None and report["error"] is None and report["lingerer"] is not None
    assert_none_survive(token)
    assert_honest_undisturbed(match)
    assert_protections_recorded(match, sandbox)
    assert_valid(match)
