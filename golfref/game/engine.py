"""The game: a whole match of Golf as a pure state machine.

`Game` holds the full state of a match. It never draws random numbers: whenever cards
must be shuffled (the deal of each hole, a stock reshuffle under D7) it stops at a chance
step, and the caller supplies the order with `apply_shuffle`. Every shuffle and every
action is appended to `Game.history`, so `Game.replay(rules, history)` re-derives every
state without a random generator.

Card ids are indexes into `Game.cards` (see `cards.deck_set`). Slots are numbered
row-major from 0. Seats are numbered from 0.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from .cards import Card, Rank, deck_set
from .fast import new_tuple
from .rules import FlipAfterThrow, Reveal, RevealChoice, Rules
from .scoring import GridScore, hole_scores, score_grid

__all__ = [
    "Decision",
    "ActionKind",
    "Action",
    "HoleEnd",
    "HoleResult",
    "Shuffle",
    "Move",
    "Pile",
    "RevealEvent",
    "DrawEvent",
    "KnockEvent",
    "SwapEvent",
    "ThrowEvent",
    "FlipEvent",
    "PowerEvent",
    "PowerTargetEvent",
    "PowerSwapEvent",
    "PowerPeekEvent",
    "ReshuffleEvent",
    "TableEvent",
    "Game",
    "GameError",
    "IllegalAction",
    "placings",
]


class GameError(Exception):
    """The game was driven wrongly: an action or shuffle at the wrong time or of the wrong form."""


class IllegalAction(GameError):
    """An action that is not among the legal actions of the current decision."""


class Decision(enum.Enum):
    """The kind of decision a seat faces."""

    REVEAL = "reveal"
    """Choose one own face-down slot to reveal at the start of the hole (D1, `reveal_choice: player`)."""
    DRAW = "draw"
    """Start of a turn: draw from the stock or the discard pile, or knock where allowed (D4)."""
    PLACE = "place"
    """With a drawn card: swap it into a slot, throw it away (stock card only), or use its power (D11)."""
    FLIP = "flip"
    """After throwing a stock card away: turn one own face-down card up, or pass where allowed (D5)."""
    TARGET = "target"
    """Choose the target of a card power: a card to peek, or one of the two cards a king swaps (D11)."""


class ActionKind(enum.Enum):
    """What an action does; its value is the word used in the protocol and the log."""

    REVEAL = "reveal"
    """Reveal own slot `slot` at the start of the hole."""
    DRAW_STOCK = "stock"
    """Draw the top card of the stock."""
    DRAW_DISCARD = "discard"
    """Take the top card of the discard pile."""
    KNOCK = "knock"
    """Knock instead of drawing (D4)."""
    SWAP = "swap"
    """Put the drawn card into own slot `slot`; the replaced card goes onto the discard pile."""
    THROW = "throw"
    """Throw the drawn stock card onto the discard pile."""
    POWER = "power"
    """Throw the drawn J, Q or K away to use its power (D11)."""
    FLIP = "flip"
    """Turn own face-down slot `slot` face up: after a throw (D5), or instead of drawing (`flip_instead_of_draw`)."""
    PASS = "pass"
    """Do not flip (only with `flip_after_throw: may` or `endgame`)."""
    TARGET = "target"
    """Target card `slot` of seat `seat` with a card power."""
    FLIP_OUT = "flip_out"
    """Instead of drawing, turn every own face-down card up (only with `flip_out`, and 1 to N of them left)."""


_K_REVEAL = ActionKind.REVEAL
_K_STOCK = ActionKind.DRAW_STOCK
_K_DISCARD = ActionKind.DRAW_DISCARD
_K_KNOCK = ActionKind.KNOCK
_K_SWAP = ActionKind.SWAP
_K_THROW = ActionKind.THROW
_K_POWER = ActionKind.POWER
_K_FLIP = ActionKind.FLIP
_K_PASS = ActionKind.PASS
_K_TARGET = ActionKind.TARGET
_K_FLIP_OUT = ActionKind.FLIP_OUT
_D_REVEAL = Decision.REVEAL
_D_DRAW = Decision.DRAW
_D_PLACE = Decision.PLACE
_D_FLIP = Decision.FLIP
_D_TARGET = Decision.TARGET

_SLOTTED = frozenset({ActionKind.REVEAL, ActionKind.SWAP, ActionKind.FLIP, ActionKind.TARGET})


@dataclass(frozen=True, slots=True)
class Action:
    """One choice of a seat. Written form: `stock`, `swap:3`, `target:1:4`, ..."""

    kind: ActionKind
    slot: int | None = None
    seat: int | None = None
    text: str = field(init=False, repr=False, compare=False)
    """The written form, computed once: every request lists the legal actions as text."""

    def __post_init__(self) -> None:
        if self.kind is _K_TARGET:
            text = f"target:{self.seat}:{self.slot}"
        elif self.slot is not None:
            text = f"{self.kind.value}:{self.slot}"
        else:
            text = self.kind.value
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text

    @staticmethod
    def parse(text: object) -> Action:
        """Read the written form of an action; raises ValueError when it is malformed."""
        # `object`, not `str`: a log or a bot may hold anything there, and compiled by mypyc
        # (docs/PERFORMANCE.md's compiled build) a `str` parameter would raise TypeError before the check.
        if not isinstance(text, str):
            raise ValueError(f"an action is a string, got {type(text).__name__}")
        parts = text.split(":")
        try:
            kind = ActionKind(parts[0])
        except ValueError:
            raise ValueError(f"unknown action {text!r}") from None
        numbers = parts[1:]
        want = 2 if kind is _K_TARGET else (1 if kind in _SLOTTED else 0)
        if len(numbers) != want or not all(p.isdigit() and len(p) <= 3 for p in numbers):
            raise ValueError(f"malformed action {text!r}")
        if kind is _K_TARGET:
            action = target_action(int(numbers[0]), int(numbers[1]))
        elif want:
            action = _interned(kind, int(numbers[0]))
        else:
            action = _PLAIN[kind]
        if action.text != text:  # one written form only: no spaces, no leading zeros
            raise ValueError(f"malformed action {text!r} (written {action.text!r})")
        return action


_PLAIN = {k: Action(k) for k in ActionKind if k not in _SLOTTED}
_MAX_SLOTS = 16
_MAX_SEATS = 8
_BY_SLOT = {k: tuple(Action(k, i) for i in range(_MAX_SLOTS)) for k in _SLOTTED if k is not _K_TARGET}
_TARGETS = tuple(tuple(Action(_K_TARGET, i, s) for i in range(_MAX_SLOTS)) for s in range(_MAX_SEATS))
_REVEALS = _BY_SLOT[ActionKind.REVEAL]
_SWAPS = _BY_SLOT[ActionKind.SWAP]
_FLIPS = _BY_SLOT[ActionKind.FLIP]
STOCK = _PLAIN[_K_STOCK]
DISCARD = _PLAIN[_K_DISCARD]
KNOCK = _PLAIN[_K_KNOCK]
THROW = _PLAIN[_K_THROW]
POWER = _PLAIN[_K_POWER]
PASS = _PLAIN[_K_PASS]
FLIP_OUT = _PLAIN[_K_FLIP_OUT]


def _interned(kind: ActionKind, slot: int) -> Action:
    if 0 <= slot < _MAX_SLOTS:
        return _BY_SLOT[kind][slot]
    return Action(kind, slot)


def target_action(seat: int, slot: int) -> Action:
    """The action targeting slot `slot` of seat `seat`."""
    if 0 <= seat < _MAX_SEATS and 0 <= slot < _MAX_SLOTS:
        return _TARGETS[seat][slot]
    return Action(_K_TARGET, slot, seat)


class HoleEnd(enum.Enum):
    """Why a hole ended."""

    CLOSED = "closed"
    """A player ended a turn with a full face-up grid and the others had their last turn (D3)."""
    KNOCKED = "knocked"
    """A player knocked and the others had their last turn (D4)."""
    STOCK_EXHAUSTED = "stock_exhausted"
    """The stock ran out with nothing left to recycle (D7). Unreachable: a turn that empties the stock
    always leaves a card to recycle (docs/RULES.md, D7); kept so that no log or protocol format changes."""
    TURN_LIMIT = "turn_limit"
    """Every player had the turn limit's number of turns (D8)."""


