"""One bot process driven message by message, outside a match: for `check-bot` and `replay-bot`.

The process layer (`process.BotProcess`, `BotPool`) does the plumbing; this module reads
what the bot says back the way the referee does (`protocol.parse_ready`,
`protocol.parse_answer`) and names what went wrong with the referee's fault kinds, so a
problem found here is the fault the same answer would be in a match.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..bots.bot_process import BotProcess
from ..bots.framing import ReadResult, ReadStatus
from ..bots.lifetime import BotStartError
from ..bots.multiplex import BotPool
from ..match import protocol
from ..record.faults import EXIT_WAIT, FaultKind  # the referee's wait for a closed bot's exit status, reported alike

__all__ = ["Reply", "BotDriver"]

_NO_LIMIT_STEP = 3600.0  # an unlimited wait is taken an hour at a time: the poller takes no endless timeout


@dataclass(frozen=True)
class Reply:
    """What came of waiting for one answer (or the ready): the action or name, or a fault."""

    value: str | None
    """The action chosen (or the name said in ready); None when the bot faulted."""
    fault: FaultKind | None
    message: str
    """The fault in words; empty when there is none."""
    line: str | None = None
    """The line the bot sent, when it sent one."""
    ms: float = 0.0


class BotDriver:
    """A bot started for one seat, sent lines one by one and read back like the referee reads it."""

    def __init__(
        self, argv: Sequence[str], seat: int, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        self.bot = BotProcess(list(argv), seat=seat, cwd=cwd, env=dict(env or {}))
        self.cwd = cwd
        self.pool = BotPool()
        self.sent: list[str] = []

    @property
    def pid(self) -> int | None:
        """The bot's process id (also its process group's)."""
        return self.bot.pid

    def start(self) -> str | None:
        """Start the bot: None, or why it could not start."""
        try:
            self.bot.start()
        except BotStartError as e:
            where = self.cwd if self.cwd is not None else os.getcwd()
            return f"{e} (working directory {where})"
        self.pool.add(self.bot)
        return None

    def send(self, line: str) -> Reply | None:
        """Send one line: None, or the `exited` fault when the bot does not take it."""
        self.sent.append(line)
        if self.bot.send(line, time.monotonic() + 2.0):
            return None
        return self._exit_reply("before it could be sent the next message")

    def unasked(self) -> list[Reply]:
        """Lines the bot printed while nothing was asked (each an `unasked_output` fault), and a death."""
        found = []
        for result in self.pool.take_unasked(self.bot):
            if result.status is ReadStatus.LINE and result.line is not None:
                found.append(
                    Reply(None, FaultKind.UNASKED_OUTPUT, "printed a line while no request was open", result.line)
                )
            else:
                found.append(self._read_problem(result, "while no request was open"))
        return found

    def ready(self, timeout: float, stray: Callable[[Reply], None] | None = None) -> Reply:
        """Wait for the ready message.

        With `stray`, a line that is not JSON (a banner, a debug print) is handed to it as the
        `not_json` fault it is and the wait goes on, as the referee's does; lines the bot
        printed before the hello reached it count alike, read first.
        """
        deadline = time.monotonic() + timeout
        early = self.pool.take_unasked(self.bot) if stray is not None else []
        while True:
            result = early.pop(0) if early else self.pool.read_line(self.bot, deadline)
            if result.status is not ReadStatus.LINE or result.line is None:
                return self._read_problem(result, "before its ready")
            try:
                name, _version = protocol.parse_ready(result.line)
            except protocol.NotJson as e:
                reply = Reply(None, FaultKind.NOT_JSON, f"expected ready: {e}", result.line)
                if stray is None:
                    return reply
                stray(reply)
                continue
            except protocol.InvalidMessage as e:
                return Reply(None, FaultKind.INVALID_MESSAGE, str(e), result.line)
            return Reply(name, None, "", result.line, result.elapsed * 1000)

    def answer(
        self,
        request_id: int,
        legal: Sequence[str],
        timeout: float | None,
        stray: Callable[[Reply], None] | None = None,
    ) -> Reply:
        """Wait for the answer to request `request_id` (no deadline when `timeout` is None).

        With `stray`, a line that is not JSON is handed to it as its `not_json` fault and the
        wait for the answer goes on, to the same deadline.
        """
        sent = time.monotonic()
        while True:
            reply = self._answer_line(request_id, legal, sent, timeout)
            if reply.fault is not FaultKind.NOT_JSON or stray is None:
                return reply
            stray(reply)

    def _answer_line(self, request_id: int, legal: Sequence[str], sent: float, timeout: float | None) -> Reply:
        """Read the next line as the answer to `request_id`, waited for since `sent`."""
        if timeout is not None:
            result = self.pool.read_line(self.bot, sent + timeout)
        else:
            result = self.pool.read_line(self.bot, time.monotonic() + _NO_LIMIT_STEP)
            while result.status is ReadStatus.TIMEOUT:  # no limit: a debugger may hold the bot for hours
                result = self.pool.read_line(self.bot, time.monotonic() + _NO_LIMIT_STEP)
        ms = (time.monotonic() - sent) * 1000
        if result.status is not ReadStatus.LINE or result.line is None:
            reply = self._read_problem(result, f"before its answer to request {request_id}")
            return Reply(None, reply.fault, reply.message, reply.line, ms)
        line = result.line
        try:
            answer_id, action = protocol.parse_answer(line)
        except protocol.NotJson as e:
            return Reply(None, FaultKind.NOT_JSON, str(e), line, ms)
        except protocol.InvalidMessage as e:
            return Reply(None, FaultKind.INVALID_MESSAGE, str(e), line, ms)
        if answer_id != request_id:
            what = f"answer id {protocol.clip(answer_id)}, but the open request is {request_id}"
            return Reply(None, FaultKind.WRONG_ID, what, line, ms)
        if action not in legal:
            what = f"{action!r} is not a legal choice (legal: {' '.join(legal)})"
            return Reply(None, FaultKind.ILLEGAL_ACTION, what, line, ms)
        return Reply(action, None, "", line, ms)

    def watch(self, seconds: float, when: str) -> Reply | None:
        """Watch the bot for `seconds` after a notice: None when it stayed quiet and alive, else what it did."""
        result = self.pool.read_line(self.bot, time.monotonic() + seconds)
        if result.status is ReadStatus.TIMEOUT:
            return None
        if result.status is ReadStatus.LINE:
            return Reply(None, FaultKind.UNASKED_OUTPUT, f"printed a line {when}", result.line)
        return self._read_problem(result, when)

    def finish(self, wait: float) -> int | None:
        """Close the bot's input and give it `wait` s to exit: its exit status (negative: the signal that ended it)."""
        self.bot.close(wait)
        return self.bot.returncode

    def close(self) -> None:
        """Stop the bot and everything it started."""
        self.pool.close_all(0.1)

    def stderr(self) -> str:
        """What the bot wrote to stderr so far."""
        return self.bot.read_stderr()

    @property
    def dropped(self) -> int:
        """Lines the bot printed that were only counted, never kept: too many were already waiting."""
        return self.bot.unasked_dropped

    def _read_problem(self, result: ReadResult, when: str) -> Reply:
        if result.status is ReadStatus.TIMEOUT:
            # Worded as the referee words it: "no ready within the time limit".
            return Reply(None, FaultKind.TIMEOUT, f"no {when.removeprefix('before its ')} within the time limit")
        if result.status is ReadStatus.EXITED:
            return self._exit_reply(when)
        if result.status is ReadStatus.TOO_LONG:
            return Reply(None, FaultKind.LINE_TOO_LONG, "a line longer than the limit", result.raw)
        return Reply(None, FaultKind.NOT_UTF8, "a line that is not UTF-8", result.raw)

    def _exit_reply(self, when: str) -> Reply:
        code = self.bot.wait_exit(EXIT_WAIT)
        if code is None:
            how = "the bot closed its stdout (or stopped reading its input) but is still running"
        elif code < 0:
            how = f"the bot was killed by signal {-code}"
        else:
            how = f"the bot exited (code {code})"
        return Reply(None, FaultKind.EXITED, f"{how} {when}")
