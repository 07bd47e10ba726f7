"""Bot processes: spawn, line framing, deadlines, stderr capture and a clean kill.

This module is pure process plumbing: it moves lines of text between the referee and bot
programs and knows nothing of the game or of JSON. A bot's failure (silence, death, an
overlong or undecodable line) is reported as data, a `ReadResult` with a `ReadStatus`;
exceptions are raised only for misuse of the referee itself (`BotStartError` for a bot
that cannot be started, `ValueError` / `RuntimeError` for wrong calls).

Processes
    Each bot is started from an argv list, never through a shell, in a session and process
    group of its own (`start_new_session=True`), with pipes for stdin, stdout and stderr in
    non-blocking mode. `BotProcess.close` ends the whole group, plus descendants that
    escaped into a session of their own (found through /proc while their parent chain was
    still intact), and reaps them all, so no orphan or zombie outlives a match. On Linux the
    referee process makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``) the
    first time a bot starts: escaped descendants whose parents die are then reparented to
    the referee instead of init. Such an orphan can no longer be told apart from the
    helpers of another bot that is still playing, so orphans are swept (killed and reaped)
    when the last running bot closes: every child of the referee that lives in a session
    other than the referee's and is not a bot itself. Popen reaps each bot; strays are
    reaped with ``waitpid`` on their exact pids, never ``waitpid(-1)``, so the exit status
    of a bot is never stolen.

    Should the referee die without closing its bots (SIGKILL), they die too: each bot's
    main process gets a parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and a
    watchdog, forked when the first bot starts into a session of its own, holds a pipe from
    the referee and the list of bot process groups; when the pipe closes without the bots
    having been closed, it kills those groups (and their sessions) and exits. It is ended
    and reaped whenever no bot is running.

    When a bot's stdout closes, `BotProcess.wait_exit` waits (boundedly) for its exit
    status, so that the status recorded does not depend on how soon the referee looked.

Environment
    A bot sees exactly these variables (`bot_environment`) and nothing else of the
    referee's environment:

    ``PATH``                the referee's ``PATH`` (``os.defpath`` if it has none)
    ``HOME``                the referee's ``HOME`` (its user's home if it has none)
    ``LANG``, ``LC_ALL``    ``C.UTF-8``
    ``PYTHONUNBUFFERED``    ``1``, so Python bots need not flush by hand
    ``PYTHONIOENCODING``    ``utf-8``
    ``GOLFREF_PROTOCOL``    the protocol version (`golfref.PROTOCOL_VERSION`)
    ``GOLFREF_SEAT``        the bot's seat, counted from 0

    plus the extras of the bot's configuration, which may replace any of these except the
    ``GOLFREF_`` ones (repeating them with the referee's own values is allowed, so building
    an environment from a built one changes nothing).

Framing
    stdout is split on ``\\n`` and a trailing ``\\r`` is stripped. A line longer than
    `line_limit` bytes (default 256 KiB) is reported as `ReadStatus.TOO_LONG` as soon as the
    limit is passed, without waiting for its end, and the rest of it up to the next newline
    is discarded unread, so a bot cannot make the referee buffer more than `line_limit`
    bytes. Lines are decoded as strict UTF-8 (`ReadStatus.NOT_UTF8` otherwise). A last line
    without a newline is delivered when stdout reaches end of file.

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

stderr
    Every bot's stderr is read whenever the referee waits on any bot, and kept capped at
    `stderr_limit` bytes (default 64 KiB): the first half and the last half are kept and the
    bytes between them are counted (`BotProcess.stderr_dropped`). A bot flooding stderr
    therefore never blocks itself or the referee.

All waits are single-threaded: one poller (epoll) per `BotPool` watches every bot's
stdout, stderr and (through a pidfd where the kernel has them) exit. A pool and its bots
belong to one thread. Writing to a bot that died relies on Python's default of ignoring
SIGPIPE (the write then fails with EPIPE and `BotProcess.send` returns False).
"""

from __future__ import annotations

import collections
import ctypes
import enum
import errno
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import NamedTuple, Protocol, Self

from .. import PROTOCOL_VERSION
from ..game.fast import new_tuple
from .sandbox import Sandbox

__all__ = [
    "LINE_LIMIT",
    "SEND_WAIT",
    "STDERR_LIMIT",
    "UNASKED_LIMIT",
    "BotPool",
    "BotProcess",
    "BotStartError",
    "CappedBytes",
    "ReadResult",
    "ReadStatus",
    "bot_environment",
    "short_repr",
]

