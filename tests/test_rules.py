"""Rule options and presets: resolved defaults, overrides, rejections (golf-rules.md)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
import yaml

from golfref.game.engine import Game
from golfref.game.rules import (
    HOUSE_OPTIONS,
    OPTION_NAMES,
    PRESETS,
    Cancel,
    CourtValues,
    FlipAfterThrow,
    KnockPenalty,
    Lines,
    PairScope,
    Reveal,
    RevealChoice,
    Rules,
    RulesError,
    parse_layout,
    resolve_rules,
    rules_from_dict,
)

# --- the option table of golf-rules.md, at each preset's default layout (2x3), 2 players ---

COMMON = {
    "players": 2,
    "layout": "2x3",
    "decks": 1,
    "jokers": "off",
    "court_values": "10/10",
    "reveal_count": 2,
    "knock_penalty": 10,
    "block_bonus": "off",
    "card_powers": False,
    "holes": 9,
    "turn_limit": 100,  # D8
}

PRESET_TABLE: dict[str, dict[str, Any]] = {
    "standard": {
        **COMMON,
        "preset": "standard",
        "twos": -2,
        "reveal": "peek",
        "reveal_choice": "fixed",
        "flip_after_throw": "must",
        "swap_face": "up",
        "knocking": False,
        "lines": "columns",
        "cancel": "line",
        "pair_scope": "columns",
    },
    "classic": {
        **COMMON,
        "preset": "classic",
        "twos": -2,
        "reveal": "flip",
        "reveal_choice": "player",
        "flip_after_throw": "none",
        "swap_face": "up",
        "knocking": False,
        "lines": "columns",
        "cancel": "line",
        "pair_scope": "columns",
    },
    "knock": {
        **COMMON,
        "preset": "knock",
        "twos": 2,
        "reveal": "flip",
        "reveal_choice": "player",
        "flip_after_throw": "none",
        "swap_face": "up",
        "knocking": True,
        "lines": "columns",
        "cancel": "pairs",
        "pair_scope": "columns",
    },
    "arena": {
        **COMMON,
        "preset": "arena",
        "twos": -2,
        "reveal": "flip",
        "reveal_choice": "player",
        "flip_after_throw": "none",
        "swap_face": "up",
        "knocking": False,
        "lines": "columns",  # D15: column scoring until line scoring is switched on
        "cancel": "line",
        "pair_scope": "columns",
    },
}


@pytest.mark.parametrize("preset", list(PRESET_TABLE))
def test_preset_defaults_match_the_option_table(preset: str) -> None:
    rules = resolve_rules(preset)
    assert rules.to_dict() == PRESET_TABLE[preset]


def test_default_preset_is_standard() -> None:
    assert resolve_rules() == resolve_rules("standard", {}, 2)
    assert resolve_rules().preset == "standard"


def test_presets_are_exactly_the_four() -> None:
    assert set(PRESETS) == {"standard", "classic", "knock", "arena"}


def test_to_dict_keys_are_option_names_in_order() -> None:
    # The house options are written only when set: a rule set without them reads as before.
    plain = [name for name in OPTION_NAMES if name not in HOUSE_OPTIONS]
    assert list(resolve_rules("knock").to_dict()) == ["preset", "players", *plain]
    every = {
        "jokers": -2,
        "card_values": {"K": -2},
        "suit_values": {"JH": 0},
        "joker_count": 1,
        "joker_pair": -4,
        "negative_pairs": "keep",
        "two_column_bonus": -20,
        "jack_columns_bonus": -20,
        "exact_score": [21, 0],
        "closer_penalty": 10,
        "closer_bonus": -5,
        "low_score_bonus": -3,
        "tie_penalty": 5,
        "flip_instead_of_draw": True,
        "flip_out": 2,
    }
    assert list(resolve_rules("knock", every).to_dict()) == ["preset", "players", *OPTION_NAMES]


def test_rules_typed_values() -> None:
    r = resolve_rules("standard")
    assert (r.rows, r.cols, r.cards, r.layout) == (2, 3, 6, "2x3")
    assert r.reveal is Reveal.PEEK and r.reveal_choice is RevealChoice.FIXED
    assert r.flip_after_throw is FlipAfterThrow.MUST
    assert r.swap_face_up is True and r.jokers is None and r.block_bonus is None
    assert r.lines is Lines.COLUMNS and r.cancel is Cancel.LINE and r.pair_scope is PairScope.COLUMNS
    assert (r.jack_value, r.queen_value) == (10, 10)
    assert resolve_rules("classic", {"court_values": "11/12"}).jack_value == 11
    assert resolve_rules("classic", {"court_values": "11/12"}).queen_value == 12


# --- layout and player dependent defaults ----------------------------------------------

LAYOUTS = ["1x1", "1x4", "2x2", "2x3", "2x4", "3x3", "3x4", "4x4"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_standard_rows_cancel_on_3x3_only(preset: str, layout: str) -> None:
    rules = resolve_rules(preset, {"layout": layout})
    rows_too = preset == "standard" and layout == "3x3"
    assert rules.lines is (Lines.ROWS if rows_too else Lines.COLUMNS)


STANDARD_DECKS = [
    (players, layout, 2 if players * cards > 24 else 1)
    for players in range(2, 7)
    for layout, cards in [("2x2", 4), ("2x3", 6), ("2x4", 8), ("3x3", 9)]
]


@pytest.mark.parametrize(("players", "layout", "decks"), STANDARD_DECKS)
def test_standard_auto_decks(players: int, layout: str, decks: int) -> None:
    """standard: 2 decks when players x cards > 24, else 1 (e.g. 4x6 = 24 -> 1, 3x9 = 27 -> 2)."""
    assert resolve_rules("standard", {"layout": layout}, players).decks == decks


def test_standard_auto_decks_boundaries_explicitly() -> None:
    assert resolve_rules("standard", {"layout": "2x3"}, 4).decks == 1  # 24
    assert resolve_rules("standard", {"layout": "2x3"}, 5).decks == 2  # 30
    assert resolve_rules("standard", {"layout": "2x2"}, 6).decks == 1  # 24
    assert resolve_rules("standard", {"layout": "3x3"}, 3).decks == 2  # 27
    assert resolve_rules("standard", {"layout": "3x3"}, 2).decks == 1  # 18


@pytest.mark.parametrize("preset", ["classic", "knock"])
@pytest.mark.parametrize("layout", ["2x2", "2x3", "2x4", "3x3"])
@pytest.mark.parametrize("players", range(2, 9))
def test_classic_and_knock_auto_decks(preset: str, layout: str, players: int) -> None:
    """classic/knock: 1 deck for 2-4 players, 2 for 5-8."""
    expected = 1 if players <= 4 else 2
    assert resolve_rules(preset, {"layout": layout}, players).decks == expected


ARENA_DECKS = {
    "2x2": {p: 1 for p in range(2, 9)},
    "2x3": {p: 1 if p <= 5 else 2 for p in range(2, 9)},
    "3x3": {p: 1 if p <= 3 else 2 if p <= 6 else 3 for p in range(2, 9)},
}


@pytest.mark.parametrize(
    ("layout", "players", "decks"),
    [(layout, p, d) for layout, table in ARENA_DECKS.items() for p, d in table.items()],
)
def test_arena_auto_decks(layout: str, players: int, decks: int) -> None:
    """arena: 4-card 1; 6-card 1 for 2-5, 2 for 6-8; 9-card 1 for 2-3, 2 for 4-6, 3 for 7-8."""
    assert resolve_rules("arena", {"layout": layout}, players).decks == decks


# (preset, layout) -> reveal_count, reveal, swap_face, knocking
LAYOUT_DEFAULTS = [
    ("arena", "2x2", 2, "peek", "down", True),
    ("arena", "2x3", 2, "flip", "up", False),
    ("arena", "3x3", 3, "flip", "up", False),
    ("arena", "2x4", 2, "flip", "up", False),
    ("arena", "4", 2, "peek", "down", True),  # 4 cards = 2x2
    ("arena", "9", 3, "flip", "up", False),
    ("standard", "2x2", 2, "peek", "up", False),
    ("standard", "3x3", 2, "peek", "up", False),
    ("classic", "2x2", 2, "flip", "up", False),
    ("classic", "3x3", 2, "flip", "up", False),
    ("knock", "2x2", 2, "flip", "up", True),
    ("knock", "3x3", 2, "flip", "up", True),
]


@pytest.mark.parametrize(("preset", "layout", "count", "reveal", "swap", "knocking"), LAYOUT_DEFAULTS)
def test_layout_dependent_defaults(
    preset: str, layout: str, count: int, reveal: str, swap: str, knocking: bool
) -> None:
    d = resolve_rules(preset, {"layout": layout}).to_dict()
    assert (d["reveal_count"], d["reveal"], d["swap_face"], d["knocking"]) == (count, reveal, swap, knocking)


@pytest.mark.parametrize(("layout", "count"), [("1x1", 1), ("1x2", 2), ("2x2", 2)])
def test_preset_reveal_count_never_exceeds_a_small_grid(layout: str, count: int) -> None:
    assert resolve_rules("standard", {"layout": layout}).reveal_count == count


# An explicit override always wins over a layout- or player-dependent default.
OVERRIDES_WIN = [
    ("standard", 2, {"layout": "3x3", "lines": "columns"}, "lines", "columns"),
    ("standard", 2, {"layout": "2x3", "lines": "columns+rows"}, "lines", "columns+rows"),
    ("standard", 3, {"layout": "3x3", "decks": 1}, "decks", 1),
    ("standard", 4, {"layout": "2x3", "decks": 2}, "decks", 2),
    ("standard", 2, {"layout": "2x3", "decks": "auto"}, "decks", 1),
    ("classic", 5, {"decks": 1}, "decks", 1),
    ("classic", 2, {"decks": 3}, "decks", 3),
    ("knock", 8, {"decks": 4}, "decks", 4),
    ("arena", 7, {"layout": "3x3", "decks": 4}, "decks", 4),
    ("arena", 4, {"layout": "3x3", "decks": 1}, "decks", 1),
    ("arena", 2, {"layout": "3x3", "reveal_count": 2}, "reveal_count", 2),
    ("arena", 2, {"layout": "3x3", "reveal_count": 0}, "reveal_count", 0),
    ("arena", 2, {"layout": "2x3", "reveal_count": 3}, "reveal_count", 3),
    ("arena", 2, {"layout": "2x2", "reveal": "flip"}, "reveal", "flip"),
    ("arena", 2, {"layout": "2x2", "swap_face": "up"}, "swap_face", "up"),
    ("arena", 2, {"layout": "2x2", "knocking": False}, "knocking", False),
    ("arena", 2, {"layout": "2x2", "knocking": "off"}, "knocking", False),
    ("arena", 2, {"layout": "2x3", "reveal": "peek"}, "reveal", "peek"),
    ("arena", 2, {"layout": "2x3", "swap_face": "down"}, "swap_face", "down"),
    ("arena", 2, {"layout": "3x3", "knocking": True}, "knocking", True),
    ("arena", 2, {"layout": "3x3", "lines": "columns+rows+diagonals"}, "lines", "columns+rows+diagonals"),
    ("arena", 2, {"lines": "columns+rows"}, "lines", "columns+rows"),
    ("standard", 2, {"reveal": "flip"}, "reveal", "flip"),
    ("standard", 2, {"reveal_choice": "player"}, "reveal_choice", "player"),
    ("classic", 2, {"flip_after_throw": "may"}, "flip_after_throw", "may"),
    ("classic", 2, {"flip_after_throw": False}, "flip_after_throw", "none"),  # YAML `no`
    ("classic", 2, {"flip_after_throw": "no"}, "flip_after_throw", "none"),
    ("knock", 2, {"twos": -2}, "twos", -2),
    ("knock", 2, {"knock_penalty": "double"}, "knock_penalty", "double"),
    ("knock", 2, {"knock_penalty": 0}, "knock_penalty", 0),
    ("knock", 2, {"pair_scope": "grid"}, "pair_scope", "grid"),
    ("knock", 2, {"pair_scope": "columns+rows"}, "pair_scope", "columns+rows"),
    ("classic", 2, {"jokers": "on"}, "jokers", -2),
    ("classic", 2, {"jokers": True}, "jokers", -2),
    ("classic", 2, {"jokers": -5}, "jokers", -5),
    ("classic", 2, {"jokers": "-5"}, "jokers", -5),
    ("classic", 2, {"block_bonus": "on"}, "block_bonus", -20),
    ("classic", 2, {"block_bonus": -30}, "block_bonus", -30),
    ("classic", 2, {"court_values": "11/12"}, "court_values", "11/12"),
    ("classic", 2, {"card_powers": "on"}, "card_powers", True),
    ("classic", 2, {"holes": 18}, "holes", 18),
    ("classic", 2, {"turn_limit": 5}, "turn_limit", 5),
    ("classic", 2, {"layout": 9}, "layout", "3x3"),
    ("classic", 2, {"layout": "8"}, "layout", "2x4"),
    ("classic", 2, {"layout": "4×4"}, "layout", "4x4"),
    ("classic", 2, {"layout": " 1X4 "}, "layout", "1x4"),
]


@pytest.mark.parametrize(("preset", "players", "overrides", "option", "value"), OVERRIDES_WIN)
def test_explicit_override_wins(preset: str, players: int, overrides: dict[str, Any], option: str, value: Any) -> None:
    assert resolve_rules(preset, overrides, players).to_dict()[option] == value


def test_arena_layout_override_drives_the_dependent_defaults_together() -> None:
    r = resolve_rules("arena", {"layout": "2x2"}, 8)
    assert (r.reveal, r.swap_face_up, r.knocking, r.decks, r.reveal_count) == (Reveal.PEEK, False, True, 1, 2)


def test_auto_decks_never_leave_an_impossible_deal() -> None:
    """Where a preset's own deck rule is too small for a layout its text never names (3x4,
    4x4), auto still gives a deal that fits (D12 rejects only a config that asks for it),
    and never fewer decks than the preset's rule."""
    for preset, layout, players in itertools.product(PRESETS, ["3x4", "4x4"], range(2, 9)):
        if players > PRESETS[preset]["max_players"]:
            continue
        r = resolve_rules(preset, {"layout": layout}, players)
        assert players * r.cards + 2 <= r.decks * 52, (preset, layout, players, r.decks)
        if preset in ("classic", "knock"):
            assert r.decks >= (1 if players <= 4 else 2)
        if preset == "standard":
            assert r.decks >= (2 if players * r.cards > 24 else 1)
    assert resolve_rules("classic", {"layout": "4x4"}, 8).decks == 3  # 130 cards


