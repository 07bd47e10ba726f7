#!/usr/bin/env python3
"""Attack of issue 38, item 4: control characters a page or a terminal could act on.

`control_bot.py [quit]`: its reported name, version, stderr and a junk line (no JSON, sent
instead of its first answer: a fault whose line the log keeps) all hold `CONTROLS`: C1 controls
(CSI U+009B and OSC U+009D as a colour and a window title, DCS, ST, NEL), the line and
paragraph separators U+2028 and U+2029, bidirectional controls and ESC sequences. Then it
plays legal moves. With `quit` it writes them to stderr at its first request and exits 3
instead (an `exited` fault, whose stderr tail a tournament's summary and report quote).
"""

from __future__ import annotations

import json
import sys

CONTROLS = (
    "\x9b31mred\x9b0m \x9d0;owned\x9c \x90dcs\x9c nel\x85next ls\u2028ps\u2029 "
    "\u202etxt.exe\u2066iso\u2069 \x1b[31mesc\x1b[0m \x1b]0;title\x07"
)
NAME = f"ctl{CONTROLS[:12]}"
STDERR = f"stderr: {CONTROLS}"
JUNK = f"junk {CONTROLS}"


def say(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main() -> int:
    quit_at_first = sys.argv[1:] == ["quit"]
    junk_sent = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            sys.stderr.write(STDERR + "\n")
            sys.stderr.flush()
            say({"type": "ready", "name": NAME, "version": f"1{CONTROLS[:8]}"})
        elif kind == "request":
            sys.stderr.write(f"request {message['id']}: {CONTROLS}\n")
            sys.stderr.flush()
            if quit_at_first:
                return 3
            if not junk_sent:  # instead of its first answer: the referee plays a fallback for it
                junk_sent = True
                sys.stdout.write(JUNK + "\n")
                sys.stdout.flush()
                continue
            say({"type": "answer", "id": message["id"], "action": message["legal"][0]})
        elif kind == "goodbye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
