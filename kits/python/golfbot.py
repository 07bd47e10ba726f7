"""golfbot: the golfref bot protocol (version 3) for Python bots, standard library only.

Write one function, `choose(view, legal)`, and hand it to `play`:

    import golfbot

    def choose(view: golfbot.View, legal: list[str]) -> str:
        return legal[0]

    golfbot.play(choose, name="my_bot")

`play` reads golfref's messages on stdin, answers `hello` with `ready`, calls `choose` for
every `request` with the seat's view as typed dataclasses, and answers with what it returns,
as it is: a value not in `legal` is the referee's `illegal_action` fault, which names the
legal choices. An exception in `choose` is not caught: it ends the bot with its traceback
on stderr and exit status 1, so that a bug shows (in the log, and in `golfref check-bot`)
instead of hiding behind a move the bot did not choose. Notices (`hole_end`, `match_end`)
go to the optional `on_notice`; unknown message types are ignored, as the protocol asks.

The field names and JSON types are those of docs/PROTOCOL.md and
schemas/protocol.schema.json; copy this file next to your bot. `card_points`, `grid_score`
and `hole_scores` score a card, a grid and a hole as golfref does.

For a learned policy, `Encoder` turns a View into the numeric observation golfref.env trains
on, and `ACTIONS` / `action_mask` / `action_text` are its action table (docs/ENVIRONMENT.md).
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = [
    "Rules", "TimeControl", "Event", "View", "Card", "play", "answer", "choose_of", "rank_points", "card_points",
    "grid_score", "hole_scores", "PROTOCOL", "ACTIONS", "ACTION_INDEX", "ACTION_TABLE_VERSION", "action_mask",
    "action_text", "OBSERVATION_VERSION", "OBSERVATION_LAYOUT", "OBSERVATION_OFFSETS", "OBSERVATION_SIZE",
    "RULE_FEATURES", "Encoder", "rule_features",
]  # fmt: skip

PROTOCOL = 3
"""The protocol version this module speaks."""

Card = str
"""A card as the protocol writes it: rank then suit, such as "TH" or "XR#2"."""


@dataclass(frozen=True)
class Rules:
    """hello.rules: the match's rule set, every field present (docs/PROTOCOL.md#hellorules)."""

    preset: str
    players: int
    layout: str
    decks: int
    jokers: int | None
    twos: int
    court_values: str
    reveal_count: int
    reveal: str
    reveal_choice: str
    flip_after_throw: str
    swap_face: str
    knocking: bool
    knock_penalty: int | None
    knock_double: bool
    lines: str
    cancel: str
    pair_scope: str
    block_bonus: int | None
    card_powers: bool
    holes: int
    turn_limit: int
    # The house options (protocol version 3; docs/RULES.md#house-options).
    # Pairs, not dicts, so that a Rules stays hashable (a policy may cache by its rules).
    card_values: tuple[tuple[str, int], ...] = ()
    """Points of every rank in play by rank letter ("X": a joker): the whole table."""
    suit_values: tuple[tuple[str, int], ...] = ()
    """Points of one rank of one suit by card ("JH"), over `card_values`."""
    joker_count: int | None = None
    joker_pair: int | None = None
    negative_pairs: str = "cancel"
    two_column_bonus: int | None = None
    jack_columns_bonus: int | None = None
    exact_score: tuple[int, int] | None = None
    closer_penalty: int | None = None
    closer_bonus: int | None = None
    low_score_bonus: int | None = None
    tie_penalty: int | None = None
    flip_instead_of_draw: bool = False
    flip_out: int | None = None

    @property
    def rows(self) -> int:
        """Rows of every grid."""
        return int(self.layout.split("x")[0])

    @property
    def cols(self) -> int:
        """Columns of every grid."""
        return int(self.layout.split("x")[1])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        """The rules of a hello message; fields added by later versions are ignored, the house options may be absent."""
        given = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in ("card_values", "suit_values"):
            if name in given:
                given[name] = tuple(given[name].items())
        if given.get("exact_score") is not None:
            given["exact_score"] = tuple(given["exact_score"])
        return cls(**given)