# --- rejections ----------------------------------------------------------------------


def _error(preset: str = "standard", overrides: dict[str, Any] | None = None, players: int = 2) -> str:
    with pytest.raises(RulesError) as info:
        resolve_rules(preset, overrides, players)
    return str(info.value)


@pytest.mark.parametrize(
    ("preset", "overrides", "players"),
    [
        ("classic", {"layout": "3x3", "decks": 1}, 6),  # 54 + 2 > 52
        ("classic", {"layout": "4x4", "decks": 1}, 4),  # 64 + 2 > 52
        ("knock", {"layout": "4x4", "decks": 2}, 8),  # 128 + 2 > 104
        ("arena", {"layout": "4x4", "decks": 2}, 7),  # 112 + 2 > 104
        ("standard", {"layout": "4x4", "decks": 1}, 4),  # 64 + 2 > 52
        ("classic", {"layout": "3x3", "decks": 1, "jokers": -2}, 6),  # 56 > 54 even with jokers
    ],
)
def test_deal_that_does_not_fit_is_rejected_D12(preset: str, overrides: dict[str, Any], players: int) -> None:
    msg = _error(preset, overrides, players)
    assert "does not fit" in msg
    for option in ("players", "layout", "decks"):
        assert option in msg


@pytest.mark.parametrize(
    ("players", "layout", "decks"),
    [(8, "2x3", 1), (6, "2x4", 1), (5, "3x3", 1), (8, "3x4", 2), (6, "4x4", 2), (8, "4x4", 3)],
)
def test_deal_that_exactly_fits_is_accepted_D12(players: int, layout: str, decks: int) -> None:
    """Grids + 1 discard + at least 1 stock card fit."""
    assert resolve_rules("classic", {"layout": layout, "decks": decks}, players).decks == decks


