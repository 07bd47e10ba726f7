"""Rule options, the four presets, and their resolution into one frozen `Rules` value.

A preset is a set of defaults; some depend on the layout or the player count and are
resolved only after the caller's own overrides are applied. An explicit override always
wins. Impossible combinations raise `RulesError` naming the options involved.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from .cards import PLAIN_RANKS, CardError, Rank, Suit, parse_card, parse_rank

__all__ = [
    "CourtValues",
    "KnockPenalty",
    "Reveal",
    "RevealChoice",
    "FlipAfterThrow",
    "Lines",
    "Cancel",
    "PairScope",
    "NegativePairs",
    "HOUSE_OPTIONS",
    "Rules",
    "RulesError",
    "PRESETS",
    "OPTION_NAMES",
    "resolve_rules",
    "parse_layout",
    "shown",
]


class RulesError(ValueError):
    """A rule option, value or combination that cannot be played."""


class CourtValues(enum.Enum):
    """What a jack and a queen are worth (D9)."""

    TEN_TEN = "10/10"
    """Jack 10, queen 10."""
    ELEVEN_TWELVE = "11/12"
    """Jack 11, queen 12."""


class KnockPenalty(enum.Enum):
    """A knock penalty that is not a fixed number of points (D4)."""

    DOUBLE = "double"
    """A failed knocker's hole score counts twice (a score of 0 or less is not doubled)."""


class Reveal(enum.Enum):
    """How the start-of-hole reveal works (D1)."""

    PEEK = "peek"
    """The owner privately learns the card; it stays face down."""
    FLIP = "flip"
    """The card is turned face up for everyone."""


class RevealChoice(enum.Enum):
    """Who chooses the slots revealed at the start of a hole (D1)."""

    FIXED = "fixed"
    """The leftmost slots of the top row, continuing along the next row."""
    PLAYER = "player"
    """Each player picks its slots before the first turn."""


class FlipAfterThrow(enum.Enum):
    """What happens after a stock card is thrown away (D5)."""

    NONE = "none"
    """No flip."""
    MAY = "may"
    """The player may turn one own face-down card face up."""
    MUST = "must"
    """The player must turn one own face-down card face up, if any is left."""
    ENDGAME = "endgame"
    """As `may`, but offered only while some player has at most one face-down card."""


class Lines(enum.Enum):
    """Which lines cancel under whole-line cancelling."""

    COLUMNS = "columns"
    """Columns only."""
    ROWS = "columns+rows"
    """Columns and rows."""
    DIAGONALS = "columns+rows+diagonals"
    """Columns, rows and both diagonals (square grids only)."""


class Cancel(enum.Enum):
    """How a line cancels."""

    LINE = "line"
    """A whole line of one rank scores 0."""
    PAIRS = "pairs"
    """Every card whose rank appears twice or more in its group scores 0."""


class PairScope(enum.Enum):
    """Where pairs cancel, with `cancel: pairs`."""

    COLUMNS = "columns"
    """Within a column."""
    ROWS = "columns+rows"
    """Within a column or within a row."""
    GRID = "grid"
    """Anywhere in the grid."""


