#!/usr/bin/env python3
"""Attack 5 of issue 21: rewrite another bot's program during a tournament.

`rewrite_bot.py OUT TARGET`, at its first request (every bot of the match is running by
then, so the match under way is not the one disturbed): unless OUT exists already (the
attack is made once), replaces the file TARGET with a program that exits at once with
status 3, and reports {"rewrote": "done" or an errno name, "target": TARGET}.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import hostile

PAYLOAD = "import sys\nsys.exit(3)  # rewritten by rewrite_bot.py\n"


def main() -> int:
    out, target = sys.argv[1], sys.argv[2]

    def rewrite(request: dict[str, Any]) -> None:
        if os.path.exists(out):
            return
        try:
            with open(target, "w", encoding="utf-8") as f:
                f.write(PAYLOAD)
            done = "done"
        except OSError as e:
            done = hostile.error_name(e)
        hostile.report(out, {"rewrote": done, "target": target})

    return hostile.play("rewriter", at_first_request=rewrite)


if __name__ == "__main__":
    sys.exit(main())
