"""Scoring a revealed grid: the worked examples of golf-rules.md, every scoring option,
and decisions D9 (cancelling) and D10 (blocks)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from golfref.game import cards
from golfref.game.cards import Rank
from golfref.game.rules import resolve_rules
from golfref.game.scoring import GridScore, block_slots, card_value, forfeit_score, rank_values, score_grid


def parse_grid(text: str) -> tuple[list[Rank], str]:
    """`"7S KH / 7C 2S"` -> ranks row-major and the layout `2x2`."""
    rows = cards.parse_grid(text)
    return [card.rank for row in rows for card in row], f"{len(rows)}x{len(rows[0])}"


def score(text: str, preset: str = "classic", **overrides: Any) -> GridScore:
    ranks, layout = parse_grid(text)
    rules = resolve_rules(preset, {"layout": layout, **overrides})
    return score_grid(ranks, rules)


def total(text: str, preset: str = "classic", **overrides: Any) -> int:
    return score(text, preset, **overrides).total


# --- Worked examples from the texts (golf-rules.md, "must hold as tests") -------------------


def test_worked_example_carla_002_scores_13() -> None:
    """Carla (002), 2x3, column rules: 7S KH 5D / 7C 2S QD scores 13 (0, -2, 15)."""
    result = score("7S KH 5D / 7C 2S QD", "classic")
    assert result.total == 13
    assert result.points == (0, 0, 5, 0, -2, 10)
    columns = [result.points[c] + result.points[c + 3] for c in range(3)]
    assert columns == [0, -2, 15]
    assert [(line.kind, line.index, line.slots) for line in result.cancelled] == [("column", 0, (0, 3))]


@pytest.mark.parametrize("preset", ["standard", "classic", "arena"])
def test_worked_example_carla_002_under_column_presets(preset: str) -> None:
    assert total("7S KH 5D / 7C 2S QD", preset) == 13


def test_worked_example_gamehelp_004_scores_2() -> None:
    """Gamehelp (004), 2x3: KS 6S KH / 4D 6H 2C scores 2 (6s cancel, kings 0, 4 - 2)."""
    result = score("KS 6S KH / 4D 6H 2C", "arena")
    assert result.total == 2
    assert result.points == (0, 0, 0, 4, 0, -2)
    assert [str(line) for line in result.cancelled] == ["column 1"]


def test_worked_example_gamehelp_004_also_with_line_scoring() -> None:
    """No row is uniform, so switching arena's line scoring on changes nothing (D15)."""
    assert total("KS 6S KH / 4D 6H 2C", "arena", lines="columns+rows") == 2


def test_worked_example_two_twos_in_a_column_score_0_not_minus_4_002() -> None:
    """002: "This even applies to two 2s: they cancel each other out to 0 instead of giving -4"."""
    result = score("2S 5H 9C / 2H 3D 4C", "classic")
    assert result.points[0] == 0 and result.points[3] == 0
    assert result.total == 0 + 8 + 13
    assert total("2S 3H / 2C 4D", "classic") == 7  # not -4 + 7 = 3


def test_worked_example_two_queens_in_a_column_score_0_not_20_003() -> None:
    """003: "a column of two queens is 0 rather than 20"."""
    result = score("QS 5H 9C / QH 3D 4C", "knock")
    assert result.points[0] == 0 and result.points[3] == 0
    assert result.total == 21


def test_worked_example_pairs_four_matching_in_a_column_all_score_0_003() -> None:
    """003: "Cards only cancel once: in a four-card column of matching cards, all four score zero"."""
    result = score("7S 3H / 7H 4D / 7D 5C / 7C 6S", "knock")
    assert [result.points[s] for s in (0, 2, 4, 6)] == [0, 0, 0, 0]
    assert result.total == 3 + 4 + 5 + 6


