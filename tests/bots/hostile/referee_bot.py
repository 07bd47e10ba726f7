#!/usr/bin/env python3
"""Attack 1: read the match seed out of the referee's memory, and ptrace the referee.

`referee_bot.py OUT MASKED`: the seed to look for is MASKED xor `MASK` (given masked, so that
the bot's own command line, which the referee holds, does not put the seed in its memory).
At hello it scans the referee's (its parent's) private memory through /proc/<ppid>/mem for
the seed in decimal ASCII and as a CPython int object (ob_size, then 30-bit digits), and for
any `seed: N` (a config text) or `"seed":N` (a JSON text): what an attacker who knows
nothing finds. Then it attaches to the referee with ptrace (PTRACE_SEIZE and
PTRACE_INTERRUPT, then PTRACE_DETACH: unlike PTRACE_ATTACH's SIGSTOP, this stops no other
thread of the referee). Report: {"mem": "read" or an errno name, "bytes_read", "ascii",
"pyint" (the seed found in either form), "found_seeds" (the numbers found after `seed`),
"ptrace": "attached" or an errno name, "referee": its pid, "seconds"}; "no referee" and null
when its parent is no golfref process (see `hostile.referee`). Then it plays like
echo_bot.py.
"""

from __future__ import annotations

import ctypes
import os
import re
import struct
import sys
import time
from typing import Any

import hostile

PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
MASK = 0x2A5A5A5A5A5A5A5A
"""What the seed is xored with on the command line."""
WALL = 0x40000000  # __WALL: wait for a tracee whatever kind of thread it is


def pyint_bytes(n: int) -> bytes:
    """The body of CPython's int object for n > 0: ob_size (digits), then the 30-bit digits."""
    digits = []
    while n:
        digits.append(n & ((1 << 30) - 1))
        n >>= 30
    return struct.pack(f"<q{len(digits)}I", len(digits), *digits)


def read_seed(pid: int, seed: int) -> dict[str, Any]:
    """Scan the referee's memory for the seed."""
    pattern = re.compile(
        re.escape(str(seed).encode()) + b"|" + re.escape(pyint_bytes(seed)) + rb'|seed"?: *[0-9]{1,19}'
    )
    try:
        found, total = hostile.scan(pid, pattern)
    except OSError as e:
        return {"mem": hostile.error_name(e), "bytes_read": 0, "ascii": False, "pyint": False, "found_seeds": []}
    found_seeds = sorted({int(m.split(b":")[1]) for m in found if m.startswith(b"seed")})
    return {
        "mem": "read",
        "bytes_read": total,
        "ascii": str(seed).encode() in found or seed in found_seeds,
        "pyint": pyint_bytes(seed) in found,
        "found_seeds": found_seeds[:10],
    }


def trace(pid: int) -> str:
    """Attach to `pid`, stop it for a moment, let it go: 'attached' or why not."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    if libc.ptrace(PTRACE_SEIZE, pid, None, None) != 0:
        return hostile.error_name(OSError(ctypes.get_errno(), ""))
    libc.ptrace(PTRACE_INTERRUPT, pid, None, None)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG | WALL)[0] == pid:
                break
        except ChildProcessError:
            break
        time.sleep(0.001)
    libc.ptrace(PTRACE_DETACH, pid, None, None)  # were it to fail, our exit detaches us anyway
    return "attached"


def main() -> int:
    out, seed = sys.argv[1], int(sys.argv[2]) ^ MASK

    def attack(hello: dict[str, Any]) -> None:
        began = time.monotonic()
        referee = hostile.referee()
        if referee is None:
            result: dict[str, Any] = {"mem": "no referee", "ascii": False, "pyint": False, "ptrace": "no referee"}
        else:
            result = read_seed(referee, seed)
            result["ptrace"] = trace(referee)
        result["referee"] = referee
        result["seconds"] = round(time.monotonic() - began, 3)
        hostile.report(out, result)

    return hostile.play("referee-spy", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
