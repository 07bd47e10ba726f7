"""Attack: hold more memory than memory_mb under per-process limits (issue 21, item 8c).

Usage: memory_share_bot.py OUT shared|children MIB

  shared    one process maps MIB of shared anonymous memory and touches every page: a
            shared mapping counts in the address space (4 x memory_mb) but not in RLIMIT_DATA
  children  three child processes each allocate and touch MIB privately, each under the
            per-process bound, together over it

At its first request; then it reports how much it held and plays on.
"""

from __future__ import annotations

import mmap
import os
import sys
import time

import hostile

_PAGE = mmap.PAGESIZE


def touch(size: int, shared: bool) -> int:
    """Map `size` bytes and write to every page; the bytes touched."""
    flags = mmap.MAP_SHARED | mmap.MAP_ANONYMOUS if shared else mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    area = mmap.mmap(-1, size, flags=flags)
    for at in range(0, size, _PAGE):
        area[at] = 1
    return size


def main() -> int:
    out, mode, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    size = mib << 20
    held: list[object] = []

    def attack(_: object) -> None:
        said: dict[str, object] = {"mode": mode, "mib": mib}
        if mode == "shared":
            said["touched_mib"] = touch(size, shared=True) >> 20
        else:
            children, done = [], []
            for _k in range(3):
                r, w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(r)
                    touch(size, shared=False)
                    os.write(w, b"x")
                    time.sleep(60)  # held until the match ends
                    os._exit(0)
                os.close(w)
                children.append(pid)
                done.append(r)
            said["children_done"] = sum(len(os.read(r, 1)) for r in done)
            held.extend(children)
        hostile.report(out, said)

    return hostile.play("memory-share", at_first_request=attack)


if __name__ == "__main__":
    sys.exit(main())
