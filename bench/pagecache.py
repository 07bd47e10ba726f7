"""What stays of the page-cache channel between two sandboxed bots: bits a second and errors (docs/SANDBOX.md).

The system-call filter (golfref/bots/seccomp.py) takes away every call that evicts a page of a
shared file or says whether one is in memory. What stays: a sender can still read pages, making
them resident (each carries one bit: it can no longer evict the page it chooses), and a receiver
can still tell a resident page from one that is not, (a) by the time a read of it takes, (b)
without timing, by its own count of major page faults as it touches each through a mapping.

Both ends (bench/residency_bot.py) run here in golfref's sandbox, as bots of a match run
(bubblewrap, the filter, a user of its own, the limits): the sender spells blocks of random
bits into pages of a large file under /usr that no process maps, the receiver reads each
block back, and the harness, which knows the bits, counts the receiver's errors and the time
from its command to the sender to the receiver's answer. Before each block the harness,
outside the sandbox, evicts the block's pages: it stands in for the cold pages of /usr a real
pair would walk through. Bits a second, the error rate and their product the capacity
(bits a second times 1 - H(error rate), the binary symmetric channel's) are an upper bound
for a pair in a match, whose bots act only in their turns.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from golfref.bots.pythons import referee_packages
from golfref.bots.sandbox import Sandbox, bubblewrap_problem
from golfref.config.sandbox_spec import SandboxSpec

from . import residency_bot

BOT = Path(residency_bot.__file__).resolve()
PYTHON = "/usr/bin/python3"
SMALLEST = 16 << 20
"""The smallest file the bench or a test spells into, in bytes: room for blocks at many places."""
PAYLOAD = 256
"""Bits a block carries after the preamble."""
WAIT = 60.0  # seconds for one answer: only a stuck sandbox takes this long


def mapped_files() -> set[str]:
    """The files some process of the machine maps now: pages of them that posix_fadvise cannot drop."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/maps", encoding="utf-8", errors="replace") as maps:
                for line in maps:
                    fields = line.split(maxsplit=5)  # an anonymous mapping has no sixth field, the path
                    if len(fields) == 6:
                        found.add(fields[5].strip())
        except OSError:
            continue
    return found


