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
schemas/protocol.schema.json; copy this file next to your bot.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["Rules", "TimeControl", "Event", "View", "Card", "play", "choose_of", "rank_points", "PROTOCOL"]

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
        given = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in ("card_values", "suit_values"):
            if name in given:
                given[name] = tuple(given[name].items())
        if given.get("exact_score") is not None:
            given["exact_score"] = tuple(given["exact_score"])
        return cls(**given)


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


Choose = Callable[[View, list[str]], str]


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
            action = choose(View.from_request(message, rules, time), list(message["legal"]))
            _send(out, {"type": "answer", "id": message["id"], "action": action})
        elif kind == "goodbye":
            break
        elif kind is not None and on_notice is not None:
            on_notice(message)