@pytest.mark.parametrize("cols", [1, 2, 3, 4])
def test_pairs_four_matching_in_a_column_any_4xN_layout_003(cols: int) -> None:
    """knock on a 4xN layout: a column of four queens scores 0 whatever the other columns hold."""
    others = ["3", "4", "5", "6"]
    rows = [" ".join(["Q"] + [others[r]] * (cols - 1)) for r in range(4)]
    expected = sum(int(others[r]) * (cols - 1) for r in range(4)) if cols > 1 else 0
    # other columns hold 3,4,5,6 each: no pairs among them
    assert total(" / ".join(rows), "knock") == expected


def test_worked_example_nine_card_three_matching_in_a_column_cancel_003() -> None:
    """003: "In the nine-card layout, three matching cards in a column also cancel to zero"."""
    assert total("8S 3H 4D / 8H 5D 6C / 8D 7C 9S", "knock") == 3 + 4 + 5 + 6 + 7 + 9


def test_nine_card_golf_column_needs_all_three_002() -> None:
    """002 variant "9-card Golf": a column scores 0 only if all three cards have the same rank."""
    assert total("8S 3H 4D / 8H 5D 6C / 9D 7C 9S", "classic") == 8 + 8 + 9 + 3 + 5 + 7 + 4 + 6 + 9
    assert total("8S 3H 4D / 8H 5D 6C / 8D 7C 9S", "classic") == 3 + 5 + 7 + 4 + 6 + 9


# --- card values ---------------------------------------------------------------------


def test_rank_values_core() -> None:
    """Core: A 1, 2 -2, 3-10 face value, J 10, Q 10, K 0."""
    values = rank_values(resolve_rules("classic"))
    assert values == {
        Rank.ACE: 1,
        Rank.TWO: -2,
        Rank.THREE: 3,
        Rank.FOUR: 4,
        Rank.FIVE: 5,
        Rank.SIX: 6,
        Rank.SEVEN: 7,
        Rank.EIGHT: 8,
        Rank.NINE: 9,
        Rank.TEN: 10,
        Rank.JACK: 10,
        Rank.QUEEN: 10,
        Rank.KING: 0,
    }


@pytest.mark.parametrize(("preset", "overrides", "expected"), [
    ("classic", {}, -2),
    ("standard", {}, -2),
    ("arena", {}, -2),
    ("knock", {}, 2),  # 003: twos count 2 ...
    ("knock", {"twos": -2}, -2),  # ... unless "twos count minus two"
    ("classic", {"twos": 2}, 2),
])
def test_twos_option(preset: str, overrides: dict[str, Any], expected: int) -> None:
    assert card_value(Rank.TWO, resolve_rules(preset, overrides)) == expected
    assert total("2S 3H / 4D 5C", preset, **overrides) == expected + 12


@pytest.mark.parametrize(("court", "jack", "queen"), [("10/10", 10, 10), ("11/12", 11, 12)])
def test_court_values_option(court: str, jack: int, queen: int) -> None:
    rules = resolve_rules("classic", {"court_values": court})
    assert card_value(Rank.JACK, rules) == jack
    assert card_value(Rank.QUEEN, rules) == queen
    assert card_value(Rank.KING, rules) == 0
    assert card_value(Rank.TEN, rules) == 10
    assert total("JS QH / 3D 4C", court_values=court) == jack + queen + 7


@pytest.mark.parametrize(("jokers", "value"), [("on", -2), (-2, -2), (-5, -5), (0, 0), (3, 3)])
def test_jokers_value(jokers: Any, value: int) -> None:
    rules = resolve_rules("classic", {"jokers": jokers})
    assert card_value(Rank.JOKER, rules) == value
    assert total("X 3H / 4D 5C", jokers=jokers) == value + 12


def test_joker_not_in_play_when_jokers_off() -> None:
    rules = resolve_rules("classic")
    assert Rank.JOKER not in rank_values(rules)
    with pytest.raises(ValueError):
        card_value(Rank.JOKER, rules)
    with pytest.raises(ValueError):
        score_grid([Rank.JOKER, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN], rules)


