"""The system-call filter of a sandboxed bot: no file locks, watches or keys, and no page-cache probes.

Every sandbox shows the same system files (``/usr``, ``/etc``), read-only but the same
inodes, and a lock or a watch on one is seen by every process on the machine: a bot that
locks and unlocks ``/etc/passwd`` can spell out its private cards to another bot probing
the lock, whatever their users and namespaces. The same files are backed by the same pages
in memory (the page cache): a bot that reads a page of a shared file, or evicts it, spells
a bit that another can test without reading. So inside the sandbox these calls fail
with an errno (never a kill: a program that locks its own files, as SQLite does, gets an
error it can handle):

- ``flock()``, and ``fcntl()`` with ``F_GETLK``, ``F_SETLK``, ``F_SETLKW`` and the
  open-file-description locks ``F_OFD_GETLK``, ``F_OFD_SETLK``, ``F_OFD_SETLKW``:
  ``ENOLCK`` ("no locks available", what a file system without locks answers);
- ``inotify_init()``, ``inotify_init1()``, ``inotify_add_watch()`` and ``fanotify_init()``:
  ``ENOSYS``, as on a kernel without them (watchers then poll); ``fcntl(F_NOTIFY)``:
  ``EINVAL``, as on a kernel without dnotify;
- the kernel's key store, ``add_key()``, ``request_key()`` and ``keyctl()``: ``ENOSYS``.
  Every bot inherits the referee's session keyring (a login through pam_keyinit, a
  systemd service), which each may write and search whatever its user.
- what tells whether a page of a file is in memory without reading it: ``mincore()`` and
  ``cachestat()`` fail with ``ENOSYS``; so do the io_uring calls (``io_uring_setup()``,
  ``io_uring_enter()``, ``io_uring_register()``) and Linux AIO (``io_setup()``,
  ``io_submit()``, ``io_getevents()``, ``io_pgetevents()``, ``io_cancel()``,
  ``io_destroy()``), whose reads carry their flags (``RWF_NOWAIT``) in memory the filter
  cannot see: as on a kernel built without them, and programs that use them fall back to
  ordinary reads (libuv, which node runs on, does). ``preadv2()`` and ``pwritev2()`` with
  ``RWF_NOWAIT`` among their flags (the sixth argument on x86-64 and arm64; the bit is
  masked, so their other flags work) fail with ``EOPNOTSUPP``, what a file system without
  non-blocking reads answers, which their callers already handle by reading without it.
- what evicts a page of a file another process may use: ``posix_fadvise()``
  (``fadvise64``) with ``POSIX_FADV_DONTNEED`` succeeds and does nothing. It is an old,
  universal hint (``dd``'s ``nocache``, databases on their own files), which programs call
  without expecting a failure, and the kernel itself already keeps, without a word, the
  pages it cannot drop (mapped ones; dirty ones, whose writing it starts); the filter's
  ``ERRNO`` action with errno 0 returns 0 and skips the call. ``madvise()`` and
  ``process_madvise()`` with ``MADV_COLD`` or ``MADV_PAGEOUT`` fail with ``EINVAL``, what
  kernels before 5.4, which did not know these two, answer: every program that uses them
  must already handle it. (Success would be a lie for ``process_madvise()``, whose answer
  counts the bytes it advised.)

Anything else is allowed. What stays of the page cache as a channel, because no system
call says it: a bot can still make a page of a shared file resident (a read, ``readahead()``,
``POSIX_FADV_WILLNEED``, ``MADV_WILLNEED``, ``MADV_POPULATE_READ``: the same as a read), but
no longer evict the one it chooses (``MADV_DONTNEED`` on a file mapping drops its own
mapping, not the page). The kernel still evicts under memory pressure, which a bot with a
control group of its own makes by filling its memory limit: that drops the pages charged
to it, those it brought in, all together. So a page carries one bit until the sender
wipes all of its pages at once, or the kernel reclaims them. Another bot can still tell a
resident page from one that is not: by the time a read takes, and without timing, through
its own page faults: touching a page of a mapping makes a major fault (``getrusage()``,
``/proc/self/stat``) only when it was not in memory, and a fault maps the resident pages
around it ("fault-around"), which ``/proc/self/pagemap``, ``smaps`` and ``statm`` show.
Those are what every program reads about itself; no filter can take them away.
docs/SANDBOX.md measures both (bench/pagecache.py).

The filter is built by libseccomp (through `pyseccomp`, its ctypes binding), which checks
the architecture first (a call through another ABI, such as the 32-bit ``int 0x80`` or x32
on x86-64, kills the process: it could reach the same calls under other numbers) and
compares only the low 32 bits of an ``int`` argument (``fcntl``'s command, an advice), as
the kernel reads it. A call newer than the libseccomp at hand knows by name (``cachestat``,
Linux 6.5) is given by its number, on x86-64 and arm64. bubblewrap loads it with
``--seccomp FD``; without bubblewrap `loader` loads it in the bot's child process before
exec.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["filter_problem", "loader", "program"]

_LOCK_COMMANDS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}
_F_NOTIFY = 1026
_WATCH_CALLS = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init")
_KEY_CALLS = ("add_key", "request_key", "keyctl")
_RESIDENCY_CALLS = ("mincore", "cachestat")
_ASYNC_IO_CALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register",
                   "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents")  # fmt: skip
_NOWAIT_CALLS = ("preadv2", "pwritev2")
_RW_FLAGS_ARG = 5  # preadv2(fd, iov, iovcnt, pos_l, pos_h, flags) on x86-64 and arm64
_FADVICE_ARG = 3  # fadvise64(fd, offset, len, advice) on x86-64 and arm64
# The advice: madvise(addr, len, advice), process_madvise(pidfd, iov, iovcnt, advice, flags).
_MADVICE_ARG = {"madvise": 2, "process_madvise": 3}
_MADV_COLD, _MADV_PAGEOUT = 20, 21  # include/uapi/asm-generic/mman-common.h (Python's mmap module lacks them)
# Calls newer than some libseccomp releases know by name, by their numbers on the two architectures golfref's
# constants above hold for: since Linux 5.1 (io_uring's 425 on) x86-64 and arm64 number new calls alike.
_NEW_CALLS = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "process_madvise": 440,
              "cachestat": 451}  # fmt: skip
_LOW_32 = 0xFFFF_FFFF
_UNKNOWN = -1  # __NR_SCMP_ERROR: what libseccomp resolves a name it does not know to
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


class _Program(ctypes.Structure):
    """struct sock_fprog: the filter's length in instructions and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


