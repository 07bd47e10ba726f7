"""Shared plumbing of the hostile test bots: the protocol loop, the attack report, /proc helpers.

Every hostile bot plays legal moves (the first legal choice, like echo_bot.py) and performs
its attack at hello or at its first request. What the attack achieved goes out twice: always
as one line `ATTACK-REPORT {json}` on stderr (the log keeps a bot's stderr, so a sandboxed
bot that cannot reach the test's files still reports), and to the file OUT when it can.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

REPORT_PREFIX = "ATTACK-REPORT "
"""How a report line on stderr starts; the test reads the last such line."""

_READ_CHUNK = 1 << 20
_SCAN_CAP = 1 << 30  # never read more than this much of another process's memory


def report(out: str, data: dict[str, Any]) -> None:
    """Write the attack report to stderr (always) and to `out` (when reachable)."""
    line = json.dumps(data, sort_keys=True)
    sys.stderr.write(REPORT_PREFIX + line + "\n")
    sys.stderr.flush()
    try:
        tmp = f"{out}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(line)
        os.replace(tmp, out)
    except OSError:
        pass


def error_name(exc: BaseException) -> str:
    """A short name for what went wrong: the errno's name when there is one (EPERM, ESRCH)."""
    if isinstance(exc, OSError) and exc.errno is not None:
        import errno

        return errno.errorcode.get(exc.errno, type(exc).__name__)
    return type(exc).__name__


def say(message: dict[str, Any]) -> None:
    """Send one protocol message."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def play(
    name: str,
    at_hello: Callable[[dict[str, Any]], None] | None = None,
    at_first_request: Callable[[dict[str, Any]], None] | None = None,
) -> int:
    """Play by the book (legal[0]), running `at_hello` before ready and `at_first_request` before the first answer."""
    asked = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if at_hello is not None:
                at_hello(message)
            say({"type": "ready", "name": name, "version": "1"})
        elif kind == "request":
            if not asked:
                asked = True
                if at_first_request is not None:
                    at_first_request(message)
            say({"type": "answer", "id": message["id"], "action": message["legal"][0]})
        elif kind == "goodbye":
            return 0
    return 0


def cmdline(pid: int) -> list[str]:
    """A process's argv, or [] when it cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def parent_of(pid: int) -> int | None:
    """A process's parent pid from /proc/PID/stat, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields start after the last ')'.
    return int(stat[stat.rindex(b")") + 2 :].split()[1])


def referee() -> int | None:
    """The referee's pid: this bot's parent when it is a golfref process, else None.

    A safety catch for the machine the tests run on: a bot whose parent is something else (init
    after the referee died, a sandbox's own init) touches nothing outside its match.
    """
    parent = os.getppid()
    if parent <= 1 or not any("golfref" in arg for arg in cmdline(parent)):
        return None
    return parent


def opponents() -> list[int]:
    """The other bots of this match: the referee's other children, less its own forks (same argv)."""
    me, referee_pid = os.getpid(), referee()
    if referee_pid is None:
        return []
    referee_argv = cmdline(referee_pid)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        if parent_of(pid) != referee_pid:
            continue
        argv = cmdline(pid)
        if argv and argv != referee_argv:  # the referee's watchdog is a fork of it
            found.append(pid)
    return found


def regions(pid: int) -> Iterator[tuple[int, int]]:
    """The readable private mappings (heap, stacks, anonymous memory) of a process."""
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            path = fields[5] if len(fields) > 5 else ""
            if not fields[1].startswith("r") or path in ("[vvar]", "[vsyscall]", "[vdso]"):
                continue
            if path and not path.startswith("["):
                continue  # a mapped file: anyone may read it from disk
            start, end = (int(x, 16) for x in fields[0].split("-"))
            yield start, end


def scan(pid: int, pattern: re.Pattern[bytes]) -> tuple[list[bytes], int]:
    """Every match of `pattern` in another process's memory (deduplicated), and the bytes read.

    Raises OSError when the memory cannot be opened at all.
    """
    found: list[bytes] = []
    total = 0
    overlap = 256  # a match may straddle two chunks
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for start, end in regions(pid):
            tail = b""
            at = start
            while at < end and total < _SCAN_CAP:
                size = min(_READ_CHUNK, end - at)
                try:
                    mem.seek(at)
                    chunk = mem.read(size)
                except (OSError, OverflowError, ValueError):
                    break  # an unreadable page (a guard page): the rest of this mapping
                if not chunk:
                    break
                total += len(chunk)
                data = tail + chunk
                for m in pattern.finditer(data):
                    if m.group(0) not in found:
                        found.append(m.group(0))
                tail = data[-overlap:]
                at += len(chunk)
    return found, total
