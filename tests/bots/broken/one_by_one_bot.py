#!/usr/bin/env python3
"""Mis-reads the 1x1 layout: it swaps into the second slot it assumes every grid has; legal[0] otherwise."""

from broken import play


def choose(hello, request):
    if request["decision"] == "place":
        return "swap:1"
    return request["legal"][0]


play("one_by_one", choose)
