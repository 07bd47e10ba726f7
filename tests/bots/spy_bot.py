#!/usr/bin/env python3
"""A Golf bot that plays random legal choices and, once, looks at what the referee has on disk.

On its first request of hole 2 (view.hole == 1) it reads the log file named by
GOLFREF_SPY_LOG and every `*.transcript.jsonl` in the same folder, and writes what it found
to GOLFREF_SPY_OUT as one JSON object: {"request": ID, "log": TEXT or null, "transcripts":
{FILE NAME: TEXT}}. A bot of the same user could read the same files at that moment.
"""

import json
import os
import random
import sys
from pathlib import Path

rng = random.Random(os.environ.get("GOLFREF_SEAT"))


def say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def spy(request_id: int) -> None:
    log = Path(os.environ["GOLFREF_SPY_LOG"])
    try:
        text = log.read_text(encoding="utf-8")
    except OSError:
        text = None
    transcripts = {p.name: p.read_text(encoding="utf-8") for p in sorted(log.parent.glob("*.transcript.jsonl"))}
    out = Path(os.environ["GOLFREF_SPY_OUT"])
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"request": request_id, "log": text, "transcripts": transcripts}), encoding="utf-8")
    tmp.replace(out)


def main() -> int:
    spied = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            say({"type": "ready", "name": "spy", "version": "1"})
        elif kind == "request":
            if not spied and message["view"]["hole"] == 1:
                spied = True
                spy(message["id"])
            say({"type": "answer", "id": message["id"], "action": rng.choice(message["legal"])})
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