@pytest.mark.parametrize("preset", ["standard", "classic", "knock", "arena"])
def test_king_is_zero(preset: str) -> None:
    assert card_value(Rank.KING, resolve_rules(preset)) == 0
    assert total("KS 3H 4D / 5C 6S 7H", preset) == 25


def test_wrong_number_of_cards_is_an_error() -> None:
    with pytest.raises(ValueError):
        score_grid([Rank.ACE] * 5, resolve_rules("classic"))


# --- whole-line cancelling ------------------------------------------------------------------

LINE_CASES = [
    # (grid, preset, overrides, total, why)
    ("7S 7H 7D / 3C 4C 5C", "classic", {}, 33, "a uniform row of a 2-row grid is no column"),
    ("7S 7H 7D / 3C 4C 5C", "classic", {"lines": "columns+rows"}, 12, "rows on"),
    ("7S 7H 7D / 3C 4C 5C", "arena", {}, 33, "D15: arena cancels columns only by default"),
    ("7S 7H 7D / 3C 4C 5C", "arena", {"lines": "columns+rows"}, 12, "arena line scoring"),
    ("7S 7H 7D / 3C 4C 5C", "standard", {}, 33, "standard: no rows on 2x3"),
    ("7 7 7 / 3 4 5 / 6 8 9", "standard", {}, 35, "standard: rows cancel on 3x3"),
    ("7 7 7 / 3 4 5 / 6 8 9", "standard", {"lines": "columns"}, 56, "override: columns only"),
    ("7 7 7 / 3 4 5 / 6 8 9", "classic", {}, 56, "classic: columns only on 3x3"),
    ("7 3 4 / 7 5 6 / 7 8 9", "classic", {}, 35, "a whole column of three"),
    ("7 3 4 / 7 5 6 / 9 8 9", "classic", {}, 58, "two of three is not a whole line"),
    ("7 3 4 / 5 7 6 / 8 9 7", "arena", {"lines": "columns+rows+diagonals"}, 35, "diagonal \\"),
    ("3 4 7 / 5 7 6 / 7 8 9", "arena", {"lines": "columns+rows+diagonals"}, 35, "diagonal /"),
    ("7 3 4 / 5 7 6 / 8 9 7", "arena", {"lines": "columns+rows"}, 56, "no diagonals without the option"),
    ("7 3 / 4 7", "arena", {"lines": "columns+rows+diagonals"}, 7, "2x2 diagonal"),
    ("7 3 / 4 7", "arena", {"lines": "columns+rows"}, 21, "2x2 without diagonals"),
    ("7 3 4 5 / 6 7 8 9 / 3 4 7 5 / 6 8 9 7", "arena", {"lines": "columns+rows+diagonals"}, 70, "4x4 diagonal"),
    ("K K / 2 2", "classic", {"lines": "columns+rows"}, 0, "twos cancel in a row: 0 not -4"),
]


@pytest.mark.parametrize(("grid", "preset", "overrides", "expected", "why"), LINE_CASES)
def test_line_cancelling(grid: str, preset: str, overrides: dict[str, Any], expected: int, why: str) -> None:
    assert total(grid, preset, **overrides) == expected, why


def test_cancelled_lines_are_reported_in_scan_order() -> None:
    result = score("7 7 7 / 7 3 4 / 7 5 6", "standard")
    assert [str(line) for line in result.cancelled] == ["column 0", "row 0"]
    assert result.cancelled[0].slots == (0, 3, 6)
    assert result.cancelled[1].slots == (0, 1, 2)


def test_diagonal_line_names() -> None:
    result = score("7 3 7 / 5 7 6 / 7 9 7", "arena", lines="columns+rows+diagonals")
    assert [str(line) for line in result.cancelled] == ["diagonal \\", "diagonal /"]
    assert result.total == 3 + 5 + 6 + 9