@dataclass(frozen=True)
class TimeControl:
    """hello.time, in milliseconds; `match_ms` is 0 when the match sets no limit."""

    startup_ms: int
    move_ms: int
    bank_ms: int
    increment_ms: int
    grace_ms: int
    match_ms: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        """The time control of a hello message."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass(frozen=True)
class Event:
    """One event of a request or hole_end; fields an event kind does not have are None."""

    event: str
    seat: int | None = None
    slot: int | None = None
    card: Card | None = None
    source: str | None = None  # the JSON field `from` (a Python keyword)
    discarded: Card | None = None
    target: tuple[int, int] | None = None
    cards: tuple[tuple[int, int], tuple[int, int]] | int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        """An event as the protocol writes it."""
        target = data.get("target")
        cards = data.get("cards")
        if isinstance(cards, list):
            cards = (tuple(cards[0]), tuple(cards[1]))
        return cls(
            event=data["event"],
            seat=data.get("seat"),
            slot=data.get("slot"),
            card=data.get("card"),
            source=data.get("from"),
            discarded=data.get("discarded"),
            target=tuple(target) if target is not None else None,
            cards=cards,
        )


@dataclass
class View:
    """A request's view of the table, its events, and the match's rules and time control."""

    seat: int
    hole: int
    starter: int
    to_move: int
    decision: str
    grids: list[list[Card | None]]
    face_up: list[list[bool]]
    discard: list[Card]
    stock_size: int
    drawn: Card | None
    drawn_from: str | None
    power: str | None
    first_target: tuple[int, int] | None
    closer: int | None
    knocker: int | None
    turns: list[int]
    totals: list[int]
    hole_scores: list[list[int]]
    rules: Rules
    time: TimeControl
    events: list[Event] = field(default_factory=list)
    request_id: int = 0
    time_ms: int = 0

    @property
    def grid(self) -> list[Card | None]:
        """This seat's own grid (None where it has not seen the card)."""
        return self.grids[self.seat]

    @classmethod
    def from_request(cls, request: dict[str, Any], rules: Rules, time: TimeControl) -> View:
        """The view of a request message."""
        v = request["view"]
        first = v.get("first_target")
        return cls(
            seat=v["seat"],
            hole=v["hole"],
            starter=v["starter"],
            to_move=v["to_move"],
            decision=v["decision"],
            grids=v["grids"],
            face_up=v["face_up"],
            discard=v["discard"],
            stock_size=v["stock_size"],
            drawn=v.get("drawn"),
            drawn_from=v.get("drawn_from"),
            power=v.get("power"),
            first_target=tuple(first) if first is not None else None,
            closer=v.get("closer"),
            knocker=v.get("knocker"),
            turns=v["turns"],
            totals=v["totals"],
            hole_scores=v["hole_scores"],
            rules=rules,
            time=time,
            events=[Event.from_json(e) for e in request.get("events", [])],
            request_id=request["id"],
            time_ms=request.get("time_ms", 0),
        )


def rank_points(rules: Rules) -> dict[str, int]:
    """Points of each rank letter under `rules` (a joker "X" only when jokers are on)."""
    if rules.card_values:
        return dict(rules.card_values)
    court = rules.court_values == "11/12"
    points = {"A": 1, "2": rules.twos, "T": 10, "J": 11 if court else 10, "Q": 12 if court else 10, "K": 0}
    points.update({r: int(r) for r in "3456789"})
    if rules.jokers is not None:
        points["X"] = rules.jokers
    return points


def card_points(rules: Rules, card: Card | None, unseen: int = 5, ranks: dict[str, int] | None = None) -> int:
    """Points of one card under `rules` (None, unseen, counts `unseen`): its suit's own value, else its rank's.

    `ranks` is `rank_points(rules)`, passed to work it out once. `grid_score` and `hole_scores`
    score what a whole grid and the table add.
    """
    if card is None:
        return unseen
    for key, points in rules.suit_values:
        if card.startswith(key):
            return points
    return (rank_points(rules) if ranks is None else ranks)[card[0]]


