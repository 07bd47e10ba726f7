#!/usr/bin/env python3
"""A bot that looks for files at hello, then plays legal[0] like echo_bot.py.

`peek_bot.py PATH...`: for each PATH it writes one stderr line: `peek PATH: N bytes` (a
file it read), `peek PATH: N entries` (a folder it listed), or `peek PATH: ` and the error's name.
"""

import json
import os
import sys


def peek(path: str) -> str:
    try:
        if os.path.isdir(path):
            return f"{len(os.listdir(path))} entries"
        with open(path, "rb") as f:
            return f"{len(f.read())} bytes"
    except OSError as e:
        return type(e).__name__


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            for path in sys.argv[1:]:
                print(f"peek {path}: {peek(path)}", file=sys.stderr, flush=True)
            print(json.dumps({"type": "ready", "name": "peek", "version": "1"}), flush=True)
        elif kind == "request":
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
