"""The house options (docs/RULES.md, "House options"): card values by rank and suit, what a
cancelled line scores, the column bonuses and the end-of-hole adjustments in their order."""

from __future__ import annotations

import random
from typing import Any

import pytest

from golfref.game.cards import Rank, deck_set, parse_grid
from golfref.game.engine import Game
from golfref.game.narrate import rules_summary
from golfref.game.rules import RulesError, resolve_rules, rules_from_dict
from golfref.game.scoring import (
    GridScore,
    adjust_hole,
    card_points,
    exact_scored,
    forfeit_score,
    hole_scores,
    score_grid,
)
from golfref.match.protocol import hello_rules

from .games import turns


def _score(grid: str, **overrides: Any) -> int:
    rules = resolve_rules("classic", overrides)
    cards = [c for row in parse_grid(grid) for c in row]
    return score_grid([c.rank for c in cards], rules, [c.suit for c in cards]).total


def test_card_values_override_the_table() -> None:
    assert _score("KS TS 5D / 7C 2S QD") == 0 + 10 + 5 + 7 - 2 + 10
    assert _score("KS TS 5D / 7C 2S QD", card_values={"K": -2, "10": 1}) == -2 + 1 + 5 + 7 - 2 + 10
    assert _score("KS TS 5D / 7C 2S QD", card_values="K:-2,T:1") == -2 + 1 + 5 + 7 - 2 + 10
    table = resolve_rules("classic", {"card_values": {"K": -2}}).card_table()
    assert (table[Rank.KING], table[Rank.ACE], table[Rank.TWO]) == (-2, 1, -2) and Rank.JOKER not in table


def test_suit_values_need_suits_and_win_over_rank_values() -> None:
    assert _score("JH JD 5D / 7C 2S QD", suit_values={"JH": 0, "JS": 0}) == 0 + 10 + 5 + 7 - 2 + 10
    rules = resolve_rules("classic", {"suit_values": {"JH": 0}})
    with pytest.raises(ValueError, match="suit"):
        score_grid([c.rank for row in parse_grid("JH JD 5D / 7C 2S QD") for c in row], rules)


def test_card_points_is_what_a_card_scores_alone() -> None:
    # The card's points in a grid of one card (no line to cancel): the table, then its suit's own value.
    overrides = {"layout": "1x1", "jokers": 3, "card_values": {"K": -2, "T": 1}, "suit_values": {"JH": 0, "KS": 7}}
    rules = resolve_rules("classic", overrides)
    shoe = deck_set(2, True)
    for card in shoe:
        assert card_points(card, rules) == score_grid([card.rank], rules, [card.suit]).total, card
    by_name = {card.name: card_points(card, rules) for card in shoe}
    named = ("JH#2", "JD", "KS", "KH", "TC", "XR")
    assert [by_name[name] for name in named] == [0, 10, 7, -2, 1, 3]
    with pytest.raises(ValueError, match="jokers option is off"):
        card_points(shoe[-1], resolve_rules("classic", {"layout": "1x1"}))


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"card_values": {"Z": 1}}, "card_values: unknown rank"),
        ({"card_values": {"X": 1}}, "needs jokers on"),
        ({"card_values": {"K": 101}}, "card_values.K: must be -100 to 100"),
        ({"suit_values": {"J": 0}}, "suit_values: expected a rank and a suit"),
        ({"joker_count": 1}, "joker_count: applies only with jokers on"),
        ({"jokers": -5, "joker_count": 9}, "joker_count: must be 1 to 8"),
        ({"joker_pair": -4}, "joker_pair: applies only with jokers on"),
        ({"negative_pairs": "kept"}, "negative_pairs: expected one of cancel, keep"),
        ({"exact_score": "21"}, "exact_score: expected off or"),
        ({"tie_penalty": "lots"}, "tie_penalty: expected off, on or a whole number"),
    ],
)
def test_bad_house_options_are_named(overrides: dict[str, Any], problem: str) -> None:
    with pytest.raises(RulesError, match=problem):
        resolve_rules("classic", overrides)


