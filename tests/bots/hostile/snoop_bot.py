#!/usr/bin/env python3
"""Attack 2: read the opponent's memory.

`snoop_bot.py OUT`: at its first request (every bot is ready by then) it finds the other bots
(the referee's other children) through /proc and scans each one's private memory through
/proc/<pid>/mem for `VICTIM-SECRET-` and 32 hex digits (what victim_bot.py keeps). Report:
{"opponents": [pid, ...], "mem": {pid: "read" or an errno name}, "secrets": [...]}.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import hostile

PATTERN = re.compile(rb"VICTIM-SECRET-[0-9a-f]{32}")


def main() -> int:
    out = sys.argv[1]

    def attack(request: dict[str, Any]) -> None:
        result: dict[str, Any] = {"opponents": [], "mem": {}, "secrets": []}
        try:
            result["opponents"] = hostile.opponents()
        except OSError as e:
            result["opponents_error"] = hostile.error_name(e)
        for pid in result["opponents"]:
            try:
                found, _ = hostile.scan(pid, PATTERN)
                result["mem"][str(pid)] = "read"
                result["secrets"] += [s.decode() for s in found if s.decode() not in result["secrets"]]
            except OSError as e:
                result["mem"][str(pid)] = hostile.error_name(e)
        hostile.report(out, result)

    return hostile.play("peek", at_first_request=attack)


if __name__ == "__main__":
    sys.exit(main())
