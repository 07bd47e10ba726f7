"""Cards, ranks, suits and decks: every physical card has its own identity (D12).

This layer has no randomness: a deck set is a fixed, ordered tuple of cards, and a
shuffle is a permutation of that tuple supplied from outside.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "Rank",
    "Suit",
    "Card",
    "CardError",
    "deck_set",
    "parse_card",
    "parse_grid",
    "parse_rank",
]


class CardError(ValueError):
    """A card or rank written in a way golfref cannot read."""


class Rank(enum.Enum):
    """A card rank; the value is its one-character code."""

    ACE = "A"
    """Ace, worth 1."""
    TWO = "2"
    """Two, worth -2 or 2 depending on the `twos` option."""
    THREE = "3"
    """Three, face value."""
    FOUR = "4"
    """Four, face value."""
    FIVE = "5"
    """Five, face value."""
    SIX = "6"
    """Six, face value."""
    SEVEN = "7"
    """Seven, face value."""
    EIGHT = "8"
    """Eight, face value."""
    NINE = "9"
    """Nine, face value."""
    TEN = "T"
    """Ten, face value; written `T` or `10`."""
    JACK = "J"
    """Jack, worth 10 or 11 (`court_values`); its card power peeks an own card."""
    QUEEN = "Q"
    """Queen, worth 10 or 12 (`court_values`); its card power peeks an opponent's card."""
    KING = "K"
    """King, worth 0; its card power swaps two grid cards."""
    JOKER = "X"
    """Joker, only in play with the `jokers` option; worth the option's value."""

    @property
    def label(self) -> str:
        """The rank as people write it: `10` for ten, the code otherwise."""
        return "10" if self is Rank.TEN else self.value


class Suit(enum.Enum):
    """A suit; jokers use the two joker colours instead."""

    SPADES = "S"
    """Spades (black)."""
    HEARTS = "H"
    """Hearts (red)."""
    DIAMONDS = "D"
    """Diamonds (red)."""
    CLUBS = "C"
    """Clubs (black)."""
    RED = "R"
    """The red joker's colour."""
    BLACK = "B"
    """The black joker's colour."""

    @property
    def symbol(self) -> str:
        """The Unicode suit symbol (jokers have none)."""
        return _SYMBOLS.get(self, "")

    @property
    def is_red(self) -> bool:
        """Whether the suit prints in red."""
        return self in (Suit.HEARTS, Suit.DIAMONDS, Suit.RED)