@dataclass(frozen=True, slots=True)
class HoleResult:
    """The outcome of one hole."""

    hole: int
    starter: int
    end: HoleEnd
    ender: int | None
    """The closer (CLOSED) or knocker (KNOCKED); None otherwise."""
    grids: tuple[tuple[int, ...], ...]
    """Each seat's final grid as card ids."""
    grid_scores: tuple[GridScore, ...]
    penalties: tuple[int, ...]
    """Knock penalty added to each seat's hole score (D4)."""
    scores: tuple[int, ...]
    """Hole score of each seat, penalties included."""
    totals: tuple[int, ...]
    """Match totals after this hole."""
    turns: tuple[int, ...]
    """Turns each seat took in this hole."""


@dataclass(frozen=True, slots=True)
class Shuffle:
    """A chance outcome: the order of the cards shuffled (a deal or a D7 reshuffle)."""

    order: tuple[int, ...]


class Move(NamedTuple):
    """An action taken by a seat.

    A named tuple, like the events below: one is made for every decision, and a frozen
    dataclass costs several times as much to build.
    """

    seat: int
    action: Action


Event = Shuffle | Move


def placings(totals: Sequence[int], disqualified: Iterable[int] = ()) -> tuple[int, ...]:
    """Places from totals, lowest first; equal totals share a place (D14: 1, 1, 3).

    Disqualified seats come after everyone else and share the last place.
    """
    out = set(disqualified)
    ranked = [t for s, t in enumerate(totals) if s not in out]
    last = len(ranked) + 1
    return tuple(last if s in out else 1 + sum(1 for u in ranked if u < t) for s, t in enumerate(totals))