class NegativePairs(enum.Enum):
    """What a cancelled line of negative cards scores."""

    CANCEL = "cancel"
    """0, as every cancelled line (the core rule)."""
    KEEP = "keep"
    """The sum of its cards' values: a line in which any card is negative keeps its value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A fully resolved rule set: every option has its final value."""

    preset: str
    players: int
    rows: int
    cols: int
    decks: int
    jokers: int | None
    twos: int
    court_values: CourtValues
    reveal_count: int
    reveal: Reveal
    reveal_choice: RevealChoice
    flip_after_throw: FlipAfterThrow
    swap_face_up: bool
    knocking: bool
    knock_penalty: int | KnockPenalty
    """Points added to a failed knocker's hole score, or `KnockPenalty.DOUBLE`."""
    lines: Lines
    cancel: Cancel
    pair_scope: PairScope
    block_bonus: int | None
    card_powers: bool
    holes: int
    turn_limit: int
    # The house options (docs/RULES.md, "House options"): each has a neutral value that
    # leaves the rules as they were, and is written in the log only when it differs from it.
    card_values: tuple[tuple[Rank, int], ...] = ()
    """Points of a rank that override the table of `twos`, `court_values` and `jokers`, in rank order."""
    suit_values: tuple[tuple[Rank, Suit, int], ...] = ()
    """Points of one rank of one suit (e.g. the one-eyed jacks), overriding `card_values`."""
    joker_count: int | None = None
    """Jokers in the whole shoe; None: two per deck."""
    joker_pair: int | None = None
    """What a cancelled line (or pair group) of jokers scores in total, instead of 0."""
    negative_pairs: NegativePairs = NegativePairs.CANCEL
    two_column_bonus: int | None = None
    """Added once for each rank that cancels in two or more columns (four of a kind)."""
    jack_columns_bonus: int | None = None
    """Added once when jacks cancel in two or more columns; stacks with `two_column_bonus`."""
    exact_score: tuple[int, int] | None = None
    """(N, M): a hole score of exactly N becomes M."""
    closer_penalty: int | None = None
    """Added to whoever ended the hole first (closed or knocked) unless its score is the lowest (a tie is lowest)."""
    closer_bonus: int | None = None
    """Added to whoever ended the hole first (closed or knocked)."""
    low_score_bonus: int | None = None
    """Added to the lowest hole score(s)."""
    tie_penalty: int | None = None
    """Added, last, to every hole score that equals another player's."""
    flip_instead_of_draw: bool = False
    """A turn may be spent turning one own face-down card up instead of drawing."""
    flip_out: int | None = None
    """N: with 1 to N own face-down cards, a player may turn them all up instead of drawing (going out)."""

    @property
    def cards(self) -> int:
        """Cards in one grid."""
        return self.rows * self.cols

    @property
    def layout(self) -> str:
        """The layout written as `ROWSxCOLS`."""
        return f"{self.rows}x{self.cols}"

    @property
    def jack_value(self) -> int:
        """Points of a jack."""
        return 11 if self.court_values is CourtValues.ELEVEN_TWELVE else 10

    @property
    def queen_value(self) -> int:
        """Points of a queen."""
        return 12 if self.court_values is CourtValues.ELEVEN_TWELVE else 10

    def card_table(self) -> dict[Rank, int]:
        """Points of each rank (jokers only when they are on): the one table every scorer reads."""
        values: dict[Rank, int] = {rank: int(rank.value) for rank in PLAIN_RANKS if rank.value.isdigit()}
        values.update({Rank.ACE: 1, Rank.TWO: self.twos, Rank.TEN: 10, Rank.KING: 0})
        values.update({Rank.JACK: self.jack_value, Rank.QUEEN: self.queen_value})
        if self.jokers is not None:
            values[Rank.JOKER] = self.jokers
        values.update(self.card_values)
        return {rank: values[rank] for rank in Rank if rank in values}

    def house_dict(self) -> dict[str, Any]:
        """The house options that differ from their neutral value, as plain data (the log's form)."""
        out: dict[str, Any] = {}
        if self.card_values:
            out["card_values"] = {rank.value: v for rank, v in self.card_values}
        if self.suit_values:
            out["suit_values"] = {rank.value + suit.value: v for rank, suit, v in self.suit_values}
        for name in ("joker_count", "joker_pair"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.negative_pairs is not NegativePairs.CANCEL:
            out["negative_pairs"] = self.negative_pairs.value
        for name in ("two_column_bonus", "jack_columns_bonus"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.exact_score is not None:
            out["exact_score"] = list(self.exact_score)
        for name in ("closer_penalty", "closer_bonus", "low_score_bonus", "tie_penalty"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.flip_instead_of_draw:
            out["flip_instead_of_draw"] = True
        if self.flip_out is not None:
            out["flip_out"] = self.flip_out
        return out

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain data, with the option names a match config uses."""
        out: dict[str, Any] = {"preset": self.preset, "players": self.players, "layout": self.layout}
        for f in fields(self):
            if f.name in ("preset", "players", "rows", "cols") or f.name in HOUSE_OPTIONS:
                continue
            value = getattr(self, f.name)
            if f.name == "swap_face_up":
                out["swap_face"] = "up" if value else "down"
                continue
            if f.name in ("jokers", "block_bonus") and value is None:
                value = "off"
            out[f.name] = value.value if isinstance(value, enum.Enum) else value
        out.update(self.house_dict())
        return out


# The house options, in the order `golfref rules` and the log write them; each is off
# (neutral) unless asked for, so a rule set without them reads and writes as before.
HOUSE_OPTIONS: tuple[str, ...] = (
    "card_values",
    "suit_values",
    "joker_count",
    "joker_pair",
    "negative_pairs",
    "two_column_bonus",
    "jack_columns_bonus",
    "exact_score",
    "closer_penalty",
    "closer_bonus",
    "low_score_bonus",
    "tie_penalty",
    "flip_instead_of_draw",
    "flip_out",
)


# Option names as a config writes them, in the order `golfref rules` prints them.
OPTION_NAMES: tuple[str, ...] = (
    "layout",
    "decks",
    "jokers",
    "twos",
    "court_values",
    "reveal_count",
    "reveal",
    "reveal_choice",
    "flip_after_throw",
    "swap_face",
    "knocking",
    "knock_penalty",
    "lines",
    "cancel",
    "pair_scope",
    "block_bonus",
    "card_powers",
    "holes",
    "turn_limit",
    *HOUSE_OPTIONS,
)

# The defaults every preset shares; each preset below names only where it differs.
# "auto" and None mean: resolved from the layout and player count.
_BASE_DEFAULTS: dict[str, Any] = {
    "max_players": 8,
    "layout": "2x3",
    "decks": "auto",
    "jokers": "off",
    "twos": -2,
    "court_values": "10/10",
    "reveal_count": 2,
    "reveal": "flip",
    "reveal_choice": "player",
    "flip_after_throw": "none",
    "swap_face": "up",
    "knocking": False,
    "knock_penalty": 10,
    "lines": "columns",
    "cancel": "line",
    "pair_scope": "columns",
    "block_bonus": "off",
    "card_powers": False,
    "holes": 9,
    "turn_limit": 100,
    "card_values": {},
    "suit_values": {},
    "joker_count": "per_deck",
    "joker_pair": "off",
    "negative_pairs": "cancel",
    "two_column_bonus": "off",
    "jack_columns_bonus": "off",
    "exact_score": "off",
    "closer_penalty": "off",
    "closer_bonus": "off",
    "low_score_bonus": "off",
    "tie_penalty": "off",
    "flip_instead_of_draw": False,
    "flip_out": "off",
}

_PRESET_DIFFERENCES: dict[str, dict[str, Any]] = {
    "standard": {
        "max_players": 6,
        "reveal": "peek",
        "reveal_choice": "fixed",
        "flip_after_throw": "must",
        "lines": None,  # columns; rows too on 3x3
    },
    "classic": {},
    "knock": {
        "twos": 2,
        "knocking": True,
        "cancel": "pairs",
    },
    "arena": {
        "reveal_count": None,  # 3 on 3x3, else 2
        "reveal": None,  # peek on 2x2, else flip
        "swap_face": None,  # down on 2x2, else up
        "knocking": None,  # on ("closing") on 2x2, else off
    },
}

# Each preset's full defaults.
PRESETS: dict[str, dict[str, Any]] = {name: {**_BASE_DEFAULTS, **diff} for name, diff in _PRESET_DIFFERENCES.items()}

_LAYOUT_BY_CARDS = {4: (2, 2), 6: (2, 3), 8: (2, 4), 9: (3, 3)}
_JOKER_DEFAULT_VALUE = -2
_BLOCK_DEFAULT_TOTAL = -20


def parse_layout(value: Any) -> tuple[int, int]:
    """Read a layout: `ROWSxCOLS` (1 to 4 each) or a card count 4, 6, 8 or 9."""
    if isinstance(value, bool):
        raise RulesError(f"layout: expected ROWSxCOLS such as 2x3, or 4, 6, 8, 9; got {value!r}")
    if isinstance(value, int):
        if value in _LAYOUT_BY_CARDS:
            return _LAYOUT_BY_CARDS[value]
        raise RulesError(f"layout: {value} cards has no standard shape; write ROWSxCOLS such as 2x3")
    if isinstance(value, str):
        text = value.strip().lower().replace("×", "x")
        if text.isdigit():
            return parse_layout(int(text))
        rows_text, sep, cols_text = text.partition("x")
        if sep and rows_text.strip().isdigit() and cols_text.strip().isdigit():
            rows, cols = int(rows_text), int(cols_text)
            if not (1 <= rows <= 4 and 1 <= cols <= 4):
                raise RulesError(f"layout: rows and columns must each be 1 to 4, got {value!r}")
            return rows, cols
    raise RulesError(f"layout: expected ROWSxCOLS such as 2x3, or 4, 6, 8, 9; got {value!r}")


def _off_or_int(name: str, value: Any, default_on: int, lo: int = -100, hi: int = 100) -> int | None:
    if value is None or value is False or (isinstance(value, str) and value.lower() == "off"):
        return None
    if value is True or (isinstance(value, str) and value.lower() == "on"):
        return default_on
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            pass
    if number is None:
        raise RulesError(f"{name}: expected off, on or a whole number, got {shown(value)}")
    if not lo <= number <= hi:
        raise RulesError(f"{name}: must be off or {lo} to {hi}, got {shown(number)}")
    return number


def _int_in(name: str, value: Any, lo: int, hi: int, alt: str = "") -> int:
    expected = f"{name}: expected a whole number from {lo} to {hi}{' ' + alt if alt else ''}"
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise RulesError(f"{expected}, got {shown(value)}")
    try:
        number = int(value)
    except ValueError:
        raise RulesError(f"{expected}, got {shown(value)}") from None
    if not lo <= number <= hi:
        raise RulesError(f"{name}: must be {lo} to {hi}, got {shown(number)}")
    return number


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("on", "true", "yes"):
        return True
    if isinstance(value, str) and value.lower() in ("off", "false", "no"):
        return False
    raise RulesError(f"{name}: expected on or off, got {value!r}{_value_hint(value, ('on', 'off'))}")


def _enum(name: str, cls: type[enum.Enum], value: Any) -> Any:
    if value is False and cls is FlipAfterThrow:
        # YAML 1.1 reads a bare `no` as false.
        return FlipAfterThrow.NONE
    if isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if cls is FlipAfterThrow and text == "no":
            return FlipAfterThrow.NONE
        for member in cls:
            if member.value == text:
                return member
    values = [m.value for m in cls]
    raise RulesError(f"{name}: expected one of {', '.join(values)}; got {value!r}{_value_hint(value, values)}")


_SHOWN_CHARS = 60


def shown(value: Any) -> str:
    """`value` as an error message quotes it (repr), cut to some 60 characters: a hostile value stays one short line."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a {'negative ' if value < 0 else ''}number of some {int(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else f"{text[: _SHOWN_CHARS - 5]}... ({len(text):,} characters)"


def closest_name(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `name` (difflib's similarity, ignoring case), if any is close enough."""
    by_folded = {candidate.lower(): candidate for candidate in candidates}
    close = difflib.get_close_matches(name.lower(), list(by_folded), n=1, cutoff=0.6)
    return by_folded[close[0]] if close else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`; did you mean 'x'?` naming the candidate closest to `name`, or "" when none is close."""
    hint = closest_name(name, candidates)
    return f"; did you mean {hint!r}?" if hint else ""


def _value_hint(value: object, allowed: Iterable[str]) -> str:
    """`; did you mean 'x'?` for a misspelt word among `allowed` (nothing for a number or a far-off word)."""
    return did_you_mean(value, allowed) if isinstance(value, str) else ""


def unknown_option(name: object) -> str | None:
    """The error for a rule option `name` that does not exist, or None when it does."""
    if name in OPTION_NAMES:
        return None
    return f"unknown rule option {name!r}{did_you_mean(str(name), OPTION_NAMES)}"


def _auto_decks(preset: str, players: int, rows: int, cols: int) -> int:
    cards = rows * cols
    if preset == "standard":
        return 2 if players * cards > 24 else 1
    if preset == "arena" and (rows, cols) == (2, 2):
        return 1
    if preset == "arena" and (rows, cols) == (2, 3):
        return 1 if players <= 5 else 2
    if preset == "arena" and (rows, cols) == (3, 3):
        return 1 if players <= 3 else (2 if players <= 6 else 3)
    if preset == "arena":
        return 1  # a layout arena's text never names: grown to fit by the caller (G4)
    return 1 if players <= 4 else 2


def shoe_jokers(decks: int, jokers: bool, joker_count: int | None = None) -> int:
    """Jokers in the shoe: none when they are off, else `joker_count`, or two per deck when that is None."""
    if not jokers:
        return 0
    return 2 * decks if joker_count is None else joker_count


def deal_fits(players: int, cards: int, decks: int, jokers: bool, joker_count: int | None = None) -> bool:
    """Whether grids, one discard and at least one stock card fit in the decks (D12)."""
    # + 2: the card that starts the discard pile, and the stock's one card that the first draw needs.
    return players * cards + 2 <= decks * 52 + shoe_jokers(decks, jokers, joker_count)


def _points(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise RulesError(f"{name}: expected a whole number from -100 to 100, got {shown(value)}")
    return _int_in(name, value, -100, 100)


_MAPPING_EXAMPLES = {"card_values": ("{K: -2}", "K:-2,10:1"), "suit_values": ("{JH: 0}", "JH:0,JS:0")}
"""Each mapping option's example, as a config writes it and as text (what `--set` passes)."""


def _value_pairs(name: str, value: Any) -> list[tuple[str, Any]]:
    """A mapping option given as a mapping, or as text `K:-2,10:1` (what `--set` passes)."""
    mapping, text_form = _MAPPING_EXAMPLES[name]
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("", "off", "none"):
            return []
        pairs = []
        for item in text.replace(" ", ",").split(","):
            if not item:
                continue
            key, sep, number = item.partition(":") if ":" in item else item.partition("=")
            if not sep:
                raise RulesError(f"{name}: expected CARD:POINTS items such as {text_form}; got {shown(item)}")
            pairs.append((key, number))
        return pairs
    raise RulesError(f"{name}: expected a mapping such as {mapping} or text {text_form}; got {shown(value)}")


def _card_values(value: Any, jokers: bool) -> tuple[tuple[Rank, int], ...]:
    table: dict[Rank, int] = {}
    for key, number in _value_pairs("card_values", value):
        try:
            rank = parse_rank(key)
        except CardError as e:
            raise RulesError(f"card_values: {e}") from None
        if rank is Rank.JOKER and not jokers:
            raise RulesError("card_values: a joker's value needs jokers on (options card_values and jokers)")
        table[rank] = _points(f"card_values.{key}", number)
    return tuple((rank, table[rank]) for rank in Rank if rank in table)


def _suit_values(value: Any) -> tuple[tuple[Rank, Suit, int], ...]:
    table: dict[tuple[Rank, Suit], int] = {}
    for key, number in _value_pairs("suit_values", value):
        try:
            card = parse_card(key)
        except CardError as e:
            raise RulesError(f"suit_values: {e}") from None
        if card.suit is None or card.rank is Rank.JOKER or card.deck != 1:
            raise RulesError(f"suit_values: expected a rank and a suit S H D C such as JH, got {shown(key)}")
        table[(card.rank, card.suit)] = _points(f"suit_values.{key}", number)
    order = {suit: i for i, suit in enumerate(Suit)}
    ranks = list(Rank)
    keys = sorted(table, key=lambda k: (ranks.index(k[0]), order[k[1]]))
    return tuple((rank, suit, table[(rank, suit)]) for rank, suit in keys)


def _exact_score(value: Any) -> tuple[int, int] | None:
    if value is None or value is False or (isinstance(value, str) and value.strip().lower() == "off"):
        return None
    parts: Any = value
    if isinstance(value, str):
        parts = value.replace("->", "=").replace(":", "=").split("=")
    if isinstance(parts, (list, tuple)) and len(parts) == 2:
        return (_int_in("exact_score", parts[0], -200, 200), _int_in("exact_score", parts[1], -200, 200))
    raise RulesError(f"exact_score: expected off or [SCORE, BECOMES] such as [21, 0] (or 21=0), got {shown(value)}")


def _joker_count(value: Any, jokers: bool) -> int | None:
    if isinstance(value, str) and value.strip().lower() == "per_deck":
        return None
    count = _int_in("joker_count", value, 1, 8, "or per_deck")
    if not jokers:
        raise RulesError("joker_count: applies only with jokers on (options joker_count and jokers)")
    return count


def resolve_rules(
    preset: str = "standard",
    overrides: Mapping[str, Any] | None = None,
    players: object = 2,
) -> Rules:
    """Resolve a preset plus overrides for a player count into a `Rules` value."""
    # `players` is checked below, not by its annotation: a config may hold anything there,
    # and compiled by mypyc (the compiled build) an `int` parameter would raise TypeError first.
    if preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)}){did_you_mean(preset, PRESETS)}")
    base = PRESETS[preset]
    given = dict(overrides or {})
    for key in given:
        problem = unknown_option(key)
        if problem:
            raise RulesError(problem)

    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 8:
        raise RulesError(f"players: must be 2 to 8, got {shown(players)}")
    if players > base["max_players"]:
        raise RulesError(
            f"players: preset {preset!r} is for 2 to {base['max_players']} players, got {players} "
            "(presets classic, knock and arena take up to 8)"
        )

    def pick(name: str) -> Any:
        if name not in given:
            return base[name]
        if given[name] is None and name not in ("jokers", "block_bonus") and name not in HOUSE_OPTIONS:
            # None marks a layout-dependent default inside PRESETS; a config cannot ask for it.
            raise RulesError(f"{name}: needs a value (got an empty value)")
        return given[name]

    rows, cols = parse_layout(pick("layout"))
    cards = rows * cols
    square = rows == cols
    two_by_two = (rows, cols) == (2, 2)

    jokers = _off_or_int("jokers", pick("jokers"), _JOKER_DEFAULT_VALUE)
    twos = _int_in("twos", pick("twos"), -2, 2)
    if twos not in (-2, 2):
        raise RulesError(f"twos: must be -2 or 2, got {twos}")
    court_text = str(pick("court_values")).replace(" ", "")
    court = next((c for c in CourtValues if c.value == court_text), None)
    if court is None:
        raise RulesError(f"court_values: expected 10/10 or 11/12, got {pick('court_values')!r}")

    if "reveal_count" in given:
        reveal_count = _int_in("reveal_count", given["reveal_count"], 0, 16)
        if reveal_count > cards:
            raise RulesError(f"reveal_count: {reveal_count} is more than the {cards} cards of layout {rows}x{cols}")
    else:
        default_count = base["reveal_count"]
        if default_count is None:  # arena: 3 on the 9-card grid
            default_count = 3 if (rows, cols) == (3, 3) else 2
        # A preset default never exceeds a small grid: all its cards are revealed then.
        reveal_count = min(default_count, cards)

    reveal_value = pick("reveal")
    if reveal_value is None:
        reveal_value = "peek" if two_by_two else "flip"
    reveal = _enum("reveal", Reveal, reveal_value)
    reveal_choice = _enum("reveal_choice", RevealChoice, pick("reveal_choice"))
    flip_after_throw = _enum("flip_after_throw", FlipAfterThrow, pick("flip_after_throw"))

    swap_value = pick("swap_face")
    if swap_value is None:
        swap_value = "down" if two_by_two else "up"
    if isinstance(swap_value, str) and swap_value.lower() in ("up", "down"):
        swap_face_up = swap_value.lower() == "up"
    else:
        raise RulesError(f"swap_face: expected up or down, got {swap_value!r}{_value_hint(swap_value, ('up', 'down'))}")

    knock_value = pick("knocking")
    if knock_value is None:
        knock_value = two_by_two
    knocking = _bool("knocking", knock_value)
    penalty_value = pick("knock_penalty")
    if isinstance(penalty_value, str) and penalty_value.strip().lower() == KnockPenalty.DOUBLE.value:
        knock_penalty: int | KnockPenalty = KnockPenalty.DOUBLE
    else:
        knock_penalty = _int_in("knock_penalty", penalty_value, 0, 100, "or double")

    lines_value = pick("lines")
    if lines_value is None:  # standard: rows cancel too on 3x3 only
        lines_value = "columns+rows" if (rows, cols) == (3, 3) else "columns"
    lines = _enum("lines", Lines, lines_value)
    if lines is Lines.DIAGONALS and not square:
        raise RulesError(f"lines: diagonals need a square grid, but layout is {rows}x{cols} (options lines and layout)")
    cancel = _enum("cancel", Cancel, pick("cancel"))
    pair_scope = _enum("pair_scope", PairScope, pick("pair_scope"))
    if cancel is Cancel.LINE and "pair_scope" in given and pair_scope is not PairScope.COLUMNS:
        raise RulesError("pair_scope: applies only with cancel: pairs (options pair_scope and cancel)")
    if cancel is Cancel.PAIRS and "lines" in given and lines is not Lines.COLUMNS:
        raise RulesError(
            "lines: applies only with cancel: line; with cancel: pairs use pair_scope (options lines and cancel)"
        )
    # Each cancel mode has one option saying where it applies; the other is pinned to
    # its plain value so a resolved rule set has one written form.
    if cancel is Cancel.PAIRS:
        lines = Lines.COLUMNS
    else:
        pair_scope = PairScope.COLUMNS

    block_bonus = _off_or_int("block_bonus", pick("block_bonus"), _BLOCK_DEFAULT_TOTAL)
    card_powers = _bool("card_powers", pick("card_powers"))
    holes = _int_in("holes", pick("holes"), 1, 36)
    turn_limit = _int_in("turn_limit", pick("turn_limit"), 1, 10_000)

    has_jokers = jokers is not None
    card_values = _card_values(pick("card_values") or {}, has_jokers)
    suit_values = _suit_values(pick("suit_values") or {})
    joker_count = _joker_count(pick("joker_count") or "per_deck", has_jokers)
    joker_pair = _off_or_int("joker_pair", pick("joker_pair"), -4)
    if joker_pair is not None and not has_jokers:
        raise RulesError("joker_pair: applies only with jokers on (options joker_pair and jokers)")
    negative_pairs = _enum("negative_pairs", NegativePairs, pick("negative_pairs") or "cancel")
    two_column_bonus = _off_or_int("two_column_bonus", pick("two_column_bonus"), -20)
    jack_columns_bonus = _off_or_int("jack_columns_bonus", pick("jack_columns_bonus"), -20)
    exact_score = _exact_score(pick("exact_score"))
    closer_penalty = _off_or_int("closer_penalty", pick("closer_penalty"), 10)
    closer_bonus = _off_or_int("closer_bonus", pick("closer_bonus"), -5)
    low_score_bonus = _off_or_int("low_score_bonus", pick("low_score_bonus"), -3)
    tie_penalty = _off_or_int("tie_penalty", pick("tie_penalty"), 5)
    flip_instead_of_draw = _bool("flip_instead_of_draw", pick("flip_instead_of_draw") or False)
    flip_out = _off_or_int("flip_out", pick("flip_out"), 2, 1, 16)
    if flip_out is not None and flip_out > cards:
        raise RulesError(f"flip_out: {flip_out} is more than the {cards} cards of layout {rows}x{cols}")

    decks_value = pick("decks")
    if isinstance(decks_value, str) and decks_value.lower() == "auto":
        decks = _auto_decks(preset, players, rows, cols)
        # Where the preset's rule leaves a deal that cannot fit (layouts its text never
        # names), take the fewest decks that do fit.
        while not deal_fits(players, cards, decks, has_jokers, joker_count) and decks < 4:
            decks += 1
    else:
        decks = _int_in("decks", decks_value, 1, 4)
    if not deal_fits(players, cards, decks, has_jokers, joker_count):
        total = decks * 52 + shoe_jokers(decks, has_jokers, joker_count)
        involved = "players, layout, decks, jokers" + (", joker_count" if joker_count is not None else "")
        raise RulesError(
            f"the deal does not fit: {players} players x {cards} cards + 1 discard + 1 stock card "
            f"needs {players * cards + 2} cards, but {decks} deck(s) hold {total} (options {involved})"
        )

    return Rules(
        preset=preset,
        players=players,
        rows=rows,
        cols=cols,
        decks=decks,
        jokers=jokers,
        twos=twos,
        court_values=court,
        reveal_count=reveal_count,
        reveal=reveal,
        reveal_choice=reveal_choice,
        flip_after_throw=flip_after_throw,
        swap_face_up=swap_face_up,
        knocking=knocking,
        knock_penalty=knock_penalty,
        lines=lines,
        cancel=cancel,
        pair_scope=pair_scope,
        block_bonus=block_bonus,
        card_powers=card_powers,
        holes=holes,
        turn_limit=turn_limit,
        card_values=card_values,
        suit_values=suit_values,
        joker_count=joker_count,
        joker_pair=joker_pair,
        negative_pairs=negative_pairs,
        two_column_bonus=two_column_bonus,
        jack_columns_bonus=jack_columns_bonus,
        exact_score=exact_score,
        closer_penalty=closer_penalty,
        closer_bonus=closer_bonus,
        low_score_bonus=low_score_bonus,
        tie_penalty=tie_penalty,
        flip_instead_of_draw=flip_instead_of_draw,
        flip_out=flip_out,
    )


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Rebuild `Rules` from `Rules.to_dict()` output, checking it resolves to itself."""
    if not isinstance(data, Mapping):
        raise RulesError("rules: expected a mapping")
    preset = data.get("preset")
    players = data.get("players")
    if not isinstance(preset, str):
        raise RulesError("rules: preset missing or not a string")
    overrides = {k: v for k, v in data.items() if k not in ("preset", "players")}
    rules = resolve_rules(preset, overrides, players if isinstance(players, int) else -1)
    if rules.to_dict() != dict(data):
        raise RulesError("rules: the recorded rules are not a resolved rule set")
    return rules
