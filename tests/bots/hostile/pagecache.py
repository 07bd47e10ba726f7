"""Whether a page of a file is in memory, and how to change it: the primitives of the page-cache channel.

Usage: pagecache.py FILE OWN

Run as a program it tries every primitive (`BATTERY`) once, each on a page of FILE of its
own, and prints what each did as one JSON object (`battery`): "ok", "resident" or "absent"
for a probe, or the errno name a call failed with. OWN is a file it may write. The
caller makes the pages resident first and looks afterwards at which an eviction dropped
(tests/test_seccomp.py, inside the sandbox's system-call filter and outside it). The
hostile pair (pagecache_bot.py) spells cards with the same calls.

Each probe answers whether the page is resident without reading it from disk:

- ``nowait``    preadv2(RWF_NOWAIT) of one byte fails with EAGAIN when it is not;
- ``mincore``   mincore() of a mapping of it (the real state for a file one owns or may
                write; for any other file the kernel says "resident" for every page);
- ``cachestat`` cachestat() of its range (Linux 6.5; a file one owns or may write);
- ``faults``    touching it through a mapping (with readahead off) takes a major page
                fault (getrusage) when it was not: what no system-call filter can take away.

Each eviction drops a resident page no process maps: ``fadvise`` (POSIX_FADV_DONTNEED),
``pageout`` (madvise MADV_PAGEOUT of a mapping that touched it; a file one owns or may
write), ``cold`` (MADV_COLD: only ages it), and the same two through ``process_madvise``.
"""

from __future__ import annotations

import ctypes
import errno
import json
import mmap
import os
import resource
import sys
from collections.abc import Callable

PAGE = mmap.PAGESIZE
MADV_RANDOM, MADV_DONTNEED, MADV_WILLNEED, MADV_COLD, MADV_PAGEOUT = 1, 4, 3, 20, 21
_PROT_READ, _MAP_PRIVATE, _MAP_SHARED, _MAP_FAILED = 1, 2, 1, ctypes.c_void_p(-1).value
# The same number on x86-64 and arm64 (Linux 5.1 on numbers new calls alike); other calls go through libc.
_IO_URING_SETUP, _PROCESS_MADVISE, _CACHESTAT = 425, 440, 451
_IO_SETUP, _IO_DESTROY = (206, 207) if os.uname().machine == "x86_64" else (0, 1)  # else aarch64

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