@pytest.mark.parametrize(
    ("grid", "overrides", "expected"),
    [
        ("7 7 7", {}, 21),  # 1x3 columns: each column is one card
        ("7 7 7 7", {}, 28),
        ("7", {}, 7),  # 1x1
        ("2", {}, -2),
        ("7", {"lines": "columns+rows+diagonals"}, 7),  # 1x1: row, column, diagonals of one card
        ("7 7 7", {"lines": "columns+rows"}, 0),  # the row is a real line of three
        ("7 / 7 / 7", {"lines": "columns+rows"}, 0),  # 3x1: the column is a line
        ("7 / 3 / 4", {"lines": "columns+rows"}, 14),  # 3x1: a row of one card never cancels
    ],
)
def test_a_line_of_one_card_never_cancels(grid: str, overrides: dict[str, Any], expected: int) -> None:
    assert total(grid, "classic", **overrides) == expected


# --- D9: a card in several cancelled lines, negative cards -----------------------------------


def test_D9_card_in_two_cancelled_lines_scores_0_once() -> None:
    """D9: a card in a cancelled row and a cancelled column scores 0, never counted twice
    or subtracted."""
    result = score("7 7 7 / 7 3 4 / 7 5 6", "standard")
    assert result.points == (0, 0, 0, 0, 3, 4, 0, 5, 6)
    assert result.total == 18


def test_D9_all_lines_cancel_grid_scores_0() -> None:
    result = score("Q Q Q / Q Q Q / Q Q Q", "arena", lines="columns+rows+diagonals")
    assert result.total == 0
    assert set(result.points) == {0}
    assert len(result.cancelled) == 3 + 3 + 2


@pytest.mark.parametrize(
    ("grid", "overrides"),
    [
        ("2S 2H / 2D 2C", {}),
        ("2S 2H / 2D 2C", {"lines": "columns+rows+diagonals"}),
        ("X X / X X", {"jokers": -5}),
        ("X X / X X", {"jokers": -5, "lines": "columns+rows+diagonals"}),
    ],
)
def test_D9_negative_cards_cancel_to_zero_never_below(grid: str, overrides: dict[str, Any]) -> None:
    """D9: jokers and twos cancel like any other rank, to 0, however many lines."""
    result = score(grid, "arena", **overrides)
    assert result.total == 0
    assert result.points == (0, 0, 0, 0)


@pytest.mark.parametrize(("jokers", "rest"), [(-2, 7), (-5, 7), (4, 7)])
def test_D9_jokers_cancel_in_a_column(jokers: int, rest: int) -> None:
    assert total("X 3 / X 4", "classic", jokers=jokers) == rest


def test_D9_mixed_jokers_and_twos_do_not_cancel() -> None:
    assert total("X 3 / 2 4", "classic", jokers=-2) == -2 - 2 + 7


@pytest.mark.parametrize("preset", ["standard", "classic", "knock", "arena"])
def test_D9_two_twos_in_a_column_score_0_not_minus_4(preset: str) -> None:
    assert total("2S 3H / 2C 4D", preset) == 7


@pytest.mark.parametrize("court", ["10/10", "11/12"])
@pytest.mark.parametrize("preset", ["standard", "classic", "knock", "arena"])
def test_D9_two_queens_in_a_column_score_0(preset: str, court: str) -> None:
    assert total("QS 3H / QC 4D", preset, court_values=court) == 7


# --- pairs mode -------------------------------------------------------------------------

