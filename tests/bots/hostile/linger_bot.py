#!/usr/bin/env python3
"""Attack 9: leave a process behind after the match.

`linger_bot.py OUT`: at hello it double-forks: the child calls setsid() and forks a
grandchild, then exits, so the grandchild is orphaned in a session of its own. The
grandchild closes its standard streams (no pipe gives it away) and sleeps 120 s (bounded, so
it does not outlive a lost test for long). Report: {"lingerer": pid or null, "error": null
or an errno name}.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import hostile

LINGER = 120.0


def main() -> int:
    out = sys.argv[1]

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {"lingerer": None, "error": None}
        read, write = os.pipe()
        try:
            child = os.fork()
        except OSError as e:
            result["error"] = hostile.error_name(e)
            hostile.report(out, result)
            return
        if child == 0:
            try:
                os.close(read)
                os.setsid()
                grandchild = os.fork()
                if grandchild == 0:
                    null = os.open(os.devnull, os.O_RDWR)
                    for fd in (0, 1, 2):
                        os.dup2(null, fd)
                    os.write(write, f"{os.getpid()}\n".encode())
                    os.close(write)
                    time.sleep(LINGER)
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as f:
            line = f.readline().strip()
        os.waitpid(child, 0)
        result["lingerer"] = int(line) if line else None
        if result["lingerer"] is None:
            result["error"] = "no grandchild"
        hostile.report(out, result)

    return hostile.play("linger", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
