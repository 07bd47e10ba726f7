"""The kit's observation encoder and action table (golfref/kit/golfbot.py), shared with golfref.env.

Pins both layouts to their versions, checks that every decision the rules can ask for has its
actions in the table, that a bot's View (built from the very request the referee sends)
encodes as the environment's SeatView does, and that an observation holds no card its seat
has not seen.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from golfref.game.engine import ActionKind, Decision, Game
from golfref.game.rules import OPTION_NAMES, Rules, resolve_rules
from golfref.game.view import view
from golfref.kit import golfbot
from golfref.match.protocol import hello_rules
from golfref.match.seat_messages import request_line

# A rule set for every preset and for each option that changes what is decided or seen.
RULE_SETS: list[tuple[str, dict[str, object], int]] = [
    ("standard", {}, 2),
    ("standard", {"layout": "3x3"}, 6),
    ("classic", {}, 4),
    ("classic", {"layout": "4x4"}, 8),
    ("knock", {}, 3),
    ("knock", {"knock_penalty": "double", "jokers": "on", "pair_scope": "grid"}, 2),
    ("arena", {"layout": "2x2"}, 2),
    ("arena", {"card_powers": True}, 4),
    ("arena", {"card_powers": True, "layout": "2x2", "flip_after_throw": "may"}, 3),
    ("classic", {"flip_after_throw": "may", "reveal_choice": "player", "reveal": "peek", "court_values": "11/12"}, 2),
    ("classic", {"block_bonus": "on", "layout": "3x3", "lines": "columns+rows+diagonals", "swap_face": "down"}, 2),
    # The house options (version 2): suit values, the card table, the end-of-hole adjustments, new actions.
    (
        "classic",
        {
            "jokers": -2, "card_values": {"K": -2, "T": 1}, "suit_values": {"JH": 0, "JS": 0},
            "negative_pairs": "keep", "two_column_bonus": -20, "exact_score": [21, 0], "closer_penalty": 10,
            "tie_penalty": 5, "flip_out": 2, "flip_instead_of_draw": "on", "flip_after_throw": "endgame",
        },
        3,
    ),
]


def kit_rules(rules: Rules) -> golfbot.Rules:
    return golfbot.Rules.from_json(hello_rules(rules))


def digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]


def test_the_action_table_is_pinned_to_its_version() -> None:
    """Adding, removing or moving an action must raise ACTION_TABLE_VERSION and update this pin."""
    assert (golfbot.ACTION_TABLE_VERSION, len(golfbot.ACTIONS), digest(golfbot.ACTIONS)) == (
        2,
        183,
        "8ba30d0eb3876d0c",
    )


def test_the_observation_layout_is_pinned_to_its_version() -> None:
    """A new field, a resized or re-meant one must raise OBSERVATION_VERSION and update this pin."""
    layout = [golfbot.OBSERVATION_LAYOUT, golfbot.RULE_FEATURES, golfbot.SLOT_FIELDS, golfbot.RANK_CODES]
    assert (golfbot.OBSERVATION_VERSION, golfbot.OBSERVATION_SIZE, digest(layout)) == (2, 658, "295cdac7a76a6423")
    assert len(golfbot.RULE_FEATURES) == dict((n, s) for n, s, _ in golfbot.OBSERVATION_LAYOUT)["rules"]


def test_every_rule_option_is_encoded() -> None:
    """A new rule option (a new hello.rules field) fails here until the encoder reads it (and the version rises)."""
    sent = set(hello_rules(resolve_rules("standard", {}, 2))) - {"preset"}
    assert sent == golfbot.ENCODED_RULE_OPTIONS
    assert set(OPTION_NAMES) | {"players"} <= golfbot.ENCODED_RULE_OPTIONS | {"swap_face"}


def test_every_decision_and_action_kind_is_in_the_table() -> None:
    """A new decision or action kind fails here until the table (and its version) covers it."""
    assert tuple(d.value for d in Decision) == golfbot.DECISIONS
    kinds = {text.split(":")[0] for text in golfbot.ACTIONS}
    assert kinds == {k.value for k in ActionKind}


def test_action_mask_and_text() -> None:
    mask = golfbot.action_mask(["stock", "target:7:15", "flip_out"])
    assert [i for i, m in enumerate(mask) if m] == [0, len(golfbot.ACTIONS) - 2, len(golfbot.ACTIONS) - 1]
    assert golfbot.action_text(3) == "swap:0"
    with pytest.raises(ValueError, match="not in the action table"):
        golfbot.action_mask(["swap:16"])
    with pytest.raises(ValueError, match="from 0 to 182"):
        golfbot.action_text(183)


def play(rules: Rules, seed: int, at_each: object) -> None:
    """A random game under `rules`, calling `at_each(game)` at every decision."""
    rng = random.Random(seed)
    game = Game(rules)
    while not game.over:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            continue
        at_each(game)  # type: ignore[operator]
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(("preset", "options", "players"), RULE_SETS)
def test_a_bots_view_encodes_as_the_environments(preset: str, options: dict[str, object], players: int) -> None:
    """Through the request the referee sends, a kit View gives the SeatView's very numbers and mask."""
    rules = resolve_rules(preset, {**options, "holes": 2, "turn_limit": 30}, players)
    kit = kit_rules(rules)
    trained, deployed = golfbot.Encoder(kit), golfbot.Encoder(kit)
    seen = {"decisions": 0}

    def check(game: Game) -> None:
        seat = game.to_move
        assert seat is not None
        line, _ = request_line(game, seat, 1, (game.hole, 0), 1000)
        request = json.loads(line)
        bot_view = golfbot.View.from_request(request, kit, golfbot.TimeControl(1, 1, 0, 0, 0))
        encoded = trained.encode(view(game, seat))
        assert len(encoded) == golfbot.OBSERVATION_SIZE
        assert list(deployed.encode(bot_view)) == list(encoded)
        mask = golfbot.action_mask(request["legal"])
        assert [golfbot.ACTIONS[i] for i, m in enumerate(mask) if m] == sorted(
            request["legal"], key=golfbot.ACTION_INDEX.__getitem__
        )
        seen["decisions"] += 1

    for seed in range(3 if players <= 4 else 1):  # the big tables play long holes
        play(rules, seed, check)
    assert seen["decisions"] > 50


