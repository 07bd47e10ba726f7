#!/usr/bin/env python3
"""`clock_bot.py OUT PAUSE`: plays `legal[0]`, and notes in OUT when it started and when it ended.

First thing at start it takes a tag (its pid and a random number) and appends `start TAG NS`
to OUT, NS being CLOCK_MONOTONIC in nanoseconds (one clock for every process of the machine);
it reports the tag as its name in `ready`, which the match's log keeps (`reported_name`), so a
test can tell which match the bot played. It thinks PAUSE seconds on its first request. At
`goodbye` or the end of its input it appends `end TAG NS` and exits.
"""

import os
import sys
import time


def note(out: str, word: str, tag: str) -> None:
    line = f"{word} {tag} {time.monotonic_ns()}\n".encode()
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)  # one write to a file opened to append: lines of bots running at once never mix
    finally:
        os.close(fd)


def main() -> None:
    out, pause = sys.argv[1], float(sys.argv[2])
    tag = f"{os.getpid()}-{int.from_bytes(os.urandom(4), 'big'):08x}"
    note(out, "start", tag)

    import json

    first = True
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            print(json.dumps({"type": "ready", "name": tag}), flush=True)
        elif message["type"] == "request":
            if first:
                time.sleep(pause)
                first = False
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif message["type"] == "goodbye":
            break
    note(out, "end", tag)


if __name__ == "__main__":
    main()
