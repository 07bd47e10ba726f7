#!/usr/bin/env python3
"""Attack 4: open network connections.

`net_bot.py OUT PORT`: at hello it connects to 127.0.0.1:PORT (a server the test runs) and
sends `ATTACK` and its pid on one line, then tries an outside address (1.1.1.1:443,
2 s timeout; only recorded: a machine may well be offline). Report: {"local": "sent" or an
errno name, "external": "connected" or an errno name}.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

import hostile

EXTERNAL = ("1.1.1.1", 443)


def main() -> int:
    out, port = sys.argv[1], int(sys.argv[2])

    def attack(hello: dict[str, Any]) -> None:
        result: dict[str, Any] = {}
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(f"ATTACK {os.getpid()}\n".encode())
            result["local"] = "sent"
        except OSError as e:
            result["local"] = hostile.error_name(e)
        try:
            with socket.create_connection(EXTERNAL, timeout=2):
                result["external"] = "connected"
        except OSError as e:
            result["external"] = hostile.error_name(e)
        hostile.report(out, result)

    return hostile.play("net", at_hello=attack)


if __name__ == "__main__":
    sys.exit(main())
