#!/usr/bin/env python3
"""A hostile bot that tries to read the referee: its memory, environment and open pipes.

`mem_spy_bot.py OUT`: at hello it tries /proc/<parent>/mem (at the first readable mapping),
/proc/<parent>/environ and /proc/<parent>/fd, writes what worked to OUT as JSON, then plays
like echo_bot.py.
"""

import json
import os
import sys


def attempt(what):
    try:
        what()
        return "read"
    except OSError as e:
        return type(e).__name__


def read_memory(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            span, perms = line.split()[:2]
            if perms.startswith("r"):
                start = int(span.split("-")[0], 16)
                break
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(start)
        mem.read(16)


def read_environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        f.read()


def main():
    out = sys.argv[1]
    parent = os.getppid()
    found = {
        "mem": attempt(lambda: read_memory(parent)),
        "environ": attempt(lambda: read_environ(parent)),
        "fd": attempt(lambda: os.listdir(f"/proc/{parent}/fd")),
    }
    with open(out, "w") as f:
        json.dump(found, f)
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "hello":
            print(json.dumps({"type": "ready", "name": "spy"}), flush=True)
        elif message.get("type") == "request":
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif message.get("type") == "goodbye":
            return


if __name__ == "__main__":
    main()