@pytest.mark.parametrize(("joker_count", "fits"), [(3, False), (4, True), ("per_deck", False)])
def test_the_deal_needs_every_grid_one_discard_and_one_stock_card_D12(joker_count: object, fits: bool) -> None:
    """At the edge: 6 players x 9 cards + 1 discard + 1 stock card = 56 cards, from one deck and its jokers."""
    overrides = {"layout": "3x3", "decks": 1, "jokers": -2, "joker_count": joker_count}
    if not fits:  # 52 + 3 jokers (or two per deck) = 55 or 54 cards: one short
        msg = _error("classic", overrides, 6)
        shoe = 55 if joker_count == 3 else 54
        assert f"6 players x 9 cards + 1 discard + 1 stock card needs 56 cards, but 1 deck(s) hold {shoe}" in msg
        assert "jokers" in msg and ("joker_count" in msg) is (joker_count != "per_deck")
        return
    game = Game(resolve_rules("classic", overrides, 6))
    assert game.chance is not None and len(game.chance) == 56
    game.apply_shuffle(list(game.chance))
    assert len(game.discard) == 1 and len(game.stock) == 1  # the deal leaves exactly one stock card


@pytest.mark.parametrize(("layout", "count"), [("2x2", 5), ("2x3", 7), ("1x1", 2), ("3x3", 10), ("4x4", 17)])
def test_reveal_count_above_grid_size_is_rejected(layout: str, count: int) -> None:
    msg = _error("classic", {"layout": layout, "reveal_count": count})
    assert "reveal_count" in msg
    assert str(count) in msg