PAIRS_CASES = [
    # (grid, overrides, total, why)
    ("7 3 / 7 4 / 5 6", {}, 5 + 3 + 4 + 6, "two of three in a column: the pair cancels, the odd card counts"),
    ("7 3 / 7 4 / 7 6", {}, 13, "three of three"),
    ("7 3 / 5 4 / 7 6", {}, 5 + 13, "pairs need not be adjacent"),
    ("7 3 / 7 3 / 5 5", {}, 10, "two pairs in one column"),
    ("7 7 3 / 4 5 6", {}, 14 + 3 + 15, "a row pair does not cancel with pair_scope columns"),
    ("7 7 3 / 4 5 6", {"pair_scope": "columns+rows"}, 18, "row pairs cancel with columns+rows"),
    ("7 3 4 / 5 6 7", {"pair_scope": "columns+rows"}, 32, "not in one row or column"),
    ("7 3 4 / 5 6 7", {"pair_scope": "grid"}, 18, "anywhere in the grid"),
    ("7 3 4 / 5 7 6", {"pair_scope": "grid"}, 18, "grid also covers columns"),
    ("Q 3 4 / 5 6 Q", {"pair_scope": "grid"}, 18, "queens anywhere"),
    ("2 3 / 2 4", {"twos": -2}, 7, "twos cancel in pairs mode too"),
    ("2 3 / 2 4", {}, 7, "knock's +2 twos cancel"),
    ("X 3 / X 4", {"jokers": -2}, 7, "jokers cancel in pairs mode"),
    ("7 7 7 7", {}, 28, "1x4: a column of one card has no pair"),
    ("7 7 7 7", {"pair_scope": "columns+rows"}, 0, "1x4: the row pairs"),
    ("7 7 3 4", {"pair_scope": "grid"}, 7, "1x4: grid"),
]


@pytest.mark.parametrize(("grid", "overrides", "expected", "why"), PAIRS_CASES)
def test_pairs_mode(grid: str, overrides: dict[str, Any], expected: int, why: str) -> None:
    assert total(grid, "knock", **overrides) == expected, why


def test_pairs_and_whole_line_differ_on_a_partial_column() -> None:
    grid = "7 3 4 / 7 5 6 / 9 8 A"
    assert total(grid, "knock", twos=-2) == 9 + 3 + 5 + 8 + 4 + 6 + 1
    assert total(grid, "classic") == 7 + 7 + 9 + 3 + 5 + 8 + 4 + 6 + 1


def test_pairs_reports_only_the_cancelled_slots() -> None:
    result = score("7 3 / 5 4 / 7 6", "knock")
    assert [(line.kind, line.index, line.slots) for line in result.cancelled] == [("column", 0, (0, 4))]
    assert result.points == (0, 3, 5, 4, 0, 6)


def test_pairs_grid_group_is_reported_as_grid() -> None:
    result = score("7 3 4 / 5 6 7", "knock", pair_scope="grid")
    assert [(line.kind, line.slots, str(line)) for line in result.cancelled] == [("grid", (0, 5), "pairs in grid")]


def test_pairs_D9_card_in_a_row_pair_and_a_column_pair_scores_0_once() -> None:
    result = score("7 7 / 7 3", "knock", pair_scope="columns+rows")
    assert result.points == (0, 0, 0, 3)
    assert result.total == 3


# --- D10 blocks ---------------------------------------------------------------------------


def test_D10_block_off_by_default_2x2_of_one_rank_cancels_to_0() -> None:
    result = score("7 7 / 7 7", "classic")
    assert result.total == 0 and result.blocks == ()


def test_D10_block_replaces_the_four_cards_with_minus_20() -> None:
    """D10: a 2x2 of one rank scores -20 in place of its cards (not 0 from the columns)."""
    result = score("7S 7H / 7D 7C", "classic", block_bonus="on")
    assert result.total == -20
    assert result.blocks == (0,)
    assert sum(result.points) == -20


@pytest.mark.parametrize("rank", ["2", "K", "Q", "A"])
def test_D10_block_of_any_rank_is_minus_20(rank: str) -> None:
    assert total(f"{rank} {rank} / {rank} {rank}", "arena", block_bonus=-20) == -20


def test_D10_block_of_jokers() -> None:
    assert total("X X / X X", "classic", block_bonus="on", jokers=-5) == -20


@pytest.mark.parametrize("bonus", [-20, -10, -21, 0, 5])
def test_D10_block_total_is_the_option_value(bonus: int) -> None:
    result = score("7 7 3 / 7 7 4", "classic", block_bonus=bonus)
    assert result.total == bonus + 7
    assert sum(result.points[s] for s in (0, 1, 3, 4)) == bonus


