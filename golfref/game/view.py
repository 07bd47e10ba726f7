"""The one gate to hidden information (D13): what one seat may see of a game.

Nothing reaches a bot, a seat's transcript or a `--seat` replay except through `view`
and `events_for`. A seat sees every face-up card, the whole discard pile, the stock's
size, the face-down cards it has seen itself (peeked, placed, learned by a power), the
card it drew from the stock, every public event and all scores so far; never another
seat's unseen cards, the stock order or the seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .cards import Card, Rank, parse_card
from .engine import (
    Decision,
    DrawEvent,
    FlipEvent,
    Game,
    KnockEvent,
    Pile,
    PowerEvent,
    PowerPeekEvent,
    PowerSwapEvent,
    PowerTargetEvent,
    RevealEvent,
    SwapEvent,
    ThrowEvent,
)
from .fast import enum_value, new_tuple
from .rules import Reveal

__all__ = ["SeatView", "view", "events_for", "events_seen", "seat_view_from_json"]


class SeatView(NamedTuple):
    """Everything one seat may know at one moment of the match.

    A named tuple rather than a frozen dataclass: one is built for every decision, and
    positional tuple construction is an order of magnitude cheaper.
    """

    seat: int
    hole: int
    starter: int
    to_move: int | None
    decision: Decision | None
    grids: tuple[tuple[Card | None, ...], ...]
    """Each seat's grid, row-major; None where this seat has not seen the card."""
    face_up: tuple[tuple[bool, ...], ...]
    discard: tuple[Card, ...]
    """The discard pile, bottom first; the last card is the top."""
    stock_size: int
    drawn: Card | None
    """The card in the hand of the seat to move, when this seat may see it."""
    drawn_from: Pile | None
    power: Rank | None
    """The rank whose power is being used (J, Q or K), if any."""
    first_target: tuple[int, int] | None
    closer: int | None
    knocker: int | None
    turns: tuple[int, ...]
    totals: tuple[int, ...]
    hole_scores: tuple[tuple[int, ...], ...]
    """Scores of the holes already played, one tuple per hole."""

    def to_json(self) -> dict[str, Any]:
        """The view as plain JSON data, cards written as strings, unseen cards as null."""
        return {
            "seat": self.seat,
            "hole": self.hole,
            "starter": self.starter,
            "to_move": self.to_move,
            "decision": None if self.decision is None else enum_value(self.decision),
            "grids": [[None if c is None else c.name for c in g] for g in self.grids],
            "face_up": [list(f) for f in self.face_up],
            "discard": [c.name for c in self.discard],
            "stock_size": self.stock_size,
            "drawn": None if self.drawn is None else self.drawn.name,
            "drawn_from": None if self.drawn_from is None else enum_value(self.drawn_from),
            "power": None if self.power is None else enum_value(self.power),
            "first_target": None if self.first_target is None else list(self.first_target),
            "closer": self.closer,
            "knocker": self.knocker,
            "turns": list(self.turns),
            "totals": list(self.totals),
            "hole_scores": [list(h) for h in self.hole_scores],
        }


def view(game: Game, seat: int) -> SeatView:
    """Build what `seat` may see of `game` now."""
    cards = game.cards
    grids, face_up = _grids_seen(game, seat)
    memo = game.view_memo
    pile = memo.get(_PILE)
    if pile is None or pile[0] != game.discard_stamp:
        pile = memo[_PILE] = (game.discard_stamp, tuple([cards[c] for c in game.discard]))
    drawn: Card | None = None
    drawn_from: Pile | None = None
    if game.drawn >= 0:
        drawn_from = _STOCK if game.drawn_from_stock else _DISCARD
        if known_to(game, game.drawn, seat):
            drawn = cards[game.drawn]
    return new_tuple(
        SeatView,
        (
            seat,
            game.hole,
            game.starter,
            game.to_move,
            game.decision,
            grids,
            face_up,
            pile[1],
            len(game.stock),
            drawn,
            drawn_from,
            game.power_rank,
            game.first_target,
            game.closer,
            game.knocker,
            tuple(game.turns),
            tuple(game.totals),
            game.hole_scores,
        ),
    )


def _grids_seen(game: Game, seat: int) -> tuple[tuple[tuple[Card | None, ...], ...], tuple[tuple[bool, ...], ...]]:
    """The grids as `seat` sees them, and which cards are face up.

    A view is built for every request, and between two views of one seat only the grids
    someone played on have changed: the game's memo keeps what was built for each seat with
    the grids' change stamps, and only a grid whose stamp moved since is built again.
    """
    stamps = game.grid_stamps
    memo = game.view_memo
    last = memo.get(seat)
    if last is not None and last[0] == stamps:
        return last[1], last[2]
    cards = game.cards
    up = game.up
    known = game.known
    bit = 1 << seat
    # List comprehensions, not map over a bound method: compiled (the compiled build), a
    # comprehension is a C loop while map calls the method as a Python object per card.
    seen: list[tuple[Card | None, ...]] = []
    face_up: list[tuple[bool, ...]] = []
    for i, g in enumerate(game.grids):
        if last is not None and last[0][i] == stamps[i]:
            seen.append(last[1][i])
            face_up.append(last[2][i])
        else:
            seen.append(tuple([cards[c] if up[c] or known[c] & bit else None for c in g]))
            face_up.append(tuple([up[c] for c in g]))
    built = memo[seat] = (stamps.copy(), tuple(seen), tuple(face_up))
    return built[1], built[2]