@pytest.mark.parametrize("layout", ["4x4", "3x3", "2x2"])
def test_reveal_count_equal_to_grid_size_is_accepted(layout: str) -> None:
    cards = resolve_rules("classic", {"layout": layout}).cards
    assert resolve_rules("classic", {"layout": layout, "reveal_count": cards}).reveal_count == cards


@pytest.mark.parametrize("layout", ["2x3", "2x4", "1x4", "3x4", "4x1"])
def test_diagonals_on_non_square_grid_rejected(layout: str) -> None:
    msg = _error("arena", {"layout": layout, "lines": "columns+rows+diagonals"})
    assert "lines" in msg and "layout" in msg and "diagonal" in msg


@pytest.mark.parametrize("layout", ["1x1", "2x2", "3x3", "4x4"])
def test_diagonals_on_square_grid_accepted(layout: str) -> None:
    assert resolve_rules("arena", {"layout": layout, "lines": "columns+rows+diagonals"}).lines is Lines.DIAGONALS


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [0, 1, 9, 10, -2])
def test_players_outside_2_to_8_rejected(preset: str, players: int) -> None:
    msg = _error(preset, None, players)
    assert "players" in msg and str(players) in msg


@pytest.mark.parametrize("players", [True, "3", 2.0])
def test_players_must_be_a_whole_number(players: Any) -> None:
    assert "players" in _error("classic", None, players)


