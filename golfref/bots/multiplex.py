"""Multiplexing: several bots' pipes and exits waited on through one poller (`BotPool`).

Answers and unasked output
    `BotPool.read_line` returns the lines a bot completed since the latest
    `BotProcess.send` to it, oldest first, one per call. Lines it completed before that send
    cannot answer it: the send moves them aside, and `BotPool.take_unasked` returns them
    together with any line since the send that no `read_line` took. So a referee that calls
    `take_unasked` whenever no request is open sees every line that answered nothing (a
    second answer, output after the goodbye, chatter between requests). At most
    `UNASKED_LIMIT` lines since the latest send, and as many from before it, wait per bot;
    more are only counted (`BotProcess.unasked_dropped`).
    Lines that reach the pipe while a `send` is under way cannot be told from answers; that
    race is inherent to pipes. The deadline of `read_line` is pre-emptive: it returns by
    then even if the bot prints nothing or an endless line; called at or past its deadline
    it still looks once, so a line already waiting in the pipe is not lost.

All waits are single-threaded: one poller (epoll) per `BotPool` watches every bot's
stdout, stderr and (through a pidfd where the kernel has them) exit. A pool and its bots
belong to one thread. Writing to a bot that died relies on Python's default of ignoring
SIGPIPE (the write then fails with EPIPE and `BotProcess.send` returns False).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from .framing import RAW_CHARS, ReadResult, ReadStatus, short_repr
from .lifetime import close_bots

if TYPE_CHECKING:
    from .bot_process import BotProcess

__all__ = ["ERR", "EXIT", "IN", "OUT", "POLL", "READ", "WRITE", "BotPool", "Mux"]

POLL = 0.05  # wake-up period where there is no pidfd to report a bot's exit
_CHECK_EVERY = 0.25  # how often a wait calls the pool's `check` (see BotPool)
OUT, ERR, IN, EXIT = range(4)
"""The streams a `Mux` reports a bot's events for: stdout, stderr, stdin writable, the main process's exit."""
READ, WRITE = select.POLLIN, select.POLLOUT  # the same bits as EPOLLIN and EPOLLOUT


class BotPool:
    """Several bots waited on through one selector, servicing all of them during any wait.

    `check`, when given, is called at least every `_CHECK_EVERY` seconds of a wait for a
    line, and may raise to end it (the referee's stop, should a signal's exception have
    been lost: Python drops an exception raised by a handler that ran inside a fork hook
    or a finalizer).
    """

    def __init__(self, bots: Iterable[BotProcess] = (), check: Callable[[], None] | None = None) -> None:
        self._mux = Mux()
        self._check_stop = check
        self._bots: list[BotProcess] = []
        for bot in bots:
            self.add(bot)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close_all()

    @property
    def bots(self) -> tuple[BotProcess, ...]:
        """The bots in the pool, in the order they were added."""
        return tuple(self._bots)

    def add(self, bot: BotProcess) -> None:
        """Add a bot, started or not, to the pool."""
        if bot._pool is self:
            return
        if bot._pool is not None:
            raise ValueError(f"{bot!r} already belongs to another pool")
        bot._attach(self._mux)
        bot._pool = self
        self._bots.append(bot)

    def read_line(self, bot: BotProcess, deadline: float) -> ReadResult:
        """Wait until `bot` answers with a line, its stdout ends, or `deadline` (time.monotonic) passes."""
        self._check(bot)
        looked = False
        while True:
            if bot._pending:
                return bot._pending.popleft()
            if bot._stdout_eof or bot._closed:
                return ReadResult(ReadStatus.EXITED, elapsed=time.monotonic() - bot._sent_at)
            if bot._exit_seen or (bot._pidfd is None and not bot._leader_running()):
                # The bot is dead but a child of it holds stdout open: what it wrote before
                # dying is in the pipe already.
                bot._read_available()
                if not bot._pending:
                    return ReadResult(ReadStatus.EXITED, elapsed=time.monotonic() - bot._sent_at)
                continue
            now = time.monotonic()
            # Past the deadline, one look at the pipes still happens: a line the bot wrote
            # in time must not be lost because the referee came late to read it.
            if now >= deadline and looked:
                raw = ""
                if bot._buf and not bot._discarding:  # show what an unfinished line holds so far
                    raw = short_repr(bytes(bot._buf[:RAW_CHARS]), more=len(bot._buf) > RAW_CHARS)
                return ReadResult(ReadStatus.TIMEOUT, raw=raw, elapsed=now - bot._sent_at)
            looked = True
            wait = max(0.0, deadline - now)
            if bot._pidfd is None:
                wait = min(wait, POLL)
            if self._check_stop is not None:
                self._check_stop()
                wait = min(wait, _CHECK_EVERY)
            self._mux.pump(wait)

    def take_unasked(self, bot: BotProcess) -> list[ReadResult]:
        """Return and forget every line of `bot` that no `read_line` returned, oldest first."""
        self._check(bot)
        taken = bot._unasked + list(bot._pending)
        bot._unasked = []
        bot._pending.clear()
        return taken

    def drain(self, timeout: float = 0.0) -> None:
        """Service every bot's stdout and stderr for `timeout` seconds (0: only what is ready now)."""
        end = time.monotonic() + max(0.0, timeout)
        while (remaining := end - time.monotonic()) > 0:
            self._mux.pump(remaining)
        for _ in range(64):  # bounded: a flooding bot must not hold the referee here
            if not self._mux.pump(0):
                break

    def close_all(self, grace: float = 0.5) -> None:
        """Close every bot at once: stdin first, one shared `grace` period, then signals; idempotent."""
        close_bots(self._bots, grace)

    def _check(self, bot: BotProcess) -> None:
        if bot._pool is not self:
            raise ValueError(f"{bot!r} is not in this pool")
        if bot._proc is None and not bot._closed:
            raise RuntimeError(f"{bot!r} has not been started")


