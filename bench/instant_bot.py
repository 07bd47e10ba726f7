#!/usr/bin/env python3
"""A bot that answers at once with a random legal choice: the referee benchmarks' opponent.

With the argument --stamps it notes CLOCK_MONOTONIC when it has read its first request and when
it has written each answer, and at its end writes "stamps FIRST LAST" (nanoseconds) to stderr,
which the log keeps: bench/botstart.py times a run's start and end from outside so.
"""

import json
import random
import sys
import time

stamps = sys.argv[1:] == ["--stamps"]
first = last = 0
rng = random.Random(1)
write = sys.stdout.write
flush = sys.stdout.flush
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        write('{"type":"ready","name":"instant"}\n')
        flush()
    elif kind == "request":
        if stamps and not first:
            first = time.monotonic_ns()
        write(json.dumps({"type": "answer", "id": msg["id"], "action": rng.choice(msg["legal"])}) + "\n")
        flush()
        if stamps:
            last = time.monotonic_ns()
    elif kind == "goodbye":
        break
if stamps:
    sys.stderr.write(f"stamps {first} {last}\n")
