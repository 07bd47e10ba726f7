#!/usr/bin/env python3
"""Written for protocol 2: exits at a request offering an action that version did not have (flip_out)."""

import re
import sys

from broken import play

# Every action of protocol version 2; flip:N then came only after a throw, but it is the same word.
KNOWN = re.compile(r"stock|discard|knock|swap:\d+|throw|power|flip:\d+|pass|reveal:\d+|target:\d+:\d+")


def choose(hello, request):
    for action in request["legal"]:
        if not KNOWN.fullmatch(action):
            sys.exit(f"protocol2_bot: unknown action {action!r}")  # one line on stderr, exit status 1
    return request["legal"][0]


play("protocol2", choose)