def shared_file() -> tuple[str, int] | None:
    """The largest file of SMALLEST bytes at least under /usr/share (data, which programs seldom map), else
    /usr/lib, that no process maps and every sandbox shows, with its number of pages; None where there is none."""
    skip = mapped_files()
    for folder in ("/usr/share", "/usr/lib"):
        best: tuple[int, str] | None = None
        for root, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(root, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                large = st.st_size >= SMALLEST and (best is None or st.st_size > best[0])
                if large and os.path.isfile(path) and not os.path.islink(path) and path not in skip:
                    best = (st.st_size, path)
        if best is not None:
            return best[1], best[0] // os.sysconf("SC_PAGE_SIZE")
    return None


@dataclass(frozen=True)
class Figures:
    """What one receiver method achieved over the blocks."""

    bits: int
    errors: int
    seconds: float

    @property
    def error_rate(self) -> float:
        """Wrong bits over bits."""
        return self.errors / self.bits

    @property
    def bits_per_second(self) -> float:
        """Payload bits over the time the two ends took for them."""
        return self.bits / self.seconds

    @property
    def capacity(self) -> float:
        """Bits a second less what the errors cost: rate times 1 - H(error rate)."""
        p = min(self.error_rate, 0.5)
        entropy = 0.0 if p == 0 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
        return self.bits_per_second * (1 - entropy)


class _End:
    """One end of the channel: residency_bot.py in a sandbox of its own, spoken to a line at a time."""

    def __init__(self, path: str, label: str) -> None:
        command = [PYTHON, str(BOT), path]
        self.box = Sandbox(SandboxSpec(enabled=True), command, str(BOT.parent), os.defpath, BOT.parent,
                           referee_packages(), label, own_file=BOT)  # fmt: skip
        try:
            self.proc = subprocess.Popen(
                self.box.argv, stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL if self.box.own_stdout else subprocess.PIPE,
                cwd=str(BOT.parent), env=self.box.environment({"PATH": os.defpath}), pass_fds=self.box.pass_fds,
                start_new_session=True, preexec_fn=self.box.preexec(None), text=True,
            )  # fmt: skip
        except OSError:
            self.box.close()  # its user id and control group go back
            raise
        own = self.box.started()
        self.out = open(own, encoding="utf-8") if own is not None else self.proc.stdout  # noqa: SIM115 - closed in close
        assert self.proc.stdin is not None and self.out is not None

    def ask(self, line: str) -> str:
        """Send one command and wait for its answer."""
        assert self.proc.stdin is not None and self.out is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.out.readline()
        if not answer:
            raise RuntimeError(f"bench: pagecache: {line.split()[0]}: the bot ended (exit {self.proc.wait(WAIT)})")
        return answer.strip()

    def close(self) -> None:
        """End the bot and give its sandbox back."""
        assert self.proc.stdin is not None and self.out is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.out.close()
        self.box.close()


def _evict(path: str, first: int, pages: int) -> None:
    """Drop the block's pages from memory (the harness, outside the sandbox, may)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, first * os.sysconf("SC_PAGE_SIZE"), pages * os.sysconf("SC_PAGE_SIZE"),
                         os.POSIX_FADV_DONTNEED)  # fmt: skip
    finally:
        os.close(fd)


def measure(path: str, pages: int, blocks: int, seed: int = 38) -> dict[str, Figures]:
    """Send `blocks` blocks of random bits from one sandboxed end to the other, for each receiver method."""
    rng = random.Random(seed)
    bits_a_block = residency_bot.PREAMBLE + PAYLOAD
    span = bits_a_block * residency_bot.SPAN
    sender, receiver = _End(path, "sender"), None
    try:
        receiver = _End(path, "receiver")
        totals = {method: [0, 0, 0.0] for method in ("time", "faults")}
        for _ in range(blocks):
            for method, total in totals.items():
                first = rng.randrange(0, pages - span)
                payload = "".join(rng.choice("01") for _ in range(PAYLOAD))
                _evict(path, first, span)
                start = time.perf_counter()
                spelled = sender.ask(f"spell {first} {residency_bot.PREAMBLE_BITS}{payload}")
                if spelled != "ok":
                    raise RuntimeError(f"bench: pagecache: the sender answered {spelled!r}, not ok")
                got = receiver.ask(f"{method} {first} {bits_a_block}")
                total[2] += time.perf_counter() - start
                total[0] += PAYLOAD
                total[1] += sum(a != b for a, b in zip(got[residency_bot.PREAMBLE :], payload, strict=True))
                _evict(path, first, span)
        return {method: Figures(int(b), int(e), s) for method, (b, e, s) in totals.items()}
    finally:
        for end in (sender, receiver):
            if end is not None:
                end.close()


def run(quick: bool = False) -> None:
    """Print the figures of what stays of the page-cache channel."""
    print("pagecache: what stays of the page-cache channel between two sandboxed bots (bits a second, errors)")
    problem = bubblewrap_problem()
    found = shared_file()
    if problem is not None or not os.path.exists(PYTHON) or found is None:
        print(f"  skipped: {problem or (PYTHON + ' is missing' if found else 'no large file under /usr')}")
        return
    path, pages = found
    load = os.getloadavg()
    blocks = 4 if quick else 24
    figures = measure(path, pages, blocks)
    for method, words in (("time", "the time of a read"), ("faults", "major page faults, no timing")):
        f = figures[method]
        print(f"  {words}: {f.bits_per_second:,.0f} bits/s, {f.error_rate:.2%} wrong, "
              f"capacity {f.capacity:,.0f} bits/s ({blocks} blocks of {PAYLOAD} bits)")  # fmt: skip
    print(f"  pages of {path}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
