"""Cards: parsing every spelling, rejecting bad input, and deck identity (D12)."""

from __future__ import annotations

from collections import Counter

import pytest

from golfref.game.cards import Card, CardError, Rank, Suit, deck_set, parse_card, parse_grid, parse_rank

# --- parse_rank -------------------------------------------------------------------

RANK_SPELLINGS = [
    ("A", Rank.ACE),
    ("a", Rank.ACE),
    ("2", Rank.TWO),
    ("3", Rank.THREE),
    ("4", Rank.FOUR),
    ("5", Rank.FIVE),
    ("6", Rank.SIX),
    ("7", Rank.SEVEN),
    ("8", Rank.EIGHT),
    ("9", Rank.NINE),
    ("10", Rank.TEN),
    ("T", Rank.TEN),
    ("t", Rank.TEN),
    ("J", Rank.JACK),
    ("j", Rank.JACK),
    ("Q", Rank.QUEEN),
    ("q", Rank.QUEEN),
    ("K", Rank.KING),
    ("k", Rank.KING),
    ("X", Rank.JOKER),
    ("x", Rank.JOKER),
    (" 7 ", Rank.SEVEN),
]


@pytest.mark.parametrize(("text", "rank"), RANK_SPELLINGS)
def test_parse_rank_spellings(text: str, rank: Rank) -> None:
    assert parse_rank(text) is rank


