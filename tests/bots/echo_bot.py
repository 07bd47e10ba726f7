#!/usr/bin/env python3
"""A well-behaved Golf bot: ready on hello, legal[0] on every request, exits on goodbye or EOF."""

import json
import sys


def say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            say({"type": "ready", "name": "echo", "version": "1"})
        elif kind == "request":
            say({"type": "answer", "id": message["id"], "action": message["legal"][0]})
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
