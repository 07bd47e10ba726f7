"""Whole matches through `run_match` with real subprocess bots: what only a process shows.

The match loop's logic (every fault kind, the fault policy, the clocks, the log, hidden
information) is tested with in-process scripted bots in tests/test_referee_scripted.py, whose
helpers this file uses. Here, the misbehaviours of tests/bots/bad_bot.py that only a real
process has (a line cut by its exit, bytes that are not UTF-8 or a line without end in a pipe,
stderr captured and capped, children that hold the pipes or escape the process group, SIGTERM
ignored, stdout or stdin closed while the process lives or exits, two answers in one write, a
real timeout) are played under both fault policies: the match finishes, the fault is recorded,
the log validates, the seat ends as the policy says, the other seat plays on untouched, and no
process of the match is left behind (found through /proc by a token each bot carries in its
environment and its command line; zombie children of the referee count). Then programs that
cannot start, a banner printed before the hello could be sent, and stops that come as signals.

Deadlines are generous except where a timeout is the subject; then the other seat is a
built-in player, so that no assertion depends on how fast a bot answers.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from golfref.config.match import ConfigError, parse_config
from golfref.match.referee import run_match
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.log import read_log

from .test_referee_scripted import (
    DQ,
    OK,
    Line,
    answer_json,
    builtin,
    check_fault_outcome,
    checked_log,
    contains,
    cut_short,
    make_config,
    no_line,
    steps_of,
)

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inspects /proc"),
]

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
SHORT = 300  # ms: for the tests whose subject is a timeout
MOVE_SHORT = {"move_ms": SHORT}  # the bot stops answering: every wait ends in a timeout
TOKEN = "GOLFREF_TEST_TOKEN"
BAD_BOT = BOTS / "bad_bot.py"
ECHO_BOT = BOTS / "echo_bot.py"
SPY_BOT = BOTS / "spy_bot.py"


# -- building matches ---------------------------------------------------------------------


def bot(name: str, script: Path, *args: str, token: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A player entry for a bot that carries `token` in its environment and command line."""
    return {
        "name": name,
        "command": [sys.executable, "-X", f"golfref_test_token={token}", str(script), *args],
        "env": {TOKEN: token, **(env or {})},
    }


def _stat(pid: int) -> tuple[str, int] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1])


