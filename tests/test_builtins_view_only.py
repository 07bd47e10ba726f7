"""Every built-in decides from its seat's view alone (issue 24): the same view, the same choice.

Over many positions of random matches, for every preset and the rule options that change
what a seat sees (powers, knocking, peeks, face-down swaps, several decks with jokers), a
second full state is built that agrees with the first on the moving seat's view and puts
the cards that seat has not seen elsewhere (`expert.determinize`: the very sampler the
search bot uses, so this also checks that its samples agree with the view). Each built-in,
made afresh with the same seed for each state, must choose the same on both.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from golfref.game.engine import Game
from golfref.game.expert import _sample, determinize
from golfref.game.policies import POLICIES, make_policy
from golfref.game.rules import PRESETS, Rules, resolve_rules
from golfref.game.view import view

RULE_SETS = {
    **{preset: resolve_rules(preset, {"layout": "2x2", "holes": 2}, 3) for preset in PRESETS},
    "classic-2x3": resolve_rules("classic", {"holes": 1}, 2),
    "powers": resolve_rules("standard", {"layout": "2x3", "holes": 1, "card_powers": "on"}, 3),
    "arena-powers-4": resolve_rules("arena", {"layout": "2x2", "holes": 1, "card_powers": "on"}, 2),
    "knock-jokers": resolve_rules("knock", {"layout": "3x3", "holes": 1, "jokers": -2, "decks": 2}, 4),
    "peek-player": resolve_rules("standard", {"layout": "2x3", "holes": 1, "reveal_choice": "player"}, 2),
    "house": resolve_rules(
        "classic",
        {"layout": "2x2", "holes": 1, "jokers": -5, "joker_count": 1, "flip_instead_of_draw": True, "flip_out": 2,
         "card_values": {"K": -2}, "tie_penalty": 5},
        2,
    ),
    "may-flip-5": resolve_rules("classic", {"layout": "2x2", "holes": 1, "flip_after_throw": "may"}, 5),
}


def positions(rules: Rules, seed: int, every: int) -> Iterator[Game]:
    """Every `every`-th decision of a match of random play (a copy of the game at it)."""
    game = Game(rules)
    rng = random.Random(seed)
    count = 0
    while not game.over:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            continue
        count += 1
        legal = game.legal_actions()
        if count % every == 0 and len(legal) > 1:
            yield game.clone()
        game.apply(rng.choice(legal))


@pytest.mark.parametrize("rules_id", list(RULE_SETS))
def test_a_builtin_chooses_the_same_whatever_the_hidden_cards(rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    ids = {c: i for i, c in enumerate(Game(rules).cards)}
    checked = differed = 0
    for seed in range(6):
        for game in positions(rules, seed, every=3):
            seat = game.to_move
            assert seat is not None
            seen = view(game, seat)
            sample = _sample(seen, ids, random.Random(seed * 1000 + checked))
            assert sample is not None, "the view's cards add up to the shoe"
            other = determinize(rules, seen, ids, sample)
            assert view(other, seat) == seen, "the second state shows the seat what the first does"
            assert other.legal_actions() == game.legal_actions()
            differed += other.grids != game.grids or other.stock != game.stock
            for name in POLICIES:
                # Its smallest budget: the same seed and view must give the same choice at any budget.
                options = {"iterations": 1, "seed": 11} if name == "expert" else None
                first = make_policy(name, rules, random.Random(5), options).choose(seen, game.legal_actions())
                again = make_policy(name, rules, random.Random(5), options)
                second = again.choose(view(other, seat), other.legal_actions())
                assert first == second, (name, seat, seen)
            checked += 1
    assert checked > 10 and differed > checked // 2, (checked, differed)
