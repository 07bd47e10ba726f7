"""The sandbox's system-call filter (golfref/bots/seccomp.py), loaded into a forked child of this test
(as `loader` does without bubblewrap) or by bubblewrap (``--seccomp FD``).

What it denies fails with the errno docs/SANDBOX.md names, and the process lives on; what it
allows works. The attacks it stops, two bots talking through locks and through the page cache,
are in test_sandbox_channels.py and test_sandbox_pagecache.py.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from golfref.bots import seccomp
from golfref.bots.sandbox import bubblewrap_problem

from .conftest import BOTS

HOSTILE = BOTS / "hostile"
sys.path.insert(0, str(HOSTILE))
import pagecache  # noqa: E402 - tests/bots/hostile/pagecache.py: the primitives the hostile pair uses

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


def test_a_call_libseccomp_does_not_know_goes_by_its_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """An older libseccomp (Debian 12's may be) knows no cachestat by name: the filter is the same by its number."""
    import pyseccomp  # type: ignore[import-untyped]

    known = pyseccomp.resolve_syscall
    gone = seccomp._UNKNOWN  # what libseccomp resolves a name it does not know to
    monkeypatch.setattr(pyseccomp, "resolve_syscall", lambda a, call: gone if call == "cachestat" else known(a, call))
    if pyseccomp.system_arch() not in (pyseccomp.Arch.X86_64, pyseccomp.Arch.AARCH64):
        pytest.skip("the numbers golfref knows are x86-64's and arm64's")
    assert seccomp._build.__wrapped__() == seccomp.program()
    # Elsewhere the number is not golfref's to guess: no filter, and the log's `missing` says why.
    monkeypatch.setattr(pyseccomp, "system_arch", lambda: pyseccomp.Arch.PPC64LE)
    said = seccomp._build.__wrapped__()
    assert said == "libseccomp does not know the system call cachestat on this architecture (a newer libseccomp2 does)"


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


# -- the page cache ---------------------------------------------------------------------

EVICTING = ("fadvise", "pageout", "process pageout")  # what drops a page no process maps, outside the filter
AGING = ("cold", "process cold")  # MADV_COLD moves a page towards eviction and keeps it


@pytest.fixture
def pages(tmp_path: Path) -> tuple[Path, Path]:
    """A file on disk, written through to it, with a page for each primitive of the battery; and a file to write."""
    path, own = tmp_path / "shared", tmp_path / "own"
    size = (max(pagecache.BATTERY.values()) + 8) * pagecache.PAGE
    for file, data in ((path, os.urandom(size)), (own, b"\0" * pagecache.PAGE)):
        with open(file, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # a clean page: only a clean page can be dropped
    return path, own


def _prepare(path: Path) -> None:
    """Every page of the battery resident, one page at a time, but those it probes as absent."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead: a read loads its page only
        pagecache.fadvise(fd, 0, os.fstat(fd).st_size // pagecache.PAGE)
        for page in pagecache.BATTERY.values():
            if page not in pagecache.ABSENT:
                pagecache.load(fd, page)
        if any(pagecache.mincore(fd, page) for page in pagecache.ABSENT):
            pytest.skip(f"the kernel keeps pages of {path} that posix_fadvise(POSIX_FADV_DONTNEED) drops elsewhere")
    finally:
        os.close(fd)


def _resident(path: Path) -> dict[str, bool]:
    """Which pages of the battery are in memory now (mincore: this test owns the file, so it says the truth)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return {name: pagecache.mincore(fd, page) for name, page in pagecache.BATTERY.items()}
    finally:
        os.close(fd)


def _in_child(load: Callable[[], None] | None, path: Path, own: Path) -> dict[str, str]:
    """The battery in a forked child of this test, after `load` (the filter's loader) when given."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            if load is not None:
                load()
            os.write(write_end, json.dumps(pagecache.battery(str(path), str(own))).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        said = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return dict(json.loads(said))


def _in_bubblewrap(path: Path, own: Path) -> dict[str, str]:
    """The battery as a program in bubblewrap, which loads the filter (``--seccomp FD``) as it does for a bot."""
    problem = bubblewrap_problem()
    if problem is not None:
        pytest.skip(problem)
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    program = seccomp.program()
    read_end, write_end = os.pipe()
    os.write(write_end, program)  # a filter is a few hundred bytes: the pipe holds it whole
    os.close(write_end)
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--bind", str(path.parent), str(path.parent), "--proc", "/proc",
             "--dev", "/dev", "--unshare-pid", "--die-with-parent", "--seccomp", str(read_end),
             sys.executable, "-B", str(HOSTILE / "pagecache.py"), str(path), str(own)],
            capture_output=True, text=True, pass_fds=(read_end,), timeout=120,
        )  # fmt: skip
    finally:
        os.close(read_end)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.process
def test_each_page_cache_primitive_works_outside_the_filter(pages: tuple[Path, Path]) -> None:
    path, own = pages
    _prepare(path)
    said = _in_child(None, path, own)
    after = _resident(path)
    for probe in ("mincore", "faults", "cachestat"):
        if probe == "cachestat" and said[probe] == "ENOSYS":
            continue  # a kernel before 6.5 has no cachestat
        assert said[probe] == "resident" and said[f"{probe}, absent"] == "absent", (probe, said)
    # A read that fails where a page is absent starts reading it: on a fast disk the page may be there
    # before the call looks, so only its answer for a resident page is sure.
    assert said["nowait"] == "resident" and said["nowait, absent"] in ("absent", "resident"), said
    for name in (*EVICTING, *AGING):
        assert said[name] == "ok", (name, said)
    assert not any(after[name] for name in EVICTING), after
    assert all(after[name] for name in AGING), after
    assert said["pwritev2 nowait"] in ("ok", "EAGAIN", "EINVAL"), said  # EINVAL: no O_DIRECT on this file system
    for name in ("fadvise willneed", "madvise dontneed", "madvise willneed", "preadv2", "pwritev2 dsync", "aio"):
        assert said[name] == "ok", (name, said)
    assert said["io_uring"] in ("ok", "EPERM"), said  # EPERM: kernel.io_uring_disabled


@pytest.mark.process
@pytest.mark.parametrize("loaded_by", ["loader", "bubblewrap"])
def test_inside_the_filter_page_cache_probes_fail_and_nothing_is_evicted(
    pages: tuple[Path, Path], loaded_by: str
) -> None:
    path, own = pages
    _prepare(path)
    said = _in_child(seccomp.loader(), path, own) if loaded_by == "loader" else _in_bubblewrap(path, own)
    after = _resident(path)
    assert said["nowait"] == said["nowait, absent"] == pagecache.NOT_SUPPORTED, said
    for probe in ("mincore", "cachestat"):
        assert said[probe] == said[f"{probe}, absent"] == "ENOSYS", (probe, said)
    assert said["io_uring"] == said["aio"] == "ENOSYS", said
    assert said["fadvise"] == "ok" and after["fadvise"], (said, after)  # success, and nothing done
    for name in ("pageout", "cold", "process pageout", "process cold"):
        assert said[name] == "EINVAL" and after[name], (name, said, after)
    if said["pwritev2 nowait"] != "EINVAL":  # EINVAL: this file system has no O_DIRECT to try it with
        assert said["pwritev2 nowait"] == pagecache.NOT_SUPPORTED, said
    for name in ("fadvise willneed", "madvise dontneed", "madvise willneed", "preadv2", "pwritev2 dsync"):
        assert said[name] == "ok", (name, said)
    # What stays (docs/SANDBOX.md): a fault on a page tells whether it was resident, and no filter can stop it.
    assert said["faults"] == "resident" and said["faults, absent"] == "absent", said


@pytest.mark.process
def test_a_denied_call_through_the_x32_numbers_kills_the_process() -> None:
    """x32 calls come through the x86-64 architecture with bit 30 of their number set: the filter's
    architecture check kills them, so cachestat cannot slip past under 0x40000000 | 451."""
    if os.uname().machine != "x86_64":
        pytest.skip("x32 is an x86-64 interface")
    load = seccomp.loader()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            load()
            ctypes.CDLL(None, use_errno=True).syscall(0x4000_0000 | 451, 0, 0, 0, 0)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS, status
