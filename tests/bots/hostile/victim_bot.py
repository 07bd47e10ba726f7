#!/usr/bin/env python3
"""An honest bot with a secret: the target of the attacks on the opponent.

`victim_bot.py OUT`: at hello it makes a secret, `VICTIM-SECRET-` and 32 random hex digits,
kept in memory for the whole match (as a bot keeps its peeked cards), and reports it
({"secret": ..., "pid": ...}) like the hostile bots do; then it plays like echo_bot.py.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import hostile

SECRET_PREFIX = "VICTIM-SECRET-"
secrets: list[str] = []


def main() -> int:
    out = sys.argv[1]

    def remember(hello: dict[str, Any]) -> None:
        secrets.append(SECRET_PREFIX + os.urandom(16).hex())
        hostile.report(out, {"secret": secrets[0], "pid": os.getpid()})

    return hostile.play("victim", at_hello=remember)


if __name__ == "__main__":
    sys.exit(main())
