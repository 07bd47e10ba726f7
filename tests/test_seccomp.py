"""The sandbox's system-call filter (golfref/bots/seccomp.py), loaded into a forked child of this test.

What it denies fails with the errno docs/SANDBOX.md names, and the process lives on; what it
allows works. The attack it stops, two bots talking through locks, is in test_sandbox_channels.py.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import sqlite3
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from golfref.bots import seccomp

pytestmark = pytest.mark.skipif(seccomp.filter_problem() is not None, reason=f"{seccomp.filter_problem()}")

_libc = ctypes.CDLL(None, use_errno=True)
_LOCK = struct.pack("hhqqi", fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0) + b"\0" * 4  # struct flock


def _outcome(call: Callable[[], object]) -> str:
    """'ok', or the errno name the call failed with."""
    try:
        result = call()
    except OSError as e:
        return errno.errorcode.get(e.errno or 0, str(e))
    except sqlite3.Error as e:
        return f"sqlite: {e}"
    if isinstance(result, int) and result < 0:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    return "ok"


def _filtered(checks: dict[str, Callable[[], object]]) -> dict[str, Any]:
    """Each check's outcome in a child that loaded the filter (and whether the child lived to say so)."""
    load = seccomp.loader()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            load()
            os.write(write_end, json.dumps({k: _outcome(c) for k, c in checks.items()}).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        said = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return dict(json.loads(said))


@pytest.mark.process
def test_locks_and_watches_fail_with_an_errno_and_the_process_lives_on(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.write_text("x")
    fd = os.open("/etc/passwd", os.O_RDONLY)
    mine = os.open(own, os.O_RDWR)
    try:
        said = _filtered({
            "flock": lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
            "flock own file": lambda: fcntl.flock(mine, fcntl.LOCK_EX),
            "lockf": lambda: fcntl.lockf(mine, fcntl.LOCK_EX | fcntl.LOCK_NB),
            "F_GETLK": lambda: fcntl.fcntl(fd, fcntl.F_GETLK, _LOCK),
            "F_SETLKW": lambda: fcntl.fcntl(fd, fcntl.F_SETLKW, _LOCK),
            "F_OFD_SETLK": lambda: fcntl.fcntl(fd, 37, _LOCK),
            "F_OFD_GETLK": lambda: fcntl.fcntl(fd, 36, _LOCK),
            # The kernel reads fcntl's command as 32 bits: high bits set must not slip past the filter.
            "F_SETLK, high bits": lambda: _libc.syscall(72 if os.uname().machine == "x86_64" else 25, fd,
                                                       ctypes.c_ulong((1 << 32) | fcntl.F_SETLK), _LOCK),
            "F_NOTIFY": lambda: fcntl.fcntl(os.open("/etc", os.O_RDONLY), fcntl.F_NOTIFY, fcntl.DN_ACCESS),
            "inotify_init1": lambda: _libc.inotify_init1(0),
            "keyctl": lambda: _libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, -3, 0),
            "F_GETFL": lambda: fcntl.fcntl(fd, fcntl.F_GETFL),
            "F_SETFD": lambda: fcntl.fcntl(mine, fcntl.F_SETFD, fcntl.FD_CLOEXEC),
            "read": lambda: os.pread(fd, 1, 0),
            "sqlite": lambda: sqlite3.connect(tmp_path / "a.db").execute("create table t (x)"),
            "sqlite nolock": lambda: sqlite3.connect(f"file:{tmp_path / 'b.db'}?nolock=1", uri=True).execute(
                "create table t (x)"),
        })  # fmt: skip
    finally:
        os.close(fd)
        os.close(mine)
    for call in ("flock", "flock own file", "lockf", "F_GETLK", "F_SETLKW", "F_OFD_SETLK", "F_OFD_GETLK",
                 "F_SETLK, high bits"):  # fmt: skip
        assert said[call] == "ENOLCK", (call, said)
    assert said["F_NOTIFY"] == "EINVAL" and said["inotify_init1"] == "ENOSYS" and said["keyctl"] == "ENOSYS"
    assert said["F_GETFL"] == said["F_SETFD"] == said["read"] == "ok"
    assert said["sqlite"].startswith("sqlite: ")  # an error it reports, not a death
    assert said["sqlite nolock"] == "ok"


def test_the_program_checks_the_architecture_first() -> None:
    """Its first instruction loads seccomp_data.arch (offset 4): a call through another ABI cannot
    reach the rules under its own numbers."""
    code = seccomp.program()
    assert len(code) % 8 == 0
    op, _, _, k = struct.unpack("HBBI", code[:8])
    assert (op, k) == (0x20, 4)  # BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)


@pytest.mark.process  # find_library runs ldconfig in a child process
def test_pyseccomp_finds_its_libraries_by_soname_as_the_ordinary_lookup_does() -> None:
    # seccomp._sonames_first spares pyseccomp's import two runs of ldconfig: the libraries it then
    # loads must be the ones the ordinary lookup names, and the ordinary lookup comes back after.
    import ctypes.util

    original = ctypes.util.find_library
    with seccomp._sonames_first():
        assert ctypes.util.find_library is not original
        for name, soname in seccomp._SONAMES.items():
            assert ctypes.util.find_library(name) == soname == original(name)
        assert ctypes.util.find_library("no-such-library-xyz") is None
    assert ctypes.util.find_library is original
    assert isinstance(seccomp.program(), bytes) and len(seccomp.program()) % 8 == 0
