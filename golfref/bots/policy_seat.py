"""Python policies seated in the referee's process, behind the same door as bot processes.

A `python` player's policy (`golfref.kit.policy`) is played by a `PolicyBot`, a
`launch.StartedBot` that answers each line the referee sends it as `golfbot.play` would in a
bot program: ready on hello, ``golfbot.answer(choose, request, ...)`` on each request (the
kit's `View` built from the very request line), an exit at goodbye. So every fault comes out
as it would for the program:

- an exception in the policy ends the bot as an uncaught exception ends a program: exit
  status 1 and its traceback as the bot's stderr (the referee records the ``exited`` fault);
- an answer not in ``legal`` is the referee's ``illegal_action``; one that is not JSON
  text (a number, None) is an invalid message; what the policy prints on stdout is lines
  the bot wrote before its answer, and on stderr the bot's stderr;
- time is ``time.monotonic``, but a call in this thread cannot be pre-empted: the policy is
  timed once it returns, and an answer that came after the request's deadline is a timeout,
  after the fact (its answer dropped, as a late answer of a process is).

`SeatLauncher`, the referee's default door, seats each python player here and every command
player through `launch.ProcessLauncher`, so one match may mix them.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..config.match import OBJECT, PlayerSpec
from ..config.sandbox_spec import SandboxSpec
from ..kit.golfbot import Rules, TimeControl, answer
from ..kit.policy import choose_function, module_digest, policy_name
from .framing import LINE_LIMIT, STDERR_LIMIT, CappedBytes, ReadResult, ReadStatus, short_repr
from .launch import InProcessLauncher, Launcher, ProcessLauncher, StartedBot

__all__ = ["PolicyBot", "PolicyLauncher", "SeatLauncher", "policy_fingerprint"]

_CRASHED = 1  # the exit status of a Python program ended by an uncaught exception


def policy_fingerprint(player: PlayerSpec) -> dict[str, Any] | None:
    """The log's fingerprint of a python player: its module's file and that file's sha256; None without a file."""
    if player.python is None or player.python == OBJECT:
        return None
    found = module_digest(player.python)
    return None if found is None else {"file": found[0], "sha256": found[1]}


def _traceback(error: Exception) -> str:
    """The traceback as the policy's program would print it: from the kit's call on, the referee's frames left out."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return (
        "Traceback (most recent call last):\n"
        + "".join(traceback.format_tb(tb))
        + "".join(traceback.format_exception_only(error))
    )


class PolicyBot:
    """A Python policy answering the referee in its own thread: a `launch.StartedBot` on ``time.monotonic``."""

    def __init__(self, player: PlayerSpec, seat: int, check: Callable[[], None] | None = None) -> None:
        self._player = player
        self._seat = seat
        self._check = check
        self._choose: Callable[[Any, list[str]], str] | None = None
        self._rules: Rules | None = None
        self._time: TimeControl | None = None
        self._sends = 0
        self._lines: deque[tuple[float, int, str]] = deque()  # (written at, sends then, line)
        self._stderr = CappedBytes(STDERR_LIMIT)
        self._exit: int | None = None
        self._closed = False

    def start(self) -> None:
        """Make the policy's ``choose`` (a class is instantiated): an exception is a crash before ready."""
        self._run(lambda: setattr(self, "_choose", choose_function(self._player.policy)))

    @property
    def sends(self) -> int:
        """How many `send` calls have begun."""
        return self._sends

    def send(self, line: str, deadline: float | None = None) -> bool:
        """Hand the line to the policy, which answers at once; False once the bot has ended."""
        if self._closed or self._exit is not None:
            return False
        self._sends += 1
        message = json.loads(line)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            self._rules = Rules.from_json(message["rules"])
            self._time = TimeControl.from_json(message["time"])
            ready = {"type": "ready", "name": policy_name(self._player.policy, self._player.python), "version": "1"}
            self._write(json.dumps(ready))
        elif kind == "request" and self._choose is not None and self._rules is not None and self._time is not None:
            choose, rules, tc = self._choose, self._rules, self._time
            self._run(lambda: self._write(json.dumps(answer(choose, message, rules, tc))))
        elif kind == "goodbye":
            self._exit = 0
        return True

    def read_line(self, deadline: float) -> ReadResult:
        """The bot's next line, if it was written by `deadline`; a timeout (after the fact) if later; its end."""
        if self._check is not None:
            self._check()
        if self._lines:
            at, sends, line = self._lines[0]
            if at > deadline:
                self._lines.clear()  # a late answer: dropped, as the referee drops a process's
                return ReadResult(ReadStatus.TIMEOUT, elapsed=max(0.0, at - deadline))
            self._lines.popleft()
            if len(line.encode("utf-8", errors="surrogateescape")) > LINE_LIMIT:
                return ReadResult(ReadStatus.TOO_LONG, raw=short_repr(line.encode("utf-8"), more=True), sends=sends)
            return ReadResult(ReadStatus.LINE, line, sends=sends)
        if self._exit is not None or self._closed:
            return ReadResult(ReadStatus.EXITED)
        return ReadResult(ReadStatus.TIMEOUT)  # it answers in send, or never: nothing more will come

    def take_unasked(self) -> list[ReadResult]:
        """The lines no read returned (what the policy printed after its answer, say), oldest first."""
        taken = [ReadResult(ReadStatus.LINE, line, sends=sends) for _, sends, line in self._lines]
        self._lines.clear()
        return taken

    def wait_exit(self, timeout: float) -> int | None:
        """The bot's exit status once it ended (a crash: 1), else None at once."""
        return self._exit

    def limit_hit(self, code: int) -> str | None:
        """None: no sandbox limit applies in this process."""
        return None

    def stderr_text(self) -> str:
        """What the policy wrote to stderr, and the traceback of the exception that ended it (capped)."""
        return self._stderr.text()

    def follow_stderr(self, limit: int) -> None:
        """Keep what is written to stderr from now on for `take_stderr`, at most `limit` bytes between takes."""
        self._stderr.follow(limit)

    def take_stderr(self) -> tuple[bytes, int]:
        """The stderr written since the latest take (as far as read), and how many bytes more were cut."""
        return self._stderr.take()

    def close(self, grace: float = 0.5) -> None:
        """End the bot; nothing of it runs between calls."""
        self._closed = True
        self._lines.clear()

    def _write(self, line: str) -> None:
        for part in line.splitlines() or [""]:
            self._lines.append((time.monotonic(), self._sends, part))

    def _run(self, call: Callable[[], None]) -> None:
        """Run the policy with its prints as the bot's lines and stderr; an exception ends the bot as a crash."""
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    call()
                finally:
                    printed = out.getvalue()
            failure = None
        except Exception as e:  # a policy's error is its bot's crash, not the referee's
            failure = _traceback(e)
        # What it printed came before its answer, as a program's prints reach the referee first.
        answers = list(self._lines)
        self._lines.clear()
        if printed:
            self._write(printed.rstrip("\n"))
        self._lines.extend(answers)
        self._stderr.add(err.getvalue().encode("utf-8", errors="replace"))
        if failure is not None:
            self._stderr.add(failure.encode("utf-8", errors="replace"))
            self._exit = _CRASHED


