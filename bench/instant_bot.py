#!/usr/bin/env python3
"""A bot that answers at once with a random legal choice: the referee benchmarks' opponent."""

import json
import random
import sys

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
        write(json.dumps({"type": "answer", "id": msg["id"], "action": rng.choice(msg["legal"])}) + "\n")
        flush()
    elif kind == "goodbye":
        break
