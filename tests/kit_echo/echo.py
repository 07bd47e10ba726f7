"""A bot on the Python kit that answers every request with what the kit read (tests/test_kit_rules.py)."""

import dataclasses
import json

import golfbot

UNSEEN = 1000  # no card is worth this: the test tells an unseen card by it


def choose(view, legal):
    ranks = golfbot.rank_points(view.rules)

    def points(card):
        return golfbot.card_points(view.rules, card, UNSEEN, ranks)

    rules = dataclasses.asdict(view.rules)
    rules.pop("layout")
    rules.update(rows=view.rules.rows, cols=view.rules.cols)
    rules["card_values"] = dict(rules["card_values"])
    rules["suit_values"] = dict(rules["suit_values"])
    return json.dumps(
        {
            "rules": rules,
            "grids": [[points(c) for c in grid] for grid in view.grids],
            "discard": [points(c) for c in view.discard],
            "drawn": points(view.drawn),
            "grid_scores": [golfbot.grid_score(view.rules, grid, UNSEEN) for grid in view.grids],
            "hole_scores": golfbot.hole_scores(view.rules, view.grids, view.closer, view.knocker, UNSEEN),
        }
    )


golfbot.play(choose, name="python-echo")