class PolicyLauncher(InProcessLauncher[PolicyBot]):
    """The door (`launch.Launcher`) for python players: each a `PolicyBot` in this process, on ``time.monotonic``."""

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        self.clock = time.monotonic
        """In-process policies are timed on the same clock as processes."""
        self._check = check
        self.bots: dict[int, PolicyBot] = {}

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        """The policy's module file and its digest (`policy_fingerprint`)."""
        return policy_fingerprint(player)

    def start(self, seat: int, player: PlayerSpec) -> StartedBot:
        """The seat's policy as a started bot."""
        bot = PolicyBot(player, seat, self._check)
        bot.start()
        self.bots[seat] = bot
        return bot


class SeatLauncher:
    """The referee's default door: python players in this process (`PolicyLauncher`), commands as processes."""

    def __init__(self, check: Callable[[], None] | None = None) -> None:
        self._processes = ProcessLauncher(check)
        self._policies = PolicyLauncher(check)
        self._python: set[int] = set()  # the seats of python players, known once prepared
        self.clock = time.monotonic
        """Both doors' deadlines are on ``time.monotonic``."""

    def _door(self, player: PlayerSpec) -> Launcher:
        return self._policies if player.python is not None else self._processes

    def prepare(
        self, spec: SandboxSpec, players: Sequence[PlayerSpec], log_folder: Path, source: str, hide: Sequence[Path]
    ) -> None:
        """Set up the command players' sandboxes (a python player gets none)."""
        self._processes.prepare(spec, players, log_folder, source, hide)
        self._python = {i for i, p in enumerate(players) if p.python is not None}

    def fingerprint(self, seat: int, player: PlayerSpec, outputs: Sequence[Path]) -> dict[str, Any] | None:
        """The fingerprint its door takes."""
        return self._door(player).fingerprint(seat, player, outputs)

    def start(self, seat: int, player: PlayerSpec) -> StartedBot:
        """Start the seat's bot through its door."""
        return self._door(player).start(seat, player)

    def protections(self, seat: int) -> dict[str, Any]:
        """What protected the seat's bot (a process's sandbox record; none for a policy)."""
        door: Launcher = self._policies if seat in self._python else self._processes
        return door.protections(seat)

    def release(self) -> None:
        """Give back the sandboxes of processes that never started."""
        self._processes.release()

    def close_all(self, grace: float) -> None:
        """Close every bot, processes and policies."""
        self._policies.close_all(grace)
        self._processes.close_all(grace)
