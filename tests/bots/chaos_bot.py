#!/usr/bin/env python3
"""A Golf bot that misbehaves at random: `chaos_bot.py SEED`.

Seeded, so a given seed makes the same choices for the same requests; what each choice
costs in time is up to the machine. For the property test that every log the referee
writes validates, whatever the bots do.
"""

import json
import os
import random
import sys
import time


def write(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        os._exit(0)


def encode(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


def main() -> int:
    rng = random.Random(int(sys.argv[1]))
    bad = rng.choice((0.0, 0.05, 0.2, 0.5))  # how often it misbehaves
    slow = rng.choice((0.0, 0.2, 0.6))  # how often it thinks for a while first
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "goodbye":
            return 0
        if kind == "hello":
            roll = rng.random()
            if roll < 0.1:
                write(b"debug: starting\n")  # a line before ready
            elif roll < 0.15:
                time.sleep(rng.choice((0.05, 0.3)))
            elif roll < 0.18:
                continue  # never ready
            write(encode({"type": "ready", "name": "chaos", "version": "1"}))
            continue
        if kind != "request":
            continue
        rid, legal = message["id"], message["legal"]
        good = encode({"type": "answer", "id": rid, "action": rng.choice(legal)})
        if rng.random() < slow:
            time.sleep(rng.choice((0.02, 0.08, 0.2)))  # may run past move_ms, the bank or match_ms
        if rng.random() >= bad:
            write(good)
            continue
        trick = rng.randrange(10)
        if trick == 0:
            pass  # silence: a timeout, and perhaps a late answer with the next request
        elif trick == 1:
            write(b"not json\n")
        elif trick == 2:
            write(encode({"type": "answer", "id": rid + rng.choice((1, 100)), "action": legal[0]}))
        elif trick == 3:
            write(encode({"type": "answer", "id": rid, "action": "swap:99"}))
        elif trick == 4:
            write(good * 2)
        elif trick == 5:
            write(encode({"type": "answer", "id": max(1, rid - 1), "action": legal[0]}) + good)
        elif trick == 6:
            write(encode({"type": "chatter"}) + good)
        elif trick == 7:
            return 3  # exits mid-match
        elif trick == 8:
            os.close(1)  # closes stdout, exits a little later
            time.sleep(0.05)
            os._exit(4)
        else:
            write(good[:-1])  # no newline yet: the rest comes with the next answer
    return 0


if __name__ == "__main__":
    sys.exit(main())
