"""The system-call filter of a sandboxed bot: no file locks, file watches or keys, so no channel through them.

Every sandbox shows the same system files (``/usr``, ``/etc``), read-only but the same
inodes, and a lock or a watch on one is seen by every process on the machine: a bot that
locks and unlocks ``/etc/passwd`` can spell out its private cards to another bot probing
the lock, whatever their users and namespaces. So inside the sandbox these calls fail
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

Anything else is allowed. The filter is built by libseccomp (through `pyseccomp`, its
ctypes binding), which checks the architecture first (a call through another ABI, such as
the 32-bit ``int 0x80`` on x86-64, kills the process: it could reach the same calls under
other numbers) and compares only the low 32 bits of ``fcntl``'s command, as the kernel
reads it. bubblewrap loads it with ``--seccomp FD``; without bubblewrap `loader` loads it
in the bot's child process before exec.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import tempfile
from collections.abc import Callable, Iterator

__all__ = ["filter_problem", "loader", "program"]

_LOCK_COMMANDS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}
_F_NOTIFY = 1026
_WATCH_CALLS = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init")
_KEY_CALLS = ("add_key", "request_key", "keyctl")
_LOW_32 = 0xFFFF_FFFF
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
        for call in (*_WATCH_CALLS, *_KEY_CALLS):
            rules.add_rule(sc.ERRNO(errno.ENOSYS), call)
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
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
