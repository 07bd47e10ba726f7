#!/usr/bin/env python3
"""Plays like echo_bot (legal[0]) except at request N (argv[1]), where it answers its last legal choice."""

import sys

from broken import play

AT = int(sys.argv[1])


def choose(hello, request):
    return request["legal"][-1 if request["id"] == AT else 0]


play("diverge", choose)
