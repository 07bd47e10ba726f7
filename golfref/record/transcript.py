"""A seat's transcript: where it lies, what its lines hold, how its stderr is cut, and its one reader.

A transcript (`log.transcript: true`) is JSON lines next to the log, one file per bot seat,
in the order the referee wrote them: every protocol line exchanged with the bot
(``to_bot``, ``from_bot``) and, from log version 3 on, what the bot wrote to stderr
(``stderr``), each with the referee's clock in whole milliseconds since it started. What
depends on timing (the clock, where stderr falls between the protocol lines) lives here and
never in the log.

A ``stderr`` record carries ``req``: the request during whose decision the referee took the
line in (its wait for that answer, or the answer itself), or null for a line taken in between
requests (after ``ready``, after an answer, at the match's end). A bot's stderr is cut twice:
at most `STDERR_REQUEST_BYTES` per take, and at most `STDERR_SEAT_BYTES` over the whole
match; what is cut is counted by a record with ``dropped`` (bytes) instead of ``line``.
docs/LOG_FORMAT.md ("Transcripts") describes the format.

Every reader finds a transcript for itself, beside a log, so it reads it as the referee
writes it: never through a symbolic link (`files.read_capped(..., follow_links=False)`). A
link there, which a bot running without the sandbox could have put in place of its own
transcript, is refused with `LinkRefused` and what it points to is never opened.
"""

from __future__ import annotations

import enum
import io
import json
from pathlib import Path
from typing import Any, NamedTuple

from ..files import UnsafeFile, read_capped

__all__ = [
    "STDERR_REQUEST_BYTES",
    "STDERR_SEAT_BYTES",
    "STDERR_SINCE_VERSION",
    "Direction",
    "TranscriptError",
    "TranscriptLine",
    "StderrRecorder",
    "transcript_path",
    "transcript_there",
    "cut_text",
    "parse_transcript",
    "read_transcript",
    "read_transcripts",
]

STDERR_REQUEST_BYTES = 4096
"""Bytes of a bot's stderr a transcript keeps from one take: one decision, or the time between two."""
STDERR_SEAT_BYTES = 256 * 1024
"""Bytes of a bot's stderr a transcript keeps over a whole match (each line counts with its newline)."""
STDERR_SINCE_VERSION = 3
"""The first log version whose transcripts hold ``stderr`` records; an earlier one's have none."""


class Direction(enum.Enum):
    """Which way a transcript line went; the value is its ``dir``."""

    TO_BOT = "to_bot"
    """A protocol line the referee wrote to the bot."""
    FROM_BOT = "from_bot"
    """A line the bot wrote to its stdout (an answer, or a line that answered nothing)."""
    STDERR = "stderr"
    """A line the bot wrote to its stderr, or a count of the bytes of it that were cut (``dropped``)."""


class TranscriptError(Exception):
    """A line that is no transcript line at all (not a JSON object of ms, dir and line): one line naming it."""


class TranscriptLine(NamedTuple):
    """One line of a transcript, as written; a stderr record's own faults are in `problem`."""

    number: int
    """From 1, as editors count."""
    ms: Any
    """As written: the referee writes whole milliseconds since it started (the audit judges other values)."""
    direction: Direction
    text: str
    """The line (empty for a stderr record that counts dropped bytes)."""
    request: int | None = None
    """For stderr: the request it was taken in during, or None between requests."""
    dropped: int = 0
    """For stderr: bytes cut here (by `STDERR_REQUEST_BYTES` or `STDERR_SEAT_BYTES`)."""
    problem: str | None = None
    """For stderr: why the record is not one golfref writes (its `request` and `dropped` are then 0 / None)."""


def cut_text(dropped: int) -> str:
    """A stderr record's count of bytes cut, as the tools show it in place of the lines it stands for."""
    return f"[golfref: {dropped} bytes of stderr cut here]"


def transcript_path(log_path: Path, seat: int) -> Path:
    """The transcript of one seat: next to the log, `<log name without .json>.seat<N>.transcript.jsonl`."""
    return log_path.with_name(f"{log_path.stem}.seat{seat}.transcript.jsonl")


def transcript_there(path: Path) -> bool:
    """Whether a reader should look at `path`: a regular file is there, or a link (which reading refuses).

    Anything else (nothing, a FIFO, a folder) is no transcript: the seat had none.
    """
    return path.is_symlink() or path.is_file()


