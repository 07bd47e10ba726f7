"""Issue 38, item 1: no channel between two sandboxed bots through the page cache, but what no filter closes.

The sender (seat 0, tests/bots/hostile/pagecache_bot.py) spells its private peek into which
pages of a large file under /usr are in memory, reading a page for a 1 and evicting it for a
0 (posix_fadvise DONTNEED, or madvise COLD and PAGEOUT); the receiver (seat 1) tests the
pages without reading them (preadv2 with RWF_NOWAIT, mincore, cachestat). Without the
sandbox that carries the peek, as asserted here; with it every probe fails and no eviction
happens (the system-call filter, golfref/bots/seccomp.py), so nothing gets through.

What stays is asserted too, so that docs/SANDBOX.md's account of it stays true: a bot that
touches a page through a mapping sees, in its own count of major page faults, whether the
page was in memory; a sender that can only read pages still spells a peek into cold ones.
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import pagecache as pagecache_bench
from golfref.bots import seccomp

from .test_sandbox_attacks import Match, bot, play

pagecache = importlib.import_module("pagecache")  # tests/bots/hostile: test_sandbox_attacks puts it on sys.path
pagecache_bot = importlib.import_module("pagecache_bot")

SENDER, RECEIVER = 0, 1
NO_FILTER = seccomp.filter_problem()
PROBES = ("mincore", "cachestat", "nowait")  # the ones the filter closes

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def shared_file() -> tuple[str, int]:
    """A large file under /usr every sandbox shows and no process maps, and its number of pages (the bench's)."""
    found = pagecache_bench.shared_file()
    if found is None:
        pytest.skip(f"no file of {pagecache_bench.SMALLEST >> 20} MiB under /usr that no process maps")
    return found


@pytest.fixture
def first(shared_file: tuple[str, int]) -> Iterator[int]:
    """Where this match's pages start: a place of its own in the file (other tests may spell into it at once),
    every page of it out of memory; taken out again afterwards."""
    if os.geteuid() != 0:
        pytest.skip("needs root: mincore and cachestat tell a file's pages only to its owner or a writer (root)")
    path, pages = shared_file
    span = pagecache_bot.BITS * pagecache_bot.SPAN
    start = random.randrange(0, (pages - span) // pagecache_bot.SPAN) * pagecache_bot.SPAN
    fd = os.open(path, os.O_RDONLY)
    try:
        pagecache.fadvise(fd, start, span)
        if any(pagecache.mincore(fd, start + i * pagecache_bot.SPAN) for i in range(pagecache_bot.BITS)):
            pytest.skip(f"this host keeps pages of {path} that posix_fadvise(POSIX_FADV_DONTNEED) should drop")
        yield start
        pagecache.fadvise(fd, start, span)
    finally:
        os.close(fd)


def reports(match: Match) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the sender said it did, and what the receiver saw."""
    sent, seen = match.report(SENDER), match.report(RECEIVER)
    assert sent is not None and seen is not None, match.log["players"]
    assert match.log["status"] == "finished" and match.log["faults"] == [], match.log["faults"]
    assert len(sent["peek"]) == 4 and seen["rounds"] > 1, (sent, seen)
    return sent, seen


def _pair(tmp_path: Path, sandbox: bool, file: str, first: int, evict: str, probes: str) -> Match:
    sender = bot("pagecache_bot.py", "send", tmp_path / "sent.json", file, first, evict)
    receiver = bot("pagecache_bot.py", "recv", tmp_path / "seen.json", file, first, probes)
    return play(tmp_path, sandbox, sender, receiver)


@pytest.mark.parametrize("evict", ["fadvise", "pageout"])
def test_two_bots_have_no_channel_through_the_page_cache(
    tmp_path: Path, sandbox: bool, shared_file: tuple[str, int], first: int, evict: str
) -> None:
    if sandbox and NO_FILTER is not None:
        pytest.skip(f"no system-call filter: {NO_FILTER}")
    sent, seen = reports(_pair(tmp_path, sandbox, shared_file[0], first, evict, ",".join(PROBES)))
    evictions = ("fadvise",) if evict == "fadvise" else ("cold", "pageout")
    if sandbox:
        assert seen["mincore"] == seen["cachestat"] == "ENOSYS" and seen["nowait"] == pagecache.NOT_SUPPORTED, seen
        # posix_fadvise succeeds and does nothing; madvise says it does not know the advice.
        assert [sent[e] for e in evictions] == (["ok"] if evict == "fadvise" else ["EINVAL", "EINVAL"]), sent
        return
    assert all(sent[e] == "ok" for e in evictions), sent
    # Both bots run as this test's user, root: mincore and cachestat say what the page cache holds.
    assert sent["peek"] in seen["mincore"], (sent, seen)
    if seen["cachestat"] != "ENOSYS":  # a kernel before 6.5 has none
        assert sent["peek"] in seen["cachestat"], (sent, seen)
    # preadv2(RWF_NOWAIT) starts reading the page it fails on, and on a fast disk may find it there when it
    # looks: it decodes the peek or nothing, never another.
    assert isinstance(seen["nowait"], list) and set(seen["nowait"]) <= {sent["peek"]}, (sent, seen)
    assert all(set(seen[p]) <= {sent["peek"]} for p in ("mincore", "cachestat") if isinstance(seen[p], list)), seen


def test_what_stays_a_page_fault_tells_a_page_the_sender_read(
    tmp_path: Path, sandbox: bool, shared_file: tuple[str, int], first: int
) -> None:
    """With eviction gone a sender can only read pages, each a bit it cannot take back one by one; a
    receiver that touches the pages through a mapping still tells them apart by its own count of major
    faults (docs/SANDBOX.md, "What it does not promise"). The pages start out of memory (`first`)."""
    if sandbox and NO_FILTER is not None:
        pytest.skip(f"no system-call filter: {NO_FILTER}")
    sent, seen = reports(_pair(tmp_path, sandbox, shared_file[0], first, "fadvise", "faults"))
    assert sent["fadvise"] == "ok", sent  # in the sandbox: a success that dropped nothing
    assert seen["faults"] == [sent["peek"]], (sent, seen)