class _Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _CacheStat(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _fail(what: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what}: {os.strerror(code)}")


class Mapping:
    """A read-only private mapping of `pages` pages of a file from page `page` on (a context manager)."""

    def __init__(self, fd: int, page: int, pages: int = 1) -> None:
        self.size = pages * PAGE
        address = _libc.mmap(None, self.size, _PROT_READ, _MAP_PRIVATE, fd, page * PAGE)
        if address in (None, _MAP_FAILED):
            raise _fail("mmap")
        self.address: int = address

    def advise(self, advice: int) -> None:
        """madvise() the whole mapping."""
        if _libc.madvise(self.address, self.size, advice) != 0:
            raise _fail("madvise")

    def touch(self) -> None:
        """Read its first byte (a page fault when it is not mapped yet)."""
        ctypes.string_at(self.address, 1)

    def __enter__(self) -> Mapping:
        return self

    def __exit__(self, *_: object) -> None:
        _libc.munmap(self.address, self.size)


# -- probes: True when the page is resident ---------------------------------------------


def nowait(fd: int, page: int) -> bool:
    """preadv2(RWF_NOWAIT) of one byte of the page."""
    try:
        os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
    except BlockingIOError:
        return False
    return True


def mincore(fd: int, page: int) -> bool:
    """mincore() of a mapping of the page (never touched, so it says what the page cache holds)."""
    with Mapping(fd, page) as area:
        vector = ctypes.create_string_buffer(1)
        if _libc.mincore(area.address, PAGE, vector) != 0:
            raise _fail("mincore")
        return bool(vector.raw[0] & 1)


def cachestat(fd: int, page: int) -> bool:
    """cachestat() of the page's range."""
    span, stat = _Range(page * PAGE, PAGE), _CacheStat()
    if _libc.syscall(_CACHESTAT, fd, ctypes.byref(span), ctypes.byref(stat), 0) != 0:
        raise _fail("cachestat")
    return stat.cache > 0


def faults(fd: int, page: int) -> bool:
    """Touch the page through a mapping without readahead: no major fault when it was resident."""
    with Mapping(fd, page) as area:
        area.advise(MADV_RANDOM)  # a fault reads the one page, not its neighbours
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        area.touch()
        return resource.getrusage(resource.RUSAGE_SELF).ru_majflt == before


PROBES: dict[str, Callable[[int, int], bool]] = {"mincore": mincore, "cachestat": cachestat, "nowait": nowait,
                                                 "faults": faults}  # fmt: skip
"""Every probe, in the order a receiver runs them: last the two that may load the page they test (`nowait`
starts reading it, `faults` reads it)."""


# -- making pages resident, and evicting them -------------------------------------------


def load(fd: int, page: int) -> None:
    """Make the page resident: a read of one byte (the caller's fd has POSIX_FADV_RANDOM: no readahead)."""
    os.pread(fd, 1, page * PAGE)


def fadvise(fd: int, page: int, pages: int = 1) -> None:
    """posix_fadvise(POSIX_FADV_DONTNEED) of the pages."""
    os.posix_fadvise(fd, page * PAGE, pages * PAGE, os.POSIX_FADV_DONTNEED)


def madvise(fd: int, page: int, advice: int) -> None:
    """madvise(advice) of a mapping of the page that touched it (MADV_PAGEOUT acts on pages one maps)."""
    with Mapping(fd, page) as area:
        area.touch()
        area.advise(advice)


def process_madvise(fd: int, page: int, advice: int) -> int:
    """process_madvise(advice) of a touched mapping of the page, through a pidfd of this process: the bytes advised."""
    pidfd = os.pidfd_open(os.getpid())
    try:
        with Mapping(fd, page) as area:
            area.touch()
            vector = _Iovec(area.address, PAGE)
            done = _libc.syscall(_PROCESS_MADVISE, pidfd, ctypes.byref(vector), 1, advice, 0)
            if done < 0:
                raise _fail("process_madvise")
            return int(done)
    finally:
        os.close(pidfd)


EVICTIONS: dict[str, Callable[[int, int], object]] = {
    "fadvise": fadvise,
    "pageout": lambda fd, page: madvise(fd, page, MADV_PAGEOUT),
    "cold": lambda fd, page: madvise(fd, page, MADV_COLD),
    "process pageout": lambda fd, page: process_madvise(fd, page, MADV_PAGEOUT),
    "process cold": lambda fd, page: process_madvise(fd, page, MADV_COLD),
}
"""Every way to drop (or age) a resident page, by name."""


# -- other ways in ----------------------------------------------------------------------


def io_uring() -> None:
    """Make an io_uring instance (and close it): its reads take RWF_NOWAIT where no filter sees it."""
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    fd = _libc.syscall(_IO_URING_SETUP, 1, params)
    if fd < 0:
        raise _fail("io_uring_setup")
    os.close(fd)


def aio() -> None:
    """Make a Linux AIO context (and destroy it): its reads take RWF_NOWAIT in their iocb."""
    context = ctypes.c_ulong(0)
    if _libc.syscall(_IO_SETUP, 1, ctypes.byref(context)) != 0:
        raise _fail("io_setup")
    _libc.syscall(_IO_DESTROY, context)


NOT_SUPPORTED = errno.errorcode[errno.EOPNOTSUPP]
"""What `outcome` says for EOPNOTSUPP: Python names 95 ENOTSUP, as the C library does."""


def outcome(call: Callable[[], object]) -> str:
    """'ok', 'resident' or 'absent' for a probe, or the errno name the call failed with."""
    try:
        result = call()
    except OSError as e:
        return errno.errorcode.get(e.errno or 0, type(e).__name__)
    if isinstance(result, bool):
        return "resident" if result else "absent"
    return "ok"


# -- the battery ------------------------------------------------------------------------

_PROBED = [(f"{name}{', absent' if absent else ''}", absent) for name in PROBES for absent in (False, True)]
_CALLS = [*EVICTIONS, "fadvise willneed", "madvise dontneed", "madvise willneed", "preadv2"]
BATTERY: dict[str, int] = {name: 8 * k for k, name in enumerate([name for name, _ in _PROBED] + _CALLS)}
"""The page of FILE each primitive works on (8 apart: a page each, however the kernel groups pages)."""
ABSENT = frozenset(BATTERY[name] for name, absent in _PROBED if absent)
"""The pages the caller leaves out of memory: a probe of each must say "absent"; every other page starts resident."""


def _direct_write(path: str, flags: int) -> None:
    """pwritev2() of a page at the start of `path` opened with O_DIRECT (buffered, ext4 takes no RWF_NOWAIT write)."""
    fd = os.open(path, os.O_RDWR | os.O_DIRECT)  # EINVAL where the file system has no O_DIRECT
    try:
        with mmap.mmap(-1, PAGE) as aligned:  # O_DIRECT wants an aligned buffer
            os.pwritev(fd, [aligned], 0, flags)
    finally:
        os.close(fd)


def battery(path: str, own: str) -> dict[str, str]:
    """Every primitive once, on its own page of `path`, and the calls that need no page (see the module docstring)."""
    fd = os.open(path, os.O_RDONLY)
    mine = os.open(own, os.O_RDWR)

    def on_page(name: str, call: Callable[[int, int], object]) -> Callable[[], object]:
        return lambda: call(fd, BATTERY[name])

    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        said = {name: outcome(on_page(name, PROBES[name.split(",")[0]])) for name, _ in _PROBED}
        said |= {name: outcome(on_page(name, evict)) for name, evict in EVICTIONS.items()}
        willneed = on_page("fadvise willneed", lambda f, p: os.posix_fadvise(f, p * PAGE, PAGE, os.POSIX_FADV_WILLNEED))
        said["fadvise willneed"] = outcome(willneed)
        said["madvise dontneed"] = outcome(on_page("madvise dontneed", lambda f, p: madvise(f, p, MADV_DONTNEED)))
        said["madvise willneed"] = outcome(on_page("madvise willneed", lambda f, p: madvise(f, p, MADV_WILLNEED)))
        said["preadv2"] = outcome(on_page("preadv2", lambda f, p: os.preadv(f, [bytearray(1)], p * PAGE, 0)))
        said["pwritev2 nowait"] = outcome(lambda: _direct_write(own, os.RWF_NOWAIT))
        said["pwritev2 dsync"] = outcome(lambda: os.pwritev(mine, [b"x"], 0, os.RWF_DSYNC))
        said["io_uring"] = outcome(io_uring)
        said["aio"] = outcome(aio)
        return said
    finally:
        os.close(fd)
        os.close(mine)


def main() -> int:
    print(json.dumps(battery(sys.argv[1], sys.argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
