"""Smoke test: the worked example of golf-rules.md through the whole stack."""

from golfref.cards import parse_card
from golfref.rules import resolve_rules
from golfref.scoring import score_grid


def test_carla_example_scores_13() -> None:
    rules = resolve_rules("classic", {"layout": "2x3"})
    ranks = [parse_card(c).rank for c in ["7S", "KH", "5D", "7C", "2S", "QD"]]
    assert score_grid(ranks, rules).total == 13