def test_one_joker_in_the_shoe() -> None:
    rules = resolve_rules("classic", {"jokers": -5, "joker_count": 1})
    jokers = [c for c in deck_set(rules.decks, True, rules.joker_count) if c.rank.value == "X"]
    assert [str(c) for c in jokers] == ["XR"]
    assert sum(1 for c in Game(rules).cards if str(c).startswith("X")) == 1


def test_joker_pair_and_negative_pairs() -> None:
    jokers = {"jokers": 2, "joker_pair": -4}
    assert _score("X 5D 6D / X 7C 8C", **jokers) == -4 + 5 + 6 + 7 + 8
    assert _score("X 5D 6D / 3C 7C 8C", **jokers) == 2 + 3 + 5 + 6 + 7 + 8
    assert _score("2S 5D 6D / 2C 7C 8C") == 5 + 6 + 7 + 8
    assert _score("2S 5D 6D / 2C 7C 8C", negative_pairs="keep") == -4 + 5 + 6 + 7 + 8
    kings = {"card_values": {"K": -2}, "negative_pairs": "keep"}
    assert _score("KS QD QH / KC 7C 8C", **kings) == -4 + 10 + 10 + 7 + 8
    # A pair of jokers scores joker_pair even where negative pairs keep their value.
    assert _score("X 5D 6D / X 7C 8C", jokers=-2, joker_pair=-4, negative_pairs="keep") == -4 + 26


def _scored(grid: str, preset: str, **overrides: Any) -> GridScore:
    """`grid` scored under `preset` and `overrides`, its shape setting the layout."""
    rows = parse_grid(grid)
    rules = resolve_rules(preset, {"layout": f"{len(rows)}x{len(rows[0])}", **overrides})
    cards = [c for row in rows for c in row]
    return score_grid([c.rank for c in cards], rules, [c.suit for c in cards])


_KEEP = {"twos": -2, "negative_pairs": "keep"}


@pytest.mark.parametrize(
    ("grid", "overrides", "points"),
    [
        # Issue 37's grids: the 2s keep their -4 while the 9s of the same group cancel.
        ("9S / 9H / 2S / 2H", _KEEP, (0, 0, -2, -2)),
        ("9S 2S 5D / 9H 2H 7C", {**_KEEP, "pair_scope": "grid"}, (0, -2, 5, 0, -2, 7)),
        # A knock match's grid (2x4, pairs anywhere): the jacks cancel beside the 2s.
        ("2D 2H 7S TH / JD JH AH 3D", {**_KEEP, "pair_scope": "grid"}, (-2, -2, 7, 10, 0, 0, 1, 3)),
        # A pair of jokers beside another pair is a line of jokers: it scores joker_pair.
        ("X / X / 5S / 5H", {"jokers": 2, "joker_pair": -4}, (-2, -2, 0, 0)),
    ],
    ids=["column", "grid", "knock-match", "jokers"],
)
def test_G18_under_pairs_each_rank_of_a_group_is_a_line_of_its_own(
    grid: str, overrides: dict[str, Any], points: tuple[int, ...]
) -> None:
    result = _scored(grid, "knock", **overrides)
    assert (result.total, result.points) == (sum(points), points)


def test_G19_keep_judges_a_block_card_by_its_own_points_not_its_share() -> None:
    # The 5s' shares are -5, but a 5 is not negative: the fifth 5 cancels as without keep.
    fives = _scored("5S 5H / 5D 5C / 5H 9C", "classic", block_bonus="on", negative_pairs="keep")
    assert (fives.total, fives.points) == (-11, (-5, -5, -5, -5, 0, 9))
    # A 2 is negative whatever its share: the fifth 2 keeps its -2.
    twos = _scored("2S 2H / 2D 2C / 2H 9C", "classic", block_bonus="on", negative_pairs="keep")
    assert (twos.total, twos.points) == (-13, (-5, -5, -5, -5, -2, 9))


