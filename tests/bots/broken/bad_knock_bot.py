#!/usr/bin/env python3
"""Never knocks correctly: under rules with knocking it answers `knock` at every draw, offered or not."""

from broken import play


def choose(hello, request):
    if request["decision"] == "draw" and hello["rules"]["knocking"]:
        return "knock"
    return request["legal"][0]


play("bad_knock", choose)
