"""Python policies for tests/test_python_players.py: each a `python: py_policies:NAME` player.

Deterministic, so that the same seed gives the same moves in the referee's process and in a child process.
"""

from __future__ import annotations

import sys
import time
from typing import Any


class Lowest:
    """Takes a low discard, swaps into the first slot it has not seen, else plays the first legal choice."""

    name = "lowest"
    made = 0  # how many instances were made: one per match

    def __init__(self) -> None:
        type(self).made += 1

    def choose(self, view: Any, legal: list[str]) -> str:
        if "discard" in legal and view.discard and view.discard[-1][0] in "A23K":
            return "discard"
        unseen = [f"swap:{i}" for i, card in enumerate(view.grid) if card is None]
        return next((a for a in unseen if a in legal), legal[0])


def first(view: Any, legal: list[str]) -> str:
    return legal[0]


def raises(view: Any, legal: list[str]) -> str:
    raise RuntimeError("a policy that fails on purpose")


def illegal(view: Any, legal: list[str]) -> str:
    return "jump"


def chatty(view: Any, legal: list[str]) -> str:
    print("thinking about", view.decision)
    print("to stderr", file=sys.stderr)
    return legal[0]


def slow(view: Any, legal: list[str]) -> str:
    time.sleep(0.01)
    return legal[0]


INSTANCE = Lowest()
NOT_A_POLICY = 42