LINE_LIMIT = 256 * 1024
"""Default longest stdout line a bot may print, in bytes, without its newline (a ``\\r`` counts)."""
STDERR_LIMIT = 64 * 1024
"""Default number of stderr bytes kept per bot (first half and last half)."""
SEND_WAIT = 1.0
"""How long `BotProcess.send` waits for a full stdin pipe when no deadline is given, in seconds."""
UNASKED_LIMIT = 64
"""How many untaken lines are kept per bot since the latest send, and again from before it."""

_CHUNK = 64 * 1024  # one pipe's worth: a read never returns more
_DRAIN_CHUNKS = 16  # bound on reading "everything available" from one fast writer
_RAW_CHARS = 200
_TERM_WAIT = 0.3  # between SIGTERM and SIGKILL
_REAP_WAIT = 2.0  # a SIGKILLed process normally goes in microseconds; this only bounds the odd stuck one
_POLL = 0.05  # wake-up period where there is no pidfd to report a bot's exit
_CHECK_EVERY = 0.25  # how often a wait calls the pool's `check` (see BotPool)
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_HAS_PROC = os.path.isdir("/proc/self")

# Bots started and not yet closed: strays are swept only when this is empty, since a stray
# cannot be told from a living bot's escaped helper.
_running: set[int] = set()
# Bots not yet reaped by their Popen: never waitpid() these directly.
_unreaped: set[int] = set()
_subreaper: tuple[int, bool] | None = None  # (the pid that asked, whether it is one): a fork child is not
_prctl: Callable[..., int] | None = None
_prctl_looked_up = False


class BotStartError(Exception):
    """A bot program could not be started: not found, not executable, or no permission."""

    def __init__(self, argv: Sequence[str], reason: str, label: str | None = None) -> None:
        who = f"{label} " if label else ""
        super().__init__(f"cannot start bot {who}{list(argv)!r}: {reason}")
        self.argv = tuple(argv)
        self.reason = reason
        self.label = label


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


