"""The two ends of the page-cache channel that stays in the sandbox, for bench/pagecache.py.

Usage: residency_bot.py FILE, then one command a line on stdin, one answer a line on stdout:

  spell PAGE BITS    read page PAGE + i * SPAN of FILE for each '1' of BITS (making it resident);
                     answers "ok"
  time PAGE N        time a one-byte read of each of the N pages from PAGE on; the first
                     `PREAMBLE` carry the known `PREAMBLE_BITS`, which set the threshold
                     between a page in memory and one read from disk; answers the N bits
  faults PAGE N      touch each page through a mapping without readahead and answer '0'
                     for a major page fault (it was not in memory), else '1': N bits

Both ends read with POSIX_FADV_RANDOM (MADV_RANDOM for a mapping): a read loads its own
page only, so each page carries its own bit. Standard library only: it runs on the
system's python3 in golfref's sandbox, which shows it this folder and /usr.
"""

from __future__ import annotations

import mmap
import os
import resource
import statistics
import sys
import time

SPAN = 2
"""Pages a bit: the bit's page and a gap, so no read of one page touches the next bit's."""
PREAMBLE_BITS = "1010101010101010"
"""The first bits of every block, known to both ends: what a resident page and an absent one take to read."""
PREAMBLE = len(PREAMBLE_BITS)


def spell(fd: int, first: int, bits: str) -> None:
    """Make resident the page of each '1'."""
    for i, bit in enumerate(bits):
        if bit == "1":
            os.pread(fd, 1, (first + i * SPAN) * mmap.PAGESIZE)


def timed(fd: int, first: int, n: int) -> str:
    """The bits the time of a read of each page says, the threshold set by the preamble."""
    took = []
    for i in range(n):
        at = (first + i * SPAN) * mmap.PAGESIZE
        start = time.perf_counter_ns()
        os.pread(fd, 1, at)
        took.append(time.perf_counter_ns() - start)
    fast = statistics.median(t for t, b in zip(took[:PREAMBLE], PREAMBLE_BITS, strict=True) if b == "1")
    slow = statistics.median(t for t, b in zip(took[:PREAMBLE], PREAMBLE_BITS, strict=True) if b == "0")
    threshold = (fast * slow) ** 0.5  # the geometric mean: the two lie orders of magnitude apart
    return "".join("1" if t < threshold else "0" for t in took)


def faulted(fd: int, first: int, n: int) -> str:
    """The bits each page's major fault (or none) says."""
    bits = []
    for i in range(n):
        with mmap.mmap(fd, mmap.PAGESIZE, prot=mmap.PROT_READ, offset=(first + i * SPAN) * mmap.PAGESIZE) as page:
            page.madvise(mmap.MADV_RANDOM)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
            page[0]  # noqa: B018 - the touch is the probe
            bits.append("1" if resource.getrusage(resource.RUSAGE_SELF).ru_majflt == before else "0")
    return "".join(bits)


def main() -> int:
    fd = os.open(sys.argv[1], os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for line in sys.stdin:
        command, page, arg = line.split()
        if command == "spell":
            spell(fd, int(page), arg)
            answer = "ok"
        elif command == "time":
            answer = timed(fd, int(page), int(arg))
        else:
            answer = faulted(fd, int(page), int(arg))
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