def _groups(rules: Rules) -> list[tuple[str, list[int]]]:
    """The lines that cancel (`cancel: line`) or the pair groups (`cancel: pairs`), in golfref's scan order."""
    rows, cols = rules.rows, rules.cols
    if rules.cancel == "pairs" and rules.pair_scope == "grid":
        return [("grid", list(range(rows * cols)))]
    with_rows = rules.lines != "columns" if rules.cancel == "line" else rules.pair_scope == "columns+rows"
    groups = [("column", [r * cols + c for r in range(rows)]) for c in range(cols)]
    if with_rows:
        groups += [("row", [r * cols + c for c in range(cols)]) for r in range(rows)]
    if rules.cancel == "line" and rules.lines == "columns+rows+diagonals" and rows == cols:
        groups.append(("diagonal", [i * cols + i for i in range(rows)]))
        groups.append(("diagonal", [i * cols + cols - 1 - i for i in range(rows)]))
    return [g for g in groups if len(g[1]) >= 2]  # a line of one card is no line


def _shares(total: int, n: int) -> list[int]:
    """`total` split over `n` cards as golfref splits a block's or a joker pair's total (the first ones get 1 more)."""
    share, rest = divmod(total, n)
    return [share + (1 if i < rest else 0) for i in range(n)]


def grid_score(rules: Rules, grid: list[Card | None], unseen: int = 5) -> int:
    """A grid's score as golfref scores it (docs/RULES.md, "Card values and scoring"), `exact_score` applied.

    Blocks, cancelled lines or pairs, `joker_pair`, `negative_pairs` and the column bonuses
    all count. An unseen card (None) counts `unseen` and cancels with nothing: the score of
    a grid with one is an estimate. The adjustments between players (and a knock's penalty)
    need every grid: `hole_scores`.
    """
    ranks: list[str | None] = [None if c is None else c[0] for c in grid]
    values = rank_points(rules)
    points = [card_points(rules, c, unseen, values) for c in grid]
    own = list(points)  # a card is negative by its own points, not by a block's share
    rows, cols = rules.rows, rules.cols
    in_block = [False] * len(grid)
    if rules.block_bonus is not None and rows >= 2 and cols >= 2:
        for r in range(rows - 1):
            for c in range(cols - 1):
                square = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
                if ranks[square[0]] is None or any(in_block[s] or ranks[s] != ranks[square[0]] for s in square):
                    continue
                for s, share in zip(square, _shares(rules.block_bonus, 4), strict=True):
                    in_block[s], points[s] = True, share
    cancelled: list[tuple[str, list[int]]] = []
    for kind, slots in _groups(rules):
        if rules.cancel == "line":
            if ranks[slots[0]] is not None and all(ranks[s] == ranks[slots[0]] for s in slots):
                cancelled.append((kind, slots))
        else:
            seen = [ranks[s] for s in slots]
            hit = [s for s in slots if ranks[s] is not None and seen.count(ranks[s]) >= 2]
            if hit:
                cancelled.append((kind, hit))
    done = list(in_block)  # a block card keeps its share, whatever line runs through it
    columns: dict[str, int] = {}
    keep = rules.negative_pairs == "keep"
    for kind, slots in cancelled:
        by_rank: dict[str, list[int]] = {}  # under cancel: pairs, each rank's cards are a line of their own
        for s in slots:
            by_rank.setdefault(str(ranks[s]), []).append(s)
        for rank, line in by_rank.items():
            if kind == "column":
                columns[rank] = columns.get(rank, 0) + 1
            # A card a block or an earlier line decided keeps what it got there.
            if rules.joker_pair is not None and rank == "X":
                for s, share in zip(line, _shares(rules.joker_pair, len(line)), strict=True):
                    points[s] = points[s] if done[s] else share
            elif not (keep and any(own[s] < 0 for s in line)):
                for s in line:
                    points[s] = points[s] if done[s] else 0
            for s in line:
                done[s] = True
    total = sum(points)
    if rules.two_column_bonus is not None:
        total += rules.two_column_bonus * sum(1 for n in columns.values() if n >= 2)
    if rules.jack_columns_bonus is not None and columns.get("J", 0) >= 2:
        total += rules.jack_columns_bonus
    if rules.exact_score is not None and total == rules.exact_score[0]:
        total = rules.exact_score[1]
    return total


