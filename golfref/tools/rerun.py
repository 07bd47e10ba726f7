"""`golfref replay-bot`: play a bot exactly the messages one seat received in a logged match.

The messages come from the seat's transcript when the log has one next to it, and are
rebuilt through the engine's one gate otherwise (`seat_messages.log_messages`). Either
way each message is first compared with what the gate derives for the seat at that point
(the time budget aside): a transcript that shows more than that is refused, so the bot is
never sent anything the seat could not see. Each answer is compared with the log's: the
action the seat's bot chose, or the fault it made (an illegal action, an exit...). The
first difference is reported with the message that caused it, and nothing more is sent:
what followed in the log followed from the logged answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config.match import OBJECT, RUNNER, TimeControl
from ..files import LOG_MAX_BYTES, UnsafeFile
from ..game.rules import rules_from_dict
from ..match.seat_messages import SeatMessage, log_messages
from ..record.faults import ALWAYS_DISQUALIFYING
from ..record.matchlog import read_match_log
from ..record.stderr import REPLAY_STDERR_LINES, stderr_tail
from ..record.transcript import (
    Direction,
    TranscriptError,
    TranscriptLine,
    cut_text,
    read_transcript,
    transcript_path,
    transcript_there,
)
from ..record.validate import Status, validate_file
from .driver import BotDriver, Reply

__all__ = ["RerunError", "Script", "Divergence", "RerunResult", "load_script", "rerun_seat"]


class RerunError(Exception):
    """The log, the seat or the transcript cannot be replayed (one line)."""


class RejectedLog(RerunError):
    """The log failed its validation (invalid or tampered): a verdict on the log, as `replay --check` gives."""


@dataclass(frozen=True)
class Script:
    """What one seat of a logged match was sent, and the log's record of that seat."""

    messages: tuple[SeatMessage, ...]
    source: str
    """Where the lines come from: `transcript` or `rebuilt from the log`."""
    command: tuple[str, ...]
    cwd: str | None
    env: Mapping[str, str]
    time_control: TimeControl
    stderr: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    """Per request id: the stderr lines the transcript keeps of the logged bot's decision (none without one)."""

    @property
    def requests(self) -> list[int]:
        """The request ids the seat was sent, in order."""
        return [m.request for m in self.messages if m.request is not None]


@dataclass(frozen=True)
class Divergence:
    """The first point where the bot did not do what the log says its seat did."""

    message: SeatMessage
    expected: str
    got: str
    stderr: str
    logged_stderr: tuple[str, ...] = ()
    """What the logged bot wrote to stderr during that request, as its transcript keeps it."""

    def line(self) -> str:
        """The divergence in one line."""
        where = f"request {self.message.request}" if self.message.request is not None else self.message.kind
        if self.message.hole is not None:
            where += f" (hole {self.message.hole})"
        return f"diverged at {where}: the log says {self.expected}; the bot {self.got}"


@dataclass(frozen=True)
class RerunResult:
    """How a replay went: the requests that matched, and the first divergence, if any."""

    matched: int
    divergence: Divergence | None
    stopped_at: int | None = None
    """The request `--stop-at` stopped after, when it did."""


def _without_budget(line: str) -> Any:
    data = json.loads(line)
    if isinstance(data, dict):
        data.pop("time_ms", None)
    return data


def _transcript(path: Path) -> list[TranscriptLine]:
    try:
        return read_transcript(path, LOG_MAX_BYTES)
    except TranscriptError as e:
        raise RerunError(str(e)) from None
    except UnsafeFile as e:
        raise RerunError(str(e)) from None


def _stderr_by_request(lines: list[TranscriptLine]) -> dict[int, tuple[str, ...]]:
    """The stderr lines the transcript keeps for each request (a count of bytes cut said as a line)."""
    out: dict[int, list[str]] = {}
    for t in lines:
        if t.direction is Direction.STDERR and t.problem is None and t.request is not None:
            text = cut_text(t.dropped) if t.dropped else t.text
            out.setdefault(t.request, []).append(text)
    return {rid: tuple(texts) for rid, texts in out.items()}


