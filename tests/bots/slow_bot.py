#!/usr/bin/env python3
"""A bot that thinks for SECONDS (argument 1) on its first request, then answers at once.

It writes the `time_ms` of every request it gets to stderr, one per line as `time_ms=N`,
so a test can follow the time bank.
"""

import json
import sys
import time

pause = float(sys.argv[1])
first = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "slow"}), flush=True)
    elif message["type"] == "request":
        print(f"time_ms={message['time_ms']}", file=sys.stderr, flush=True)
        if first:
            time.sleep(pause)
            first = False
        print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message["type"] == "goodbye":
        break
