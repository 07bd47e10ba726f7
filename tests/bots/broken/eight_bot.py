#!/usr/bin/env python3
"""Crashes at 8 players: its table of seats holds 7 (an IndexError at the first request); legal[0] otherwise."""

from broken import play

SEATS = [0] * 7


def choose(hello, request):
    for seat in range(len(request["view"]["grids"])):
        SEATS[seat] += 1
    return request["legal"][0]


play("eight", choose)