@pytest.mark.parametrize("players", [7, 8])
def test_standard_takes_at_most_six_players(players: int) -> None:
    msg = _error("standard", None, players)
    assert "players" in msg and "standard" in msg and str(players) in msg


@pytest.mark.parametrize("preset", ["classic", "knock", "arena"])
def test_other_presets_take_eight_players(preset: str) -> None:
    assert resolve_rules(preset, None, 8).players == 8


def test_standard_takes_six_players() -> None:
    assert resolve_rules("standard", {"layout": "3x3"}, 6).decks == 2


@pytest.mark.parametrize(
    "layout",
    ["5x3", "0x2", "3x5", "1x0", "4x5", "abc", "2x", "x3", "2x3x4", "", 5, 7, 0, 16, True, 2.5, None, "-2x3"],
)
def test_layout_outside_1_to_4_or_unreadable_rejected(layout: Any) -> None:
    assert "layout" in _error("classic", {"layout": layout})


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ("1x1", (1, 1)),
        ("4x4", (4, 4)),
        ("1x4", (1, 4)),
        ("4x1", (4, 1)),
        (4, (2, 2)),
        (6, (2, 3)),
        (8, (2, 4)),
        (9, (3, 3)),
        ("6", (2, 3)),
    ],
)
def test_parse_layout_accepts(value: Any, shape: tuple[int, int]) -> None:
    assert parse_layout(value) == shape


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("layuot", "layout"),
        ("jokres", "jokers"),
        ("decs", "decks"),
        ("swap_face_up", "swap_face"),
        ("reveal_cnt", "reveal_count"),
        ("knock_penalties", "knock_penalty"),
        ("court_value", "court_values"),
        ("Holes", "holes"),
    ],
)
def test_unknown_option_suggests_nearest_name(name: str, suggestion: str) -> None:
    msg = _error("classic", {name: 1})
    assert repr(name) in msg
    assert f"did you mean {suggestion!r}" in msg


