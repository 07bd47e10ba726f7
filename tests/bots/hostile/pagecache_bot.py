"""Attack: two bots of one match talk through the page cache of a shared read-only file (issue 38, item 1).

Usage: pagecache_bot.py send OUT FILE FIRST fadvise|pageout
       pagecache_bot.py recv OUT FILE FIRST PROBE[,PROBE...]

Every sandbox shows the same files under /usr, backed by the same pages in memory. The
sender (seat 0) spells its private peek (the face-down cards of its own grid it may see,
at its first request: 32 bits, and 8 bits of check) into the residency of pages of FILE,
one bit a region of `SPAN` pages from page FIRST on: the region's first page is read (made
resident) for a 1, and evicted for a 0, by posix_fadvise(POSIX_FADV_DONTNEED) of the
region (`fadvise`), or by madvise MADV_COLD then MADV_PAGEOUT of a mapping that touched the
page (`pageout`: what is paged out is what the caller maps). It spells it again at each of
its requests (a receiver's probe may start reading a page it tests), and reports what each
eviction call answered.

The receiver (seat 1) tests the first page of each region at each of its requests with
each PROBE of pagecache.py (mincore, cachestat, nowait, faults: the first two read
nothing, `nowait` may start reading the page it tests, `faults` reads it); a probe decodes
when the check byte matches. At goodbye it reports, per probe, every peek it decoded (and
in how many of its rounds, `hits`), or the errno name the probe failed with. Seat 0 moves
first: the sender has spelled its peek before the receiver's first probe.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import hostile
import pagecache
from channel_bot import peek

SPAN = 32
"""Pages a bit: the kernel keeps a file's pages in groups of up to 32 pages from one read (128 KiB of
readahead), each group aligned to its size; a region of its own per bit never shares one."""
BITS = 40


def encode(secret: str) -> list[int]:
    """The bits of `secret` (4 characters) and of its check byte, most significant first."""
    data = secret.encode("latin-1")
    word = int.from_bytes(data + bytes([check(data)]), "big")
    return [word >> (BITS - 1 - i) & 1 for i in range(BITS)]


def decode(bits: list[int]) -> str | None:
    """The 4 characters `bits` spell, or None when their check byte does not match (a page not set by a sender)."""
    word = 0
    for bit in bits:
        word = word << 1 | bit
    data = word.to_bytes(BITS // 8, "big")
    return data[:4].decode("latin-1") if check(data[:4]) == data[4] else None


def check(data: bytes) -> int:
    """A check byte that neither all-zero nor all-one pages pass."""
    return (sum(data) + 0x5A) & 0xFF


class Sender:
    def __init__(self, out: str, path: str, first: int, evict: str) -> None:
        self.out, self.first = out, first
        self.fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)  # a read loads its page only
        self.said: dict[str, Any] = {}
        by: dict[str, dict[str, Callable[[int], None]]] = {
            "fadvise": {"fadvise": lambda page: pagecache.fadvise(self.fd, page, SPAN)},
            "pageout": {"cold": lambda page: pagecache.madvise(self.fd, page, pagecache.MADV_COLD),
                        "pageout": lambda page: pagecache.madvise(self.fd, page, pagecache.MADV_PAGEOUT)},
        }  # fmt: skip
        self.evictions = by[evict]

    def at_request(self, request: dict[str, Any]) -> None:
        secret = self.said.setdefault("peek", peek(request))
        for i, bit in enumerate(encode(secret)):
            page = self.first + i * SPAN
            if bit:
                pagecache.load(self.fd, page)
                continue
            for name, evict in self.evictions.items():
                self.said[name] = pagecache.outcome(functools.partial(evict, page))
        self.said["requests"] = self.said.get("requests", 0) + 1
        hostile.report(self.out, self.said)

    def at_goodbye(self) -> None:
        hostile.report(self.out, self.said)


class Receiver:
    def __init__(self, out: str, path: str, first: int, probes: list[str]) -> None:
        self.out, self.first = out, first
        self.fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)
        self.probes = [p for p in pagecache.PROBES if p in probes]  # the ones that may read a page last
        self.seen: dict[str, Any] = {p: [] for p in self.probes}
        self.hits: dict[str, int] = {}  # rounds in which a probe decoded something
        self.rounds = 0

    def at_request(self, _: dict[str, Any]) -> None:
        self.rounds += 1
        for name in self.probes:
            if isinstance(self.seen[name], str):
                continue  # failed with an errno once: it fails every time
            try:
                bits = [int(pagecache.PROBES[name](self.fd, self.first + i * SPAN)) for i in range(BITS)]
            except OSError as e:
                self.seen[name] = hostile.error_name(e)
                continue
            decoded = decode(bits)
            if decoded is not None:
                self.hits[name] = self.hits.get(name, 0) + 1
                if decoded not in self.seen[name]:
                    self.seen[name].append(decoded)
        self.seen["hits"] = self.hits
        self.seen["rounds"] = self.rounds
        hostile.report(self.out, self.seen)

    def at_goodbye(self) -> None:
        hostile.report(self.out, self.seen)


def main() -> int:
    role, out, path, first, last = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    bot = Sender(out, path, first, last) if role == "send" else Receiver(out, path, first, last.split(","))
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            hostile.say({"type": "ready", "name": f"pagecache-{role}", "version": "1"})
        elif kind == "request":
            bot.at_request(message)
            hostile.say({"type": "answer", "id": message["id"], "action": message["legal"][0]})
        elif kind == "goodbye":
            break
    bot.at_goodbye()
    return 0


if __name__ == "__main__":
    sys.exit(main())