class Pile(enum.Enum):
    """Where a drawn card came from; its value is the word used in the protocol and the log."""

    STOCK = "stock"
    """The top of the stock: seen only by the drawer."""
    DISCARD = "discard"
    """The top of the discard pile: seen by everyone."""


_P_STOCK = Pile.STOCK
_P_DISCARD = Pile.DISCARD

# The public events of a hole (D13), kept per hole in `Game.events`. They record what
# happened in full (every card id); view.py alone decides what each seat may see of them.


class RevealEvent(NamedTuple):
    """A seat revealed own slot `slot` (card `card`) at the start of the hole."""

    seat: int
    slot: int
    card: int


class DrawEvent(NamedTuple):
    """A seat drew card `card` from `pile`."""

    seat: int
    pile: Pile
    card: int


class KnockEvent(NamedTuple):
    """A seat knocked (D4)."""

    seat: int


class SwapEvent(NamedTuple):
    """A seat put drawn card `card` into own slot `slot`; card `discarded` went onto the pile."""

    seat: int
    slot: int
    card: int
    discarded: int
    from_stock: bool
    """Whether the card placed was drawn from the stock (then only the seat knows it, if it lies face down)."""


class ThrowEvent(NamedTuple):
    """A seat threw drawn stock card `card` onto the discard pile."""

    seat: int
    card: int


class FlipEvent(NamedTuple):
    """A seat turned own slot `slot` (card `card`) face up (D5)."""

    seat: int
    slot: int
    card: int


class PowerEvent(NamedTuple):
    """A seat threw drawn card `card` (J, Q or K) away to use its power (D11)."""

    seat: int
    card: int


class PowerTargetEvent(NamedTuple):
    """A seat using a king chose slot `slot` of seat `target` as the first card of its swap."""

    seat: int
    target: int
    slot: int


class PowerSwapEvent(NamedTuple):
    """A seat using a king swapped slot `first_slot` of `first` with slot `second_slot` of `second`."""

    seat: int
    first: int
    first_slot: int
    second: int
    second_slot: int


class PowerPeekEvent(NamedTuple):
    """A seat using a jack or queen peeked at slot `slot` of seat `target`: card `card`."""

    seat: int
    target: int
    slot: int
    card: int


class ReshuffleEvent(NamedTuple):
    """The discard pile but its top card was shuffled into a new stock of `cards` cards (D7)."""

    cards: int


TableEvent = (
    RevealEvent
    | DrawEvent
    | KnockEvent
    | SwapEvent
    | ThrowEvent
    | FlipEvent
    | PowerEvent
    | PowerTargetEvent
    | PowerSwapEvent
    | PowerPeekEvent
    | ReshuffleEvent
)
"""One public event of a hole."""


@lru_cache(maxsize=64)
def _deck_ranks(decks: int, jokers: bool, joker_count: int | None = None) -> tuple[Rank, ...]:
    """The rank of each card of `deck_set(decks, jokers, joker_count)`, by card id."""
    return tuple([c.rank for c in deck_set(decks, jokers, joker_count)])


