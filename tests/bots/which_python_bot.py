#!/usr/bin/env python3
"""A bot that says which Python runs it and what that Python can import, then plays legal[0] like echo_bot.py.

At hello it writes to stderr, one line each: `which executable: PATH`, `which prefix: PATH`,
`which version: X.Y.Z`, `which path: JSON` (its sys.path), and for each module MODULE of its
arguments `which import MODULE: FILE` (where it was found) or `which import MODULE: missing`.
"""

import importlib
import json
import sys


def found(module: str) -> str:
    try:
        return getattr(importlib.import_module(module), "__file__", None) or "built in"
    except ImportError:
        return "missing"


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            said = [f"which executable: {sys.executable}", f"which prefix: {sys.prefix}",
                    f"which version: {sys.version.split()[0]}", f"which path: {json.dumps(sys.path)}"]
            said += [f"which import {module}: {found(module)}" for module in sys.argv[1:]]
            print("\n".join(said), file=sys.stderr, flush=True)
            print(json.dumps({"type": "ready", "name": "which", "version": "1"}), flush=True)
        elif kind == "request":
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
