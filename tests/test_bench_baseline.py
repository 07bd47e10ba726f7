"""The engine benchmark's bare loop plays the very games the engine plays (an honest baseline)."""

from __future__ import annotations

import pytest

from bench.engine import bare_matches, play_matches
from golfref.game.rules import resolve_rules


@pytest.mark.parametrize("seed", [1, 7, 20])
def test_the_bare_loop_takes_the_engines_decisions(seed: int) -> None:
    # Same generator, same choices in the same order: the same deals and moves, so the same
    # number of decisions. A baseline doing less work than the engine would flatter nothing,
    # one doing other work would measure nothing.
    rules = resolve_rules("standard", {}, 2)
    assert bare_matches(20, seed) == play_matches(rules, 20, seed, with_views=False)