@pytest.mark.parametrize("text", ["", "1", "11", "0", "Z", "S", "7S", "1O", "B", "-2"])
def test_parse_rank_rejects_with_input_quoted(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_rank(text)
    assert repr(text) in str(info.value)


def test_rank_label_writes_ten_as_10() -> None:
    assert Rank.TEN.label == "10"
    assert Rank.SEVEN.label == "7"
    assert Rank.JOKER.label == "X"


# --- parse_card ---------------------------------------------------------------------

CARD_SPELLINGS = [
    # every rank with a plain suit letter
    ("AS", Rank.ACE, Suit.SPADES, 1),
    ("2H", Rank.TWO, Suit.HEARTS, 1),
    ("3D", Rank.THREE, Suit.DIAMONDS, 1),
    ("4C", Rank.FOUR, Suit.CLUBS, 1),
    ("5S", Rank.FIVE, Suit.SPADES, 1),
    ("6H", Rank.SIX, Suit.HEARTS, 1),
    ("7D", Rank.SEVEN, Suit.DIAMONDS, 1),
    ("8C", Rank.EIGHT, Suit.CLUBS, 1),
    ("9S", Rank.NINE, Suit.SPADES, 1),
    ("10H", Rank.TEN, Suit.HEARTS, 1),
    ("TD", Rank.TEN, Suit.DIAMONDS, 1),
    ("JC", Rank.JACK, Suit.CLUBS, 1),
    ("QD", Rank.QUEEN, Suit.DIAMONDS, 1),
    ("KH", Rank.KING, Suit.HEARTS, 1),
    # lower case, rank and suit
    ("7s", Rank.SEVEN, Suit.SPADES, 1),
    ("qd", Rank.QUEEN, Suit.DIAMONDS, 1),
    ("10c", Rank.TEN, Suit.CLUBS, 1),
    ("th", Rank.TEN, Suit.HEARTS, 1),
    ("aH", Rank.ACE, Suit.HEARTS, 1),
    # Unicode suit symbols
    ("7♠", Rank.SEVEN, Suit.SPADES, 1),
    ("10♥", Rank.TEN, Suit.HEARTS, 1),
    ("Q♦", Rank.QUEEN, Suit.DIAMONDS, 1),
    ("K♣", Rank.KING, Suit.CLUBS, 1),
    ("a♣", Rank.ACE, Suit.CLUBS, 1),
    # no suit (as in a scored grid)
    ("7", Rank.SEVEN, None, 1),
    ("10", Rank.TEN, None, 1),
    ("T", Rank.TEN, None, 1),
    ("K", Rank.KING, None, 1),
    # jokers
    ("X", Rank.JOKER, None, 1),
    ("x", Rank.JOKER, None, 1),
    ("XR", Rank.JOKER, Suit.RED, 1),
    ("XB", Rank.JOKER, Suit.BLACK, 1),
    ("xr", Rank.JOKER, Suit.RED, 1),
    ("xb", Rank.JOKER, Suit.BLACK, 1),
    # deck suffix
    ("7S#2", Rank.SEVEN, Suit.SPADES, 2),
    ("7S#1", Rank.SEVEN, Suit.SPADES, 1),
    ("10H#3", Rank.TEN, Suit.HEARTS, 3),
    ("K♣#4", Rank.KING, Suit.CLUBS, 4),
    ("XR#2", Rank.JOKER, Suit.RED, 2),
    ("X#3", Rank.JOKER, None, 3),
    ("7#2", Rank.SEVEN, None, 2),
    # surrounding whitespace is ignored
    ("  7S  ", Rank.SEVEN, Suit.SPADES, 1),
]


@pytest.mark.parametrize(("text", "rank", "suit", "deck"), CARD_SPELLINGS)
def test_parse_card_spellings(text: str, rank: Rank, suit: Suit | None, deck: int) -> None:
    assert parse_card(text) == Card(rank, suit, deck)


BAD_CARDS = [
    "",  # empty
    "   ",  # blank
    "ZZ",  # no such rank
    "1S",  # 1 is not a rank
    "11H",  # nor 11
    "7Z",  # no such suit
    "7SS",  # two suits
    "S",  # suit alone
    "♠",  # symbol alone
    "7R",  # joker colour on a plain card
    "KB",  # joker colour on a plain card
    "XS",  # plain suit on a joker
    "X♥",  # plain suit symbol on a joker
    "#2",  # deck but no card
    "7S#0",  # decks count from 1
    "7S#5",  # at most 4 decks
    "7S#x",  # deck is not a number
    "7S#-1",
    "7S#2#3",
    "7S,",  # stray punctuation
]


@pytest.mark.parametrize("text", BAD_CARDS)
def test_parse_card_rejects_with_input_quoted(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value), "the message must quote the input"


@pytest.mark.parametrize("text", ["7S#²", "7S#³", "7S#¹"])
def test_parse_card_unicode_digit_deck_raises_carderror(text: str) -> None:
    """BUG: every bad input must raise CardError quoting it, not a bare ValueError.

    `'²'.isdigit()` is true but `int('²')` fails, so parse_card leaks int()'s ValueError
    (and the CLI, which catches only CardError, prints a traceback).
    """
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)


def test_parse_card_empty_deck_suffix_is_rejected() -> None:
    """BUG: `7S#` names no deck; it is silently read as `7S` of deck 1."""
    with pytest.raises(CardError) as info:
        parse_card("7S#")
    assert repr("7S#") in str(info.value)


def test_carderror_is_a_valueerror() -> None:
    assert issubclass(CardError, ValueError)


# --- Card text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "text", "pretty"),
    [
        (Card(Rank.SEVEN, Suit.SPADES), "7S", "7♠"),
        (Card(Rank.SEVEN, Suit.SPADES, 2), "7S#2", "7♠"),
        (Card(Rank.TEN, Suit.HEARTS), "TH", "10♥"),
        (Card(Rank.KING), "K", "K"),
        (Card(Rank.JOKER, Suit.RED), "XR", "Jkr"),
        (Card(Rank.JOKER, Suit.BLACK, 3), "XB#3", "Jkr"),
    ],
)
def test_card_str_and_pretty(card: Card, text: str, pretty: str) -> None:
    assert str(card) == text
    assert card.pretty == pretty
    assert parse_card(text) == card


