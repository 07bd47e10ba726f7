#!/usr/bin/env python3
"""Cannot handle a card power's target: crashes on every `target` decision; legal[0] otherwise."""

from broken import play


def choose(hello, request):
    if request["decision"] == "target":
        # What check-bot must catch: this bot is broken by design.
        raise NotImplementedError("no_target_bot: a broken bot by design: it has no code for card powers")
    return request["legal"][0]


play("no_target", choose)