def bot_environment(extra: Mapping[str, str] | None, seat: int) -> dict[str, str]:
    """Build the minimal environment a bot runs with (listed in the module docstring)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise ValueError(f"seat must be an integer >= 0, not {seat!r}")
    env = {
        "PATH": os.environ.get("PATH") or os.defpath,
        "HOME": os.environ.get("HOME") or os.path.expanduser("~"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"environment entries must be strings: {key!r}={value!r}")
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"invalid environment entry {key!r}={value!r}")
        env[key] = value
    for key, value in (("GOLFREF_PROTOCOL", str(PROTOCOL_VERSION)), ("GOLFREF_SEAT", str(seat))):
        if env.setdefault(key, value) != value:
            raise ValueError(f"{key} is set by the referee ({value!r}) and cannot be configured: {env[key]!r}")
    return env


class BotProcess:
    """One bot program: its process group, pipes, line framing and capped stderr."""

    def __init__(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        seat: int,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        label: str | None = None,
        line_limit: int = LINE_LIMIT,
        stderr_limit: int = STDERR_LIMIT,
        sandbox: Sandbox | None = None,
    ) -> None:
        if isinstance(argv, (str, bytes)):
            raise TypeError("argv must be a list of arguments; bots never run through a shell")
        if not argv:
            raise ValueError("argv is empty")
        if line_limit < 1 or stderr_limit < 2:
            raise ValueError("line_limit and stderr_limit must be positive")
        self._argv = tuple(os.fspath(a) for a in argv)
        self._seat = seat
        self._label = label if label is not None else f"seat {seat}"
        self._cwd = cwd
        self._env = bot_environment(env, seat)
        self._line_limit = line_limit
        self._sandbox = sandbox
        self._stderr = CappedBytes(stderr_limit)
        self._proc: subprocess.Popen[bytes] | None = None
        self._mux: _Mux | None = None
        self._pool: BotPool | None = None
        self._fd_in: int | None = None
        self._fd_out: int | None = None
        self._fd_err: int | None = None
        self._out_poll: select.poll | None = None
        self._pidfd: int | None = None
        self._writable = False
        self._closed = False
        # framing
        self._buf = bytearray()
        self._discarding = False
        self._stdout_eof = False
        self._stderr_eof = False
        self._exit_seen = False
        # lines since the latest send, and lines before it that nobody took
        self._sent_at = time.monotonic()
        self._sends = 0
        self._pending: collections.deque[ReadResult] = collections.deque()
        self._unasked: list[ReadResult] = []
        self._unasked_dropped = 0
        # descendants outside the process group (pid -> start time), for the kill
        self._escaped: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"<BotProcess {self._label} pid={self.pid} argv={list(self._argv)!r}>"

    @property
    def argv(self) -> tuple[str, ...]:
        """The command line the bot is started with."""
        return self._argv

    @property
    def seat(self) -> int:
        """The seat the bot plays, from 0."""
        return self._seat

    @property
    def label(self) -> str:
        """The bot's name in messages (``seat N`` unless the referee gave another)."""
        return self._label

    @property
    def environment(self) -> dict[str, str]:
        """The whole environment the bot runs with (see `bot_environment`)."""
        return dict(self._env)

    @property
    def line_limit(self) -> int:
        """The longest stdout line accepted, in bytes."""
        return self._line_limit

    @property
    def pid(self) -> int | None:
        """The bot's process id (also its process group and session id), or None before start."""
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs or before start."""
        proc = self._proc
        if proc is None:
            return None
        code = proc.returncode if proc.returncode is not None else _peek_exit(proc)[1]
        return self._sandbox.exit_code(code) if self._sandbox is not None else code

    @property
    def sandbox(self) -> Sandbox | None:
        """The sandbox the bot runs in, or None."""
        return self._sandbox

    @property
    def alive(self) -> bool:
        """Whether the bot's main process has started and not yet ended."""
        return self._proc is not None and not self._closed and self._leader_running()

    @property
    def sends(self) -> int:
        """How many `send` calls have begun (see `ReadResult.sends`)."""
        return self._sends

    @property
    def stderr_dropped(self) -> int:
        """How many stderr bytes were dropped from the middle to respect the cap."""
        return self._stderr.dropped

    @property
    def unasked_dropped(self) -> int:
        """How many lines were dropped because `UNASKED_LIMIT` lines were already waiting."""
        return self._unasked_dropped

    def stderr_text(self) -> str:
        """The kept stderr output, decoded leniently, with a marker where bytes were dropped."""
        return self._stderr.text()

    def read_stderr(self) -> str:
        """Take in what the bot has written to stderr so far (without waiting), then `stderr_text`."""
        for _ in range(_DRAIN_CHUNKS):
            if not self._read_stderr_chunk():
                break
        return self._stderr.text()

    def start(self) -> None:
        """Start the bot program; raise `BotStartError` if it cannot be started."""
        if self._proc is not None:
            raise RuntimeError(f"bot {list(self._argv)!r} was already started")
        if self._closed:
            raise RuntimeError(f"bot {list(self._argv)!r} was closed")
        _become_subreaper()
        _not_dumpable()
        _watchdog_start()
        box = self._sandbox
        try:
            proc = subprocess.Popen(
                box.argv if box is not None else self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL if box is not None and box.own_stdout else subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self._cwd,
                env=box.environment(self._env) if box is not None else self._env,
                close_fds=True,
                pass_fds=box.pass_fds if box is not None else (),
                start_new_session=True,
                preexec_fn=box.preexec(_death_signal()) if box is not None else _death_signal(),
            )
        except OSError as exc:
            if box is not None:
                box.close()
            reason = _start_failure(exc, self._argv, self._cwd, self._env["PATH"])
            raise BotStartError(self._argv, reason, self._label) from exc
        own_stdout = box.started() if box is not None else None
        if own_stdout is not None:
            # Read and closed as Popen's own pipe would be (see Sandbox.own_stdout).
            proc.stdout = open(own_stdout, "rb", buffering=0)  # noqa: SIM115 - closed in _finish_close
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        _running.add(proc.pid)
        _unreaped.add(proc.pid)
        _watchdog_send(f"+{proc.pid}\n")
        self._fd_in = proc.stdin.fileno()
        self._fd_out = proc.stdout.fileno()
        self._fd_err = proc.stderr.fileno()
        for fd in (self._fd_in, self._fd_out, self._fd_err):
            os.set_blocking(fd, False)
        self._out_poll = select.poll()
        self._out_poll.register(self._fd_out, select.POLLIN)
        try:
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            self._pidfd = None  # older kernel or platform: read_line polls for the exit instead
        self._sent_at = time.monotonic()
        if self._mux is None:
            self._mux = _Mux()
        self._register(self._mux)

    def send(self, line: str, deadline: float | None = None) -> bool:
        """Write `line` and a newline to the bot's stdin; False if it cannot take it by `deadline`."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"a line sent to a bot cannot contain a line break: {line[:80]!r}")
        data = line.encode("utf-8") + b"\n"
        fd = self._fd_in
        if fd is None or self._mux is None:
            return False
        # Whatever the bot printed before this line was sent cannot answer it.
        self._read_available()
        self._set_aside_pending()
        self._sends += 1
        self._sent_at = time.monotonic()
        if deadline is None:
            deadline = self._sent_at + SEND_WAIT
        try:
            written = os.write(fd, data)  # the usual case: the whole line fits in the pipe
        except BlockingIOError:
            written = 0
        except OSError:
            self._close_stdin()
            return False
        view = memoryview(data)[written:]
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                if not self._mux.wait_writable(self, fd, deadline):
                    # Part of the line may be in the pipe: the stream is unusable from here.
                    self._close_stdin()
                    return False
            except OSError:
                self._close_stdin()
                return False
        return True

    def close(self, grace: float = 0.5) -> None:
        """Close stdin, wait up to `grace` s, then SIGTERM and SIGKILL the bot's group; reap all."""
        _close_bots([self], grace)

    def wait_exit(self, timeout: float) -> int | None:
        """Wait up to `timeout` s for the main process to end: its exit status, or None if it still runs.

        A bot whose stdout closed is usually on its way out; its status is read only once the
        kernel has it, so the same bot behaviour is reported alike under any load.
        """
        proc = self._proc
        if proc is None:
            return None
        end = time.monotonic() + max(0.0, timeout)
        while True:
            running, code = _peek_exit(proc)
            if not running:
                return self._sandbox.exit_code(code) if self._sandbox is not None else code
            remaining = end - time.monotonic()
            if remaining <= 0:
                return None
            if self._mux is not None:
                # Serviced, not slept: a bot blocked on a full stderr pipe could never exit.
                self._mux.pump(min(remaining, _POLL))
            else:
                time.sleep(min(remaining, 0.005))

    # -- selector plumbing ------------------------------------------------------------

    def _register(self, mux: _Mux) -> None:
        if self._fd_out is not None and not self._stdout_eof:
            mux.register(self._fd_out, _READ, self, _OUT)
        if self._fd_err is not None and not self._stderr_eof:
            mux.register(self._fd_err, _READ, self, _ERR)
        if self._pidfd is not None:
            mux.register(self._pidfd, _READ, self, _EXIT)

    def _attach(self, mux: _Mux) -> None:
        old = self._mux
        if old is mux:
            return
        if old is not None:
            for fd in (self._fd_out, self._fd_err, self._pidfd):
                if fd is not None:
                    old.unregister(fd)
        self._mux = mux
        if self._proc is not None and not self._closed:
            self._register(mux)

    def _on_event(self, stream: int) -> None:
        if stream == _OUT:
            self._read_stdout_chunk()
        elif stream == _ERR:
            self._read_stderr_chunk()
        elif stream == _IN:
            self._writable = True
        elif stream == _EXIT:
            self._exit_seen = True
            self._close_pidfd()

    def _read_stdout_chunk(self) -> bool:
        fd = self._fd_out
        if fd is None or self._stdout_eof:
            return False
        data = _read_chunk(fd)
        if data is None:
            return False
        if not data:
            self._on_stdout_eof()
            return False
        self._frame(data)
        return True

    def _read_available(self) -> None:
        poller = self._out_poll
        for _ in range(_DRAIN_CHUNKS):
            # Before every request, and mostly nothing waits: a poll with no wait costs a
            # fraction of a read that fails with EAGAIN (an exception raised and caught).
            if poller is not None and not poller.poll(0):
                return
            if not self._read_stdout_chunk():
                return

    def _read_stderr_chunk(self) -> bool:
        fd = self._fd_err
        if fd is None or self._stderr_eof:
            return False
        data = _read_chunk(fd)
        if data is None:
            return False
        if not data:
            self._stderr_eof = True
            if self._mux is not None:
                self._mux.unregister(fd)
            return False
        self._stderr.add(data)
        return True

    # -- framing ----------------------------------------------------------------------

    def _frame(self, data: bytes) -> None:
        now = time.monotonic()
        limit = self._line_limit
        if not self._buf and not self._discarding and data.find(b"\n") == len(data) - 1 <= limit:
            self._deliver_line(data[:-1], now)  # the usual case: one whole line in one read
            return
        parts = data.split(b"\n")
        last = len(parts) - 1
        for i, part in enumerate(parts):
            if self._discarding:
                if i < last:
                    self._discarding = False  # the newline ending the overlong line
                continue
            if len(self._buf) + len(part) > limit:
                head = (bytes(self._buf[:_RAW_CHARS]) + part[:_RAW_CHARS])[:_RAW_CHARS]
                self._buf.clear()
                self._deliver(ReadStatus.TOO_LONG, None, short_repr(head, more=True), now)
                self._discarding = i == last
            elif i == last:
                self._buf += part
            else:
                if self._buf:
                    self._buf += part
                    part = bytes(self._buf)
                    self._buf.clear()
                self._deliver_line(part, now)

    def _deliver_line(self, line: bytes, now: float) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            self._deliver(ReadStatus.NOT_UTF8, None, short_repr(line), now)
        else:
            self._deliver(ReadStatus.LINE, text, "", now)

    def _deliver(self, status: ReadStatus, line: str | None, raw: str, now: float) -> None:
        if len(self._pending) < UNASKED_LIMIT:
            self._pending.append(new_tuple(ReadResult, (status, line, raw, max(0.0, now - self._sent_at), self._sends)))
        else:
            self._unasked_dropped += 1  # a bot printing without end must not fill the referee

    def _set_aside_pending(self) -> None:
        if not self._pending:
            return
        # Kept apart from the pending lines, so old chatter nobody took never crowds out an answer.
        room = max(0, UNASKED_LIMIT - len(self._unasked))
        self._unasked.extend(self._pending[i] for i in range(min(room, len(self._pending))))
        self._unasked_dropped += max(0, len(self._pending) - room)
        self._pending.clear()

    def _on_stdout_eof(self) -> None:
        if self._buf and not self._discarding:
            line = bytes(self._buf)
            self._buf.clear()
            self._deliver_line(line, time.monotonic())
        self._buf.clear()
        self._discarding = False
        self._stdout_eof = True
        if self._mux is not None and self._fd_out is not None:
            self._mux.unregister(self._fd_out)

    # -- ending -----------------------------------------------------------------------

    def _leader_running(self) -> bool:
        proc = self._proc
        if proc is None or proc.returncode is not None or self._exit_seen:
            return False
        return _peek_exit(proc)[0]

    def _close_stdin(self) -> None:
        fd, self._fd_in = self._fd_in, None
        if fd is None or self._proc is None or self._proc.stdin is None:
            return
        if self._mux is not None:
            self._mux.unregister(fd)
        try:
            self._proc.stdin.close()
        except OSError:
            pass

    def _close_pidfd(self) -> None:
        fd, self._pidfd = self._pidfd, None
        if fd is not None:
            if self._mux is not None:
                self._mux.unregister(fd)
            try:
                os.close(fd)
            except OSError:
                pass

    def _owns(self, p: _Proc) -> bool:
        sid = self._proc.pid if self._proc is not None else -1
        return p.pgrp == sid or p.session == sid or self._escaped.get(p.pid) == p.start

    def _note_escaped(self, procs: list[_Proc]) -> None:
        """Remember descendants outside the bot's group, while their parent chain still shows them."""
        proc = self._proc
        if proc is None:
            return
        children: dict[int, list[_Proc]] = {}
        for p in procs:
            children.setdefault(p.ppid, []).append(p)
        stack = [p.pid for p in procs if self._owns(p)] + [proc.pid]
        seen: set[int] = set()
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            for child in children.get(pid, ()):
                if child.pgrp != proc.pid:
                    self._escaped[child.pid] = child.start
                stack.append(child.pid)

    def _has_living(self, procs: list[_Proc]) -> bool:
        if self._leader_running():
            return True
        return any(p.state not in "ZX" and self._owns(p) for p in procs)

    def _signal(self, sig: int, procs: list[_Proc]) -> None:
        proc = self._proc
        if proc is None:
            return
        self._note_escaped(procs)
        if proc.pid != os.getpgrp():
            try:
                os.killpg(proc.pid, sig)
            except OSError:
                pass  # the group is already empty
        for p in procs:
            # The start time check makes sure a reused pid is never hit.
            if p.pid in self._escaped and self._owns(p) and p.pid != os.getpid() and p.state not in "ZX":
                try:
                    os.kill(p.pid, sig)
                except OSError:
                    pass

    def _finish_close(self) -> None:
        proc = self._proc
        if proc is None:
            self._closed = True
            if self._sandbox is not None:
                self._sandbox.close()
            return
        self._close_stdin()
        # Before the reap: while the leader is unreaped its pid, the group's id, cannot be reused.
        _watchdog_send(f"-{proc.pid}\n")
        try:
            proc.wait(timeout=_REAP_WAIT)
        except subprocess.TimeoutExpired:
            warnings.warn(f"bot pid {proc.pid} could not be reaped after SIGKILL", RuntimeWarning, stacklevel=3)
        else:
            _unreaped.discard(proc.pid)
        _running.discard(proc.pid)
        # Group members and escaped descendants that were reparented to us (we are a
        # subreaper) are our children now: reap them by pid, and wait for the others to go.
        me = os.getpid()
        give_up = time.monotonic() + _REAP_WAIT
        while _HAS_PROC:
            mine = [p for p in _scan() if self._owns(p)]
            if not mine:
                break
            for p in mine:
                if p.state not in "ZX" and p.pid != me:
                    _kill(p.pid, signal.SIGKILL)  # forked after the last signal went out
                if p.ppid == me and p.pid not in _unreaped:
                    _reap(p.pid)
            if time.monotonic() > give_up:
                warnings.warn(f"processes of bot pid {proc.pid} outlived the kill", RuntimeWarning, stacklevel=3)
                break
            time.sleep(0.005)
        # Every writer is gone now, so what is left in the pipes is the bot's last words.
        self._read_available()
        for _ in range(_DRAIN_CHUNKS):
            if not self._read_stderr_chunk():
                break
        if self._mux is not None:
            for fd in (self._fd_out, self._fd_err):
                if fd is not None:
                    self._mux.unregister(fd)
        self._close_pidfd()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._fd_out = self._fd_err = None
        self._out_poll = None
        self._stdout_eof = True
        self._closed = True
        if self._sandbox is not None:
            self._sandbox.close()