def test_D10_2x4_of_all_sevens_is_two_blocks_minus_40() -> None:
    result = score("7 7 7 7 / 7 7 7 7", "classic", block_bonus="on")
    assert result.blocks == (0, 2)
    assert result.total == -40


def test_D10_4x4_of_all_sevens_is_four_blocks() -> None:
    result = score("7 7 7 7 / 7 7 7 7 / 7 7 7 7 / 7 7 7 7", "classic", block_bonus="on")
    assert result.blocks == (0, 2, 8, 10)
    assert result.total == -80


@pytest.mark.parametrize(("preset", "overrides"), [
    ("classic", {}),
    ("standard", {}),  # columns + rows on 3x3
    ("arena", {"lines": "columns+rows+diagonals"}),
])
def test_D10_3x3_of_all_sevens_one_block_plus_leftover_lines(preset: str, overrides: dict[str, Any]) -> None:
    """D10: one block (top left); the five leftover 7s lie in uniform lines and score 0."""
    result = score("7 7 7 / 7 7 7 / 7 7 7", preset, block_bonus="on", **overrides)
    assert result.blocks == (0,)
    assert result.total == -20
    assert [result.points[s] for s in (2, 5, 6, 7, 8)] == [0, 0, 0, 0, 0]


def test_D10_greedy_left_to_right_a_card_in_at_most_one_block() -> None:
    """2x3 of all 7s: the block at the left wins; the right column is left over and cancels."""
    result = score("7 7 7 / 7 7 7", "classic", block_bonus="on")
    assert result.blocks == (0,)
    assert result.points[2] == 0 and result.points[5] == 0
    assert result.total == -20


@pytest.mark.parametrize(
    ("bonus", "shares"),
    [(-20, (-5, -5, -5, -5)), (-21, (-5, -5, -5, -6)), (-22, (-5, -5, -6, -6)), (-19, (-4, -5, -5, -5))],
)
def test_G10_a_block_total_is_split_with_the_higher_shares_first_in_reading_order(
    bonus: int, shares: tuple[int, ...]
) -> None:
    """The block at slots 1, 2, 4, 5 of a 2x3 grid: top left, top right, bottom left, bottom right."""
    result = score("9 5 5 / 8 5 5", "classic", block_bonus=bonus)
    assert result.blocks == (1,)
    assert tuple(result.points[s] for s in (1, 2, 4, 5)) == shares
    assert result.total == bonus + 9 + 8


def test_D10_greedy_top_to_bottom() -> None:
    """3x2 of all 7s: the top block wins; the bottom row is left over."""
    result = score("7 7 / 7 7 / 7 Q", "classic", block_bonus="on")
    assert result.blocks == (0,)
    # leftover: 7 in column 0 (7,7,7 -> whole column cancels), Q counts
    assert result.points[4] == 0 and result.points[5] == 10
    assert result.total == -10


def test_D10_overlapping_squares_only_the_first_is_a_block() -> None:
    """7 7 3 / 7 7 7 / 4 7 7: squares at top-left and bottom-right share the centre card;
    only the top-left one is a block, the other three 7s are left over."""
    result = score("7 7 3 / 7 7 7 / 4 7 7", "classic", block_bonus="on")
    assert result.blocks == (0,)
    # column 1 (7,7,7) cancels the leftover bottom-middle 7; slots 5 and 8 count
    assert result.points[7] == 0
    assert result.total == -20 + 3 + 7 + 4 + 0 + 7


def test_D10_leftover_cards_still_cancel_in_lines() -> None:
    """7 7 7 / 7 7 7 / 3 4 5: block at top-left; the leftover 7s (slots 2, 5) lie in two
    uniform rows (standard 3x3) and score 0 there, but in classic (columns only) they count."""
    grid = "7 7 7 / 7 7 7 / 3 4 5"
    assert total(grid, "standard", block_bonus="on") == -20 + 12
    assert total(grid, "classic", block_bonus="on") == -20 + 7 + 7 + 12


