"""The `expert` built-in's playout policy (golfref/game/expert.py, `Rollout`).

Its playouts play `good`'s heuristic, each seat from what it knows in the sampled state:
here the two make the same choice at every position of `good`-against-`good` matches, over
the presets and the options `good` reads (card powers aside: the playout throws a power
card). Its estimates take a shortcut where every group is two slots or none is shared
(`Rollout.fast`); the shortcut and the plain computation agree on random grids. The search
spends its budget (iterations playouts per legal action) first on every action, then on the
two that decide.
"""

from __future__ import annotations

import random

import pytest

from golfref.game import expert
from golfref.game.engine import Action, Game
from golfref.game.expert import Rollout
from golfref.game.good import GoodPolicy
from golfref.game.rules import Rules, resolve_rules
from golfref.game.view import view

from .games import turns

RULE_SETS = {
    "classic": resolve_rules("classic", {"layout": "2x2", "holes": 1}, 2),
    "standard": resolve_rules("standard", {"layout": "2x2", "holes": 1}, 3),
    "arena": resolve_rules("arena", {"layout": "2x2", "holes": 1}, 2),
    "knock": resolve_rules("knock", {"layout": "2x2", "holes": 1}, 2),
    "classic-2x3": resolve_rules("classic", {"holes": 1}, 2),
    "standard-3x3": resolve_rules("standard", {"layout": "3x3", "holes": 1}, 2),
    "classic-3x3": resolve_rules("classic", {"layout": "3x3", "holes": 1}, 2),
    "pairs-grid": resolve_rules("knock", {"layout": "3x3", "holes": 1, "pair_scope": "grid"}, 2),
    "pairs-rows": resolve_rules("knock", {"layout": "2x4", "holes": 1, "pair_scope": "columns+rows"}, 2),
    "diagonals": resolve_rules("arena", {"layout": "3x3", "holes": 1, "lines": "columns+rows+diagonals"}, 2),
    "jokers-courts": resolve_rules("classic", {"holes": 1, "jokers": -5, "court_values": "11/12", "decks": 2}, 3),
    "may-flip": resolve_rules("classic", {"holes": 1, "flip_after_throw": "may"}, 2),
    "endgame-flip": resolve_rules("classic", {"layout": "2x2", "holes": 1, "flip_after_throw": "endgame"}, 2),
    "house": resolve_rules(
        "classic",
        {
            "layout": "2x2",
            "holes": 1,
            "jokers": -5,
            "joker_count": 1,
            "flip_instead_of_draw": True,
            "flip_out": 2,
            "card_values": {"K": -2},
            "tie_penalty": 5,
        },
        2,
    ),
}


@pytest.mark.parametrize("rules_id", list(RULE_SETS))
def test_the_playout_policy_chooses_as_good_does(rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    good, rollout = GoodPolicy(rules), Rollout(rules)
    decisions = set()
    for deal in range(25):
        game = Game(rules)
        for seat in turns(game, random.Random(deal), until=lambda g: bool(g.results)):
            legal = game.legal_actions()
            choice = good.choose(view(game, seat), legal)
            assert rollout.choose(game, seat, legal) == choice, (rules_id, deal, view(game, seat))
            decisions.add((game.decision, choice.kind))
            game.apply(choice)
    assert len(decisions) >= 4, "the matches reached draws, swaps and throws"


FAST_OR_NOT = ["classic", "classic-2x3", "classic-3x3", "standard-3x3", "pairs-grid", "diagonals"]


@pytest.mark.parametrize("rules_id", FAST_OR_NOT)
def test_the_fast_estimates_are_the_plain_ones(rules_id: str) -> None:
    rules = RULE_SETS[rules_id]
    rollout = Rollout(rules)
    plain = Rollout(rules)
    plain.fast = False
    rng = random.Random(rules_id)
    ranks_in_play = sorted(set(rollout.rank))
    for _ in range(500):
        # Each slot a known card or an unknown one (its own negative rank: it matches nothing).
        ranks = [rng.choice(ranks_in_play) if rng.random() < 0.7 else -1 - i for i in range(rules.cards)]
        points = [float(rng.randint(-5, 12)) if r >= 0 else 5.0 for r in ranks]
        rank, value = rng.choice(ranks_in_play), float(rng.randint(-5, 12))
        assert rollout._afters(ranks, points, rank, value) == plain._afters(ranks, points, rank, value)
    assert rollout.fast is (rules_id in ("classic", "classic-2x3", "classic-3x3"))


def test_rule_sets_cover_what_good_reads() -> None:
    seen: set[str] = set()
    for rules in RULE_SETS.values():
        assert isinstance(rules, Rules) and not rules.card_powers
        seen.update(k for k, v in rules.to_dict().items() if v not in (None, False, "off"))
    assert {"lines", "cancel", "pair_scope", "flip_after_throw", "swap_face", "knocking", "jokers"} <= seen


def test_the_budget_is_spent_on_the_two_finalists_after_a_first_look_at_every_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = RULE_SETS["classic"]
    game = Game(rules)

    def wide(g: Game) -> bool:
        """At a decision of more than two actions."""
        return g.decision is not None and len(g.legal_actions()) > 2

    for mover in turns(game, random.Random(3), until=wide):
        game.apply(GoodPolicy(rules).choose(view(game, mover), game.legal_actions()))
    seat, legal = game.to_move, game.legal_actions()
    assert seat is not None
    played: list[Action] = []
    real = expert._play_out

    def counted(state: Game, action: Action, rollout: Rollout, rng: random.Random) -> tuple[int, ...]:
        played.append(action)
        return real(state, action, rollout, rng)

    monkeypatch.setattr(expert, "_play_out", counted)
    policy = expert.ExpertPolicy(rules, iterations=50)
    choice = policy.choose(view(game, seat), legal)
    assert choice in legal
    assert len(played) == 50 * len(legal), "the budget is iterations playouts per action"
    screened = round(50 * expert.SCREEN)
    counts = sorted((played.count(a) for a in legal), reverse=True)
    finalists = screened + (50 - screened) * len(legal) // 2
    assert counts[:2] == [finalists, finalists] and set(counts[2:]) == {screened}
    good = GoodPolicy(rules).choose(view(game, seat), legal)
    assert played.count(good) == finalists, "good's choice is always a finalist"
