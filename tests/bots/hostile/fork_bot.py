#!/usr/bin/env python3
"""Attack 7: many processes and many open files.

`fork_bot.py OUT CHILDREN FILES`: at hello it forks up to CHILDREN children that each sleep
(at most 120 s, so none outlives a lost test for long), stopping at the first failure, then
opens /dev/null up to FILES times, stopping at the first failure, and closes those files.
Report: {"children": [pid, ...], "fork_error": null or an errno name, "files": N,
"open_error": null or an errno name}. It plays on whatever it got.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import hostile

CHILD_SLEEP = 120.0


def main() -> int:
    out, children, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {"children": [], "fork_error": None, "files": 0, "open_error": None}
        for _ in range(children):
            try:
                pid = os.fork()
            except OSError as e:
                result["fork_error"] = hostile.error_name(e)
                break
            if pid == 0:
                try:
                    time.sleep(CHILD_SLEEP)
                finally:
                    os._exit(0)
            result["children"].append(pid)
        opened = []
        try:
            while len(opened) < files:
                opened.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as e:
            result["open_error"] = hostile.error_name(e)
        result["files"] = len(opened)
        for fd in opened:
            os.close(fd)
        hostile.report(out, result)

    return hostile.play("fork", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