def known_to(game: Game, card: int, seat: int) -> bool:
    """Whether `seat` knows which card `card` is right now."""
    if not game.drawn_from_stock and card == game.drawn:
        return True
    return game.up[card] or bool(game.known[card] & (1 << seat))


def events_for(game: Game, seat: int, start: int = 0, finished: bool = False) -> list[dict[str, Any]]:
    """The public events of the current hole from index `start`, as `seat` may see them.

    With `finished`, the events of the hole that was scored last instead. A card another
    seat saw privately (a stock draw, a peek, a face-down swap from the stock) appears as
    null.
    """
    cards = game.cards
    out: list[dict[str, Any]] = []
    if finished:
        events = [] if game.last_table is None else game.last_table.events
    else:
        events = game.events
    for ev in events[start:]:
        # The most frequent kinds first: this runs for every request a bot is sent.
        if isinstance(ev, DrawEvent):
            shown = ev.pile is _DISCARD or ev.seat == seat
            card = str(cards[ev.card]) if shown else None
            out.append({"event": "draw", "seat": ev.seat, "from": enum_value(ev.pile), "card": card})
        elif isinstance(ev, SwapEvent):
            shown = game.rules.swap_face_up or not ev.from_stock or ev.seat == seat
            out.append(
                {
                    "event": "swap",
                    "seat": ev.seat,
                    "slot": ev.slot,
                    "card": str(cards[ev.card]) if shown else None,
                    "discarded": str(cards[ev.discarded]),
                }
            )
        elif isinstance(ev, ThrowEvent):
            out.append({"event": "throw", "seat": ev.seat, "card": str(cards[ev.card])})
        elif isinstance(ev, FlipEvent):
            out.append({"event": "flip", "seat": ev.seat, "slot": ev.slot, "card": str(cards[ev.card])})
        elif isinstance(ev, RevealEvent):
            shown = game.rules.reveal is Reveal.FLIP or ev.seat == seat
            card = str(cards[ev.card]) if shown else None
            out.append({"event": "reveal", "seat": ev.seat, "slot": ev.slot, "card": card})
        elif isinstance(ev, KnockEvent):
            out.append({"event": "knock", "seat": ev.seat})
        elif isinstance(ev, PowerEvent):
            out.append({"event": "power", "seat": ev.seat, "card": str(cards[ev.card])})
        elif isinstance(ev, PowerTargetEvent):
            out.append({"event": "power_target", "seat": ev.seat, "target": [ev.target, ev.slot]})
        elif isinstance(ev, PowerSwapEvent):
            pair = [[ev.first, ev.first_slot], [ev.second, ev.second_slot]]
            out.append({"event": "power_swap", "seat": ev.seat, "cards": pair})
        elif isinstance(ev, PowerPeekEvent):
            card = str(cards[ev.card]) if ev.seat == seat else None
            out.append({"event": "power_peek", "seat": ev.seat, "target": [ev.target, ev.slot], "card": card})
        else:
            out.append({"event": "reshuffle", "cards": ev.cards})
    return out


def events_seen(game: Game, seats: Sequence[int], start: int = 0, finished: bool = False) -> list[dict[str, Any]]:
    """`events_for` as the seats `seats` know it between them: a card any of them saw is shown."""
    per_seat = [events_for(game, s, start, finished) for s in seats]
    merged = []
    for versions in zip(*per_seat, strict=True):
        event = dict(versions[0])
        for other in versions[1:]:
            for key, value in other.items():
                if event.get(key) is None and value is not None:
                    event[key] = value
        merged.append(event)
    return merged


_PILE = -1  # the discard pile's key in the game's view memo; seats are 0 and up
_STOCK = Pile.STOCK
_DISCARD = Pile.DISCARD


def seat_view_from_json(data: Mapping[str, Any]) -> SeatView:
    """The `SeatView` a request's ``view`` was written from (the inverse of `SeatView.to_json`)."""

    def card(name: str | None) -> Card | None:
        return None if name is None else parse_card(name)

    target = data["first_target"]
    return SeatView(
        seat=data["seat"],
        hole=data["hole"],
        starter=data["starter"],
        to_move=data["to_move"],
        decision=None if data["decision"] is None else Decision(data["decision"]),
        grids=tuple(tuple(card(c) for c in g) for g in data["grids"]),
        face_up=tuple(tuple(f) for f in data["face_up"]),
        discard=tuple(parse_card(c) for c in data["discard"]),
        stock_size=data["stock_size"],
        drawn=card(data["drawn"]),
        drawn_from=None if data["drawn_from"] is None else Pile(data["drawn_from"]),
        power=None if data["power"] is None else Rank(data["power"]),
        first_target=None if target is None else (target[0], target[1]),
        closer=data["closer"],
        knocker=data["knocker"],
        turns=tuple(data["turns"]),
        totals=tuple(data["totals"]),
        hole_scores=tuple(tuple(h) for h in data["hole_scores"]),
    )
