"""The fault vocabulary: what a bot can do wrong, how a seat stands, what a recorded fault holds.

The referee records these and every reader of a log (validation, audit, reports, re-running a
seat) interprets them, so they live with the log, not in the match loop: a reader never loads
the process layer.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..config.match import FaultMode, FaultPolicy, TimeControl
from .stderr import TERMINAL_STDERR_LINES, stderr_tail_lines

__all__ = [
    "EXIT_WAIT",
    "EXPLAINED",
    "ALWAYS_DISQUALIFYING",
    "FLUSH_FIXES",
    "Fault",
    "FaultKind",
    "SeatStatus",
    "disqualifies",
    "explain_disqualification",
    "explain_fault",
    "fault_hint",
    "kind_hint",
    "missing_module",
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
    ("C++", "std::endl flushes; after '\\n', call std::cout.flush() (or std::cout << std::flush)"),
    ("Go", "fmt.Println to os.Stdout needs no flush (through a bufio.Writer, call .Flush() after each line)"),
)
"""Per language, what makes each line a bot prints reach golfref at once (docs/PROTOCOL.md shows the same).

A pipe is not a terminal: Python's and C's stdout keep what is printed until a buffer
fills, so a bot that prints its ready or answer without a flush is never heard.
"""


def silence_hint(awaited: str) -> str:
    """The hint for a bot that sent no `awaited` ("ready", "answer") at all: its output is likely unflushed."""
    fixes = "; ".join(f"{language}: {fix}" for language, fix in FLUSH_FIXES)
    return f"no {awaited} arrived: is each line the bot prints flushed? {fixes}"


_MISSING_MODULE = re.compile(r"^ModuleNotFoundError: No module named '([^']+)'", flags=re.M)


def missing_module(stderr: str) -> str | None:
    """The module a Python bot could not import, where the last lines of its stderr that a fault report
    shows say so (``ModuleNotFoundError: No module named 'numpy'``); else None."""
    found = _MISSING_MODULE.findall("\n".join(stderr_tail_lines(stderr, TERMINAL_STDERR_LINES)))
    return found[-1] if found else None


def kind_hint(kind: FaultKind, message: str = "", unheard: str | None = None, stderr: str = "") -> str:
    """What a bot author can do about a fault of `kind`: the usual cause, in one line.

    `unheard` names what the bot was waited for ("ready", "answer") when it has not sent
    one yet at all: a timeout then most likely means output that was never flushed.
    `stderr` is what the bot wrote there: a Python bot that ended on a module it does not
    have is told how a bot gets packages of its own.
    """
    if kind is FaultKind.TIMEOUT and unheard is not None:
        return silence_hint(unheard)
    if kind is FaultKind.EXITED and "still running" in message:
        return "a bot keeps its stdout open until goodbye"
    if kind is FaultKind.EXITED and (module := missing_module(stderr)) is not None:
        # The usual cause: the packages of the virtual environment the author's python3 is in,
        # which a sandboxed bot does not get (docs/SANDBOX.md, "Which Python a sandboxed bot runs").
        return (
            f"its Python has no module {module!r}: a sandboxed bot's Python has its standard library only; give the "
            "bot a virtual environment of its own that has the package, run it with that environment's python3, and "
            "add the environment to the player's sandbox.paths (docs/SANDBOX.md)"
        )
    return _HINTS[kind]


def fault_hint(fault: Fault, stderr: str = "") -> str:
    """What a bot author can do about a recorded fault (`stderr`: what the bot wrote there), in one line."""
    # A timeout with no request is the wait for ready: nothing was heard from the bot at all.
    return kind_hint(fault.kind, fault.message, "ready" if fault.request is None else None, stderr)


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


# -- faults in plain words ---------------------------------------------------------------------------

EXPLAINED = frozenset({FaultKind.TIMEOUT, FaultKind.MATCH_TIME, FaultKind.ILLEGAL_ACTION})
"""The kinds whose recorded message does not say the limit or the rule broken, which `explain_fault` adds."""

_SLOT_ACTION = re.compile(r"^(?:reveal|swap|flip|target:\d+):(-?\d+)$")  # the slotted actions' written forms
_NOT_LEGAL = re.compile(r"^('.*'|\".*\") is not a legal choice \(legal: (.*)\)$", re.S)
_WORDS = {
    FaultKind.START_FAILED: "could not be started",
    FaultKind.EXITED: "ended",
    FaultKind.NOT_UTF8: "wrote a line that is not UTF-8 text",
    FaultKind.NOT_JSON: "wrote a line that is not a JSON message",
    FaultKind.INVALID_MESSAGE: "wrote a JSON line that is not the message expected",
    FaultKind.LINE_TOO_LONG: "wrote a line longer than the limit",
    FaultKind.WRONG_ID: "answered with the wrong request id",
    FaultKind.REPEATED_ID: "answered a request a second time",
    FaultKind.UNASKED_OUTPUT: "wrote output when nothing was asked",
    FaultKind.RESOURCE_LIMIT: "ran into a limit of its sandbox",
}


def _ms(value: float) -> str:
    return f"{round(value):,} ms"


def _answered(fault: Fault) -> str | None:
    """The action a fault's line answered, when it is an answer at all."""
    if fault.line is not None:
        try:
            data = json.loads(fault.line)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("action"), str):
            return str(data["action"])
    return None


