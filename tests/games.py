"""Playing games in tests: the shuffles done, each decision handed to the test."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from golfref.game.engine import Game


def turns(game: Game, shuffler: random.Random, until: Callable[[Game], bool] = lambda g: g.over) -> Iterator[int]:
    """Yield the seat to move at each decision of `game`, shuffling at its chance nodes, until `until(game)`.

    The caller applies an action before asking for the next turn.
    """
    while not until(game):
        if game.chance is not None:
            order = list(game.chance)
            shuffler.shuffle(order)
            game.apply_shuffle(order)
            continue
        seat = game.to_move
        assert seat is not None
        yield seat