def test_suit_colours() -> None:
    assert [s for s in Suit if s.is_red] == [Suit.HEARTS, Suit.DIAMONDS, Suit.RED]
    assert Suit.RED.symbol == "" and Suit.SPADES.symbol == "♠"


# --- deck_set (D12) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decks", "jokers", "size"),
    [
        (1, False, 52),
        (1, True, 54),
        (2, False, 104),
        (2, True, 108),
        (3, False, 156),
        (3, True, 162),
        (4, False, 208),
        (4, True, 216),
    ],
)
def test_deck_set_sizes(decks: int, jokers: bool, size: int) -> None:
    cards = deck_set(decks, jokers)
    assert len(cards) == size
    assert len(set(cards)) == size, "every physical card has its own identity"
    assert sum(c.rank is Rank.JOKER for c in cards) == (2 * decks if jokers else 0)


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
@pytest.mark.parametrize("jokers", [False, True])
def test_deck_set_contents_per_deck(decks: int, jokers: bool) -> None:
    cards = deck_set(decks, jokers)
    per_deck = Counter(c.deck for c in cards)
    assert per_deck == {d: 54 if jokers else 52 for d in range(1, decks + 1)}
    # each deck holds each (rank, suit) of a plain deck exactly once
    for d in range(1, decks + 1):
        plain = Counter((c.rank, c.suit) for c in cards if c.deck == d and c.rank is not Rank.JOKER)
        assert len(plain) == 52 and set(plain.values()) == {1}
        assert {c.suit for c in cards if c.deck == d and c.rank is Rank.JOKER} == (
            {Suit.RED, Suit.BLACK} if jokers else set()
        )
    # 4 of each plain rank per deck
    ranks = Counter(c.rank for c in cards if c.rank is not Rank.JOKER)
    assert set(ranks.values()) == {4 * decks} and len(ranks) == 13


def test_two_decks_hold_two_distinct_seven_of_spades() -> None:
    cards = deck_set(2, False)
    sevens = [c for c in cards if c.rank is Rank.SEVEN and c.suit is Suit.SPADES]
    assert len(sevens) == 2
    assert sevens[0] != sevens[1]
    assert sorted(str(c) for c in sevens) == ["7S", "7S#2"]
    assert cards.index(sevens[0]) != cards.index(sevens[1]), "two ids"


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_deck_set_ids_unique_and_str_round_trips(decks: int) -> None:
    cards = deck_set(decks, True)
    texts = [str(c) for c in cards]
    assert len(set(texts)) == len(texts), "written forms are unique too"
    for card in cards:
        assert parse_card(str(card)) == card
        assert parse_card(str(card).lower()) == card


def test_deck_set_is_deterministic_and_one_deck_is_a_prefix() -> None:
    assert deck_set(2, True) == deck_set(2, True)
    assert deck_set(2, False)[:52] == deck_set(1, False)
    assert deck_set(2, True)[:54] == deck_set(1, True)


@pytest.mark.parametrize("decks", [0, 5, -1])
def test_deck_set_rejects_bad_deck_count(decks: int) -> None:
    with pytest.raises(CardError, match=str(decks)):
        deck_set(decks, False)


# --- parse_grid -------------------------------------------------------------------


def test_parse_grid_reads_rows_of_cards() -> None:
    grid = parse_grid(" 7S KH 5D/7C 2S#2 X ")
    assert [[str(c) for c in row] for row in grid] == [["7S", "KH", "5D"], ["7C", "2S#2", "X"]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "grid row 0 is empty (rows are separated by '/', cards by spaces)"),
        ("7S KH // 7C 2S", "grid row 1 is empty"),
        ("7S KH / 7C ZZ", "grid row 1: cannot read card 'ZZ'"),
        ("7S KH 5D / 7C 2S", "grid rows have different lengths [3, 2]: every row needs the same number of cards"),
    ],
)
def test_parse_grid_says_which_row_is_wrong(text: str, message: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_grid(text)
    assert str(caught.value).startswith(message)
