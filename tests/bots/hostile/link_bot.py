#!/usr/bin/env python3
"""Attack of issue 21, item 4: make the referee write through a link.

`link_bot.py WHAT LOG TARGET OUT`, at its first request: replaces a file the referee writes
next to the log LOG with a symbolic link to TARGET, a file outside the match.

| WHAT | the file replaced |
| --- | --- |
| `transcript` | its own transcript, `LOG minus .json` + `.seat0.transcript.jsonl` |
| `log` | the log itself (the journal while the match runs) |

Report: {"swapped": path, "result": "done" or an errno name}.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import hostile


def main() -> int:
    what, log, target, out = sys.argv[1:5]
    if what not in ("transcript", "log"):
        sys.exit(f"link_bot.py: unknown file {what!r}")
    path = log[: -len(".json")] + ".seat0.transcript.jsonl" if what == "transcript" else log

    def swap(message: dict[str, Any]) -> None:
        try:
            os.unlink(path)
            os.symlink(target, path)
            result = "done"
        except OSError as e:
            result = hostile.error_name(e)
        hostile.report(out, {"swapped": path, "result": result})

    return hostile.play("link", at_first_request=swap)


if __name__ == "__main__":
    sys.exit(main())