@pytest.mark.parametrize(
    ("grid", "overrides", "points"),
    [
        # The block took four jokers; the fifth gets its share of the column's -6 (-2), not all of it.
        ("X X / X X / X 5C", {"block_bonus": "on"}, (-5, -5, -5, -5, -2, 5)),
        # Column 0 decided the corner joker; row 0 gives its other two their shares, -2 each.
        ("X X X / X 4S 5S / X 6S 7S", {"lines": "columns+rows"}, (-2, -2, -2, -2, 4, 5, -2, 6, 7)),
    ],
    ids=["block", "earlier-line"],
)
def test_G20_a_partly_decided_line_of_jokers_gives_its_other_jokers_their_shares(
    grid: str, overrides: dict[str, Any], points: tuple[int, ...]
) -> None:
    result = _scored(grid, "classic", jokers="on", joker_pair=-6, **overrides)
    assert (result.total, result.points) == (sum(points), points)


def test_column_bonuses_stack() -> None:
    four = {"two_column_bonus": -20}
    assert _score("7S 3D 7D / 7C 3C 7H", **four) == -20
    assert _score("7S 3D 7D / 7C 3C 5H", **four) == 7 + 5
    jacks = {"two_column_bonus": -20, "jack_columns_bonus": -20}
    assert _score("JS 3D JD / JC 3C JH", **jacks) == -40
    assert _score("JS 3D JD / JC 3C JH", jack_columns_bonus=-20) == -20
    assert _score("JS 3D 7D / JC 3C 7H", jack_columns_bonus=-20) == 0


def test_exact_score_and_the_order_of_adjustments() -> None:
    rules = resolve_rules(
        "classic",
        {"exact_score": [21, 0], "closer_penalty": 10, "closer_bonus": -5, "low_score_bonus": -3, "tie_penalty": 5},
        3,
    )
    assert exact_scored(21, rules) == 0 and exact_scored(22, rules) == 22
    # Seat 0 closed with 12 against 9 and 15: +10, then -5; seat 1 is lowest: -3; no tie.
    assert adjust_hole([12, 9, 15], rules, 0) == [17, 6, 15]
    # A tie for lowest is no closer penalty; the closer's -5 then makes it lowest alone (-3).
    assert adjust_hole([9, 9, 15], rules, 0) == [9 - 5 - 3, 9, 15]
    # The closer's bonus can make a tie that tie_penalty then punishes (applied last).
    tie_after = resolve_rules("classic", {"closer_bonus": -5, "tie_penalty": 5}, 2)
    assert adjust_hole([9, 4], tie_after, 0) == [9, 9]
    assert adjust_hole([9, 4], tie_after, 1) == [9, -1]


def test_house_options_round_trip_and_reach_hello_and_the_narrator() -> None:
    overrides = {
        "jokers": -5,
        "joker_count": 1,
        "card_values": {"K": -2, "T": 1},
        "suit_values": {"JH": 0, "JS": 0},
        "negative_pairs": "keep",
        "two_column_bonus": -20,
        "exact_score": "21=0",
        "tie_penalty": 5,
    }
    rules = resolve_rules("classic", overrides, 3)
    assert rules_from_dict(rules.to_dict()) == rules
    hello = hello_rules(rules)
    assert hello["card_values"]["K"] == -2 and hello["card_values"]["X"] == -5 and hello["card_values"]["A"] == 1
    assert hello["suit_values"] == {"JS": 0, "JH": 0} and hello["exact_score"] == [21, 0]
    assert hello["closer_bonus"] is None and hello["joker_count"] == 1
    words = " ".join(rules_summary(rules)[-1])
    assert "K -2" in words and "exactly 21 becomes 0" in words and "tied scores +5" in words
    assert len(rules_summary(resolve_rules("classic"))) == 3
    assert forfeit_score(rules) >= 6 * 10 + 5