_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SYMBOL_TO_SUIT = {v: k for k, v in _SYMBOLS.items()}
PLAIN_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
PLAIN_RANKS = tuple(r for r in Rank if r is not Rank.JOKER)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: rank, suit (None when unknown, as in a scored grid) and deck.

    `deck` counts from 1. The written form is rank code + suit code, with `#k` added
    for a card of deck k >= 2, so two seven of spades are `7S` and `7S#2`.
    """

    rank: Rank
    suit: Suit | None = None
    deck: int = 1
    name: str = field(init=False, repr=False, compare=False)
    """The written form, computed once: views turn thousands of cards into text."""

    def __post_init__(self) -> None:
        text = self.rank.value + (self.suit.value if self.suit else "")
        object.__setattr__(self, "name", text if self.deck == 1 else f"{text}#{self.deck}")

    def __str__(self) -> str:
        return self.name

    @property
    def pretty(self) -> str:
        """The card for people: `10♥`, `K♠`, `Joker`."""
        if self.rank is Rank.JOKER:
            return "Jkr"
        return self.rank.label + (self.suit.symbol if self.suit else "")


def parse_rank(text: str) -> Rank:
    """Read a rank: `A`, `2`-`10`, `T`, `J`, `Q`, `K` or `X` (joker), any case."""
    t = text.strip().upper()
    if t == "10":
        return Rank.TEN
    if t in ("JOKER", "JK"):
        return Rank.JOKER
    try:
        return Rank(t)
    except ValueError:
        raise CardError(f"unknown rank {text!r} (ranks: A 2-10 T J Q K, X for a joker)") from None


def parse_card(text: str) -> Card:
    """Read a card such as `7S`, `10♥`, `TD`, `K`, `X` or `7S#2`.

    The suit is optional; a joker is `X`, optionally `XR` or `XB` for its colour.
    """
    raw = text.strip()
    body, sep, deck_text = raw.partition("#")
    deck = 1
    if sep:
        if deck_text not in ("1", "2", "3", "4"):
            raise CardError(f"bad deck number in card {text!r} (expected #1 to #4)")
        deck = int(deck_text)
    if not body:
        raise CardError(f"empty card {text!r}")
    suit: Suit | None = None
    if body.upper() in ("JOKER", "JK"):
        return Card(Rank.JOKER, None, deck)
    last = body[-1]
    if last in _SYMBOL_TO_SUIT:
        suit, body = _SYMBOL_TO_SUIT[last], body[:-1]
    elif len(body) >= 2 and last.upper() in "SHDCRB" and body[:-1].upper() not in ("", "1"):
        suit, body = Suit(last.upper()), body[:-1]
    if not body:
        raise CardError(f"card {text!r} has a suit but no rank")
    try:
        rank = parse_rank(body)
    except CardError:
        raise CardError(
            f"cannot read card {text!r} (a card is a rank A 2-10 T J Q K or X for a joker, "
            "optionally followed by a suit S H D C or ♠ ♥ ♦ ♣)"
        ) from None
    if suit is not None:
        joker_suit = suit in (Suit.RED, Suit.BLACK)
        if joker_suit != (rank is Rank.JOKER):
            raise CardError(f"card {text!r}: suits R and B are for jokers, S H D C for the rest")
    return Card(rank, suit, deck)


def parse_grid(text: str) -> tuple[tuple[Card, ...], ...]:
    """Read a grid written as rows separated by `/`, cards by spaces: `"7S KH 5D / 7C 2S QD"`.

    Every row needs the same number of cards; the grid's shape is rows x cards per row.
    """
    rows: list[tuple[Card, ...]] = []
    for i, row_text in enumerate(text.split("/")):
        words = row_text.split()
        if not words:
            raise CardError(f"grid row {i} is empty (rows are separated by '/', cards by spaces)")
        try:
            rows.append(tuple(parse_card(word) for word in words))
        except CardError as e:
            raise CardError(f"grid row {i}: {e}") from None
    lengths = [len(r) for r in rows]
    if len(set(lengths)) != 1:
        raise CardError(f"grid rows have different lengths {lengths}: every row needs the same number of cards")
    return tuple(rows)


@lru_cache(maxsize=64)
def deck_set(decks: int, jokers: bool, joker_count: int | None = None) -> tuple[Card, ...]:
    """All physical cards of `decks` decks (2 jokers each when `jokers`), in canonical order.

    A card's index in this tuple is its id in the engine; a deal is a permutation of ids.
    With `joker_count`, the shoe holds that many jokers in all instead, after every plain
    card: red, black, red ... of deck 1, 1, 2, 2 ...
    """
    if not 1 <= decks <= 4:
        raise CardError(f"decks must be 1 to 4, got {decks}")
    cards: list[Card] = []
    for d in range(1, decks + 1):
        for suit in PLAIN_SUITS:
            for rank in PLAIN_RANKS:
                cards.append(Card(rank, suit, d))
        if jokers and joker_count is None:
            cards.append(Card(Rank.JOKER, Suit.RED, d))
            cards.append(Card(Rank.JOKER, Suit.BLACK, d))
    if jokers and joker_count is not None:
        if not 1 <= joker_count <= 2 * 4:
            raise CardError(f"joker_count must be 1 to 8, got {joker_count}")
        for i in range(joker_count):
            cards.append(Card(Rank.JOKER, Suit.BLACK if i % 2 else Suit.RED, i // 2 + 1))
    return tuple(cards)