class BotPool:
    """Several bots waited on through one selector, servicing all of them during any wait.

    `check`, when given, is called at least every `_CHECK_EVERY` seconds of a wait for a
    line, and may raise to end it (the referee's stop, should a signal's exception have
    been lost: Python drops an exception raised by a handler that ran inside a fork hook
    or a finalizer).
    """

    def __init__(self, bots: Iterable[BotProcess] = (), check: Callable[[], None] | None = None) -> None:
        self._mux = _Mux()
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
                    raw = short_repr(bytes(bot._buf[:_RAW_CHARS]), more=len(bot._buf) > _RAW_CHARS)
                return ReadResult(ReadStatus.TIMEOUT, raw=raw, elapsed=now - bot._sent_at)
            looked = True
            wait = max(0.0, deadline - now)
            if bot._pidfd is None:
                wait = min(wait, _POLL)
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
        _close_bots(self._bots, grace)

    def _check(self, bot: BotProcess) -> None:
        if bot._pool is not self:
            raise ValueError(f"{bot!r} is not in this pool")
        if bot._proc is None and not bot._closed:
            raise RuntimeError(f"{bot!r} has not been started")


# -- internals ------------------------------------------------------------------------

_OUT, _ERR, _IN, _EXIT = range(4)
_READ, _WRITE = select.POLLIN, select.POLLOUT  # the same bits as EPOLLIN and EPOLLOUT