def load_script(path: str, seat: int) -> Script:
    """Validate the log and gather what `seat` was sent (RerunError for what cannot be replayed)."""
    report = validate_file(path)
    if report.status is Status.NOT_A_LOG:
        raise RerunError(f"{path}: {report.message}")
    if report.status in (Status.INVALID, Status.TAMPERED) or report.doc is None:
        raise RejectedLog(f"{path}: {report.status.value}: {report.message}")
    log = read_match_log(report.doc)
    players = log.players
    if not 0 <= seat < len(players):
        raise RerunError(f"--seat {seat}: the match has {len(players)} seats (0 to {len(players) - 1})")
    player = players[seat]
    if player.python == OBJECT:
        raise RerunError(
            f"--seat {seat}: seat {seat} ({player.name}) was a Python object given directly ({player.object}), "
            "which no module:object reference imports again: it cannot be re-run"
        )
    command = player.command
    if player.python is not None:
        # The policy imported again, as a bot program that sees exactly the requests its seat saw.
        command = (sys.executable, *RUNNER, player.python)
    if command is None:
        who = f"seat {seat} ({player.name}) is the built-in {player.builtin}"
        raise RerunError(f"--seat {seat}: {who}, not a bot: it was sent nothing")
    messages = log_messages(log, rules_from_dict(dict(log.rules)), seat)
    source = "rebuilt from the log"
    tpath = transcript_path(Path(path), seat)
    stderr: dict[int, tuple[str, ...]] = {}
    if transcript_there(tpath):  # a link there is refused in one line, never followed
        transcript = _transcript(tpath)
        sent = [t.text for t in transcript if t.direction is Direction.TO_BOT]
        stderr = _stderr_by_request(transcript)
        # The transcript may go on past the log: the request open when a match was stopped.
        for i, message in enumerate(messages):
            if i >= len(sent):
                raise RerunError(f"{tpath}: it ends before the {message.kind} the log implies (message {i + 1})")
            if _without_budget(sent[i]) != _without_budget(message.line):
                raise RerunError(
                    f"{tpath}: message {i + 1} ({message.kind}) is not what seat {seat} could see then, as the "
                    f"engine derives it; not sending it (golfref audit {path} says more)"
                )
        messages = [replace(m, line=sent[i]) for i, m in enumerate(messages)]
        source = "transcript"
    return Script(
        tuple(messages),
        source,
        command,
        player.cwd,
        dict(player.env),
        log.time_control,
        stderr,
    )


def _got(reply: Reply) -> str:
    if reply.value is not None:
        return f"answered {reply.value!r}"
    assert reply.fault is not None
    return f"faulted ({reply.fault.value}): {reply.message}"


def _same(expected_action: str | None, expected_fault: str | None, reply: Reply) -> bool:
    if expected_action is not None:
        return reply.value == expected_action
    return reply.fault is not None and reply.fault.value == expected_fault


def rerun_seat(
    script: Script,
    argv: Sequence[str],
    seat: int,
    cwd: str | None,
    env: Mapping[str, str],
    timeout: float,
    stop_at: int | None = None,
    on_stop: Callable[[BotDriver, SeatMessage], None] | None = None,
    on_answer: Callable[[SeatMessage, Reply], None] | None = None,
) -> RerunResult:
    """Play `script` to the bot `argv`; stop at the first divergence, or after request `stop_at`.

    `on_stop` is called before request `stop_at` is sent (the bot's pid is known then); that
    request's answer is then awaited without a time limit. `timeout` bounds every other wait.
    """
    driver = BotDriver(argv, seat, cwd, env)
    matched = 0
    try:
        problem = driver.start()
        if problem is not None:
            first = script.messages[0]
            return RerunResult(0, Divergence(first, "a ready", f"could not start: {problem}", ""))
        for message in script.messages:
            if message.kind == "hello":
                reply = driver.send(message.line) or driver.ready(timeout)
                if reply.fault is not None:
                    tail = stderr_tail(driver.stderr(), REPLAY_STDERR_LINES)
                    return RerunResult(0, Divergence(message, "a ready", _got(reply), tail))
                continue
            if message.kind != "request":
                driver.send(message.line)  # a notice: a bot that is gone shows at its next request
                continue
            expected = message.expected
            assert expected is not None and message.request is not None
            legal = json.loads(message.line)["legal"]
            stopping = message.request == stop_at
            if stopping and on_stop is not None:
                on_stop(driver, message)
            reply = driver.send(message.line) or driver.answer(message.request, legal, None if stopping else timeout)
            if on_answer is not None:
                on_answer(message, reply)
            if not _same(expected.action, expected.fault, reply):
                tail = stderr_tail(driver.stderr(), REPLAY_STDERR_LINES)
                then = script.stderr.get(message.request, ())[-REPLAY_STDERR_LINES:]
                return RerunResult(matched, Divergence(message, expected.describe(), _got(reply), tail, then))
            matched += 1
            if stopping:
                return RerunResult(matched, None, stop_at)
            if reply.fault is not None and reply.fault in ALWAYS_DISQUALIFYING:
                break  # the log's bot ended here too: nothing more was sent to it
        driver.finish(0.5)
        return RerunResult(matched, None)
    finally:
        driver.close()
