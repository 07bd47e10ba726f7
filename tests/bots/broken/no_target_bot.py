#!/usr/bin/env python3
"""Cannot handle a card power's target: crashes on every `target` decision; legal[0] otherwise."""

from broken import play


def choose(hello, request):
    if request["decision"] == "target":
        raise NotImplementedError("no_target_bot: card powers are not written yet")
    return request["legal"][0]


play("no_target", choose)