def test_D10_leftover_pair_in_a_column_outside_the_block_cancels() -> None:
    result = score("5 7 7 / 5 7 7", "classic", block_bonus="on")
    assert result.blocks == (1,)
    assert result.total == -20


def test_D10_blocks_with_pairs_mode() -> None:
    """Block cards keep the block total even where pairs would cancel them."""
    result = score("7 7 7 / 7 7 7", "knock", block_bonus="on")
    assert result.blocks == (0,)
    assert result.total == -20


def test_D10_no_block_in_a_single_row_or_column() -> None:
    assert score("7 7 7 7", "classic", block_bonus="on").blocks == ()
    assert total("7 / 7 / 7 / 7", "classic", block_bonus="on") == 0  # the column cancels


def test_D10_no_block_of_mixed_ranks() -> None:
    result = score("7 7 / 7 8", "classic", block_bonus="on")
    assert result.blocks == ()
    assert result.total == 7 + 8  # column 0 (7,7) cancels


def test_score_result_is_consistent() -> None:
    """total is the sum of points for a spread of grids and options."""
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("7 7 7 / 7 7 7 / 3 4 5", "standard", {"block_bonus": "on"}),
        ("Q J K / 2 2 A / X X 9", "classic", {"jokers": -5, "lines": "columns+rows"}),
        ("Q J K / 2 2 A / X X 9", "knock", {"jokers": -5, "pair_scope": "grid"}),
        ("Q J K / 2 Q A / X J 9", "arena", {"jokers": 1, "court_values": "11/12"}),
    ]
    for grid, preset, overrides in cases:
        result = score(grid, preset, **overrides)
        assert result.total == sum(result.points)


# --- property: score_grid agrees with a plain reading of D9/D10 -------------------------------

_SMALL_RANKS = [Rank.SEVEN, Rank.TWO, Rank.QUEEN, Rank.KING, Rank.JOKER]


def _reference_total(ranks: list[Rank], rows: int, cols: int, rules: Any) -> int:
    """An independent, deliberately naive scorer written from golf-rules.md."""
    values = rank_values(rules)
    n = rows * cols
    in_block = [False] * n
    blocks = 0
    if rules.block_bonus is not None:
        for r in range(rows - 1):
            for c in range(cols - 1):
                square = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
                if not any(in_block[s] for s in square) and len({ranks[s] for s in square}) == 1:
                    blocks += 1
                    for s in square:
                        in_block[s] = True
    groups: list[list[int]] = []
    columns = [[r * cols + c for r in range(rows)] for c in range(cols)]
    row_lines = [[r * cols + c for c in range(cols)] for r in range(rows)]
    diagonals = [[i * cols + i for i in range(rows)], [i * cols + cols - 1 - i for i in range(rows)]]
    if rules.cancel.value == "line":
        groups = columns[:]
        if rules.lines.value in ("columns+rows", "columns+rows+diagonals"):
            groups += row_lines
        if rules.lines.value == "columns+rows+diagonals":
            groups += diagonals
    else:
        groups = {"columns": columns, "columns+rows": columns + row_lines, "grid": [list(range(n))]}[
            rules.pair_scope.value
        ]
    zero = [False] * n
    for g in groups:
        if len(g) < 2:
            continue
        for s in g:
            same = sum(ranks[t] == ranks[s] for t in g)
            if (rules.cancel.value == "line" and same == len(g)) or (rules.cancel.value == "pairs" and same >= 2):
                zero[s] = True
    return blocks * (rules.block_bonus or 0) + sum(
        values[ranks[s]] for s in range(n) if not in_block[s] and not zero[s]
    )