class Game:
    """The full state of a match, advanced by `apply` and `apply_shuffle`."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.players = rules.players
        self.slots = rules.cards
        self.cards: tuple[Card, ...] = deck_set(rules.decks, rules.jokers is not None, rules.joker_count)
        # Every hole clones the game (`last_table`), and a clone is made by this __init__.
        self.ranks: tuple[Rank, ...] = _deck_ranks(rules.decks, rules.jokers is not None, rules.joker_count)
        self.all_seats = (1 << self.players) - 1
        # The options read at every turn, kept on the game: one attribute look-up, not two
        # (and a native one when mypyc compiles the engine but not the rules).
        self._knocking = rules.knocking
        self._card_powers = rules.card_powers
        self._swap_face_up = rules.swap_face_up
        self._flip_after_throw = rules.flip_after_throw
        # The options that add to a turn's first decision; False for every preset's own rules.
        self._draw_extras = rules.flip_instead_of_draw or rules.flip_out is not None
        self._turn_limit = rules.turn_limit
        self.history: list[Event] = []
        self.results: list[HoleResult] = []
        self.hole_scores: tuple[tuple[int, ...], ...] = ()
        # The table as the last scored hole ended, before its cards were turned up and it was
        # cleared: its events feed the hole-end notices, and a printer shows the hole's last
        # turn from it as it was played.
        self.last_table: Game | None = None
        self.totals = [0] * self.players
        self.hole = 0
        self.over = False
        # Change stamps for view.py's memo: `stamp` counts changes to the table and is never
        # reset, a grid's stamp (or the pile's) is the count at its last change, and a view
        # rebuilds only what changed since it was last built.
        self.stamp = 0
        self.view_memo: dict[int, Any] = {}
        self._reset_hole()
        self.chance: tuple[int, ...] | None = tuple(range(len(self.cards)))

    # -- state -----------------------------------------------------------------

    def _reset_hole(self) -> None:
        ncards = len(self.cards)
        self.starter = self.hole % self.players  # D2
        self.grids: list[list[int]] = [[] for _ in range(self.players)]
        self.up = [False] * ncards
        self.known = [0] * ncards
        self.stock: list[int] = []  # top of the stock is the last element
        self.discard: list[int] = []  # top of the pile is the last element
        self.to_move: int | None = None
        self.decision: Decision | None = None
        self.drawn = -1
        self.drawn_from_stock = False
        self.power_rank: Rank | None = None
        self.first_target: tuple[int, int] | None = None
        self.reveal_left = [0] * self.players
        self.turns = [0] * self.players
        self.closer: int | None = None
        self.knocker: int | None = None
        self.final_left = -1  # turns still owed after a close or knock; -1: none triggered
        self._next_seat = self.starter
        self.events: list[TableEvent] = []  # public events of this hole, read through view.py
        self._legal: tuple[Action, ...] | None = None
        self._touch_all()

    def _touch_all(self) -> None:
        self.stamp += 1
        self.grid_stamps = [self.stamp] * self.players
        self.discard_stamp = self.stamp

    def _touch(self, seat: int) -> None:
        self.stamp += 1
        self.grid_stamps[seat] = self.stamp

    def _touch_pile(self) -> None:
        self.stamp += 1
        self.discard_stamp = self.stamp

    @property
    def dealing(self) -> bool:
        """Whether the pending shuffle is a hole's deal (else a D7 reshuffle, or none)."""
        return self.chance is not None and not self.grids[0]

    @property
    def is_chance(self) -> bool:
        """Whether the game waits for a shuffle."""
        return self.chance is not None

    def grid_full(self, seat: int) -> bool:
        """Whether every card of `seat`'s grid is face up."""
        # A plain loop: at every turn's end, and it suits both builds. Compiled, all(map(...))
        # calls `up.__getitem__` as a Python object once per card; pure, a generator
        # expression here is 8% of the engine's whole step.
        up = self.up
        for c in self.grids[seat]:  # noqa: SIM110
            if not up[c]:
                return False
        return True

    # -- chance ------------------------------------------------------------------

    def apply_shuffle(self, order: Sequence[int]) -> None:
        """Supply the order of the pending shuffle: a permutation of `self.chance`.

        For a deal, seat s gets order[s*n:(s+1)*n] as slots 0..n-1, then one card starts the
        discard pile and the rest is the stock, order[...+1] on top. For a reshuffle, order[0]
        becomes the top of the new stock.
        """
        if self.chance is None:
            raise GameError("no shuffle is pending")
        order = tuple(order)
        if sorted(order) != sorted(self.chance):
            raise GameError("the shuffle is not a permutation of the cards to shuffle")
        dealing = self.dealing
        self.chance = None
        self.history.append(Shuffle(order))
        if dealing:
            self._deal(order)
        else:
            self.stock = list(reversed(order))
            self.events.append(ReshuffleEvent(len(order)))
            self._next_turn()

    def _deal(self, order: tuple[int, ...]) -> None:
        n, players = self.slots, self.players
        for s in range(players):
            self.grids[s] = list(order[s * n : (s + 1) * n])
        top = order[players * n]
        self.discard = [top]
        self.up[top] = True
        self.stock = list(reversed(order[players * n + 1 :]))
        self._touch_all()
        rules = self.rules
        count = rules.reveal_count
        if rules.reveal_choice is RevealChoice.FIXED or count == 0:
            for s in range(players):
                for slot in range(count):
                    self._reveal(s, slot, record=False)
            self.to_move = self.starter
            self.decision = _D_DRAW
        else:
            self.reveal_left = [count] * players
            self.to_move = self.starter
            self.decision = _D_REVEAL
        self._legal = None

    def _reveal(self, seat: int, slot: int, record: bool = True) -> None:
        card = self.grids[seat][slot]
        self._touch(seat)
        if self.rules.reveal is Reveal.FLIP:
            self.up[card] = True
            self.known[card] = self.all_seats
        else:
            self.known[card] |= 1 << seat
        if record:
            self.events.append(RevealEvent(seat, slot, card))

    # -- decisions -----------------------------------------------------------------

    def turn(self) -> tuple[int, Decision]:
        """The seat to move and the decision it faces; RuntimeError at a chance step or after the match."""
        if self.to_move is None or self.decision is None:
            raise RuntimeError("no seat is to move: a shuffle is due or the match is over")
        return self.to_move, self.decision

    def legal_actions(self) -> tuple[Action, ...]:
        """The legal actions of the seat to move (empty at a chance step or when over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[Action, ...]:
        decision = self.decision
        seat = self.to_move
        if decision is None or seat is None:
            return ()
        up = self.up
        grid = self.grids[seat]
        if decision is _D_DRAW:
            draws = _DRAW_KNOCK if self._knocking and self.closer is None and self.knocker is None else _DRAW
            if self._draw_extras:
                return draws + self._draw_extra_actions(seat)
            return draws
        if decision is _D_PLACE:
            n = self.slots
            if not self.drawn_from_stock:
                return _SWAP_SETS[n]
            if self._card_powers and self._power_usable(seat):
                return _SWAP_THROW_POWER[n]
            return _SWAP_THROW[n]
        if decision is _D_FLIP:
            flips = tuple(_FLIPS[i] for i, c in enumerate(grid) if not up[c])
            if self._flip_after_throw is FlipAfterThrow.MAY or self._flip_after_throw is FlipAfterThrow.ENDGAME:
                return flips + _PASS_ONLY
            return flips
        if decision is _D_REVEAL:
            bit = 1 << seat
            return tuple(_REVEALS[i] for i, c in enumerate(grid) if not up[c] and not self.known[c] & bit)
        if decision is _D_TARGET:
            return tuple(_TARGETS[s][i] for s, i in self._targets(seat))
        raise AssertionError(decision)

    def _draw_extra_actions(self, seat: int) -> tuple[Action, ...]:
        """What `flip_instead_of_draw` and `flip_out` add to a turn's first decision."""
        up = self.up
        down = [i for i, c in enumerate(self.grids[seat]) if not up[c]]
        extra: tuple[Action, ...] = ()
        if self.rules.flip_instead_of_draw:
            extra = tuple(_FLIPS[i] for i in down)
        limit = self.rules.flip_out
        if limit is not None and 1 <= len(down) <= limit:
            extra += (FLIP_OUT,)
        return extra

    def endgame_flip_offered(self) -> bool:
        """Whether `flip_after_throw: endgame` offers its flip now: some player has at most one face-down card."""
        up = self.up
        return any(sum(1 for c in g if not up[c]) <= 1 for g in self.grids)

    def _power_usable(self, seat: int) -> bool:
        if not self._card_powers:
            return False
        rank = self.ranks[self.drawn]
        up = self.up
        if rank is Rank.JACK:
            return any(not up[c] for c in self.grids[seat])
        if rank is Rank.QUEEN:
            return any(not up[c] for s, g in enumerate(self.grids) if s != seat for c in g)
        return rank is Rank.KING

    def _targets(self, seat: int) -> list[tuple[int, int]]:
        up = self.up
        rank = self.power_rank
        if rank is Rank.JACK:
            return [(seat, i) for i, c in enumerate(self.grids[seat]) if not up[c]]
        if rank is Rank.QUEEN:
            return [(s, i) for s, g in enumerate(self.grids) if s != seat for i, c in enumerate(g) if not up[c]]
        first = self.first_target
        return [(s, i) for s in range(self.players) for i in range(self.slots) if (s, i) != first]

    def apply(self, action: Action) -> None:
        """Apply one action of the seat to move; raises IllegalAction when it is not legal."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        # Legal actions are interned, and so is every parsed one: looking for the same object
        # first spares a call of Action.__eq__ for each legal action listed before it.
        for candidate in legal:
            if candidate is action:
                break
        else:
            self._check_legal(action, legal)
        seat = self.to_move
        slot = action.slot
        # A legal action means a seat is to move, and every slotted kind carries its slot.
        assert seat is not None
        self.history.append(new_tuple(Move, (seat, action)))
        self._legal = None
        kind = action.kind
        if kind is _K_STOCK:
            card = self.stock.pop()
            self.drawn, self.drawn_from_stock = card, True
            self.known[card] |= 1 << seat
            self.decision = _D_PLACE
            self.events.append(new_tuple(DrawEvent, (seat, _P_STOCK, card)))
        elif kind is _K_DISCARD:
            card = self.discard.pop()
            self._touch_pile()
            self.drawn, self.drawn_from_stock = card, False
            self.decision = _D_PLACE
            self.events.append(new_tuple(DrawEvent, (seat, _P_DISCARD, card)))
        elif kind is _K_SWAP:
            assert slot is not None
            self._swap(seat, slot)
            self._end_turn(seat)
        elif kind is _K_THROW:
            card = self.drawn
            self._to_discard(card)
            self.drawn = -1
            self.events.append(new_tuple(ThrowEvent, (seat, card)))
            flip = self._flip_after_throw
            if (
                flip is not FlipAfterThrow.NONE
                and not self.grid_full(seat)
                and (flip is not FlipAfterThrow.ENDGAME or self.endgame_flip_offered())
            ):
                self.decision = _D_FLIP
            else:
                self._end_turn(seat)
        elif kind is _K_FLIP:
            assert slot is not None
            card = self.grids[seat][slot]
            self.up[card] = True
            self.known[card] = self.all_seats
            self._touch(seat)
            self.events.append(new_tuple(FlipEvent, (seat, slot, card)))
            self._end_turn(seat)
        elif kind is _K_PASS:
            self._end_turn(seat)
        elif kind is _K_FLIP_OUT:
            up = self.up
            for i, card in enumerate(self.grids[seat]):
                if not up[card]:
                    up[card] = True
                    self.known[card] = self.all_seats
                    self.events.append(new_tuple(FlipEvent, (seat, i, card)))
            self._touch(seat)
            self._end_turn(seat)
        elif kind is _K_REVEAL:
            assert slot is not None
            self._reveal(seat, slot)
            self.reveal_left[seat] -= 1
            if self.reveal_left[seat] == 0:
                nxt = (seat + 1) % self.players
                if nxt == self.starter:
                    self.decision = _D_DRAW
                self.to_move = nxt
        elif kind is _K_KNOCK:
            self.knocker = seat
            self.final_left = self.players  # the knock itself is the first counted turn
            self.events.append(KnockEvent(seat))
            self._end_turn(seat)
        elif kind is _K_POWER:
            card = self.drawn
            self.power_rank = self.ranks[card]
            self._to_discard(card)
            self.drawn = -1
            self.events.append(PowerEvent(seat, card))
            self.decision = _D_TARGET
        elif kind is _K_TARGET:
            target = action.seat
            assert target is not None and slot is not None
            self._target(seat, target, slot)
        else:  # pragma: no cover - every kind is handled above
            raise AssertionError(kind)

    def _check_legal(self, action: Action, legal: tuple[Action, ...]) -> None:
        """Raise IllegalAction unless `action` equals one of `legal` (an action built by hand)."""
        if action in legal:
            return
        if self.decision is None:
            raise IllegalAction(f"no decision is pending, got {action}")
        raise IllegalAction(f"{action} is not legal now (decision {self.decision.value})")

    def _to_discard(self, card: int) -> None:
        self.discard.append(card)
        self._touch_pile()
        self.up[card] = True
        self.known[card] = self.all_seats

    def _swap(self, seat: int, slot: int) -> None:
        grid = self.grids[seat]
        out = grid[slot]
        card = self.drawn
        grid[slot] = card
        self._touch(seat)
        self.drawn = -1
        if self._swap_face_up:
            self.up[card] = True
            self.known[card] = self.all_seats
        else:
            # D6: face down; known to the swapper, and to all when it came from the pile.
            self.up[card] = False
            self.known[card] = (1 << seat) if self.drawn_from_stock else self.all_seats
        self._to_discard(out)
        self.events.append(new_tuple(SwapEvent, (seat, slot, card, out, self.drawn_from_stock)))

    def _target(self, seat: int, target_seat: int, slot: int) -> None:
        rank = self.power_rank
        card = self.grids[target_seat][slot]
        if rank is Rank.KING and self.first_target is None:
            self.first_target = (target_seat, slot)
            self.events.append(PowerTargetEvent(seat, target_seat, slot))
            return
        if rank is Rank.KING:
            first = self.first_target
            assert first is not None
            s1, i1 = first
            g1, g2 = self.grids[s1], self.grids[target_seat]
            g1[i1], g2[slot] = g2[slot], g1[i1]
            self._touch(s1)
            self._touch(target_seat)
            self.events.append(PowerSwapEvent(seat, s1, i1, target_seat, slot))
        else:
            self.known[card] |= 1 << seat
            self._touch(target_seat)
            self.events.append(PowerPeekEvent(seat, target_seat, slot, card))
        self.power_rank = None
        self.first_target = None
        self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        self.turns[seat] += 1
        self._next_seat = (seat + 1) % self.players
        self.decision = None
        self.to_move = None
        if self.final_left > 0:
            self.final_left -= 1
        elif self.final_left < 0 and self.grid_full(seat) and self.knocker is None:
            self.closer = seat
            self.final_left = self.players - 1  # D3: the closer gets no more turns
        if self.final_left == 0:
            self._end_hole(HoleEnd.KNOCKED if self.knocker is not None else HoleEnd.CLOSED)
            return
        limit = self._turn_limit
        # G17: the turn limit stops stalling; the few turns owed after a close or knock
        # are always played out.
        if self.final_left < 0 and self.turns[seat] >= limit and min(self.turns) >= limit:
            self._end_hole(HoleEnd.TURN_LIMIT)
            return
        if not self.stock:
            if len(self.discard) <= 1:
                self._end_hole(HoleEnd.STOCK_EXHAUSTED)
                return
            # D7: the pile minus its top card is shuffled into a new stock; the caller
            # supplies the order. The cards are listed bottom of the pile first.
            recycle = self.discard[:-1]
            del self.discard[:-1]
            self._touch_pile()
            for c in recycle:
                self.up[c] = False
                self.known[c] = 0
            self.chance = tuple(recycle)
            return
        self._next_turn()

    def _next_turn(self) -> None:
        self.to_move = self._next_seat
        self.decision = _D_DRAW
        self._legal = None

    def _end_hole(self, end: HoleEnd) -> None:
        self.last_table = None  # one table kept, not a chain of every hole's
        self.last_table = self.clone()
        rules = self.rules
        ranks = self.ranks
        for g in self.grids:
            for c in g:
                self.up[c] = True
        self._touch_all()
        if rules.suit_values:
            cards = self.cards
            grid_scores = tuple(
                score_grid([ranks[c] for c in g], rules, [cards[c].suit for c in g]) for g in self.grids
            )
        else:
            grid_scores = tuple(score_grid([ranks[c] for c in g], rules) for g in self.grids)
        ender: int | None = None
        if end is HoleEnd.KNOCKED:
            ender = self.knocker
        elif end is HoleEnd.CLOSED:
            ender = self.closer
        scores = hole_scores([gs.total for gs in grid_scores], rules, self.closer, self.knocker)
        # The log's `penalties` are every adjustment to the grid scores, so scores = grid + penalty.
        penalties = [scores[s] - grid_scores[s].total for s in range(self.players)]
        for s in range(self.players):
            self.totals[s] += scores[s]
        self.results.append(
            HoleResult(
                hole=self.hole,
                starter=self.starter,
                end=end,
                ender=ender,
                grids=tuple(tuple(g) for g in self.grids),
                grid_scores=grid_scores,
                penalties=tuple(penalties),
                scores=tuple(scores),
                totals=tuple(self.totals),
                turns=tuple(self.turns),
            )
        )
        self.hole_scores += (tuple(scores),)
        self.decision = None
        self.to_move = None
        self._legal = None
        if self.hole + 1 >= rules.holes:
            self.over = True
            self.chance = None
            return
        self.hole += 1
        self._reset_hole()
        self.chance = tuple(range(len(self.cards)))

    # -- copies ----------------------------------------------------------------------

    def clone(self) -> Game:
        """An independent copy of the whole state: playing on either leaves the other as it was."""
        # Made, then overwritten attribute by attribute: a Game compiled by mypyc (docs/PERFORMANCE.md's
        # compiled build) has no __dict__ to copy, and Game.__new__ runs its __init__. The
        # immutable attributes (frozen values, tuples, numbers) are shared, the rest copied;
        # tests/test_engine.py checks that every attribute is, and that no mutable one is shared.
        other = Game(self.rules)
        other.players, other.slots = self.players, self.slots
        other.cards, other.ranks, other.all_seats = self.cards, self.ranks, self.all_seats
        other.hole_scores, other.hole, other.over, other.chance = self.hole_scores, self.hole, self.over, self.chance
        other.starter, other.to_move, other.decision = self.starter, self.to_move, self.decision
        other.drawn, other.drawn_from_stock = self.drawn, self.drawn_from_stock
        other.power_rank, other.first_target = self.power_rank, self.first_target
        other.closer, other.knocker, other.final_left = self.closer, self.knocker, self.final_left
        other._next_seat, other._legal = self._next_seat, self._legal
        other.stamp, other.discard_stamp = self.stamp, self.discard_stamp
        other.history = self.history.copy()
        other.results = self.results.copy()
        other.totals = self.totals.copy()
        other.grids = [g.copy() for g in self.grids]
        other.up = self.up.copy()
        other.known = self.known.copy()
        other.stock = self.stock.copy()
        other.discard = self.discard.copy()
        other.reveal_left = self.reveal_left.copy()
        other.turns = self.turns.copy()
        other.events = self.events.copy()
        other.grid_stamps = self.grid_stamps.copy()
        other.view_memo = {}
        other.last_table = None if self.last_table is None else self.last_table.clone()
        return other

    # -- results ---------------------------------------------------------------------

    def placings(self, disqualified: Iterable[int] = ()) -> tuple[int, ...]:
        """Current places from the match totals (D14)."""
        return placings(self.totals, disqualified)

    @classmethod
    def replay(cls, rules: Rules, history: Iterable[Event]) -> Game:
        """Re-derive a game from its recorded history, without any random generator."""
        game = cls(rules)
        for event in history:
            if isinstance(event, Shuffle):
                game.apply_shuffle(event.order)
            else:
                if game.to_move != event.seat:
                    raise IllegalAction(f"seat {event.seat} acted, but seat {game.to_move} is to move")
                game.apply(event.action)
        return game


_DRAW = (STOCK, DISCARD)
_DRAW_KNOCK = (STOCK, DISCARD, KNOCK)
_THROW_ONLY = (THROW,)
_THROW_POWER = (THROW, POWER)
_PASS_ONLY = (PASS,)
_SWAP_SETS = {n: _SWAPS[:n] for n in range(1, _MAX_SLOTS + 1)}
_SWAP_THROW = {n: swaps + _THROW_ONLY for n, swaps in _SWAP_SETS.items()}
_SWAP_THROW_POWER = {n: swaps + _THROW_POWER for n, swaps in _SWAP_SETS.items()}
