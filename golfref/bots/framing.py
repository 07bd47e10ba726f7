"""Framing of a bot's output: lines read with a cap, what came of a read, and capped stderr.

Framing
    stdout is split on ``\\n`` and a trailing ``\\r`` is stripped. A line longer than
    `line_limit` bytes (default 256 KiB) is reported as `ReadStatus.TOO_LONG` as soon as the
    limit is passed, without waiting for its end, and the rest of it up to the next newline
    is discarded unread, so a bot cannot make the referee buffer more than `line_limit`
    bytes. Lines are decoded as strict UTF-8 (`ReadStatus.NOT_UTF8` otherwise). A last line
    without a newline is delivered when stdout reaches end of file.

stderr
    Every bot's stderr is read whenever the referee waits on any bot, and kept capped at
    `stderr_limit` bytes (default 64 KiB): the first half and the last half are kept and the
    bytes between them are counted (`BotProcess.stderr_dropped`). A bot flooding stderr
    therefore never blocks itself or the referee. Once `CappedBytes.follow` is called (the
    referee does for a match with transcripts), the bytes since the latest `CappedBytes.take`
    are kept as well, up to the limit it gives, and the rest counted: what the bot wrote
    during one decision, with no system call of its own (they are the bytes read anyway).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = [
    "LINE_LIMIT",
    "RAW_CHARS",
    "STDERR_LIMIT",
    "UNASKED_LIMIT",
    "CappedBytes",
    "ReadResult",
    "ReadStatus",
    "short_repr",
]

LINE_LIMIT = 256 * 1024
"""Default longest stdout line a bot may print, in bytes, without its newline (a ``\\r`` counts)."""
STDERR_LIMIT = 64 * 1024
"""Default number of stderr bytes kept per bot (first half and last half)."""
UNASKED_LIMIT = 64
"""How many untaken lines are kept per bot since the latest send, and again from before it."""
RAW_CHARS = 200
"""About how many characters of a bot's offending bytes a fault message shows."""


class ReadStatus(enum.Enum):
    """What came of waiting for a line from a bot."""

    LINE = "line"
    """A complete line, decoded; it is in `ReadResult.line`."""
    TIMEOUT = "timeout"
    """The deadline passed before the bot completed a line."""
    EXITED = "exited"
    """The bot closed its stdout or its main process ended; it will not answer."""
    TOO_LONG = "too_long"
    """The bot printed a line longer than the line limit; the rest of it is discarded."""
    NOT_UTF8 = "not_utf8"
    """The bot printed a line that is not valid UTF-8; `ReadResult.raw` shows its bytes."""


class ReadResult(NamedTuple):
    """One outcome of reading from a bot: a line, or why there is none.

    A named tuple, not a frozen dataclass: one is made for every line a bot prints, and a
    frozen dataclass sets each field through object.__setattr__.
    """

    status: ReadStatus
    line: str | None = None
    """The decoded line, without its newline, for `ReadStatus.LINE`; otherwise None."""
    raw: str = ""
    """For failures: a repr of the offending or incomplete bytes, cut to about 200 characters."""
    elapsed: float = 0.0
    """Seconds from the latest send to the bot (or its start) until the referee had this result."""
    sends: int = 0
    """How many `BotProcess.send` calls had begun when the referee read this line: a line read
    before the send of a request cannot answer it."""


class CappedBytes:
    """A byte log that keeps its first and last halves and counts what fell between."""

    def __init__(self, limit: int) -> None:
        self._head_cap = limit // 2
        self._tail_cap = limit - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0
        self._fresh: bytearray | None = None  # since the latest take, once followed
        self._fresh_cap = 0
        self._fresh_dropped = 0

    def follow(self, limit: int) -> None:
        """From now on also keep the bytes since the latest `take`, at most `limit` of them (the rest counted)."""
        self._fresh = bytearray()
        self._fresh_cap = limit
        self._fresh_dropped = 0

    def take(self) -> tuple[bytes, int]:
        """The bytes added since the latest take (nothing unless followed) and how many more were cut."""
        fresh = self._fresh
        if not fresh and not self._fresh_dropped:
            return b"", 0
        assert fresh is not None
        taken = (bytes(fresh), self._fresh_dropped)
        fresh.clear()
        self._fresh_dropped = 0
        return taken

    def add(self, data: bytes) -> None:
        """Keep `data`, dropping from the middle what passes the cap."""
        fresh = self._fresh
        if fresh is not None:
            room = self._fresh_cap - len(fresh)
            if room >= len(data):
                fresh += data
            else:
                fresh += data[: max(0, room)]
                self._fresh_dropped += len(data) - max(0, room)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]
                self.dropped += excess

    def text(self) -> str:
        """What is kept, decoded leniently, with a marker where bytes were dropped."""
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[golfref: {self.dropped} bytes of stderr dropped]\n{tail}"



def short_repr(data: bytes, more: bool = False) -> str:
    """A repr of `data` cut to about 200 characters, for fault messages."""
    text = repr(data[:RAW_CHARS])
    if len(text) > RAW_CHARS:
        return text[: RAW_CHARS - 3] + "..."
    return text + "..." if more or len(data) > RAW_CHARS else text