def leftovers(token: str) -> dict[int, str]:
    """Processes carrying `token` (environment or command line), and zombie children of ours."""
    marker = f"{TOKEN}={token}".encode()
    found: dict[int, str] = {}
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            environ = cmdline = b""
        if marker in environ.split(b"\0") or token.encode() in cmdline:
            found[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace")
        st = _stat(pid)
        if st is not None and st[1] == me and st[0] == "Z":
            found[pid] = "zombie child of the referee"
    return found


# -- the misbehaviours only a process has, under both policies -----------------------------------

T, X = FaultKind.TIMEOUT, FaultKind.EXITED


@dataclass(frozen=True)
class Case:
    mode: str
    forfeit: tuple[FaultKind, ...]
    """Faults recorded under `policy: forfeit`."""
    fallback: tuple[FaultKind, ...]
    """Faults recorded under `policy: fallback` with `max_faults: 2`."""
    fallback_status: SeatStatus
    line: Line = no_line
    """What the first fault keeps of the offending line."""
    startup: bool = False
    """The fault happens before the first hole (no hole, no request)."""
    timed: dict[str, int] | None = None
    """Limits for a case where a timeout is (or may be) part of the story; the other seat is then
    a built-in player, so that nothing depends on how fast a bot answers."""
    stderr: str | None = None
    """Text the seat's kept stderr must contain."""
    message: str | None = None
    """Text the first fault's message must contain."""


CASES = [
    # a real timeout: the bot stops reading and is killed at the end
    Case("sleep-forever", (T,), (T, T), DQ, timed=MOVE_SHORT, message="no answer to request 1 within the time limit"),
    # a last line without a newline, delivered at end of file, then the exit status
    Case("partial-exit", (X,), (X,), DQ),
    # a traceback captured from stderr
    Case("crash-at-startup", (X,), (X,), DQ, startup=True, stderr="crashing at startup on purpose"),
    # the framing of bytes: not UTF-8, 10 MiB without a newline (discarded unread), \r\n
    Case("non-utf8", (FaultKind.NOT_UTF8,), (FaultKind.NOT_UTF8,) * 2, DQ, contains(r"\xff\xfe")),
    Case("huge-line", (FaultKind.LINE_TOO_LONG,), (FaultKind.LINE_TOO_LONG, T), DQ, cut_short, timed=MOVE_SHORT),
    Case("crlf", (), (), OK),
    # 50 MiB of stderr never blocks the bot or the referee, and is kept capped
    Case("stderr-flood", (), (), OK, stderr="FLOOD-END"),
    # both copies of an answer in one write
    Case(
        "answer-twice-at-once",
        (FaultKind.REPEATED_ID,),
        (FaultKind.REPEATED_ID,) * 2,
        DQ,
        answer_json(lambda m: m["type"] == "answer"),
    ),
    # the process tree: children holding the pipes, escaping the group or orphaned; SIGTERM ignored
    Case("fork-child", (), (), OK),
    Case("ignore-sigterm", (T,), (T, T), DQ, timed=MOVE_SHORT),
    Case("setsid-child", (), (), OK),
    Case("setsid-orphan", (), (), OK),
    # The exit status is read once the process has ended, however late after its stdout closed.
    Case("close-stdout-exit", (X,), (X,), DQ, message="the bot exited (code 3) before its answer to request 1"),
    Case("close-stdout-stay", (X,), (X,), DQ, message="closed its stdout but is still running"),
    # A failed write to an exiting bot is recorded as the failed read after it would be.
    Case("close-stdin-exit", (X,), (X,), DQ, startup=True, message="the bot exited (code 3) before its ready"),
]


@pytest.mark.parametrize("policy", ["forfeit", "fallback"])
@pytest.mark.parametrize("case", CASES, ids=[c.mode for c in CASES])
def test_misbehaving_bot(tmp_path: Path, case: Case, policy: str) -> None:
    token = uuid.uuid4().hex
    partner = builtin("partner") if case.timed else bot("partner", ECHO_BOT, token=token)
    config = make_config(
        tmp_path,
        [bot("bad", BAD_BOT, case.mode, token=token), partner],
        time=case.timed,
        faults={"policy": policy, "fallback": "greedy", "max_faults": 2},
    )
    result = run_match(config, seed=11)

    assert leftovers(token) == {}, "processes of the match outlived it"
    log = checked_log(result)
    check_fault_outcome(result, log, case, policy)
    if case.mode == "stderr-flood":
        stderr = log["players"][0]["stderr"]
        assert "FLOOD-START" in stderr and "bytes of stderr dropped" in stderr and len(stderr) < 70_000

    partner_steps = steps_of(log, 1)
    assert partner_steps
    assert {step["by"] for _, step in partner_steps} == {"builtin" if case.timed else "bot"}
    if not case.timed:
        assert log["players"][1]["reported_name"] == "echo"


def test_missing_program_is_a_config_error_before_anything_starts(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    players = [
        bot("spy", SPY_BOT, token=token),
        {"name": "ghost", "command": [str(tmp_path / "no-such-bot"), "--x"]},
    ]
    with pytest.raises(ConfigError, match=r"match\.yaml:\d+: players\[1\]\.command: no such program"):
        make_config(tmp_path, players)
    assert leftovers(token) == {}
    assert not (tmp_path / "logs").exists()


def test_a_program_that_cannot_start_is_disqualified_at_once(tmp_path: Path) -> None:
    script = tmp_path / "broken_bot"
    script.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    token = uuid.uuid4().hex
    config = make_config(
        tmp_path,
        [{"name": "broken", "command": [str(script)]}, bot("echo", ECHO_BOT, token=token)],
        faults={"policy": "fallback", "max_faults": 5},
    )
    result = run_match(config, seed=2)
    assert leftovers(token) == {}
    log = checked_log(result)
    assert [(f.seat, f.kind, f.hole, f.request) for f in result.faults] == [(0, FaultKind.START_FAILED, None, None)]
    assert "broken_bot" in result.faults[0].message
    assert result.statuses == (DQ, OK) and result.placings == (2, 1)
    assert {(s["by"], s["request"]) for _, s in steps_of(log, 0)} == {("fallback", None)}
    assert {s["by"] for _, s in steps_of(log, 1)} == {"bot"}
    assert log["players"][0]["stderr"] is None


# -- a banner before the hello -----------------------------------------------------------------


def test_a_banner_before_the_hello_is_the_same_fault_as_one_after(tmp_path: Path) -> None:
    """A line printed before the hello was even sent is still a line before ready.

    The shell prints at once, while the referee is still starting the other three bots, so
    the banner usually reaches the pipe before the hello goes out: the record must be the same
    as for a banner after it (the 'banner' cases of test_referee_scripted.py script both).
    """
    token = uuid.uuid4().hex
    shell = {
        "name": "shell",
        "command": ["/bin/sh", "-c", f"echo 'loading the model...'; exec {sys.executable} {ECHO_BOT}"],
        "env": {TOKEN: token},
    }
    echoes = [bot(f"echo{i}", ECHO_BOT, token=token) for i in range(3)]
    config = make_config(tmp_path, [shell, *echoes], faults={"policy": "fallback", "max_faults": 3})
    result = run_match(config, seed=5)
    assert [(f.seat, f.kind, f.hole, f.request, f.line) for f in result.faults] == [
        (0, FaultKind.NOT_JSON, None, None, "loading the model...")
    ]
    assert result.statuses == (SeatStatus.FAULTED, OK, OK, OK)
    assert leftovers(token) == {}


# -- stopping a match from its hooks ------------------------------------------------------------


_signal_at_fork: list[int] = []


def _fork_hook() -> None:
    if _signal_at_fork:
        os.kill(os.getpid(), _signal_at_fork.pop())


os.register_at_fork(after_in_parent=_fork_hook)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the lost exception, provoked
def test_a_stop_whose_exception_was_lost_in_a_fork_hook_still_stops_the_match(tmp_path: Path) -> None:
    """A tournament worker hung on a held bot: its SIGINT came while a bot was being forked."""
    import signal

    from golfref.match.referee import MatchInterrupted

    text = (
        "match: lost\nrules: {preset: standard, layout: 2x2, holes: 1}\nseed: 3\n"
        f"players:\n  - {{name: held, command: [{json.dumps(sys.executable)}, "
        f"{json.dumps(str(BOTS / 'bad_bot.py'))}, never-ready]}}\n"
        "  - {name: house, builtin: greedy}\n"
        "time: {startup_ms: 600000}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'lost.json'))}}}\n"
    )
    config = parse_config(text, base_dir=tmp_path)
    previous = signal.getsignal(signal.SIGTERM)
    _signal_at_fork.append(signal.SIGTERM)
    try:
        with pytest.raises(MatchInterrupted) as stopped:
            run_match(config)
    finally:
        _signal_at_fork.clear()
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.signum == signal.SIGTERM
    assert read_log(tmp_path / "lost.json")["status"] == "interrupted"


def test_a_stop_before_any_bot_starts_is_an_interruption_without_a_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    import golfref.match.referee as referee_module
    from golfref.match.referee import MatchInterrupted

    def signalled(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # as a user's signal during the set-up

    monkeypatch.setattr(referee_module, "check_outputs", signalled)
    text = (
        "match: early\nplayers:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: greedy}\n"
        f"log: {{path: {json.dumps(str(tmp_path / 'early.json'))}}}\n"
    )
    previous = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(MatchInterrupted, match=r"^interrupted by SIGTERM; before any bot started$") as stopped:
            run_match(parse_config(text, base_dir=tmp_path))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.log_path is None and not (tmp_path / "early.json").exists()
