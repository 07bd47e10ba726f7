#!/usr/bin/env python3
"""Attack 6: fill /tmp.

`disk_bot.py OUT FILE`: at hello it writes 500 MiB to FILE (the test names a unique file
under /tmp) in 1 MiB blocks and leaves it there. Report: {"written": bytes, "error": null or
what failed}. When a write fails it exits with status 1 after the report, as a program that
cannot write its output would.
"""

from __future__ import annotations

import sys
from typing import Any

import hostile

SIZE = 500 << 20
BLOCK = 1 << 20


def main() -> int:
    out, path = sys.argv[1], sys.argv[2]

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {"written": 0, "error": None}
        block = b"\xa5" * BLOCK
        try:
            with open(path, "wb") as f:
                while result["written"] < SIZE:
                    result["written"] += f.write(block)
                    f.flush()
        except OSError as e:
            result["error"] = hostile.error_name(e)
        hostile.report(out, result)
        if result["error"] is not None:
            sys.exit(1)

    return hostile.play("disk", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