def _stderr_problem(record: dict[str, Any]) -> str | None:
    """Why a ``stderr`` record is not one golfref writes, or None."""
    request = record.get("req", ...)
    if request is ...:
        return "a stderr record without req (the request it belongs to, or null)"
    if request is not None and (isinstance(request, bool) or not isinstance(request, int) or request < 1):
        return f"req {json.dumps(request)[:40]} is not a request id (a whole number from 1, or null)"
    extra = sorted(set(record) - {"ms", "dir", "req", "line", "dropped"})
    if extra:
        return f"a stderr record with an unknown field {extra[0][:40]!r}"
    has_line, has_dropped = "line" in record, "dropped" in record
    if has_line == has_dropped:
        return "a stderr record has either line (the text) or dropped (bytes cut), one of them"
    if has_line and not isinstance(record["line"], str):
        return "a stderr record's line is not a string"
    if has_line and "\n" in record["line"]:
        return "a stderr record's line holds a newline (each line is a record of its own)"
    dropped = record.get("dropped", 1)
    if isinstance(dropped, bool) or not isinstance(dropped, int) or dropped < 1:
        return f"dropped {json.dumps(dropped)[:40]} is not a count of bytes (a whole number from 1)"
    return None


def parse_transcript(data: bytes, where: str) -> list[TranscriptLine]:
    """The lines of a transcript's bytes; TranscriptError, naming `where` and the line, for a line that is none."""
    lines = []
    # Read as a text file reads (universal newlines), from the bytes given.
    for number, raw in enumerate(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace"), 1):
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        direction = None
        if isinstance(record, dict):
            try:
                direction = Direction(record.get("dir"))
            except ValueError:
                direction = None
        if record is None or direction is None or "ms" not in record:
            raise TranscriptError(f"{where} line {number}: not a transcript line (a JSON object of ms, dir and line)")
        assert isinstance(record, dict)
        if direction is Direction.STDERR:
            problem = _stderr_problem(record)
            if problem is not None:
                text = record.get("line")
                lines.append(TranscriptLine(number, record["ms"], direction, text if isinstance(text, str) else "",
                                            problem=problem))  # fmt: skip
            else:
                lines.append(
                    TranscriptLine(
                        number, record["ms"], direction, record.get("line", ""), record["req"], record.get("dropped", 0)
                    )
                )
            continue
        if not isinstance(record.get("line"), str):
            raise TranscriptError(f"{where} line {number}: not a transcript line (a JSON object of ms, dir and line)")
        lines.append(TranscriptLine(number, record["ms"], direction, record["line"]))
    return lines


def read_transcript(
    path: Path, max_bytes: int, raise_limit: str = "give --max-log-mb to read more"
) -> list[TranscriptLine]:
    """The lines of the transcript at `path`, a regular file (never a link) of at most `max_bytes`.

    Read with `files.read_capped`. UnsafeFile (LinkRefused for a link) and OSError pass through;
    TranscriptError for a line that is no transcript line.
    """
    data = read_capped(path, max_bytes, "transcript", raise_limit, follow_links=False)
    return parse_transcript(data, str(path))


def read_transcripts(
    log_path: Path, seats: list[int], max_bytes: int
) -> tuple[dict[int, list[TranscriptLine]], dict[int, str]]:
    """The transcripts next to a log, of `seats`: (lines per seat found, why per seat whose file is there but unread).

    A seat without a transcript file is in neither: the match ran without transcripts for it.
    """
    found: dict[int, list[TranscriptLine]] = {}
    unread: dict[int, str] = {}
    for seat in seats:
        path = transcript_path(log_path, seat)
        if not transcript_there(path):
            continue
        try:
            found[seat] = read_transcript(path, max_bytes)
        except (TranscriptError, UnsafeFile) as e:
            unread[seat] = str(e)
        except OSError as e:
            unread[seat] = f"{path}: cannot read: {e.strerror or e}"
    return found, unread


class StderrRecorder:
    """One seat's stderr as its transcript keeps it: whole lines, each with the request it came during, cut as
    `STDERR_SEAT_BYTES` says over the match (the bot side cuts each take to `STDERR_REQUEST_BYTES`)."""

    __slots__ = ("_carry", "_left")

    def __init__(self, seat_bytes: int = STDERR_SEAT_BYTES) -> None:
        self._carry = b""  # a line begun but not ended in an earlier take
        self._left = seat_bytes

    def records(self, data: bytes, dropped: int, request: int | None, ms: int, final: bool = False) -> list[str]:
        """The transcript lines (JSON, each ending in a newline) for `data`, taken at `ms` during `request`.

        `dropped` bytes were cut before `data` reached here. A last line without its newline waits
        for the next take, unless `final` (the bot has ended) or it is already a take's worth.
        """
        text = self._carry + data if self._carry else data
        parts = text.split(b"\n")
        rest = parts.pop()
        if rest and (final or len(rest) >= STDERR_REQUEST_BYTES):
            parts.append(rest)
            rest = b""
        self._carry = rest
        out = []
        for part in parts:
            cost = len(part) + 1
            if cost > self._left:
                dropped += cost
                continue
            self._left -= cost
            line = part.decode("utf-8", errors="replace").removesuffix("\r")
            out.append(_record({"ms": ms, "dir": "stderr", "req": request, "line": line}))
        if dropped:
            out.append(_record({"ms": ms, "dir": "stderr", "req": request, "dropped": dropped}))
        return out


def _record(fields: dict[str, Any]) -> str:
    return json.dumps(fields, ensure_ascii=False) + "\n"
