"""The process tree's lifetime: starting a bot, its group and session, killing the tree, reaping, the watchdog.

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
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .bot_process import BotProcess

__all__ = [
    "HAS_PROC", "REAP_WAIT", "BotStartError", "Proc", "become_subreaper", "close_bots", "death_signal", "kill",
    "libc_prctl", "not_dumpable", "peek_exit", "reap", "reap_session", "running_bots", "scan", "scan_all",
    "start_failure", "unreaped_bots", "watchdog_send", "watchdog_start",
]  # fmt: skip

_TERM_WAIT = 0.3  # between SIGTERM and SIGKILL
REAP_WAIT = 2.0  # a SIGKILLed process normally goes in microseconds; this only bounds the odd stuck one
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
HAS_PROC = os.path.isdir("/proc/self")

# Bots started and not yet closed: strays are swept only when this is empty, since a stray
# cannot be told from a living bot's escaped helper.
running_bots: set[int] = set()
# Bots not yet reaped by their Popen: never waitpid() these directly.
unreaped_bots: set[int] = set()
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


@dataclass(frozen=True, slots=True)
class Proc:
    """One process as /proc shows it: its state, parent, group, session and start time."""

    pid: int
    state: str
    ppid: int
    pgrp: int
    session: int
    start: int


def _read_proc(pid: int) -> Proc | None:
    """The process `pid` as /proc/PID/stat shows it; None once it is gone (or unreadable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = data[data.rindex(b")") + 2 :].split()
        return Proc(pid, fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    except (OSError, ValueError, IndexError):
        return None  # gone meanwhile


def scan_all() -> list[Proc]:
    """Every process in /proc, zombies included; empty where there is no /proc."""
    if not HAS_PROC:
        return []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [p for p in (_read_proc(int(name)) for name in names if name.isdigit()) if p is not None]


def _descendants() -> list[Proc] | None:
    """Every descendant of this process, zombies included, through /proc/PID/task/TID/children;
    None where the kernel keeps no such list (CONFIG_PROC_CHILDREN)."""
    found: list[Proc] = []
    todo = [os.getpid()]
    seen: set[int] = set()
    first = True
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")  # a child's parent is the thread that forked it
        except OSError:
            if first:
                return None
            continue  # gone meanwhile
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    children = f.read().split()
            except FileNotFoundError:
                if first:
                    return None
                continue
            except OSError:
                continue
            for child in map(int, children):
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
                    proc = _read_proc(child)
                    if proc is not None:
                        found.append(proc)
        first = False
    return found


def scan() -> list[Proc]:
    """Every process a bot of this referee can have made, zombies included; empty where there is no /proc.

    Once this process is a child subreaper, each of them is its descendant: an escaped process
    whose parent dies comes to the nearest subreaper above it, which is this one. Walking the tree
    down from here (a few files per process) then sees them all, where reading every process's
    stat (hundreds of files, several times per match) would only add strangers. Without the
    subreaper, or without the kernel's child lists, every process in /proc.
    """
    if not HAS_PROC:
        return []
    if _subreaper is not None and _subreaper == (os.getpid(), True):
        found = _descendants()
        if found is not None:
            return found
    return scan_all()


def peek_exit(proc: subprocess.Popen[bytes]) -> tuple[bool, int | None]:
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


def reap(pid: int) -> None:
    """Reap the child `pid` if it has ended, without waiting; a pid that is not our child is let be."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def reap_session(session: int, wait: float = 2.0) -> None:
    """Reap the children of this process left in `session` (waiting up to `wait` s for those still running):
    a helper's child (bubblewrap's init of a PID namespace) can outlive the helper that started it in a
    session of its own, and then comes to us when we are a child subreaper (as a referee is), to be
    reaped by nobody else."""
    give_up = time.monotonic() + wait
    me = str(os.getpid())
    while True:
        left = []
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"{entry.path}/stat", "rb") as f:
                    stat = f.read().decode(errors="replace")
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[1] == me and fields[3] == str(session):
                left.append(int(entry.name))
        running = []
        for pid in left:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    running.append(pid)
            except ChildProcessError:
                pass
        if not running or time.monotonic() > give_up:
            return
        time.sleep(0.01)


def kill(pid: int, sig: int) -> None:
    """Send `sig` to `pid`; a process already gone is no error."""
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def close_bots(bots: Iterable[BotProcess], grace: float) -> None:
    """Close several bots in parallel: stdin all at once, one grace period, then the signals."""
    todo = [b for b in bots if not b._closed]
    if HAS_PROC and todo:
        procs = scan()
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
        procs = scan()
        living = [b for b in todo if b._has_living(procs)]
        if not living:
            break
        for bot in living:
            bot._signal(sig, procs)
        if sig == signal.SIGTERM:
            wait(_TERM_WAIT, _none_living(living))
    for bot in todo:
        bot._finish_close()
    if not running_bots:
        _sweep_strays()
        _watchdog_stop()


def _none_living(bots: list[BotProcess]) -> Callable[[], bool]:
    def check() -> bool:
        procs = scan()
        return not any(b._has_living(procs) for b in bots)

    return check


def _sweep_strays() -> None:
    """Kill and reap escaped bot descendants that were reparented to us, once no bot runs."""
    if not HAS_PROC:
        return
    me = os.getpid()
    try:
        my_session = os.getsid(0)
    except OSError:
        return
    give_up = time.monotonic() + REAP_WAIT
    while True:
        # Bots run in sessions of their own, so a child of ours in another session that no
        # Popen owns can only be a bot's escaped descendant.
        strays = [
            p
            for p in scan()
            if p.ppid == me and p.session != my_session and p.pid not in unreaped_bots and p.pid != _watchdog.pid
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
                kill(p.pid, signal.SIGKILL)
            reap(p.pid)
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


def become_subreaper() -> bool:
    """Make this process the reaper of orphaned bot descendants (Linux only), once."""
    global _subreaper
    # Per process: the setting is not inherited across fork (a tournament worker must ask again).
    if _subreaper is None or _subreaper[0] != os.getpid():
        prctl = libc_prctl()
        _subreaper = (os.getpid(), prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    return _subreaper[1]


def not_dumpable() -> None:
    """Make the referee not dumpable (Linux): a bot of the same user can then neither trace it nor
    read its memory, environment or open pipes through /proc. Bots get the default back at exec."""
    prctl = libc_prctl()
    if prctl is not None:
        prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def death_signal() -> Callable[[], None] | None:
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


def watchdog_start() -> None:
    """Start the watchdog unless this process has one running."""
    if _watchdog.fd is not None and _watchdog.owner == os.getpid():
        return
    if not HAS_PROC or not hasattr(os, "fork"):
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
    # Members that moved to another group of the same session are reached through /proc (this
    # helper is no subreaper: escaped processes of a dead referee went to another reaper).
    for p in scan_all():
        if p.session in groups or p.pgrp in groups:
            kill(p.pid, signal.SIGKILL)


def watchdog_send(line: str) -> None:
    """Tell this process's watchdog of a bot group started (``+pid``) or closed (``-pid``)."""
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


def start_failure(exc: OSError, argv: Sequence[str], cwd: str | os.PathLike[str] | None, path: str) -> str:
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