def hole_scores(
    rules: Rules, grids: list[list[Card | None]], closer: int | None, knocker: int | None, unseen: int = 5
) -> list[int]:
    """Every seat's hole score as golfref scores it: `grid_score`, the knock penalty, then the house adjustments.

    `closer` and `knocker` are the view's; in their order (docs/RULES.md, "The order of
    end-of-hole adjustments"): a failed knock's penalty (a tie for lowest fails),
    `closer_penalty` unless the one who ended the hole first is lowest, `closer_bonus`,
    `low_score_bonus` to the lowest, and last `tie_penalty` to every score another equals.
    """
    raw = [grid_score(rules, grid, unseen) for grid in grids]
    out = list(raw)
    if knocker is not None and any(v <= raw[knocker] for s, v in enumerate(raw) if s != knocker):
        out[knocker] += max(raw[knocker], 0) if rules.knock_double else (rules.knock_penalty or 0)
    first = closer if closer is not None else knocker
    if first is not None and rules.closer_penalty is not None and out[first] > min(out):
        out[first] += rules.closer_penalty
    if first is not None and rules.closer_bonus is not None:
        out[first] += rules.closer_bonus
    if rules.low_score_bonus is not None:
        low = min(out)
        out = [v + rules.low_score_bonus if v == low else v for v in out]
    if rules.tie_penalty is not None:
        out = [v + rules.tie_penalty if out.count(v) > 1 else v for v in out]
    return out


Choose = Callable[[View, list[str]], str]


def answer(choose: Choose, request: dict[str, Any], rules: Rules, time: TimeControl) -> dict[str, Any]:
    """The answer message `play` sends to a request: `choose` called on its view and legal choices."""
    action = choose(View.from_request(request, rules, time), list(request["legal"]))
    return {"type": "answer", "id": request["id"], "action": action}


