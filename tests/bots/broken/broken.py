"""Shared plumbing of the broken bots: the protocol loop, with one decision left to each bot."""

import json
import sys


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def play(name, choose):
    """Answer hello with ready and each request with `choose(hello, request)`; exit on goodbye."""
    hello = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            hello = message
            say({"type": "ready", "name": name, "version": "1"})
        elif kind == "request":
            say({"type": "answer", "id": message["id"], "action": choose(hello, message)})
        elif kind == "goodbye":
            return
