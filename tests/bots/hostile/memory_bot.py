#!/usr/bin/env python3
"""Attack 5: allocate 4 GiB.

`memory_bot.py OUT TOUCH`: at hello it allocates 4 GiB as an anonymous mapping (the kernel
gives a page only when it is written; a bytearray would write them all), writes one byte in
every page when TOUCH is `touch` (so the memory is really taken: only under a sandbox's
memory limit; on a shared machine without one, `no-touch`), then frees it. Report:
{"allocated": bool, "touched_bytes": N, "error": null or what failed}. When the allocation
fails it exits with status 1 after the report, as a program without the memory it needs
would.
"""

from __future__ import annotations

import mmap
import sys
from typing import Any

import hostile

SIZE = 4 << 30
PAGE = 4096


def main() -> int:
    out, touch = sys.argv[1], sys.argv[2] == "touch"

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {"allocated": False, "touched_bytes": 0, "error": None}
        try:
            block = mmap.mmap(-1, SIZE)
            result["allocated"] = True
            if touch:
                for at in range(0, SIZE, PAGE):
                    block[at] = 1
                result["touched_bytes"] = SIZE
            block.close()
        except (MemoryError, OSError) as e:
            result["error"] = hostile.error_name(e)
        hostile.report(out, result)
        if result["error"] is not None:
            sys.exit(1)

    return hostile.play("memory", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
