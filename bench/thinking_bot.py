#!/usr/bin/env python3
"""A bot that thinks (a busy loop on its CPU) for THINK_MS, 50 by default, before each answer."""

import json
import os
import random
import sys
import time

think = int(os.environ.get("THINK_MS", "50")) / 1000
rng = random.Random(1)
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        print('{"type":"ready","name":"thinking"}', flush=True)
    elif kind == "request":
        until = time.perf_counter() + think
        while time.perf_counter() < until:
            pass
        print(json.dumps({"type": "answer", "id": msg["id"], "action": rng.choice(msg["legal"])}), flush=True)
    elif kind == "goodbye":
        break