# The sonames pyseccomp asks ctypes.util.find_library for when it is imported, as the dynamic
# loader knows them on Linux.
_SONAMES = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}


@contextlib.contextmanager
def _sonames_first() -> Iterator[None]:
    """ctypes.util.find_library answering a library of `_SONAMES` by its soname when the dynamic loader opens it.

    pyseccomp looks up libc and libseccomp with find_library when it is imported, which on
    Linux runs ``ldconfig -p`` (and, failing that, the C compiler) for each: 26 ms of every
    sandboxed run's start, for the answer the loader gives at once. A name it cannot open is
    asked the ordinary way.
    """
    original = ctypes.util.find_library

    def find_library(name: str) -> str | None:
        soname = _SONAMES.get(name)
        if soname is not None:
            try:
                ctypes.CDLL(soname)
            except OSError:
                pass
            else:
                return soname
        return original(name)

    ctypes.util.find_library = find_library
    try:
        yield
    finally:
        ctypes.util.find_library = original


class _UnknownCall(Exception):
    """A system call neither the libseccomp at hand nor `_NEW_CALLS` numbers on this architecture."""


def _number(sc: Any, name: str) -> int:
    """The native number of the call `name` (negative, which libseccomp skips, where the architecture has none)."""
    number = int(sc.resolve_syscall(sc.Arch.NATIVE, name))
    if number != _UNKNOWN:
        return number
    if name in _NEW_CALLS and sc.system_arch() in (sc.Arch.X86_64, sc.Arch.AARCH64):
        return _NEW_CALLS[name]
    raise _UnknownCall(name)


@functools.cache
def _build() -> bytes | str:
    """The filter as BPF bytes, or why it cannot be built here (one line)."""
    try:
        with _sonames_first():
            import pyseccomp as sc  # type: ignore[import-untyped]
    except (ImportError, RuntimeError, OSError) as e:
        return f"libseccomp cannot be loaded ({e}; Debian and Ubuntu: apt-get install libseccomp2)"
    try:
        rules = sc.SyscallFilter(sc.ALLOW)
        rules.add_rule(sc.ERRNO(errno.ENOLCK), "flock")
        for command in _LOCK_COMMANDS.values():
            rules.add_rule(sc.ERRNO(errno.ENOLCK), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, command))
        rules.add_rule(sc.ERRNO(errno.EINVAL), "fcntl", sc.Arg(1, sc.MASKED_EQ, _LOW_32, _F_NOTIFY))
        for call in (*_WATCH_CALLS, *_KEY_CALLS, *_RESIDENCY_CALLS, *_ASYNC_IO_CALLS):
            rules.add_rule(sc.ERRNO(errno.ENOSYS), _number(sc, call))
        for call in _NOWAIT_CALLS:
            nowait = sc.Arg(_RW_FLAGS_ARG, sc.MASKED_EQ, os.RWF_NOWAIT, os.RWF_NOWAIT)
            rules.add_rule(sc.ERRNO(errno.EOPNOTSUPP), _number(sc, call), nowait)
        dontneed = sc.Arg(_FADVICE_ARG, sc.MASKED_EQ, _LOW_32, os.POSIX_FADV_DONTNEED)
        rules.add_rule(sc.ERRNO(0), _number(sc, "fadvise64"), dontneed)  # errno 0: the call returns 0, undone
        for call, arg in _MADVICE_ARG.items():
            for advice in (_MADV_COLD, _MADV_PAGEOUT):
                rules.add_rule(sc.ERRNO(errno.EINVAL), _number(sc, call), sc.Arg(arg, sc.MASKED_EQ, _LOW_32, advice))
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except _UnknownCall as e:
        return f"libseccomp does not know the system call {e} on this architecture (a newer libseccomp2 does)"
    except OSError as e:
        return f"libseccomp cannot build the filter: {e}"


def filter_problem() -> str | None:
    """Why the filter cannot be applied here (one line), or None when it can."""
    built = _build()
    return built if isinstance(built, str) else None


def program() -> bytes:
    """The filter as a BPF program (what bubblewrap's ``--seccomp FD`` reads); only when `filter_problem` is None."""
    built = _build()
    if isinstance(built, str):
        raise RuntimeError(built)
    return built


def loader() -> Callable[[], None]:
    """A function that loads the filter into the process that calls it (a bot's child, before exec),
    after setting no-new-privileges; built here, so the child only makes the two calls. It raises
    OSError if the kernel refuses."""
    code = program()
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Program(len(code) // 8, ctypes.addressof(buffer))
    kept = (buffer, fprog)  # the closure holds them: the kernel reads both at the call

    def load() -> None:
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(kept[1]), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")

    return load
