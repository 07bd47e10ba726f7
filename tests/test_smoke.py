"""Smoke test: the worked example of golf-rules.md through the whole stack."""

from golfref.game.cards import parse_card
from golfref.game.rules import resolve_rules
from golfref.game.scoring import score_grid


def test_carla_example_scores_13() -> None:
    rules = resolve_rules("classic", {"layout": "2x3"})
    ranks = [parse_card(c).rank for c in ["7S", "KH", "5D", "7C", "2S", "QD"]]
    assert score_grid(ranks, rules).total == 13