@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    data=st.data(),
    mode=st.sampled_from(
        [
            ("classic", {}),
            ("classic", {"lines": "columns+rows"}),
            ("arena", {"lines": "columns+rows+diagonals"}),
            ("knock", {}),
            ("knock", {"pair_scope": "columns+rows"}),
            ("knock", {"pair_scope": "grid"}),
        ]
    ),
    block=st.sampled_from(["off", -20]),
)
def test_score_grid_matches_a_naive_reference(rows: int, cols: int, data: Any, mode: Any, block: Any) -> None:
    preset, overrides = mode
    if "diagonals" in overrides.get("lines", "") and rows != cols:
        overrides = {"lines": "columns+rows"}
    rules = resolve_rules(preset, {**overrides, "layout": f"{rows}x{cols}", "jokers": -5, "block_bonus": block})
    ranks = data.draw(st.lists(st.sampled_from(_SMALL_RANKS), min_size=rows * cols, max_size=rows * cols))
    result = score_grid(ranks, rules)
    assert result.total == _reference_total(ranks, rows, cols, rules)
    assert result.total == sum(result.points)


def test_block_slots_are_the_square_below_and_right_of_the_corner() -> None:
    assert block_slots(0, 3) == (0, 1, 3, 4)
    assert block_slots(5, 4) == (5, 6, 9, 10)
    result = score("5S 5H 3D / 5C 5D 4S", block_bonus=-20)
    assert result.blocks == (0,) and [result.points[s] for s in block_slots(0, 3)] == [-5, -5, -5, -5]


# --- The forfeit score: what a fallback hole counts in a tournament -------------------------


@pytest.mark.parametrize(
    ("preset", "overrides", "expected"),
    [
        ("standard", {}, 60),  # 6 cards x 10 (a ten, jack or queen); no knocking
        ("standard", {"layout": "2x2"}, 40),
        ("classic", {"court_values": "11/12"}, 72),  # a queen is worth 12
        ("classic", {"jokers": 15}, 90),  # a joker worth 15 beats every other card
        ("knock", {}, 70),  # 60 + the knock penalty 10
        ("knock", {"knock_penalty": "double"}, 120),  # a failed knocker's 60 counted twice
        ("arena", {"layout": "2x2"}, 50),  # arena's 2x2 closing is knocking: 40 + 10
        ("classic", {"layout": "2x2", "block_bonus": 30}, 40),  # a block's share, 8, is below a ten
        ("classic", {"layout": "2x2", "block_bonus": 50}, 52),  # shares 13, 13, 12, 12: bounded by 13 a slot
    ],
)
def test_forfeit_score_worked_examples(preset: str, overrides: dict[str, Any], expected: int) -> None:
    assert forfeit_score(resolve_rules(preset, overrides)) == expected


@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    data=st.data(),
    preset=st.sampled_from(["standard", "classic", "knock", "arena"]),
    jokers=st.sampled_from(["off", -5, 0, 15, 100]),
    twos=st.sampled_from([-2, 2]),
    court=st.sampled_from(["10/10", "11/12"]),
    block=st.sampled_from(["off", -20, 30, 100]),
    penalty=st.sampled_from([0, 10, 100, "double"]),
)
def test_no_grid_and_knock_penalty_scores_above_the_forfeit_score(
    rows: int, cols: int, data: Any, preset: str, jokers: Any, twos: int, court: str, block: Any, penalty: Any
) -> None:
    rules = resolve_rules(
        preset,
        {"layout": f"{rows}x{cols}", "jokers": jokers, "twos": twos, "court_values": court, "block_bonus": block,
         "knocking": True, "knock_penalty": penalty},
        2,
    )  # fmt: skip
    ranks = [r for r in Rank if r is not Rank.JOKER or rules.jokers is not None]
    grid = data.draw(st.lists(st.sampled_from(ranks), min_size=rows * cols, max_size=rows * cols))
    raw = score_grid(grid, rules).total
    # The engine's failed knock (D4): a fixed penalty added, or a positive score doubled.
    worst = 2 * raw if penalty == "double" and raw > 0 else raw + (0 if penalty == "double" else penalty)
    assert worst <= forfeit_score(rules)