def test_unknown_option_far_from_any_name_has_no_suggestion() -> None:
    msg = _error("classic", {"zzzzzzzzzzzzzz": 1})
    assert "'zzzzzzzzzzzzzz'" in msg and "did you mean" not in msg


@pytest.mark.parametrize("name", ["players", "preset"])
def test_players_and_preset_are_not_overrides(name: str) -> None:
    assert repr(name) in _error("classic", {name: 3})


@pytest.mark.parametrize(
    ("name", "suggestion"), [("clasic", "classic"), ("standrd", "standard"), ("Arena", "arena"), ("knok", "knock")]
)
def test_unknown_preset_suggests_nearest(name: str, suggestion: str) -> None:
    msg = _error(name)
    assert "preset" in msg and repr(name) in msg and f"did you mean {suggestion!r}" in msg


def test_unknown_preset_lists_presets() -> None:
    msg = _error("poker")
    for preset in PRESETS:
        assert preset in msg


BAD_VALUES = [
    ("decks", 0),
    ("decks", 5),
    ("decks", "many"),
    ("decks", 2.5),
    ("decks", True),
    ("decks", None),
    ("jokers", "maybe"),
    ("jokers", 2.5),
    ("jokers", [1]),
    ("twos", 0),
    ("twos", 1),
    ("twos", 3),
    ("twos", -3),
    ("twos", "two"),
    ("twos", True),
    ("court_values", "10/11"),
    ("court_values", "12/11"),
    ("court_values", 10),
    ("reveal_count", -1),
    ("reveal_count", "two"),
    ("reveal_count", 2.5),
    ("reveal_count", None),
    ("reveal", "show"),
    ("reveal", 1),
    ("reveal", True),
    ("reveal_choice", "random"),
    ("reveal_choice", None),
    ("flip_after_throw", "always"),
    ("flip_after_throw", 1),
    ("swap_face", "sideways"),
    ("swap_face", True),
    ("swap_face", 1),
    ("knocking", "maybe"),
    ("knocking", 1),
    ("knock_penalty", -1),
    ("knock_penalty", 101),
    ("knock_penalty", "triple"),
    ("knock_penalty", True),
    ("lines", "rows"),
    ("lines", "diagonals"),
    ("lines", 3),
    ("cancel", "all"),
    ("cancel", None),
    ("block_bonus", "maybe"),
    ("block_bonus", 2.5),
    ("card_powers", "maybe"),
    ("card_powers", 1),
    ("card_powers", None),
    ("holes", 0),
    ("holes", 37),
    ("holes", "nine"),
    ("turn_limit", 0),
    ("turn_limit", 10_001),
    ("turn_limit", "x"),
]


@pytest.mark.parametrize(("option", "value"), BAD_VALUES)
def test_bad_value_rejected_naming_the_option(option: str, value: Any) -> None:
    msg = _error("classic", {option: value})
    assert option in msg


@pytest.mark.parametrize("value", ["anywhere", "rows", 1])
def test_bad_pair_scope_rejected(value: Any) -> None:
    assert "pair_scope" in _error("knock", {"pair_scope": value})


def test_pair_scope_without_pairs_is_rejected() -> None:
    msg = _error("classic", {"pair_scope": "grid"})
    assert "pair_scope" in msg and "cancel" in msg


def test_lines_with_pairs_is_rejected() -> None:
    msg = _error("knock", {"lines": "columns+rows"})
    assert "lines" in msg and "cancel" in msg


@pytest.mark.parametrize(
    ("preset", "option", "layout"),
    [
        ("standard", "reveal", "2x3"),
        ("classic", "reveal", "2x2"),
        ("standard", "swap_face", "2x2"),
        ("knock", "knocking", "2x3"),
        ("classic", "knocking", "2x2"),
        ("classic", "lines", "3x3"),
    ],
)
def test_explicit_none_is_not_silently_another_presets_auto_rule(preset: str, option: str, layout: str) -> None:
    """BUG: an explicit `None` (YAML `~`/`null`) for reveal, swap_face, knocking or lines is
    taken as "resolve from the layout" with another preset's rule: standard's reveal becomes
    flip on 2x3, knock's knocking turns off on 2x3, classic's lines gain rows on 3x3. A bad
    value must be rejected with RulesError, or at worst leave the preset's own default.
    """
    preset_default = resolve_rules(preset, {"layout": layout}).to_dict()[option]
    try:
        got = resolve_rules(preset, {"layout": layout, option: None}).to_dict()[option]
    except RulesError as e:
        assert option in str(e)
    else:
        assert got == preset_default, f"{option}=None gave {got!r}, preset default is {preset_default!r}"


