"""The bot-process layer against real subprocess bots: framing, deadlines, stderr, clean kills.

Every test runs its bots through the `bots` fixture, which closes them all afterwards and
then checks that nothing of theirs is left: no process in a bot's process group (zombies
included), no process carrying the bot's test token in its environment (which every
descendant inherits, also those that escaped with setsid), and none of the processes seen
in the bots' trees before the close. Deadlines are generous except where the timeout is
what is tested; no test asserts a duration.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from golfref import PROTOCOL_VERSION
from golfref.bots.bot_process import BotProcess
from golfref.bots.environment import bot_environment
from golfref.bots.framing import LINE_LIMIT, STDERR_LIMIT, UNASKED_LIMIT, ReadResult, ReadStatus
from golfref.bots.lifetime import BotStartError
from golfref.bots.multiplex import BotPool
from tests.conftest import BOTS

pytestmark = [
    pytest.mark.process,
    pytest.mark.filterwarnings("error::RuntimeWarning"),  # the process layer warns when a kill fails
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inspects /proc"),
]

GENEROUS = 15.0  # seconds: only a broken bot or referee takes this long
SHORT = 0.3  # seconds: for the tests whose subject is the timeout itself
TOKEN = "GOLFREF_TEST_TOKEN"
HELLO = json.dumps({"type": "hello", "protocol": 1, "seat": 0, "players": ["a", "b"], "rules": {}, "time": {}})
MINIMAL_ENV = {
    "PATH", "HOME", "LANG", "LC_ALL", "PYTHONUNBUFFERED", "PYTHONIOENCODING",
    "GOLFREF_PROTOCOL", "GOLFREF_SEAT",
}  # fmt: skip


def request(rid: int, legal: tuple[str, ...] = ("stock", "discard")) -> str:
    return json.dumps(
        {
            "type": "request",
            "id": rid,
            "decision": "draw",
            "view": {},
            "events": [],
            "legal": list(legal),
            "time_ms": 2000,
        }
    )


def soon(seconds: float = GENEROUS) -> float:
    return time.monotonic() + seconds


# -- /proc inspection -------------------------------------------------------------------


def proc_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgrp, session) of a process, zombies included; None if it is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3])


def all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def group_members(pgid: int) -> list[int]:
    return [pid for pid in all_pids() if (st := proc_stat(pid)) is not None and pgid in (st[2], st[3])]


def token_holders(token: str) -> set[int]:
    marker = f"{TOKEN}={token}".encode()
    found = set()
    for pid in all_pids():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            found.add(pid)
    return found


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid in all_pids():
        st = proc_stat(pid)
        if st is not None:
            children.setdefault(st[1], []).append(pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


# -- the fixture ------------------------------------------------------------------------


class Bots:
    """Starts test bots into one pool, and checks after a close that nothing of them is left."""

    def __init__(self) -> None:
        self.pool = BotPool()
        self.started: list[tuple[BotProcess, str]] = []

    def start(self, script: str, *args: str, line_limit: int = LINE_LIMIT, direct: bool = False) -> BotProcess:
        token = uuid.uuid4().hex
        argv = [str(BOTS / script), *args] if direct else [sys.executable, str(BOTS / script), *args]
        seat = len(self.started)
        bot = BotProcess(argv, seat=seat, env={TOKEN: token}, line_limit=line_limit)
        self.pool.add(bot)
        bot.start()
        self.started.append((bot, token))
        return bot

    def handshake(self, bot: BotProcess) -> ReadResult:
        assert bot.send(HELLO, soon())
        result = self.pool.read_line(bot, soon())
        assert result.status is ReadStatus.LINE, result
        assert result.line is not None and json.loads(result.line)["type"] == "ready"
        return result

    def ask(self, bot: BotProcess, rid: int, seconds: float = GENEROUS) -> ReadResult:
        bot.send(request(rid), soon())
        return self.pool.read_line(bot, soon(seconds))

    def tree(self, only: BotProcess | None = None) -> set[int]:
        """Every process the bots (or `only` that one) have now, escaped ones included."""
        found: set[int] = set()
        for bot, token in self.started:
            if only is not None and bot is not only:
                continue
            found |= token_holders(token)
            if bot.pid is not None and proc_stat(bot.pid) is not None:
                found |= {bot.pid} | descendants(bot.pid)
        return found

    def assert_gone(self, before: set[int], only: BotProcess | None = None) -> None:
        for bot, token in self.started:
            if only is not None and bot is not only:
                continue
            assert bot.pid is not None
            assert group_members(bot.pid) == [], f"left in the group of {bot!r}"
            assert token_holders(token) == set(), f"descendants of {bot!r} left"
        left = {pid: proc_stat(pid) for pid in before if proc_stat(pid) is not None}
        assert left == {}, "processes of the bots outlived the close"
        zombies = [pid for pid in all_pids() if (st := proc_stat(pid)) and st[1] == os.getpid() and st[0] == "Z"]
        assert zombies == [], "unreaped children of the referee"


@pytest.fixture
def bots() -> Iterator[Bots]:
    harness = Bots()
    try:
        yield harness
    finally:
        before = harness.tree()
        harness.pool.close_all(grace=0.3)
        harness.assert_gone(before)


def close_and_check(bots: Bots, bot: BotProcess, grace: float = 0.5) -> None:
    before = bots.tree(bot)
    assert before, "the bot's processes should be visible before the close"
    bot.close(grace)
    bots.assert_gone(before, bot)


# -- environment ------------------------------------------------------------------------


def test_bot_environment_is_minimal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOLFREF_SEED", "12345")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    env = bot_environment({"EXTRA": "yes"}, 2)
    assert set(env) == MINIMAL_ENV | {"EXTRA"}
    assert env["GOLFREF_SEAT"] == "2" and env["GOLFREF_PROTOCOL"] == str(PROTOCOL_VERSION)
    assert env["PATH"] == os.environ["PATH"]
    assert env["LANG"] == env["LC_ALL"] == "C.UTF-8"


@pytest.mark.parametrize(
    ("extra", "seat"),
    [({"GOLFREF_SEAT": "1"}, 0), ({"GOLFREF_PROTOCOL": "1"}, 0), ({"A=B": "x"}, 0), ({"A": "x\0y"}, 0), (None, -1)],
)
def test_bot_environment_rejects_bad_input(extra: dict[str, str] | None, seat: int) -> None:
    with pytest.raises(ValueError):
        bot_environment(extra, seat)


def test_bot_environment_is_idempotent() -> None:
    env = bot_environment({"LANG": "de_DE.UTF-8", "X": "1"}, 3)
    assert env["LANG"] == "de_DE.UTF-8"
    assert bot_environment(env, 3) == env


def test_bot_sees_only_the_minimal_environment(bots: Bots, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOLFREF_SEED", "12345")
    bot = bots.start("bad_bot.py", "print-env")
    bots.handshake(bot)
    result = bots.ask(bot, 1)
    assert result.status is ReadStatus.LINE and result.line is not None
    seen = json.loads(result.line)["env"]
    assert seen == bot.environment and set(seen) == MINIMAL_ENV | {TOKEN}
    assert seen["GOLFREF_SEAT"] == "0"


# -- the happy path ---------------------------------------------------------------------


def test_handshake_and_request_round_trip(bots: Bots) -> None:
    bot = bots.start("echo_bot.py")
    assert bot.alive and bot.returncode is None
    bots.handshake(bot)
    result = bots.ask(bot, 7)
    assert result.status is ReadStatus.LINE and result.line is not None
    assert json.loads(result.line) == {"type": "answer", "id": 7, "action": "stock"}
    assert result.elapsed >= 0
    assert bot.send(json.dumps({"type": "goodbye"}), soon())
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED
    bot.close()
    assert bot.returncode == 0 and not bot.alive


@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on PATH for the #! line")
def test_bot_runs_through_its_shebang(bots: Bots) -> None:
    bots.handshake(bots.start("echo_bot.py", direct=True))


# -- starting ---------------------------------------------------------------------------


def test_missing_executable_is_a_start_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-bot")
    with pytest.raises(BotStartError, match="not found") as info:
        BotProcess([missing, "--x"], seat=0).start()
    assert info.value.argv == (missing, "--x")
    assert missing in str(info.value) and "seat 0" in str(info.value)
    with pytest.raises(BotStartError, match="not found on PATH"):
        BotProcess(["golfref-no-such-bot-anywhere"], seat=1, label="seat 1 (nobody)").start()


def test_unexecutable_file_is_a_start_error(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o644)
    if os.access(script, os.X_OK):
        pytest.skip("running with a user that may execute anything")
    with pytest.raises(BotStartError, match="not executable"):
        BotProcess([str(script)], seat=0).start()


def test_missing_working_directory_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="working directory"):
        BotProcess([sys.executable, "-c", ""], seat=0, cwd=tmp_path / "gone").start()


def test_argv_is_never_a_shell_string() -> None:
    with pytest.raises(TypeError):
        BotProcess("python3 bot.py", seat=0)  # a str is a Sequence[str]: only the runtime check stops it


# -- timeouts ---------------------------------------------------------------------------


def test_silent_bot_times_out(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "sleep-forever")
    bots.handshake(bot)
    result = bots.ask(bot, 1, SHORT)
    assert result.status is ReadStatus.TIMEOUT and result.line is None and result.raw == ""


def test_never_ready_times_out(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "never-ready")
    assert bot.send(HELLO, soon())
    assert bots.pool.read_line(bot, soon(SHORT)).status is ReadStatus.TIMEOUT


def test_late_ready_is_read_after_a_timeout(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "slow-ready")
    assert bot.send(HELLO, soon())
    assert bots.pool.read_line(bot, soon(SHORT)).status is ReadStatus.TIMEOUT
    late = bots.pool.read_line(bot, soon())
    assert late.status is ReadStatus.LINE and late.line is not None and '"ready"' in late.line


def test_answer_in_time_counts_when_the_referee_reads_late(bots: Bots) -> None:
    bot = bots.start("echo_bot.py")
    bots.handshake(bot)
    assert bot.send(request(1), soon())
    assert bot._fd_out is not None
    readable, _, _ = select.select([bot._fd_out], [], [], GENEROUS)  # the answer is in the pipe
    assert readable
    result = bots.pool.read_line(bot, time.monotonic() - 1)
    assert result.status is ReadStatus.LINE


def test_deadline_holds_against_an_endless_slow_line(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "trickle")
    bots.handshake(bot)
    result = bots.ask(bot, 1, SHORT)
    assert result.status is ReadStatus.TIMEOUT
    assert result.raw.startswith("b'x"), "a timeout shows the unfinished line"


# -- exits ------------------------------------------------------------------------------


def test_exit_mid_match(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "exit-mid-match", "1")
    bots.handshake(bot)
    assert bots.ask(bot, 1).status is ReadStatus.LINE
    assert bots.ask(bot, 2).status is ReadStatus.EXITED
    bot.close()
    assert bot.returncode == 3


def test_crash_at_startup(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "crash-at-startup")
    bot.send(HELLO, soon())  # may or may not reach it before it dies
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED
    bot.close()
    assert bot.returncode == 1
    assert "RuntimeError: bad_bot: crashing at startup" in bot.stderr_text()


def test_send_to_a_dead_bot_returns_false(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "crash-at-startup")
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED
    give_up = soon()
    while bot.alive and time.monotonic() < give_up:
        bots.pool.drain(0.01)
    assert not bot.alive
    assert bot.send(HELLO, soon()) is False
    assert bot.send(HELLO, soon()) is False


def test_send_to_a_bot_that_stopped_reading_fails_by_its_deadline(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "sleep-forever")
    bots.handshake(bot)
    assert bot.send(request(1), soon())
    assert bot.send("x" * (1024 * 1024), soon(SHORT)) is False  # far more than a pipe holds
    assert bot.send(request(2), soon()) is False, "a failed send leaves the stream unusable"


def test_last_line_without_newline_is_delivered_at_exit(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "partial-exit")
    bots.handshake(bot)
    result = bots.ask(bot, 1)
    assert result.status is ReadStatus.LINE and result.line is not None
    assert json.loads(result.line)["id"] == 1
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED


# -- framing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("garbage", "hello world"),
        ("truncated-json", '{"type":"answer","id":'),
        ("illegal", '{"type": "answer", "id": 1, "action": "swap:99"}'),
        ("wrong-id", '{"type": "answer", "id": 1001, "action": "stock"}'),
        ("crlf", '{"type": "answer", "id": 1, "action": "stock"}'),
    ],
)
def test_bad_answers_are_plain_lines_to_this_layer(bots: Bots, mode: str, expected: str) -> None:
    bot = bots.start("bad_bot.py", mode)
    bots.handshake(bot)
    result = bots.ask(bot, 1)
    assert result == ReadResult(ReadStatus.LINE, expected, "", result.elapsed, sends=2), "read after the second send"


def test_non_utf8_line(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "non-utf8")
    bots.handshake(bot)
    result = bots.ask(bot, 1)
    assert result.status is ReadStatus.NOT_UTF8 and result.line is None
    assert result.raw == repr(b"\xff\xfe")


def test_huge_line_is_cut_off_without_buffering_it(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "huge-line")
    bots.handshake(bot)
    result = bots.ask(bot, 1)
    assert result.status is ReadStatus.TOO_LONG and result.line is None
    assert result.raw.startswith("b'xxxx") and len(result.raw) <= 210
    # The bot goes on writing its 10 MiB line; the referee keeps discarding it.
    for _ in range(40):
        bots.pool.drain(0.025)
        assert len(bot._buf) <= bot.line_limit  # the one buffer a line can grow in
    result = bots.pool.read_line(bot, soon(SHORT))
    assert result.status is ReadStatus.TIMEOUT and result.raw == "", "the rest of the line is not a line"


def test_framing_recovers_after_a_huge_line(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "huge-line-then-answer")
    bots.handshake(bot)
    assert bots.ask(bot, 1).status is ReadStatus.TOO_LONG
    result = bots.pool.read_line(bot, soon())
    assert result.status is ReadStatus.LINE and result.line is not None
    assert json.loads(result.line)["id"] == 1


def test_line_limit_is_exact(bots: Bots) -> None:
    answer = '{"type": "answer", "id": 1, "action": "stock"}'
    short = bots.start("echo_bot.py", line_limit=len(answer) - 1)
    exact = bots.start("echo_bot.py", line_limit=len(answer))
    for bot in (short, exact):
        assert bot.send(request(1), soon())
    assert bots.pool.read_line(short, soon()).status is ReadStatus.TOO_LONG
    assert bots.pool.read_line(exact, soon()).line == answer


# -- stderr -----------------------------------------------------------------------------


def test_stderr_flood_neither_blocks_nor_grows(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "stderr-flood")
    bots.handshake(bot)  # only reachable if 50 MiB of stderr was read meanwhile
    assert bot.stderr_dropped > 0
    bot.close()
    text = bot.stderr_text()
    assert len(text.encode()) <= STDERR_LIMIT + 100
    assert text.startswith("FLOOD-START\n") and text.endswith("FLOOD-END\n")
    assert "bytes of stderr dropped" in text


def test_waiting_on_one_bot_services_the_others(bots: Bots) -> None:
    silent = bots.start("bad_bot.py", "sleep-forever")
    flooder = bots.start("bad_bot.py", "stderr-flood")
    echo = bots.start("echo_bot.py")
    for bot in (flooder, echo):
        assert bot.send(HELLO, soon())
    bots.handshake(silent)
    assert silent.send(request(1), soon())
    echoed: list[ReadResult] = []
    give_up = soon()
    # Only the silent bot is waited on; take_unasked just hands over what is buffered.
    while time.monotonic() < give_up:
        assert bots.pool.read_line(silent, soon(0.1)).status is ReadStatus.TIMEOUT
        echoed += bots.pool.take_unasked(echo)
        if echoed and flooder.stderr_dropped > 0:
            break
    assert [json.loads(r.line or "")["type"] for r in echoed] == ["ready"]
    assert flooder.stderr_dropped > 0
    assert bots.pool.read_line(flooder, soon()).status is ReadStatus.LINE


# -- output nobody asked for ------------------------------------------------------------


def test_output_before_a_request_is_unasked(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "unasked")
    bots.handshake(bot)
    answer = bots.ask(bot, 1)
    assert answer.line is not None and json.loads(answer.line)["id"] == 1
    unasked = bots.pool.take_unasked(bot)
    assert [json.loads(r.line or "")["id"] for r in unasked] == [0]
    assert bots.pool.take_unasked(bot) == []


def test_second_answer_is_unasked(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "answer-twice")
    bots.handshake(bot)
    assert bots.ask(bot, 1).status is ReadStatus.LINE
    extra: list[ReadResult] = []
    give_up = soon()
    while not extra and time.monotonic() < give_up:
        bots.pool.drain(0.01)
        extra = bots.pool.take_unasked(bot)
    assert [json.loads(r.line or "")["id"] for r in extra] == [1]
    answer = bots.ask(bot, 2)
    assert answer.line is not None and json.loads(answer.line)["id"] == 2


def test_chatter_is_capped_and_never_crowds_out_an_answer(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "chatter")
    bots.handshake(bot)
    answer = bots.ask(bot, 1)
    assert answer.line is not None and json.loads(answer.line)["id"] == 1
    kept = bots.pool.take_unasked(bot)
    assert UNASKED_LIMIT - 1 <= len(kept) <= UNASKED_LIMIT
    assert len(kept) + bot.unasked_dropped == 100
    assert [json.loads(r.line or "")["n"] for r in kept] == list(range(len(kept))), "the oldest are kept"


def test_unread_lines_do_not_answer_the_next_request(bots: Bots) -> None:
    bot = bots.start("echo_bot.py")
    assert bot.send(HELLO, soon())
    bots.pool.drain(0)
    assert bot.send(request(1), soon())  # the ready may or may not be here yet
    first = bots.pool.read_line(bot, soon())
    assert first.line is not None
    if json.loads(first.line)["type"] == "ready":  # it arrived after the request went out
        first = bots.pool.read_line(bot, soon())
    else:
        assert [json.loads(r.line or "")["type"] for r in bots.pool.take_unasked(bot)] == ["ready"]
    assert first.line is not None and json.loads(first.line)["id"] == 1


# -- ending -----------------------------------------------------------------------------


def test_fork_child_holding_the_pipes(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "fork-child")
    bots.handshake(bot)
    assert bot.send(json.dumps({"type": "goodbye"}), soon())
    # The child keeps stdout open, so the exit is seen through the process, not the pipe.
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED
    close_and_check(bots, bot)
    assert bot.returncode == 0


def test_fork_child_of_a_running_bot(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "fork-child")
    bots.handshake(bot)
    close_and_check(bots, bot)


def test_bot_ignoring_sigterm_is_killed(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "ignore-sigterm")
    bots.handshake(bot)
    close_and_check(bots, bot, grace=0.1)
    assert bot.returncode == -signal.SIGKILL


def test_setsid_child_is_killed(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "setsid-child")
    bots.handshake(bot)
    escaped = [pid for pid in bots.tree() if (st := proc_stat(pid)) and st[3] != bot.pid]
    assert escaped, "the child should have left the bot's session"
    close_and_check(bots, bot)


def test_orphaned_setsid_grandchild_is_killed_and_reaped(bots: Bots) -> None:
    bot = bots.start("bad_bot.py", "setsid-orphan")
    bots.handshake(bot)
    orphans = [pid for pid in bots.tree() if pid != bot.pid]
    assert len(orphans) == 1
    st = proc_stat(orphans[0])
    assert st is not None and st[3] != bot.pid
    close_and_check(bots, bot)


@pytest.mark.parametrize("mode", ["fork-child", "setsid-child", "ignore-sigterm"])
def test_closing_one_bot_leaves_the_others_running(bots: Bots, mode: str) -> None:
    # With another bot running, strays cannot be swept wholesale: the bot's own tree must go.
    other = bots.start("echo_bot.py")
    bot = bots.start("bad_bot.py", mode)
    for each in (other, bot):
        bots.handshake(each)
    close_and_check(bots, bot, grace=0.1)
    assert other.alive
    answer = bots.ask(other, 1)
    assert answer.line is not None and json.loads(answer.line)["id"] == 1


def test_close_is_idempotent_and_final(bots: Bots) -> None:
    bot = bots.start("echo_bot.py")
    bots.handshake(bot)
    bot.close()
    bot.close()
    bots.pool.close_all()
    bots.pool.close_all()
    assert bot.returncode == 0 and not bot.alive
    assert bot.send(HELLO, soon()) is False
    assert bots.pool.read_line(bot, soon()).status is ReadStatus.EXITED


def test_close_all_closes_every_bot(bots: Bots) -> None:
    started = [bots.start("bad_bot.py", mode) for mode in ("sleep-forever", "ignore-sigterm", "fork-child")]
    started.append(bots.start("echo_bot.py"))
    for bot in started:
        bots.handshake(bot)
    before = bots.tree()
    bots.pool.close_all(grace=0.1)
    bots.assert_gone(before)
    assert [bot.alive for bot in started] == [False] * 4


def test_closing_a_bot_that_never_started() -> None:
    bot = BotProcess([sys.executable, "-c", ""], seat=0)
    bot.close()
    assert bot.returncode is None and not bot.alive and bot.pid is None


def test_pool_misuse_raises() -> None:
    bot = BotProcess([sys.executable, "-c", ""], seat=0)
    pool, other = BotPool(), BotPool([bot])
    with pytest.raises(ValueError):
        pool.read_line(bot, soon())
    with pytest.raises(ValueError):
        pool.add(bot)
    with pytest.raises(RuntimeError):
        other.read_line(bot, soon())
    with pytest.raises(ValueError):
        bot.send("two\nlines")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are a Linux feature")
def test_a_forked_child_becomes_a_subreaper_of_its_own() -> None:
    """PR_SET_CHILD_SUBREAPER is not inherited across fork: a tournament worker forked from a process
    that had started bots must ask for it again, or its bots' orphans go to init and linger."""
    import ctypes

    from golfref.bots import lifetime

    lifetime.become_subreaper()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        code = 1
        try:
            lifetime.become_subreaper()
            flag = ctypes.c_int(0)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(37, ctypes.byref(flag), 0, 0, 0)  # PR_GET_CHILD_SUBREAPER
            code = 0 if flag.value == 1 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_the_scan_of_a_subreaper_sees_every_descendant_and_orphan() -> None:
    # scan() walks this process's tree down (a few files per process) instead of reading every
    # process in /proc: what it returns must be every descendant the full scan shows, an orphan
    # reparented to this subreaper and a process in a session of its own included.
    from golfref.bots import lifetime

    assert lifetime.become_subreaper()

    def descendants(procs: list[lifetime.Proc]) -> set[int]:
        children: dict[int, list[int]] = {}
        for p in procs:
            children.setdefault(p.ppid, []).append(p.pid)
        found, todo = set(), [os.getpid()]
        while todo:
            for child in children.get(todo.pop(), ()):
                found.add(child)
                todo.append(child)
        return found - before

    # A worker process of the suite may already have children of its own (another test's, still
    # being reaped): only what this test starts is counted.
    before: set[int] = set()
    before = descendants(lifetime.scan_all())
    script = "sleep 60 & setsid sleep 60 & (sleep 60 &) ; echo up; wait"
    shell = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert shell.stdout is not None and shell.stdout.readline() == b"up\n"

        def settled(procs: list[lifetime.Proc]) -> bool:
            # The shell, its two sleeps, and the orphan, once its subshell is gone and it came to this process.
            mine = descendants(procs)
            orphans = [p for p in procs if p.pid in mine and p.ppid == os.getpid() and p.pid != shell.pid]
            return len(mine) == 4 and len(orphans) == 1

        deadline = time.monotonic() + GENEROUS
        while not settled(lifetime.scan_all()) and time.monotonic() < deadline:
            time.sleep(0.01)
        expected = descendants(lifetime.scan_all())
        assert len(expected) == 4
        assert {p.pid for p in lifetime.scan()} - before == expected
    finally:
        os.killpg(shell.pid, signal.SIGKILL)
        for p in lifetime.scan():
            if p.pgrp != os.getpgrp():
                lifetime.kill(p.pid, signal.SIGKILL)
        shell.wait()
        deadline = time.monotonic() + GENEROUS
        while time.monotonic() < deadline and (strays := [p for p in lifetime.scan() if p.ppid == os.getpid()]):
            for p in strays:
                lifetime.reap(p.pid)
            time.sleep(0.01)
