#!/usr/bin/env python3
"""Attack of issue 21, item 8: text that reads otherwise than it is (bidirectional controls).

`bidi_bot.py`: reports its name as `bidi` + U+202E (right-to-left override) + `gnp.exe`,
writes a stderr line holding U+202E, U+2066 and U+200F, and answers its first request with
a line that is no JSON, holding U+202E (a `malformed` fault whose line the log keeps); then
plays legal moves.
"""

from __future__ import annotations

import json
import sys

RLO = "\u202e"
NAME = f"bidi{RLO}gnp.exe"
STDERR = f"stderr: {RLO}txt.exe \u2066isolated\u2069 \u200fmark"
JUNK = f"junk {RLO}txt.exe"


def main() -> int:
    junk_sent = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            sys.stderr.write(STDERR + "\n")
            sys.stderr.flush()
            answer = {"type": "ready", "name": NAME, "version": f"1{RLO}"}
        elif kind == "request":
            if not junk_sent:  # instead of its first answer: the referee plays a fallback for it
                junk_sent = True
                sys.stdout.write(JUNK + "\n")
                sys.stdout.flush()
                continue
            answer = {"type": "answer", "id": message["id"], "action": message["legal"][0]}
        elif kind == "goodbye":
            return 0
        else:
            continue
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
