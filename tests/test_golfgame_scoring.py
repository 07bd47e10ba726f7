"""golfref's scoring against the golfgame server's own scorer (docs/RULES.md, "The online server's house rules").

tests/vectors/golfgame_scoring.json holds what that server's code computes, at the commit the
file names (`source`), for every scoring house rule alone and in every combination:

- `grids`: one 2x3 grid, the decks whose shoe holds it, the server's house-rule flags that
  were on, and the score its `Player.calculate_score` gave;
- `holes`: 2 to 6 grids (dealt together from the shoe of `decks` decks), the seat that went
  out first (`finisher`, or null), the flags, and the hole scores its `Game._end_round`
  gave (blackjack, knock penalty and bonus, underdog, tied shame on top of each grid's
  score).

How they were made (`how` in the file says the same): the server's `server/game.py` and
`server/constants.py` were taken from its repository at that commit and run, unchanged,
outside this repository by a throwaway script with a fixed seed; the grids are drawn at
random, biased towards pairs, jacks, twos, kings, tens and jokers, and a hole's grids towards
a 21 and a tie. Neither the server's code nor the script is part of golfref: only its
results are. To check a later commit of the server, make the vectors again the same way.

The test maps each flag to golfref's options as RULES.md's table does (`OPTIONS` below) and
checks that golfref's one scorer gives the same number for every vector.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from golfref.game.cards import parse_grid
from golfref.game.rules import Rules, resolve_rules
from golfref.game.scoring import adjust_hole, exact_scored, score_grid

DATA = json.loads((Path(__file__).parent / "vectors" / "golfgame_scoring.json").read_text(encoding="utf-8"))
COMMIT = "ea34ddf8e4b7760fab4d05daa53191e690b3da20"

# Each of the server's flags as golfref options (the table of docs/RULES.md).
OPTIONS: dict[str, dict[str, Any]] = {
    "use_jokers": {"jokers": -2},
    "lucky_swing": {"jokers": -5, "joker_count": 1},
    "eagle_eye": {"jokers": 2, "joker_pair": -4},
    "super_kings": {"card_values": {"K": -2}},
    "ten_penny": {"card_values": {"T": 1}},
    "one_eyed_jacks": {"suit_values": {"JH": 0, "JS": 0}},
    "negative_pairs_keep_value": {"negative_pairs": "keep"},
    "four_of_a_kind": {"two_column_bonus": -20},
    "wolfpack": {"jack_columns_bonus": -20},
    "blackjack": {"exact_score": [21, 0]},
    "knock_penalty": {"closer_penalty": 10},
    "knock_bonus": {"closer_bonus": -5},
    "underdog_bonus": {"low_score_bonus": -3},
    "tied_shame": {"tie_penalty": 5},
}


def overrides_for(flags: list[str], decks: int = 1) -> dict[str, Any]:
    """golfref's overrides of `classic` for a set of the server's flags."""
    out: dict[str, Any] = {"layout": "2x3", "decks": decks, "holes": 1}
    if "use_jokers" not in flags:
        flags = [f for f in flags if f not in ("lucky_swing", "eagle_eye")]  # no joker in play: they change nothing
    for flag in flags:
        for name, value in OPTIONS[flag].items():
            if name == "card_values":
                out[name] = {**out.get(name, {}), **value}
            elif name == "jokers" and "eagle_eye" in flags:
                out[name] = OPTIONS["eagle_eye"]["jokers"]  # an eagle-eyed joker is +2 whatever else is on
            else:
                out[name] = value
    return out


@cache
def _rules(flags: tuple[str, ...], players: int, decks: int = 1) -> Rules:
    return resolve_rules("classic", overrides_for(list(flags), decks), players)


def _grid_total(text: str, rules: Rules) -> int:
    cards = [c for row in parse_grid(text) for c in row]
    return score_grid([c.rank for c in cards], rules, [c.suit for c in cards]).total


GRID_FLAGS = ("super_kings", "ten_penny", "one_eyed_jacks", "negative_pairs_keep_value", "four_of_a_kind", "wolfpack")
HOLE_FLAGS = ("blackjack", "knock_penalty", "knock_bonus", "underdog_bonus", "tied_shame")
JOKER_FLAGS = ("use_jokers", "lucky_swing", "eagle_eye")


def test_the_vectors_name_the_commit_and_cover_every_rule_alone_and_together() -> None:
    assert DATA["source"]["commit"] == COMMIT
    grid_sets = {frozenset(v["options"]) for v in DATA["grids"]}
    # Every subset of the grid rules, with each state of the jokers.
    assert len({s - set(JOKER_FLAGS) for s in grid_sets}) == 2 ** len(GRID_FLAGS)
    assert len({s & set(JOKER_FLAGS) for s in grid_sets}) == 5
    hole_sets = {frozenset(v["options"]) & set(HOLE_FLAGS) for v in DATA["holes"]}
    assert len(hole_sets) == 2 ** len(HOLE_FLAGS)
    assert set(OPTIONS) == set(GRID_FLAGS) | set(HOLE_FLAGS) | set(JOKER_FLAGS)
    # The holes hold what their rules are about: a 21, a tie, nobody out.
    assert any(21 in [_grid_total(g, _rules((), 2)) for g in v["grids"]] for v in DATA["holes"])
    assert any(len(set(v["scores"])) < len(v["scores"]) for v in DATA["holes"])
    assert any(v["finisher"] is None for v in DATA["holes"])


def test_every_grid_scores_as_the_server_scores_it() -> None:
    wrong = []
    for v in DATA["grids"]:
        got = _grid_total(v["grid"], _rules(tuple(v["options"]), 2, v["decks"]))
        if got != v["score"]:
            wrong.append(f"{v['grid']} with {v['options']}: golfref {got}, the server {v['score']}")
    assert not wrong, f"{len(wrong)} of {len(DATA['grids'])} differ, first: {wrong[0]}"


def test_every_hole_scores_as_the_server_scores_it() -> None:
    wrong = []
    for v in DATA["holes"]:
        rules = _rules(tuple(v["options"]), len(v["grids"]), v["decks"])
        grid = [exact_scored(_grid_total(text, rules), rules) for text in v["grids"]]
        got = adjust_hole(grid, rules, v["finisher"])
        if got != v["scores"]:
            where = f"{v['grids']} first {v['finisher']} with {v['options']}"
            wrong.append(f"{where}: golfref {got}, the server {v['scores']}")
    assert not wrong, f"{len(wrong)} of {len(DATA['holes'])} differ, first: {wrong[0]}"


@pytest.mark.parametrize("flag", sorted(OPTIONS))
def test_each_flag_maps_to_options_that_resolve(flag: str) -> None:
    rules = resolve_rules("classic", overrides_for(["use_jokers", flag]), 6)
    assert rules.to_dict()["decks"] == 1


def test_rules_md_gives_the_servers_default_game_as_an_option_set() -> None:
    import yaml

    text = (Path(__file__).parent.parent / "docs" / "RULES.md").read_text(encoding="utf-8")
    section = text[text.index("## The online server's house rules") :]
    block = section[section.index("```yaml\n") + 8 : section.index("```", section.index("```yaml\n") + 8)]
    rules = yaml.safe_load(block)["rules"]
    preset = rules.pop("preset")
    for players in range(2, 7):  # its rooms seat 2 to 6, from one deck
        resolved = resolve_rules(preset, rules, players)
        assert (resolved.layout, resolved.decks, resolved.holes, resolved.jokers) == ("2x3", 1, 1, None)
        assert resolved.flip_after_throw.value == "none" and resolved.reveal_count == 2
        assert resolved.house_dict() == {}


def test_the_python_kits_scorer_gives_the_servers_numbers() -> None:
    # golfbot.grid_score and hole_scores, what a bot scores with (tests/test_kit_rules.py holds the other kits to them).
    from golfref.kit import golfbot
    from golfref.match.protocol import hello_rules

    wrong = []
    for v in DATA["grids"]:
        kit = golfbot.Rules.from_json(hello_rules(_rules(tuple(v["options"]), 2, v["decks"])))
        grid = [c.name for row in parse_grid(v["grid"]) for c in row]
        assert kit.exact_score is None  # blackjack is a hole rule: the grid vectors are the server's grid scores
        if golfbot.grid_score(kit, grid) != v["score"]:
            wrong.append(f"{v['grid']} with {v['options']}")
    for v in DATA["holes"]:
        kit = golfbot.Rules.from_json(hello_rules(_rules(tuple(v["options"]), len(v["grids"]), v["decks"])))
        grids = [[c.name for row in parse_grid(text) for c in row] for text in v["grids"]]
        if golfbot.hole_scores(kit, grids, v["finisher"], None) != v["scores"]:
            wrong.append(f"{v['grids']} first {v['finisher']} with {v['options']}")
    assert not wrong, f"{len(wrong)} differ, first: {wrong[0]}"
