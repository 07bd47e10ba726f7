"""The fault vocabulary: what a bot can do wrong, how a seat stands, what a recorded fault holds.

The referee records these and every reader of a log (validation, audit, reports, re-running a
seat) interprets them, so they live with the log, not in the match loop: a reader never loads
the process layer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ..config.match import FaultMode, FaultPolicy

__all__ = [
    "EXIT_WAIT",
    "ALWAYS_DISQUALIFYING",
    "FLUSH_FIXES",
    "Fault",
    "FaultKind",
    "SeatStatus",
    "disqualifies",
    "fault_hint",
    "kind_hint",
    "silence_hint",
]

EXIT_WAIT = 3.0
"""How long a bot whose stdout closed is given to exit before it is reported as still running:
the bounded wait that makes its exit status part of the record, whatever the machine's load."""


class FaultKind(enum.Enum):
    """What a bot did wrong."""

    START_FAILED = "start_failed"
    """The program could not be started."""
    TIMEOUT = "timeout"
    """No complete line within the limit (startup or decision)."""
    EXITED = "exited"
    """The process exited or crashed, or closed its stdin."""
    NOT_UTF8 = "not_utf8"
    """A line that is not UTF-8."""
    NOT_JSON = "not_json"
    """A line that is not a JSON object."""
    INVALID_MESSAGE = "invalid_message"
    """JSON, but not the message expected (wrong type, missing or bad fields)."""
    LINE_TOO_LONG = "line_too_long"
    """A line longer than the limit."""
    WRONG_ID = "wrong_id"
    """An answer whose id is not the id of the open request."""
    REPEATED_ID = "repeated_id"
    """A second answer to a request already answered."""
    ILLEGAL_ACTION = "illegal_action"
    """An action that is malformed or not among the legal choices."""
    UNASKED_OUTPUT = "unasked_output"
    """Output when nothing was asked."""
    MATCH_TIME = "match_time"
    """The bot's thinking time for the whole match (``time.match_ms``) is used up."""
    RESOURCE_LIMIT = "resource_limit"
    """The bot ended at one of its sandbox limits (memory, CPU seconds, processes, open files, file size, /tmp)."""


# Faults after which the bot cannot answer again: it is disqualified whatever the policy.
ALWAYS_DISQUALIFYING = frozenset(
    {FaultKind.START_FAILED, FaultKind.EXITED, FaultKind.MATCH_TIME, FaultKind.RESOURCE_LIMIT}
)


def disqualifies(policy: FaultPolicy, kind: FaultKind, faults: int) -> bool:
    """Whether a seat's fault of `kind`, its `faults`-th counted, disqualifies it under `policy`."""
    return kind in ALWAYS_DISQUALIFYING or policy.mode is FaultMode.FORFEIT or faults >= policy.max_faults


_HINTS = {
    FaultKind.START_FAILED: "check the command and its working directory (relative paths start there)",
    FaultKind.TIMEOUT: "a bot must answer within time_ms and flush each line it prints",
    FaultKind.EXITED: "the bot's stderr, shown in the log and here, usually says why",
    FaultKind.NOT_UTF8: "bots write UTF-8 text",
    FaultKind.NOT_JSON: "bots print only protocol lines on stdout; write debug output to stderr",
    FaultKind.INVALID_MESSAGE: "see docs/PROTOCOL.md for the fields each message needs",
    FaultKind.LINE_TOO_LONG: "end every message with a newline",
    FaultKind.WRONG_ID: "answer with the id of the request being answered",
    FaultKind.REPEATED_ID: "answer each request exactly once",
    FaultKind.ILLEGAL_ACTION: "choose one of the request's legal strings, exactly as written",
    FaultKind.UNASKED_OUTPUT: "print one answer per request and nothing else on stdout; debug output goes to stderr",
    FaultKind.MATCH_TIME: "the bot used up its thinking time for the whole match (time.match_ms)",
    FaultKind.RESOURCE_LIMIT: "raise that limit under sandbox.limits in the config if the bot really needs more",
}


FLUSH_FIXES = (
    ("Python", "print(..., flush=True), or sys.stdout.flush() after each line"),
    ("JavaScript", "console.log and process.stdout.write need no flush (read stdin line by line, with readline)"),
    ("C", "fflush(stdout) after each line, or setvbuf(stdout, NULL, _IOLBF, 0) once at the start"),
    ("Rust", "println! flushes at its newline (after print!, or through a BufWriter, call .flush())"),
    ("Java", "System.out.println flushes (a PrintWriter or BufferedWriter of the bot's own needs .flush())"),
)
"""Per language, what makes each line a bot prints reach golfref at once (docs/PROTOCOL.md shows the same).

A pipe is not a terminal: Python's and C's stdout keep what is printed until a buffer
fills, so a bot that prints its ready or answer without a flush is never heard.
"""


def silence_hint(awaited: str) -> str:
    """The hint for a bot that sent no `awaited` ("ready", "answer") at all: its output is likely unflushed."""
    fixes = "; ".join(f"{language}: {fix}" for language, fix in FLUSH_FIXES)
    return f"no {awaited} arrived: is each line the bot prints flushed? {fixes}"


def kind_hint(kind: FaultKind, message: str = "", unheard: str | None = None) -> str:
    """What a bot author can do about a fault of `kind`: the usual cause, in one line.

    `unheard` names what the bot was waited for ("ready", "answer") when it has not sent
    one yet at all: a timeout then most likely means output that was never flushed.
    """
    if kind is FaultKind.TIMEOUT and unheard is not None:
        return silence_hint(unheard)
    if kind is FaultKind.EXITED and "still running" in message:
        return "a bot keeps its stdout open until goodbye"
    return _HINTS[kind]


def fault_hint(fault: Fault) -> str:
    """What a bot author can do about a recorded fault: the usual cause, in one line."""
    # A timeout with no request is the wait for ready: nothing was heard from the bot at all.
    return kind_hint(fault.kind, fault.message, "ready" if fault.request is None else None)


class SeatStatus(enum.Enum):
    """How a seat stands at the end of a match."""

    OK = "ok"
    """No fault."""
    FAULTED = "faulted"
    """At least one fault, still playing under the fallback policy."""
    DISQUALIFIED = "disqualified"
    """Disqualified: the fallback plays its decisions and it is placed last."""


@dataclass(frozen=True)
class Fault:
    """One recorded misbehaviour of a bot."""

    seat: int
    kind: FaultKind
    message: str
    line: str | None
    hole: int | None
    request: int | None
    at_ms: int

    def to_json(self) -> dict[str, Any]:
        """The fault as recorded in the log."""
        return {
            "seat": self.seat,
            "kind": self.kind.value,
            "message": self.message,
            "line": self.line,
            "hole": self.hole,
            "request": self.request,
            "at_ms": self.at_ms,
        }