class _Poller(Protocol):
    def register(self, fd: int, eventmask: int = ..., /) -> None: ...
    def unregister(self, fd: int, /) -> None: ...
    def poll(self, timeout: float | None = ..., /) -> list[tuple[int, int]]: ...


class _Mux:
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
        if fd not in self._owners:
            self._poller.register(fd, events)
            self._owners[fd] = (bot, stream)

    def unregister(self, fd: int) -> None:
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
        bot._writable = False
        self.register(fd, _WRITE, bot, _IN)
        try:
            while not bot._writable:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.pump(remaining)
            return True
        finally:
            self.unregister(fd)


class CappedBytes:
    """A byte log that keeps its first and last halves and counts what fell between."""

    def __init__(self, limit: int) -> None:
        self._head_cap = limit // 2
        self._tail_cap = limit - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        """Keep `data`, dropping from the middle what passes the cap."""
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


@dataclass(frozen=True, slots=True)
class _Proc:
    pid: int
    state: str
    ppid: int
    pgrp: int
    session: int
    start: int


def _scan() -> list[_Proc]:
    """Every process in /proc, zombies included; empty where there is no /proc."""
    found: list[_Proc] = []
    if not _HAS_PROC:
        return found
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
            # The command name may hold spaces and parentheses: split after the last ')'.
            fields = data[data.rindex(b")") + 2 :].split()
            found.append(
                _Proc(int(name), fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
            )
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return found


def _read_chunk(fd: int) -> bytes | None:
    """One non-blocking read: the bytes, b"" at end of file (or a broken pipe), None if nothing waits."""
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _peek_exit(proc: subprocess.Popen[bytes]) -> tuple[bool, int | None]:
    """Whether `proc` runs, and its exit status, without reaping it: its pid and group id stay reserved."""
    if proc.returncode is not None:
        return False, proc.returncode
    if not hasattr(os, "waitid"):
        code = proc.poll()
        return code is None, code
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False, proc.returncode  # reaped behind Popen's back: the status is lost
    if info is None:
        return True, None
    return False, info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def _close_bots(bots: Iterable[BotProcess], grace: float) -> None:
    """Close several bots in parallel: stdin all at once, one grace period, then the signals."""
    todo = [b for b in bots if not b._closed]
    if _HAS_PROC and todo:
        procs = _scan()
        for bot in todo:
            bot._note_escaped(procs)  # before stdin closes and parents exit, breaking the chains
    for bot in todo:
        if bot._proc is None:
            bot._closed = True
        else:
            bot._close_stdin()
    todo = [b for b in todo if not b._closed]
    muxes = list({id(b._mux): b._mux for b in todo if b._mux is not None}.values())

    def wait(seconds: float, done: Callable[[], bool]) -> None:
        end = time.monotonic() + seconds
        while not done():
            remaining = end - time.monotonic()
            if remaining <= 0:
                return
            for mux in muxes:  # keep reading, so a bot blocked on a full pipe can finish
                mux.pump(min(remaining, 0.01))
            if not muxes:
                time.sleep(min(remaining, 0.01))

    wait(max(0.0, grace), lambda: not any(b._leader_running() for b in todo))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        procs = _scan()
        living = [b for b in todo if b._has_living(procs)]
        if not living:
            break
        for bot in living:
            bot._signal(sig, procs)
        if sig == signal.SIGTERM:
            wait(_TERM_WAIT, _none_living(living))
    for bot in todo:
        bot._finish_close()
    if not _running:
        _sweep_strays()
        _watchdog_stop()


def _none_living(bots: list[BotProcess]) -> Callable[[], bool]:
    def check() -> bool:
        procs = _scan()
        return not any(b._has_living(procs) for b in bots)

    return check


def _sweep_strays() -> None:
    """Kill and reap escaped bot descendants that were reparented to us, once no bot runs."""
    if not _HAS_PROC:
        return
    me = os.getpid()
    try:
        my_session = os.getsid(0)
    except OSError:
        return
    give_up = time.monotonic() + _REAP_WAIT
    while True:
        # Bots run in sessions of their own, so a child of ours in another session that no
        # Popen owns can only be a bot's escaped descendant.
        strays = [
            p
            for p in _scan()
            if p.ppid == me and p.session != my_session and p.pid not in _unreaped and p.pid != _watchdog.pid
        ]
        if not strays or time.monotonic() > give_up:
            return
        for p in strays:
            if p.state not in "ZX":
                if p.pgrp == p.pid:
                    try:
                        os.killpg(p.pgrp, signal.SIGKILL)
                    except OSError:
                        pass
                _kill(p.pid, signal.SIGKILL)
            _reap(p.pid)
        time.sleep(0.005)


def libc_prctl() -> Callable[..., int] | None:
    """libc's prctl (Linux only), resolved once: a forked child must not resolve symbols."""
    global _prctl, _prctl_looked_up
    if not _prctl_looked_up:
        _prctl_looked_up = True
        if sys.platform.startswith("linux"):
            try:
                prctl = ctypes.CDLL(None, use_errno=True).prctl
                prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
                prctl.restype = ctypes.c_int
                _prctl = prctl
            except (OSError, AttributeError):
                pass
    return _prctl


def _become_subreaper() -> bool:
    """Make this process the reaper of orphaned bot descendants (Linux only), once."""
    global _subreaper
    # Per process: the setting is not inherited across fork (a tournament worker must ask again).
    if _subreaper is None or _subreaper[0] != os.getpid():
        prctl = libc_prctl()
        _subreaper = (os.getpid(), prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    return _subreaper[1]


def _not_dumpable() -> None:
    """Make the referee not dumpable (Linux): a bot of the same user can then neither trace it nor
    read its memory, environment or open pipes through /proc. Bots get the default back at exec."""
    prctl = libc_prctl()
    if prctl is not None:
        prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _death_signal() -> Callable[[], None] | None:
    """A preexec function that has the bot's main process killed when the referee dies (Linux)."""
    prctl = libc_prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def die_with_parent() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the referee died before the signal was armed
            os.kill(os.getpid(), signal.SIGKILL)

    return die_with_parent


# -- the watchdog -----------------------------------------------------------------------
#
# A parent-death signal reaches only a bot's main process, and only when the referee dies.
# The watchdog, a forked helper in a session of its own (so that signals for the referee's
# group do not reach it), holds the read end of a pipe from the referee and the list of
# bot process groups. The kernel closes the write end whatever way the referee dies,
# SIGKILL included; the watchdog then kills every group (and session) still listed, and exits.


@dataclass
class _WatchdogState:
    pid: int | None = None
    fd: int | None = None
    owner: int | None = None  # the process that started it: a forked child must start its own


_watchdog = _WatchdogState()


def _watchdog_start() -> None:
    """Start the watchdog unless this process has one running."""
    if _watchdog.fd is not None and _watchdog.owner == os.getpid():
        return
    if not _HAS_PROC or not hasattr(os, "fork"):
        return
    read_end, write_end = os.pipe()  # neither end is inherited by the bots' exec
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return
    if pid == 0:  # pragma: no cover - runs in the forked child, which never returns
        try:
            os.setsid()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT})
            os.closerange(0, read_end)
            os.closerange(read_end + 1, 1 << 16)
            _watchdog_main(read_end)
        finally:
            os._exit(0)
    os.close(read_end)
    _watchdog.pid, _watchdog.fd, _watchdog.owner = pid, write_end, os.getpid()