def explain_fault(fault: Fault, time: TimeControl, slots: int, taken_ms: float | None = None, who: str = "") -> str:
    """A recorded fault in plain words, with the limit or the rule it broke.

    `slots` is the size of a grid (rows times columns), `taken_ms` the time the referee waited
    for the answer (the step's ``ms``, or a transcript's clock) when known, `who` how to name
    the seat (default ``seat N``).
    """
    who = who or f"seat {fault.seat}"
    request = f" request {fault.request}" if fault.request is not None else ""
    kind = fault.kind
    if kind is FaultKind.TIMEOUT and fault.request is None:
        limit = f"{_ms(time.startup_ms)}, its limit to start (plus {_ms(time.grace_ms)} grace)"
        return f"{who} did not say ready within {limit}"
    if kind is FaultKind.TIMEOUT:
        took = f"{who} took {_ms(taken_ms)} without answering" if taken_ms is not None else f"{who} did not answer"
        limit = f"its limit was {_ms(time.move_ms)} per move"
        if time.bank_ms or time.increment_ms:
            limit += " plus what was left of its time bank"
        return f"{took}{request}; {limit} (and {_ms(time.grace_ms)} grace)"
    if kind is FaultKind.MATCH_TIME:
        return f"{who} used up its {_ms(time.match_ms)} of thinking time for the whole match"
    if kind is FaultKind.ILLEGAL_ACTION:
        action = _answered(fault)
        legal = None
        found = _NOT_LEGAL.match(fault.message)
        if found is not None:
            action = action if action is not None else found.group(1)[1:-1]
            legal = found.group(2)
        slot = _SLOT_ACTION.match(action or "")
        # A slot past the grid is the rule broken only where an action of its kind was a choice at all.
        same_kind = legal is None or (action or "").rsplit(":", 1)[0] + ":" in legal
        answered = f"{who} answered {action!r}{' to' + request if request else ''}"
        if slot is not None and same_kind and not 0 <= int(slot.group(1)) < slots:
            return f"{answered} but the grid has {slots} slots (0 to {slots - 1})"
        if action is not None:
            return f"{answered}, which was not one of its legal choices{f': {legal}' if legal else ''}"
    words = _WORDS.get(kind, kind.value.replace("_", " "))
    return f"{who} {words}{' at' + request if request else ''}: {fault.message}"


def explain_disqualification(
    faults: Sequence[Fault], policy: FaultPolicy, request: int | None, hole: int | None, who: str
) -> str:
    """Why a seat was disqualified, from its faults in order and the match's fault policy, in one sentence.

    `request` and `hole` are where it was disqualified (the log's ``disqualified_at``).
    """
    where = f"request {request}" if request is not None else "the start" if hole is None else f"hole {hole}"
    if not faults:
        return f"{who} was disqualified at {where}: it never said ready, so it could not be trusted to answer"
    deciding = next((f for f in faults if request is not None and f.request == request), faults[-1])
    counted = faults.index(deciding) + 1
    if deciding.kind in ALWAYS_DISQUALIFYING:
        why = f"a fault of kind {deciding.kind.value} always disqualifies: the bot cannot answer again"
    elif policy.mode is FaultMode.FORFEIT:
        why = "the fault policy is forfeit: the first fault disqualifies"
    else:
        why = f"its fault number {counted} reached the policy's max_faults ({policy.max_faults})"
    after = f"the {policy.fallback} fallback played its turns from there, and it is placed last"
    return f"{who} was disqualified at {where} ({deciding.kind.value}): {why}; {after}"
