"""The one gate to hidden information (D13): what one seat may see of a game.

Nothing reaches a bot, a seat's transcript or a `--seat` replay except through `view`
and `events_for`. A seat sees every face-up card, the whole discard pile, the stock's
size, the face-down cards it has seen itself (peeked, placed, learned by a power), the
card it drew from the stock, every public event and all scores so far; never another
seat's unseen cards, the stock order or the seed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import Card
from .engine import (
    EV_DRAW,
    EV_FLIP,
    EV_KNOCK,
    EV_POWER,
    EV_RESHUFFLE,
    EV_REVEAL,
    EV_SWAP,
    EV_THROW,
    Game,
)

__all__ = ["SeatView", "view", "events_for"]


class SeatView(NamedTuple):
    """Everything one seat may know at one moment of the match.

    A named tuple rather than a frozen dataclass: one is built for every decision, and
    positional tuple construction is an order of magnitude cheaper.
    """

    seat: int
    hole: int
    starter: int
    to_move: int | None
    decision: str | None
    grids: tuple[tuple[Card | None, ...], ...]
    """Each seat's grid, row-major; None where this seat has not seen the card."""
    face_up: tuple[tuple[bool, ...], ...]
    discard: tuple[Card, ...]
    """The discard pile, bottom first; the last card is the top."""
    stock_size: int
    drawn: Card | None
    """The card in the hand of the seat to move, when this seat may see it."""
    drawn_from: str | None
    power: str | None
    """The rank whose power is being used (`J`, `Q`, `K`), if any."""
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
            "decision": self.decision,
            "grids": [[None if c is None else c.name for c in g] for g in self.grids],
            "face_up": [list(f) for f in self.face_up],
            "discard": [c.name for c in self.discard],
            "stock_size": self.stock_size,
            "drawn": None if self.drawn is None else self.drawn.name,
            "drawn_from": self.drawn_from,
            "power": self.power,
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
    up = game.up
    known = game.known
    bit = 1 << seat
    grids = tuple(tuple([cards[c] if up[c] or known[c] & bit else None for c in g]) for g in game.grids)
    face_up = tuple(tuple([up[c] for c in g]) for g in game.grids)
    drawn: Card | None = None
    drawn_from: str | None = None
    if game.drawn >= 0:
        drawn_from = "stock" if game.drawn_from_stock else "discard"
        if known_to(game, game.drawn, seat):
            drawn = cards[game.drawn]
    decision = game.decision
    power = game.power_rank
    return SeatView(
        seat,
        game.hole,
        game.starter,
        game.to_move,
        None if decision is None else decision.value,
        grids,
        face_up,
        tuple(map(cards.__getitem__, game.discard)),
        len(game.stock),
        drawn,
        drawn_from,
        None if power is None else power.value,
        game.first_target,
        game.closer,
        game.knocker,
        tuple(game.turns),
        tuple(game.totals),
        game.hole_scores,
    )


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
    for ev in (game.last_events if finished else game.events)[start:]:
        kind, who = ev[0], ev[1]
        mine = who == seat
        if kind == EV_REVEAL:
            _, _, slot, card = ev
            shown = game.rules.reveal.value == "flip" or mine
            out.append({"event": kind, "seat": who, "slot": slot, "card": str(cards[card]) if shown else None})
        elif kind == EV_DRAW:
            _, _, source, card = ev
            shown = source == "discard" or mine
            out.append({"event": kind, "seat": who, "from": source, "card": str(cards[card]) if shown else None})
        elif kind == EV_KNOCK:
            out.append({"event": kind, "seat": who})
        elif kind == EV_SWAP:
            _, _, slot, card, removed, from_stock = ev
            shown = game.rules.swap_face_up or not from_stock or mine
            out.append(
                {
                    "event": kind,
                    "seat": who,
                    "slot": slot,
                    "card": str(cards[card]) if shown else None,
                    "discarded": str(cards[removed]),
                }
            )
        elif kind == EV_THROW:
            out.append({"event": kind, "seat": who, "card": str(cards[ev[2]])})
        elif kind == EV_FLIP:
            out.append({"event": kind, "seat": who, "slot": ev[2], "card": str(cards[ev[3]])})
        elif kind == EV_POWER:
            out.append(_power_event(game, ev, mine))
        elif kind == EV_RESHUFFLE:
            out.append({"event": kind, "cards": ev[2]})
    return out


def _power_event(game: Game, ev: tuple[Any, ...], mine: bool) -> dict[str, Any]:
    who = ev[1]
    if isinstance(ev[2], int):  # the power card thrown away
        return {"event": "power", "seat": who, "card": str(game.cards[ev[2]])}
    step = ev[2]
    if step == "first":
        return {"event": "power_target", "seat": who, "target": [ev[3], ev[4]]}
    if step == "swap":
        return {"event": "power_swap", "seat": who, "cards": [[ev[3], ev[4]], [ev[5], ev[6]]]}
    card = str(game.cards[ev[5]]) if mine else None
    return {"event": "power_peek", "seat": who, "target": [ev[3], ev[4]], "card": card}