def _watchdog_main(fd: int) -> None:  # pragma: no cover - runs in the forked child
    groups: set[int] = set()
    pending = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            break
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            if line[:1] == b"+":
                groups.add(int(line[1:]))
            elif line[:1] == b"-":
                groups.discard(int(line[1:]))
    if not groups:
        return
    for pgid in groups:
        _kill_group(pgid)
    # Members that moved to another group of the same session are reached through /proc.
    for p in _scan():
        if p.session in groups or p.pgrp in groups:
            _kill(p.pid, signal.SIGKILL)


def _watchdog_send(line: str) -> None:
    if _watchdog.fd is None or _watchdog.owner != os.getpid():
        return
    try:
        os.write(_watchdog.fd, line.encode())
    except OSError:
        pass  # the watchdog is gone: the referee's own close still does the work


def _watchdog_stop() -> None:
    """End the watchdog once no bot runs (it has nothing to guard) and reap it."""
    fd, pid = _watchdog.fd, _watchdog.pid
    if fd is None or pid is None or _watchdog.owner != os.getpid():
        return
    _watchdog.fd = _watchdog.pid = _watchdog.owner = None
    os.close(fd)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _forget_watchdog() -> None:
    # In a forked child the write end is a copy: holding it would keep the parent's
    # watchdog from ever seeing the parent die.
    if _watchdog.fd is not None:
        try:
            os.close(_watchdog.fd)
        except OSError:
            pass
    _watchdog.fd = _watchdog.pid = _watchdog.owner = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_watchdog)


