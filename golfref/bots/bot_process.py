"""`BotProcess`: one bot program, started from an argv, with its pipes, line framing and capped stderr.

This module is pure process plumbing: it moves lines of text between the referee and bot
programs and knows nothing of the game or of JSON. A bot's failure (silence, death, an
overlong or undecodable line) is reported as data, a `ReadResult` with a `ReadStatus`;
exceptions are raised only for misuse of the referee itself (`BotStartError` for a bot
that cannot be started, `ValueError` / `RuntimeError` for wrong calls).

A bot's process tree is started and ended through `lifetime`, its pipes are waited on through
`multiplex`, its lines are framed as `framing` says, and its environment is `environment`'s.
"""

from __future__ import annotations

import collections
import os
import select
import signal
import subprocess
import time
import warnings
from collections.abc import Mapping, Sequence

from ..game.fast import new_tuple
from .environment import bot_environment
from .framing import LINE_LIMIT, RAW_CHARS, STDERR_LIMIT, UNASKED_LIMIT, CappedBytes, ReadResult, ReadStatus, short_repr
from .lifetime import (
    HAS_PROC,
    REAP_WAIT,
    BotStartError,
    Proc,
    become_subreaper,
    close_bots,
    death_signal,
    kill,
    not_dumpable,
    peek_exit,
    reap,
    running_bots,
    scan,
    start_failure,
    unreaped_bots,
    watchdog_send,
    watchdog_start,
)
from .multiplex import ERR, EXIT, IN, OUT, POLL, READ, BotPool, Mux
from .sandbox import Sandbox

__all__ = ["SEND_WAIT", "BotProcess"]

SEND_WAIT = 1.0
"""How long `BotProcess.send` waits for a full stdin pipe when no deadline is given, in seconds."""

_CHUNK = 64 * 1024  # one pipe's worth: a read never returns more
_DRAIN_CHUNKS = 16  # bound on reading "everything available" from one fast writer


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
        self._mux: Mux | None = None
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
        code = proc.returncode if proc.returncode is not None else peek_exit(proc)[1]
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

    def follow_stderr(self, limit: int) -> None:
        """Keep what is written to stderr from now on for `take_stderr`, at most `limit` bytes between takes."""
        self._stderr.follow(limit)

    def take_stderr(self) -> tuple[bytes, int]:
        """The stderr written since the latest take (as far as read), and how many bytes more were cut."""
        return self._stderr.take()

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
        become_subreaper()
        not_dumpable()
        watchdog_start()
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
                preexec_fn=box.preexec(death_signal()) if box is not None else death_signal(),
            )
        except OSError as exc:
            if box is not None:
                box.close()
            reason = start_failure(exc, self._argv, self._cwd, self._env["PATH"])
            raise BotStartError(self._argv, reason, self._label) from exc
        own_stdout = box.started() if box is not None else None
        if own_stdout is not None:
            # Read and closed as Popen's own pipe would be (see Sandbox.own_stdout).
            proc.stdout = open(own_stdout, "rb", buffering=0)  # noqa: SIM115 - closed in _finish_close
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._proc = proc
        running_bots.add(proc.pid)
        unreaped_bots.add(proc.pid)
        watchdog_send(f"+{proc.pid}\n")
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
            self._mux = Mux()
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
        close_bots([self], grace)

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
            running, code = peek_exit(proc)
            if not running:
                return self._sandbox.exit_code(code) if self._sandbox is not None else code
            remaining = end - time.monotonic()
            if remaining <= 0:
                return None
            if self._mux is not None:
                # Serviced, not slept: a bot blocked on a full stderr pipe could never exit.
                self._mux.pump(min(remaining, POLL))
            else:
                time.sleep(min(remaining, 0.005))

    # -- selector plumbing ------------------------------------------------------------

    def _register(self, mux: Mux) -> None:
        if self._fd_out is not None and not self._stdout_eof:
            mux.register(self._fd_out, READ, self, OUT)
        if self._fd_err is not None and not self._stderr_eof:
            mux.register(self._fd_err, READ, self, ERR)
        if self._pidfd is not None:
            mux.register(self._pidfd, READ, self, EXIT)

    def _attach(self, mux: Mux) -> None:
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
        if stream == OUT:
            self._read_stdout_chunk()
        elif stream == ERR:
            self._read_stderr_chunk()
        elif stream == IN:
            self._writable = True
        elif stream == EXIT:
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
                head = (bytes(self._buf[:RAW_CHARS]) + part[:RAW_CHARS])[:RAW_CHARS]
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
        return peek_exit(proc)[0]

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

    def _owns(self, p: Proc) -> bool:
        sid = self._proc.pid if self._proc is not None else -1
        return p.pgrp == sid or p.session == sid or self._escaped.get(p.pid) == p.start

    def _note_escaped(self, procs: list[Proc]) -> None:
        """Remember descendants outside the bot's group, while their parent chain still shows them."""
        proc = self._proc
        if proc is None:
            return
        children: dict[int, list[Proc]] = {}
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

    def _has_living(self, procs: list[Proc]) -> bool:
        if self._leader_running():
            return True
        return any(p.state not in "ZX" and self._owns(p) for p in procs)

    def _signal(self, sig: int, procs: list[Proc]) -> None:
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
        watchdog_send(f"-{proc.pid}\n")
        try:
            proc.wait(timeout=REAP_WAIT)
        except subprocess.TimeoutExpired:
            warnings.warn(f"bot pid {proc.pid} could not be reaped after SIGKILL", RuntimeWarning, stacklevel=3)
        else:
            unreaped_bots.discard(proc.pid)
        running_bots.discard(proc.pid)
        # Group members and escaped descendants that were reparented to us (we are a
        # subreaper) are our children now: reap them by pid, and wait for the others to go.
        me = os.getpid()
        give_up = time.monotonic() + REAP_WAIT
        while HAS_PROC:
            mine = [p for p in scan() if self._owns(p)]
            if not mine:
                break
            for p in mine:
                if p.state not in "ZX" and p.pid != me:
                    kill(p.pid, signal.SIGKILL)  # forked after the last signal went out
                if p.ppid == me and p.pid not in unreaped_bots:
                    reap(p.pid)
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


def _read_chunk(fd: int) -> bytes | None:
    """One non-blocking read: the bytes, b"" at end of file (or a broken pipe), None if nothing waits."""
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""