@pytest.mark.parametrize(("preset", "options", "players"), RULE_SETS)
def test_an_observation_holds_no_card_its_seat_has_not_seen(
    preset: str, options: dict[str, object], players: int
) -> None:
    """Every seat's observation, at every decision, against the full state: a rank exactly where it may know one."""
    rules = resolve_rules(preset, {**options, "holes": 2, "turn_limit": 30}, players)
    encoder = golfbot.Encoder(kit_rules(rules))
    at = golfbot.OBSERVATION_OFFSETS
    width = len(golfbot.SLOT_FIELDS)

    def check(game: Game) -> None:
        for seat in range(rules.players):
            obs = encoder.encode(view(game, seat))
            for s, grid in enumerate(game.grids):
                for i, card in enumerate(grid):
                    base = at["grids"] + (s * golfbot.MAX_SLOTS + i) * width
                    exists, face_up, rank, _ = obs[base : base + width]
                    may_know = game.up[card] or bool(game.known[card] & (1 << seat))
                    assert (exists, face_up) == (1, int(game.up[card]))
                    if may_know:
                        assert rank == golfbot.RANK_CODES.index(game.cards[card].rank.value) + 1
                    else:
                        assert rank == 0, (seat, s, i)
                for i in range(len(grid), golfbot.MAX_SLOTS):
                    base = at["grids"] + (s * golfbot.MAX_SLOTS + i) * width
                    assert list(obs[base : base + width]) == [0] * width
            drawn_rank = obs[at["drawn"] + 1]
            if game.drawn >= 0:
                knows = game.up[game.drawn] or bool(game.known[game.drawn] & (1 << seat))
                knows = knows or not game.drawn_from_stock
                assert (drawn_rank != 0) == knows
            else:
                assert drawn_rank == 0

    for seed in range(2 if players <= 4 else 1):
        play(rules, seed, check)


def test_a_kit_view_changed_in_place_is_encoded_afresh() -> None:
    """The encoder's memos trust only tuples: a bot that edits its View's lists gets their new numbers."""
    rules = resolve_rules("standard", {}, 2)
    game = Game(rules)
    game.apply_shuffle(list(game.chance or ()))
    kit = kit_rules(rules)
    request = json.loads(request_line(game, 0, 1, (0, 0), 1000)[0])
    seen = golfbot.View.from_request(request, kit, golfbot.TimeControl(1, 1, 0, 0, 0))
    encoder = golfbot.Encoder(kit)
    before = list(encoder.encode(seen))
    seen.discard.append("KS")
    seen.grids[1][5] = "QH"
    seen.totals[1] = 7
    after = list(encoder.encode(seen))
    assert after == list(golfbot.Encoder(kit).encode(seen)) != before


def test_a_cards_points_follow_the_card_table_and_its_suit() -> None:
    rules = resolve_rules("classic", {"card_values": {"K": -2}, "suit_values": {"JH": 0, "JS": 0}}, 2)
    encoder = golfbot.Encoder(kit_rules(rules))
    jack, king = golfbot.RANK_CODES.index("J") + 1, golfbot.RANK_CODES.index("K") + 1
    assert [encoder.card(c) for c in ("JH", "JS", "JD", "KC")] == [(jack, 0), (jack, 0), (jack, 10), (king, -2)]