def _start_failure(exc: OSError, argv: Sequence[str], cwd: str | os.PathLike[str] | None, path: str) -> str:
    """Say in words why `argv` could not be started."""
    if cwd is not None and exc.filename is not None and os.fspath(exc.filename) == os.fspath(cwd):
        return f"working directory {os.fspath(cwd)!r} is unusable ({exc.strerror})"
    prog = argv[0]
    if os.sep in prog:
        target: str | None = os.path.join(os.fspath(cwd), prog) if cwd is not None else prog
    else:
        target = shutil.which(prog, path=path)
    if isinstance(exc, FileNotFoundError):
        if target is None:
            return f"{prog!r} not found on PATH"
        if os.path.exists(target):
            return f"{prog!r} exists but its interpreter (#! line) was not found"
        return f"{prog!r} not found"
    if isinstance(exc, PermissionError):
        if target is not None and os.path.isdir(target):
            return f"{prog!r} is a directory"
        if target is not None and os.path.exists(target) and not os.access(target, os.X_OK):
            return f"{prog!r} is not executable (no execute permission)"
        return f"permission denied running {prog!r}"
    if exc.errno == errno.ENOEXEC:
        return f"{prog!r} is not an executable format (a script needs a #! line)"
    return f"{prog!r}: {exc.strerror or exc}"


def short_repr(data: bytes, more: bool = False) -> str:
    """A repr of `data` cut to about 200 characters, for fault messages."""
    text = repr(data[:_RAW_CHARS])
    if len(text) > _RAW_CHARS:
        return text[: _RAW_CHARS - 3] + "..."
    return text + "..." if more or len(data) > _RAW_CHARS else text
