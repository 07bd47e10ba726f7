#!/usr/bin/env python3
"""A bot that runs into one resource limit at its first request, then (if still alive) plays on.

`hog_bot.py MODE`: MODE is one of
  memory      allocate 64 MiB at a time until an allocation fails (the error ends the bot)
  cpu         spin until the CPU limit's signal ends it
  file-size   write one ever-growing file in /tmp until the file-size signal ends it
  tmp         write 1 MiB files in /tmp until the disk is full (the error ends the bot)
  processes   fork sleeping children until a fork fails (the error ends the bot)
  open-files  open /dev/null until an open fails (the error ends the bot)
  none        no hogging: a well-behaved bot

At hello it writes its user id to stderr (`hog: uid N`).
"""

import json
import os
import sys
import time


def hog(mode: str) -> None:
    if mode == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    elif mode == "cpu":
        while True:
            pass
    elif mode == "file-size":
        with open("/tmp/hog-file-size", "wb") as f:
            while True:
                f.write(b"x" * (1 << 20))
    elif mode == "tmp":
        for i in range(100_000):
            with open(f"/tmp/hog-{i}", "wb") as f:
                f.write(b"x" * (1 << 20))
    elif mode == "processes":
        for _ in range(10_000):
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
    elif mode == "open-files":
        files = [open(os.devnull) for _ in range(1_000_000)]  # noqa: SIM115 - held open on purpose
        del files


def main() -> int:
    mode = sys.argv[1]
    hogged = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            print(f"hog: uid {os.getuid()}", file=sys.stderr, flush=True)
            print(json.dumps({"type": "ready", "name": f"hog-{mode}", "version": "1"}), flush=True)
        elif kind == "request":
            if not hogged:
                hogged = True
                hog(mode)
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