def test_a_hole_with_house_adjustments_adds_up() -> None:
    """Every hole of random games: score = grid total + penalty, and the adjustments are those of adjust_hole."""
    rules = resolve_rules("classic", {"closer_bonus": -5, "low_score_bonus": -3, "tie_penalty": 5, "holes": 3}, 3)
    game = Game(rules)
    rng = random.Random(5)
    while not game.over:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            continue
        game.apply(rng.choice(list(game.legal_actions())))
    for r in game.results:
        grid = [gs.total for gs in r.grid_scores]
        assert list(r.scores) == [g + p for g, p in zip(grid, r.penalties, strict=True)]
        assert list(r.scores) == adjust_hole(grid, rules, r.ender)


def _random_games(overrides: dict[str, Any], games: int = 20) -> list[tuple[Game, Any, tuple[str, ...]]]:
    """Every decision of random games under `overrides`: the game just before it, the action, the legal ones."""
    rules = resolve_rules("classic", {**overrides, "holes": 2}, 3)
    seen = []
    for seed in range(games):
        game, rng = Game(rules), random.Random(seed)
        for _ in turns(game, rng):
            legal = game.legal_actions()
            action = rng.choice(legal)
            seen.append((game.clone(), action, tuple(str(a) for a in legal)))
            game.apply(action)
    return seen


def _face_down(game: Game, seat: int) -> list[int]:
    return [i for i, c in enumerate(game.grids[seat]) if not game.up[c]]


def test_endgame_flip_is_offered_only_near_the_end() -> None:
    offered = declined = 0
    for game, action, _legal in _random_games({"flip_after_throw": "endgame"}):
        if str(action) != "throw":
            continue
        seat = game.to_move
        assert seat is not None
        near_end = any(len(_face_down(game, s)) <= 1 for s in range(game.players))
        game.apply(action)
        if game.to_move == seat and game.decision is not None and game.decision.value == "flip":
            assert near_end and "pass" in [str(a) for a in game.legal_actions()]
            offered += 1
        else:
            assert not near_end or game.grid_full(seat)
            declined += 1
    assert offered and declined


def test_flip_instead_of_draw_and_flip_out_are_offered_exactly_when_allowed() -> None:
    flips = outs = 0
    for game, action, legal in _random_games({"flip_instead_of_draw": True, "flip_out": 2}):
        if game.decision is None or game.decision.value != "draw":
            continue
        seat = game.to_move
        assert seat is not None
        down = _face_down(game, seat)
        assert [a for a in legal if a.startswith("flip:")] == [f"flip:{i}" for i in down]
        assert ("flip_out" in legal) == (1 <= len(down) <= 2)
        if str(action) == "flip_out":
            outs += 1
            open_hole = game.closer is None and game.knocker is None
            hole = game.hole
            game.apply(action)
            if game.hole == hole:
                assert game.grid_full(seat)
                # Going out is a close (D3) unless the hole was already closed.
                assert game.closer == seat or not open_hole
        elif str(action).startswith("flip:"):
            flips += 1
    assert flips and outs
    plain = _random_games({}, games=3)
    assert not any(a.startswith("flip") for g, _, legal in plain if g.decision.value == "draw" for a in legal)


def test_hole_scores_apply_exact_score_then_the_knock_penalty_then_the_adjustments() -> None:
    knock = resolve_rules("knock", {"exact_score": [21, 0], "closer_bonus": -5}, 3)
    # Seat 1 knocked with 21, made 0, and ties seat 2: a failed knock (D4) costs it 10; nobody closed.
    assert hole_scores([7, 21, 0], knock, None, 1) == [7, 0 + 10 - 5, 0]
    assert hole_scores([7, 3, 4], knock, None, 1) == [7, 3 - 5, 4]  # strictly lowest: no penalty
    double = resolve_rules("knock", {"knock_penalty": "double"}, 2)
    assert hole_scores([2, 6], double, None, 1) == [2, 12] and hole_scores([-3, -1], double, None, 1) == [-3, -1]
    # The closer, not the knocker, ended the hole first where both are there.
    closing = resolve_rules("knock", {"closer_penalty": 10}, 3)
    assert hole_scores([5, 1, 9], closing, 2, 1) == [5, 1, 19]
