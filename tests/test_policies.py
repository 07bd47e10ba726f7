"""The built-in policies (golfref/game/policies.py), played directly against the engine.

Both always pick a legal action and play the same match again for the same seeds. The
greedy policy also keeps its documented preferences: it takes a discard that improves its
grid, uses a J or Q power only when it would show a card it has not seen, and peeks at a
card it has not seen.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from golfref.game.cards import Rank
from golfref.game.engine import Action, ActionKind, Decision, Game
from golfref.game.policies import (
    POLICIES,
    ExpertPolicy,
    GoodPolicy,
    GreedyPolicy,
    Policy,
    RandomPolicy,
    make_policy,
)
from golfref.game.rules import PRESETS, Rules, resolve_rules
from golfref.game.view import SeatView, view

from .games import turns

# Small grids and few holes, so a match is quick and the powers come up often.
RULE_SETS = {
    **{preset: resolve_rules(preset, {"layout": "2x2", "holes": 2, "turn_limit": 30}, 3) for preset in PRESETS},
    "powers": resolve_rules("standard", {"layout": "2x2", "holes": 3, "card_powers": "on", "turn_limit": 40}, 2),
    "powers-3x3": resolve_rules("arena", {"layout": "3x3", "holes": 1, "card_powers": "on", "turn_limit": 30}, 3),
}


@dataclass(frozen=True)
class Choice:
    """One decision a policy made: what it saw, what it could do, what it did."""

    decision: Decision
    seen: SeatView
    legal: tuple[Action, ...]
    action: Action


def play(rules: Rules, policies: Sequence[Policy], seed: int) -> tuple[Game, list[Choice]]:
    """A whole match, every seat played by its policy; shuffles from `seed`."""
    game = Game(rules)
    choices = []
    for seat in turns(game, random.Random(seed)):
        assert game.decision is not None
        legal = game.legal_actions()
        seen = view(game, seat)
        action = policies[seat].choose(seen, legal)
        choices.append(Choice(game.decision, seen, legal, action))
        game.apply(action)
    return game, choices


# The search bot at its smallest budget: its choices are legal at any budget, and whole matches stay
# quick (on the 3-player 3x3 rule set with powers each of its playouts runs to the turn limit).
SMALL = {"expert": {"iterations": 1}}
# Seeds per rule set: the search bot's matches cost a thousand times a heuristic's.
SEEDS = {"expert": 2}


def builtins(name: str, rules: Rules, seed: int) -> list[Policy]:
    return [make_policy(name, rules, random.Random(seed * 10 + s), SMALL.get(name)) for s in range(rules.players)]


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("rules_id", list(RULE_SETS))
def test_every_choice_is_legal_and_the_match_ends(name: str, rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    for seed in range(SEEDS.get(name, 3)):
        game, choices = play(rules, builtins(name, rules, seed), seed)
        assert game.over and len(game.results) == rules.holes
        assert all(c.action in c.legal for c in choices)


@pytest.mark.parametrize("name", POLICIES)
def test_the_same_seeds_play_the_same_match(name: str) -> None:
    rules = RULE_SETS["powers"]
    runs = [play(rules, builtins(name, rules, seed), seed=7)[0].history for seed in (1, 1, 2)]
    assert runs[0] == runs[1]
    if name == "random":
        assert runs[0] != runs[2], "the policy's own generator decides"


def test_make_policy_builds_each_builtin_and_refuses_others() -> None:
    rules = RULE_SETS["standard"]
    assert isinstance(make_policy("random", rules, random.Random(0)), RandomPolicy)
    assert isinstance(make_policy("greedy", rules, random.Random(0)), GreedyPolicy)
    assert isinstance(make_policy("good", rules, random.Random(0)), GoodPolicy)
    assert isinstance(make_policy("expert", rules, random.Random(0), {"iterations": 3}), ExpertPolicy)
    with pytest.raises(ValueError, match="unknown built-in policy 'smart'"):
        make_policy("smart", rules, random.Random(0))


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("good", {"iterations": 3}, "built-in 'good' has no option 'iterations' \\(its options: none\\)"),
        ("expert", {"depth": 3}, "built-in 'expert' has no option 'depth' \\(its options: iterations, seed\\)"),
        ("expert", {"iterations": 0}, "option iterations must be an integer from 1 to 100000, got 0"),
        ("expert", {"iterations": True}, "option iterations must be an integer from 1 to 100000, got True"),
        ("expert", {"seed": -1}, "option seed must be an integer from 0 to"),
    ],
)
def test_make_policy_refuses_bad_options(name: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_policy(name, RULE_SETS["standard"], random.Random(0), options)


def greedy_choices(rules: Rules, seeds: range, keep: Callable[[Choice], bool]) -> list[Choice]:
    """Every choice of all-greedy matches over `seeds` for which `keep` is true."""
    return [
        c
        for seed in seeds
        for c in play(rules, [GreedyPolicy(rules, random.Random(seed)) for _ in range(rules.players)], seed)[1]
        if keep(c)
    ]


def _power_offered(c: Choice) -> bool:
    return c.decision is Decision.PLACE and any(a.kind is ActionKind.POWER for a in c.legal)


def _peek_offered(c: Choice) -> bool:
    drawn = c.seen.drawn
    return _power_offered(c) and drawn is not None and drawn.rank in (Rank.JACK, Rank.QUEEN)


def _something_to_peek(seen: SeatView) -> bool:
    """Whether a peek of the drawn J (own grid) or Q (the others' grids) would show an unseen card."""
    assert seen.drawn is not None
    if seen.drawn.rank is Rank.JACK:
        return None in seen.grids[seen.seat]
    return any(None in grid for s, grid in enumerate(seen.grids) if s != seen.seat)


@pytest.mark.parametrize("rules_id", ["powers", "powers-3x3"])
def test_greedy_never_uses_a_peek_with_nothing_to_peek_at(rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    offered = greedy_choices(rules, range(40), _peek_offered)
    used = [c for c in offered if c.action.kind is ActionKind.POWER]
    pointless = [c for c in offered if not _something_to_peek(c.seen)]
    # Both situations come up, or the test shows nothing.
    assert used and pointless, (len(used), len(pointless))
    assert all(_something_to_peek(c.seen) for c in used)


def test_greedy_peeks_at_a_card_it_has_not_seen() -> None:
    rules = RULE_SETS["powers"]
    peeks = greedy_choices(
        rules, range(40), lambda c: c.decision is Decision.TARGET and c.seen.power in (Rank.JACK, Rank.QUEEN)
    )
    assert peeks
    for c in peeks:
        assert c.action.seat is not None and c.action.slot is not None
        assert c.seen.grids[c.action.seat][c.action.slot] is None, "a peek at a card already known"


def test_greedy_takes_a_low_discard_onto_a_known_high_card() -> None:
    """Seat 0 knows a Q (10) in its grid and a K (0) tops the discard pile: it takes the K."""
    rules = RULE_SETS["powers"]
    game = Game(rules)
    cards = list(range(len(game.cards)))
    queen = next(i for i in cards if game.ranks[i] is Rank.QUEEN)
    king = next(i for i in cards if game.ranks[i] is Rank.KING)
    rest = [i for i in cards if i not in (queen, king)]
    n = rules.cards
    # Seat 0's slot 0 (peeked at the start) is the Q; the first card after the grids starts the pile.
    order = [queen, *rest[: n - 1], *rest[n - 1 : 2 * n - 1], king, *rest[2 * n - 1 :]]
    game.apply_shuffle(order)
    greedy = GreedyPolicy(rules)
    while game.decision is not Decision.DRAW:  # a reveal phase, if the rules have one
        seat = game.to_move
        assert seat is not None
        game.apply(greedy.choose(view(game, seat), game.legal_actions()))
    assert game.to_move == 0
    seen = view(game, 0)
    assert seen.grids[0][0] is not None and seen.grids[0][0].rank is Rank.QUEEN
    assert seen.discard[-1].rank is Rank.KING
    assert greedy.choose(seen, game.legal_actions()).kind is ActionKind.DRAW_DISCARD
    game.apply(Action(ActionKind.DRAW_DISCARD))
    assert greedy.choose(view(game, 0), game.legal_actions()) == Action(ActionKind.SWAP, 0), "the K replaces the Q"


@pytest.mark.parametrize(
    ("suit_values", "top", "taken"),
    [
        ({}, "JH", False),  # a jack is 10: no better than the unseen cards it would replace
        ({"JH": 0, "JS": 0}, "JH", True),  # one-eyed jacks: the jack of hearts is 0
        ({"JH": 0, "JS": 0}, "JD", False),  # the suit decides, not the rank
    ],
)
def test_greedy_counts_a_cards_suit_value(suit_values: dict[str, int], top: str, taken: bool) -> None:
    """Seat 0 knows a 9 in its grid and a jack tops the pile: greedy takes it only where that jack is worth 0."""
    rules = resolve_rules("standard", {"layout": "2x2", "holes": 1, "suit_values": suit_values}, 2)
    game = Game(rules)
    cards = list(range(len(game.cards)))
    nine = next(i for i in cards if game.ranks[i] is Rank.NINE)
    jack = next(i for i in cards if game.cards[i].name == top)
    rest = [i for i in cards if i not in (nine, jack)]
    n = rules.cards
    # Seat 0's slot 0 (peeked at the start) is the 9; the first card after the grids starts the pile.
    order = [nine, *rest[: 2 * n - 1], jack, *rest[2 * n - 1 :]]
    game.apply_shuffle(order)
    greedy = GreedyPolicy(rules)
    assert game.decision is Decision.DRAW and game.to_move == 0
    seen = view(game, 0)
    assert seen.grids[0][0] is not None and seen.grids[0][0].rank is Rank.NINE
    assert seen.discard[-1].name == top
    choice = greedy.choose(seen, game.legal_actions())
    assert choice.kind is (ActionKind.DRAW_DISCARD if taken else ActionKind.DRAW_STOCK)
    if taken:
        game.apply(choice)
        assert greedy.choose(view(game, 0), game.legal_actions()) == Action(ActionKind.SWAP, 0), "onto the 9"