class _Poller(Protocol):
    def register(self, fd: int, eventmask: int = ..., /) -> None: ...
    def unregister(self, fd: int, /) -> None: ...
    def poll(self, timeout: float | None = ..., /) -> list[tuple[int, int]]: ...


class Mux:
    """One poller over the pipes and pidfds of a set of bots.

    It drives ``select.epoll`` (``select.poll`` where there is none) itself rather than
    through `selectors`: the wrapper's bookkeeping measured as a fifth of the referee's
    own share of a round trip.
    """

    def __init__(self) -> None:
        if hasattr(select, "epoll"):
            self._poller: _Poller = select.epoll()
            self._scale = 1.0  # epoll takes seconds
        else:
            self._poller = select.poll()
            self._scale = 1000.0  # poll takes milliseconds
        self._owners: dict[int, tuple[BotProcess, int]] = {}

    def register(self, fd: int, events: int, bot: BotProcess, stream: int) -> None:
        """Watch `fd` for `events`, reporting them to `bot` as its `stream`; a watched fd is left as it is."""
        if fd not in self._owners:
            self._poller.register(fd, events)
            self._owners[fd] = (bot, stream)

    def unregister(self, fd: int) -> None:
        """Stop watching `fd`, if it is watched."""
        if self._owners.pop(fd, None) is not None:
            try:
                self._poller.unregister(fd)
            except (KeyError, ValueError, OSError):
                pass

    def pump(self, timeout: float) -> bool:
        """Wait up to `timeout` s for any stream and service what is ready; True if anything was."""
        if not self._owners:
            if timeout > 0:
                time.sleep(timeout)
            return False
        events = self._poller.poll(max(0.0, timeout) * self._scale)
        for fd, _mask in events:
            owner = self._owners.get(fd)  # None if an earlier event in this batch closed it
            if owner is not None:
                owner[0]._on_event(owner[1])
        return bool(events)

    def wait_writable(self, bot: BotProcess, fd: int, deadline: float) -> bool:
        """Service every stream until `bot`'s stdin `fd` can take more, or `deadline` passes (False)."""
        bot._writable = False
        self.register(fd, WRITE, bot, IN)
        try:
            while not bot._writable:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.pump(remaining)
            return True
        finally:
            self.unregister(fd)
