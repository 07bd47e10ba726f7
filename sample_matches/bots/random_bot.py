#!/usr/bin/env python3
"""A Golf bot for golfref that plays a uniformly random legal action.

The smallest complete bot: it speaks protocol version 2 (one JSON object per line on
stdin and stdout) and shows everything a bot must do. Standard library only.

    hello    -> answer {"type": "ready", ...}
    request  -> answer {"type": "answer", "id": <the request's id>, "action": <one of legal>}
    goodbye  -> exit (end of input too)
    anything else (hole_end, match_end, types added later) -> ignore
"""

import json
import os
import random
import sys

# Seeding from the seat makes a match with this bot reproducible; without the variable
# the generator is seeded from the system.
rng = random.Random(os.environ.get("GOLFREF_SEAT"))


def send(message):
    # One line per message, flushed at once: the referee is waiting for it.
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue  # not a message we can read; the referee never sends one
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "hello":
        send({"type": "ready", "name": "random_bot", "version": "1.0"})
    elif kind == "request":
        send({"type": "answer", "id": message["id"], "action": rng.choice(message["legal"])})
    elif kind == "goodbye":
        break
    # Notices and unknown types need no answer: ignoring them keeps the bot working
    # with later protocol additions.