# --- to_dict / rules_from_dict ----------------------------------------------------------

ROUND_TRIP_CASES: list[tuple[str, dict[str, Any], int]] = [
    (preset, {"layout": layout}, players)
    for preset, layout, players in itertools.product(PRESETS, LAYOUTS, [2, 4, 6, 8])
    if players <= PRESETS[preset]["max_players"]
] + [
    ("classic", {"jokers": -5, "court_values": "11/12", "block_bonus": "on", "flip_after_throw": "may"}, 3),
    ("knock", {"pair_scope": "grid", "knock_penalty": "double", "twos": -2, "jokers": 0}, 5),
    ("arena", {"layout": "3x3", "lines": "columns+rows+diagonals", "card_powers": True}, 7),
    ("arena", {"layout": "2x2", "knocking": False, "reveal": "flip", "swap_face": "up"}, 2),
    ("standard", {"layout": "3x3", "lines": "columns", "reveal_count": 0, "holes": 3, "turn_limit": 7}, 6),
]


@pytest.mark.parametrize(("preset", "overrides", "players"), ROUND_TRIP_CASES)
def test_to_dict_round_trips(preset: str, overrides: dict[str, Any], players: int) -> None:
    rules = resolve_rules(preset, overrides, players)
    data = rules.to_dict()
    assert rules_from_dict(data) == rules
    # the plain data survives JSON and YAML unchanged
    assert rules_from_dict(json.loads(json.dumps(data))) == rules
    assert rules_from_dict(yaml.safe_load(yaml.safe_dump(data, sort_keys=False))) == rules


def test_round_trip_is_a_fixed_point() -> None:
    rules = resolve_rules("arena", {"layout": "2x2"}, 5)
    assert rules_from_dict(rules.to_dict()).to_dict() == rules.to_dict()


@pytest.mark.parametrize(
    "change",
    [
        {"layout": "6"},  # same shape but not the written form
        {"lines": "columns+rows"},  # with cancel: pairs
        {"extra": 1},
        {"players": 9},
        {"preset": "golf"},
        {"preset": 3},
    ],
)
def test_rules_from_dict_rejects_what_is_not_a_resolved_rule_set(change: dict[str, Any]) -> None:
    data = {**resolve_rules("knock").to_dict(), **change}
    with pytest.raises(RulesError):
        rules_from_dict(data)


def test_rules_from_dict_rejects_missing_keys_and_non_mappings() -> None:
    data = resolve_rules("classic").to_dict()
    del data["players"]
    with pytest.raises(RulesError):
        rules_from_dict(data)
    with pytest.raises(RulesError):
        rules_from_dict(["classic"])  # type: ignore[arg-type]


def test_rules_is_frozen() -> None:
    rules = resolve_rules()
    with pytest.raises(AttributeError):
        rules.players = 3  # type: ignore[misc]
    assert isinstance(rules, Rules)


def test_presets_resolve_as_snapshot() -> None:
    """Every preset, player count and layout resolves exactly as recorded before the presets were
    written as one base plus differences (tests/golden_rules/make_presets.py)."""
    from tests.golden_rules.make_presets import PATH, resolved

    assert resolved() == json.loads(PATH.read_text())


def test_option_values_are_enums_written_in_their_config_form() -> None:
    rules = resolve_rules("knock", {"knock_penalty": "double", "court_values": "11/12"}, 3)
    assert rules.knock_penalty is KnockPenalty.DOUBLE
    assert rules.court_values is CourtValues.ELEVEN_TWELVE
    assert (rules.jack_value, rules.queen_value) == (11, 12)
    written = rules.to_dict()
    assert (written["knock_penalty"], written["court_values"]) == ("double", "11/12")
    assert rules_from_dict(written) == rules
    plain = resolve_rules("knock", {}, 3)
    assert (plain.knock_penalty, plain.court_values) == (10, CourtValues.TEN_TEN)
    assert (plain.to_dict()["knock_penalty"], plain.to_dict()["court_values"]) == (10, "10/10")