def choose_of(policy: object) -> Choose:
    """A policy's `choose`: its method of that name, or the policy itself when it is a plain function."""
    method = getattr(policy, "choose", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    if callable(policy) and not isinstance(policy, type):
        return policy
    raise TypeError(f"{policy!r} is no policy: it has no choose(view, legal) method and is not such a function")


def _send(out: TextIO, message: dict[str, Any]) -> None:
    # One line, flushed: the referee waits for it.
    out.write(json.dumps(message) + "\n")
    out.flush()


def play(
    choose: Choose,
    *,
    name: str,
    version: str = "1",
    on_notice: Callable[[dict[str, Any]], None] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Play one match on stdin/stdout: ready on hello, `choose` on every request, stop at goodbye."""
    source = sys.stdin if stdin is None else stdin
    out = sys.stdout if stdout is None else stdout
    rules: Rules | None = None
    time: TimeControl | None = None
    for line in source:
        try:
            message = json.loads(line)
        except ValueError:
            continue  # golfref never sends a line that is not JSON
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            rules = Rules.from_json(message["rules"])
            time = TimeControl.from_json(message["time"])
            _send(out, {"type": "ready", "name": name, "version": version})
        elif kind == "request" and rules is not None and time is not None:
            _send(out, answer(choose, message, rules, time))
        elif kind == "goodbye":
            break
        elif kind is not None and on_notice is not None:
            on_notice(message)


# -- the observation encoder and the action table ------------------------------------------
#
# One piece of code for training and for play: golfref.env encodes each seat's view with the
# `Encoder` below, and a bot built on this kit encodes the View of each request with the same
# `Encoder`, so a policy sees over the protocol exactly the numbers it saw in training
# (docs/ENVIRONMENT.md). Both are sized for the largest table the rules allow (8 seats, 4x4
# grids); a change of either is a change of its version, and tests/test_encoding.py pins both.

MAX_SEATS = 8
"""Seats the observation and the action table are sized for (the rules allow 2 to 8 players)."""
MAX_SLOTS = 16
"""Slots per grid the observation and the action table are sized for (the largest layout, 4x4)."""

ACTION_TABLE_VERSION = 2
"""The version of `ACTIONS`: raised whenever an action is added, removed or moved."""


def _action_table() -> tuple[str, ...]:
    slots = range(MAX_SLOTS)
    return (
        ("stock", "discard", "knock")
        + tuple(f"swap:{n}" for n in slots)
        + ("throw", "power")
        + tuple(f"flip:{n}" for n in slots)
        + ("pass",)
        + tuple(f"reveal:{n}" for n in slots)
        + tuple(f"target:{s}:{n}" for s in range(MAX_SEATS) for n in slots)
        + ("flip_out",)
    )


ACTIONS: tuple[str, ...] = _action_table()
"""The fixed discrete action space: index -> the protocol's legal string (docs/ENVIRONMENT.md)."""
ACTION_INDEX: dict[str, int] = {text: i for i, text in enumerate(ACTIONS)}
"""The protocol's legal string -> its index in `ACTIONS`."""


def action_mask(legal: list[str]) -> list[int]:
    """1 at the index of each legal string, 0 elsewhere; ValueError names a string the table lacks."""
    mask = [0] * len(ACTIONS)
    for text in legal:
        index = ACTION_INDEX.get(text)
        if index is None:
            raise ValueError(f"legal action {text!r} is not in the action table (version {ACTION_TABLE_VERSION})")
        mask[index] = 1
    return mask


def action_text(index: int) -> str:
    """The legal string of action `index`; ValueError when it is outside the table."""
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(ACTIONS):
        raise ValueError(f"action index must be a whole number from 0 to {len(ACTIONS) - 1}, got {index!r}")
    return ACTIONS[index]


OBSERVATION_VERSION = 2
"""The version of `OBSERVATION_LAYOUT`: raised whenever a field is added, removed, resized or re-meant."""

RANK_CODES = "A23456789TJQKX"
"""A card's rank code in the observation: 1 + its place here (0: no card, or one this seat has not seen)."""
DECISIONS = ("reveal", "draw", "place", "flip", "target")
"""The decisions, in the order of the observation's `decision` one-hot."""
SLOT_FIELDS = ("exists", "face_up", "rank", "points")
"""The values of one grid slot, in order (all 0 for a padding slot or seat)."""

RULE_FEATURES: tuple[str, ...] = (
    "players", "rows", "cols", "decks", "jokers_on", "jokers_value", "twos", "court_11_12", "reveal_count",
    "reveal_peek", "reveal_choice_player", "flip_none", "flip_may", "flip_must", "swap_face_down", "knocking",
    "knock_penalty", "knock_double", "lines_columns", "lines_rows", "lines_diagonals", "cancel_pairs",
    "pair_scope_columns", "pair_scope_rows", "pair_scope_grid", "block_bonus_on", "block_bonus_value",
    "card_powers", "holes", "turn_limit", "flip_endgame", "joker_count_on", "joker_count", "joker_pair_on",
    "joker_pair", "negative_pairs_keep", "two_column_bonus_on", "two_column_bonus", "jack_columns_bonus_on",
    "jack_columns_bonus", "exact_score_on", "exact_score_from", "exact_score_to", "closer_penalty_on",
    "closer_penalty", "closer_bonus_on", "closer_bonus", "low_score_bonus_on", "low_score_bonus", "tie_penalty_on",
    "tie_penalty", "flip_instead_of_draw", "flip_out_on", "flip_out",
)  # fmt: skip
"""The `rules` field's numbers, in order: each hello.rules option that changes play (not its preset's name)."""

OBSERVATION_LAYOUT: tuple[tuple[str, int, str], ...] = (
    ("decision", len(DECISIONS), "one-hot: reveal, draw, place, flip, target (all 0 when this seat is not to move)"),
    ("seat", MAX_SEATS, "one-hot: this seat"),
    ("to_move", MAX_SEATS, "one-hot: the seat to move (all 0 between holes and after the match)"),
    ("starter", MAX_SEATS, "one-hot: the seat that started this hole"),
    ("closer", MAX_SEATS, "one-hot: the seat that closed the hole"),
    ("knocker", MAX_SEATS, "one-hot: the seat that knocked"),
    ("drawn_from", 2, "one-hot: stock, discard"),
    ("power", 3, "one-hot: the power in use: J, Q, K"),
    ("hole", 1, "the hole, from 0"),
    ("drawn", 3, "the card in the hand of the seat to move: 1 if any, its rank code, its points (0, 0 unseen)"),
    ("first_target", 3, "a king's first card: 1 if chosen, its seat, its slot"),
    ("stock_size", 1, "cards in the stock"),
    ("discard_top", 3, "1 if the pile has a card, the top card's rank code, its points"),
    ("discard_size", 1, "cards in the discard pile"),
    ("discard_ranks", len(RANK_CODES), "how many cards of each rank lie in the discard pile, in RANK_CODES order"),
    ("turns", MAX_SEATS, "turns each seat took in this hole (0 for padding seats)"),
    ("totals", MAX_SEATS, "each seat's match total so far (0 for padding seats)"),
    ("rules", len(RULE_FEATURES), "the resolved rules, RULE_FEATURES order"),
    ("grids", MAX_SEATS * MAX_SLOTS * len(SLOT_FIELDS), "seat by seat, slot by slot (row-major): SLOT_FIELDS"),
)
"""The observation, field by field: (name, how many numbers, what they mean); all whole numbers (int16)."""


ENCODED_RULE_OPTIONS = frozenset(
    {
        "players", "layout", "decks", "jokers", "twos", "court_values", "reveal_count", "reveal", "reveal_choice",
        "flip_after_throw", "swap_face", "knocking", "knock_penalty", "knock_double", "lines", "cancel",
        "pair_scope", "block_bonus", "card_powers", "holes", "turn_limit", "card_values", "suit_values",
        "joker_count", "joker_pair", "negative_pairs", "two_column_bonus", "jack_columns_bonus", "exact_score",
        "closer_penalty", "closer_bonus", "low_score_bonus", "tie_penalty", "flip_instead_of_draw", "flip_out",
    }
)  # fmt: skip
"""The hello.rules fields the encoder reads: a new one fails tests/test_encoding.py until encoded.

`card_values` and `suit_values` are read into each card's points (a slot's and the pile's), not into
`rules`: a card's worth is where it lies.
"""


def _offsets() -> dict[str, int]:
    out, at = {}, 0
    for name, size, _ in OBSERVATION_LAYOUT:
        out[name] = at
        at += size
    return out


OBSERVATION_OFFSETS: dict[str, int] = _offsets()
"""Where each field of `OBSERVATION_LAYOUT` starts."""
OBSERVATION_SIZE = sum(size for _, size, _ in OBSERVATION_LAYOUT)
"""How many numbers an observation holds."""
OBSERVATION_LOW = -32768
"""The smallest value an observation may hold (int16)."""
OBSERVATION_HIGH = 32767
"""The largest value an observation may hold (int16)."""


def rule_features(rules: Rules) -> list[int]:
    """The `rules` field of the observation, in `RULE_FEATURES` order."""
    return [
        rules.players, rules.rows, rules.cols, rules.decks, int(rules.jokers is not None), rules.jokers or 0,
        rules.twos, int(rules.court_values == "11/12"), rules.reveal_count, int(rules.reveal == "peek"),
        int(rules.reveal_choice == "player"), int(rules.flip_after_throw == "none"),
        int(rules.flip_after_throw == "may"), int(rules.flip_after_throw == "must"), int(rules.swap_face == "down"),
        int(rules.knocking), rules.knock_penalty or 0, int(rules.knock_double), int(rules.lines == "columns"),
        int(rules.lines == "columns+rows"), int(rules.lines == "columns+rows+diagonals"),
        int(rules.cancel == "pairs"), int(rules.pair_scope == "columns"), int(rules.pair_scope == "columns+rows"),
        int(rules.pair_scope == "grid"), int(rules.block_bonus is not None), rules.block_bonus or 0,
        int(rules.card_powers), rules.holes, rules.turn_limit, int(rules.flip_after_throw == "endgame"),
        *_optional(rules.joker_count), *_optional(rules.joker_pair), int(rules.negative_pairs == "keep"),
        *_optional(rules.two_column_bonus), *_optional(rules.jack_columns_bonus),
        int(rules.exact_score is not None), *(rules.exact_score or (0, 0)), *_optional(rules.closer_penalty),
        *_optional(rules.closer_bonus), *_optional(rules.low_score_bonus), *_optional(rules.tie_penalty),
        int(rules.flip_instead_of_draw), *_optional(rules.flip_out),
    ]  # fmt: skip


def _optional(value: int | None) -> tuple[int, int]:
    """An option that is off (None) or a number: (1, the number) or (0, 0)."""
    return (0, 0) if value is None else (1, value)


def _packed_hots(size: int) -> list[bytes]:
    """Index i + 1 -> the one-hot of i, packed as int16; index 0 -> all zeros (None)."""
    pack = struct.Struct(f"{size}h").pack
    return [pack(*([0] * size))] + [pack(*(int(i == j) for j in range(size))) for i in range(size)]


def _word(value: object) -> Any:
    """An enum member's word, anything else as it is: golfref's SeatView and the kit's View read alike."""
    return getattr(value, "value", value)


class Encoder:
    """Turns one seat's view into the observation of `OBSERVATION_LAYOUT`, for one match's rules.

    It reads the fields a kit `View` and golfref's `SeatView` share (cards as strings or as
    objects with a `name`, decisions as strings or enum members), so a bot encodes what the
    environment encoded. The observation is assembled from packed int16 pieces: the one-hots
    and the rules are packed once, and what a golfref view shares between two observations
    (a grid's tuple, the pile's) is encoded once.
    """

    def __init__(self, rules: Rules) -> None:
        if rules.players > MAX_SEATS or rules.rows * rules.cols > MAX_SLOTS:
            raise ValueError(f"rules for {rules.players} players and layout {rules.layout} exceed the observation")
        points = rank_points(rules)
        self._cards: dict[str, tuple[int, int]] = {}
        self._points = {code: (RANK_CODES.index(code) + 1, value) for code, value in points.items()}
        self._suit_points = dict(rules.suit_values)  # one rank of one suit ("JH") worth other points
        self._players = rules.players
        self._pad_seats = (0,) * (MAX_SEATS - rules.players)
        hots = _packed_hots(len(DECISIONS))
        self._decision: dict[object, bytes] = dict(zip(DECISIONS, hots[1:], strict=True))
        self._no_decision = hots[0]
        self._seats = _packed_hots(MAX_SEATS)
        two, three = _packed_hots(2), _packed_hots(3)
        self._from: dict[object, bytes] = {"stock": two[1], "discard": two[2], None: two[0]}
        self._power: dict[object, bytes] = {"J": three[1], "Q": three[2], "K": three[3], None: three[0]}
        self._rules = struct.pack(f"{len(RULE_FEATURES)}h", *rule_features(rules))
        at = OBSERVATION_OFFSETS
        self._pack_numbers = struct.Struct(f"{at['rules'] - at['hole']}h").pack
        self._hots_memo: dict[tuple[Any, ...], bytes] = {}
        width = MAX_SLOTS * len(SLOT_FIELDS)
        self._slot_pack = struct.Struct(f"{len(SLOT_FIELDS)}h").pack
        self._slot_up: dict[str | None, bytes] = {}
        self._slot_down: dict[str | None, bytes] = {}
        self._pad_slot_bytes = bytes(2 * (MAX_SLOTS - rules.rows * rules.cols) * len(SLOT_FIELDS))
        self._pad_grids = bytes(2 * width * (MAX_SEATS - rules.players))
        # Memos keyed by the identity of a tuple the view shares while it is unchanged (golfref's
        # SeatView keeps one per grid, per seat seeing it, and one for all grids); a list is
        # encoded afresh every time.
        self._grid_memo: dict[int, tuple[object, object, bytes]] = {}
        self._grids_memo: dict[int, tuple[object, object, bytes]] = {}
        self._pile_state: tuple[Any, list[int], tuple[int, ...]] = (None, [], ())

    def card(self, card: object) -> tuple[int, int]:
        """(rank code, points) of a card written as the protocol writes it (or with that `name`)."""
        name: str = card if card.__class__ is str else card.name  # type: ignore[attr-defined]
        known = self._cards.get(name)
        if known is None:
            code, points = self._points[name[0]]
            known = self._cards[name] = (code, self._suit_points.get(name[:2], points))
        return known

    def _slot(self, card: object, up: bool) -> bytes:
        """One slot's `SLOT_FIELDS`, packed, kept per card name and side."""
        name = None if card is None else (card if card.__class__ is str else card.name)  # type: ignore[attr-defined]
        memo = self._slot_up if up else self._slot_down
        packed = memo.get(name)
        if packed is None:
            packed = memo[name] = self._slot_pack(1, int(up), *((0, 0) if card is None else self.card(card)))
        return packed

    def _grids(self, own: int, grids: Any, face_up: Any) -> bytes:
        """The `grids` field, packed: every seat's grid, padded to `MAX_SEATS`."""
        memo = self._grid_memo
        slot = self._slot
        slot_up, slot_down = self._slot_up, self._slot_down
        pad = self._pad_slot_bytes
        pieces = []
        for s, g in enumerate(grids):
            f = face_up[s]
            key = own * MAX_SEATS + s
            last = memo.get(key)
            if last is not None and last[0] is g and last[1] is f:
                pieces.append(last[2])
                continue
            pieces_of_grid = []
            for c, up in zip(g, f, strict=True):
                # The memo read in place: a call per slot is a fifth of a grid's cost.
                name = None if c is None else (c if c.__class__ is str else c.name)
                piece = (slot_up if up else slot_down).get(name)
                pieces_of_grid.append(slot(c, up) if piece is None else piece)
            pieces_of_grid.append(pad)
            packed = b"".join(pieces_of_grid)
            if g.__class__ is tuple and f.__class__ is tuple:
                memo[key] = (g, f, packed)
            pieces.append(packed)
        pieces.append(self._pad_grids)
        return b"".join(pieces)

    def pile(self, pile: Any) -> tuple[int, ...]:
        """The `discard_top`, `discard_size` and `discard_ranks` fields."""
        card = self.card
        last, counts, fields = self._pile_state
        if pile.__class__ is not tuple:
            last = None  # a list may change in place: counted afresh
        elif pile is last:
            return fields
        n = len(pile)
        # A turn puts one card on the pile or takes its top: count that card, not the pile.
        if last is not None and n == len(last) + 1 and pile[:-1] == last:
            counts = counts.copy()
            counts[card(pile[-1])[0] - 1] += 1
        elif last is not None and n == len(last) - 1 and last[:-1] == pile:
            counts = counts.copy()
            counts[card(last[-1])[0] - 1] -= 1
        elif last is None or pile != last:
            counts = [0] * len(RANK_CODES)
            for c in pile:
                counts[card(c)[0] - 1] += 1
        top = (1, *card(pile[-1])) if pile else (0, 0, 0)
        fields = (*top, n, *counts)
        self._pile_state = (pile, counts, fields)
        return fields

    def _hots(self, key: tuple[Any, ...]) -> bytes:
        """The one-hot fields (`decision` to `power`) of `key`, packed, kept per key."""
        decision, own, to_move, starter, closer, knocker, drawn_from, power = (_word(k) for k in key)
        seats = self._seats
        packed = b"".join(
            (
                self._no_decision if decision is None or to_move != own else self._decision[decision],
                seats[own + 1],
                seats[0 if to_move is None else to_move + 1],
                seats[starter + 1],
                seats[0 if closer is None else closer + 1],
                seats[0 if knocker is None else knocker + 1],
                self._from[drawn_from],
                self._power[power],
            )
        )
        self._hots_memo[key] = packed
        return packed

    def encode(self, view: Any) -> array[int]:
        """The observation of `view` (a kit `View` or golfref's `SeatView`): `OBSERVATION_SIZE` int16 numbers."""
        own = view.seat
        drawn = view.drawn
        first = view.first_target
        grids, face_up = view.grids, view.face_up
        last = self._grids_memo.get(own)
        if last is not None and last[0] is grids and last[1] is face_up:
            block = last[2]
        else:
            block = self._grids(own, grids, face_up)
            if grids.__class__ is tuple:
                self._grids_memo[own] = (grids, face_up, block)
        # The one-hot fields take few values between them: packed once per combination (the
        # key holds enum members as they are, or the words a kit View has).
        drawn_from = view.drawn_from
        key = (view.decision, own, view.to_move, view.starter, view.closer, view.knocker, drawn_from, view.power)
        hots = self._hots_memo.get(key)
        if hots is None:
            hots = self._hots(key)
        pad = self._pad_seats
        numbers = self._pack_numbers(
            view.hole,
            *((int(drawn_from is not None), 0, 0) if drawn is None else (1, *self.card(drawn))),
            *((0, 0, 0) if first is None else (1, first[0], first[1])),
            view.stock_size,
            *self.pile(view.discard),
            *view.turns,
            *pad,
            *view.totals,
            *pad,
        )
        return array("h", b"".join((hots, numbers, self._rules, block)))
