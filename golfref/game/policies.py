"""Built-in policies that play in-process: built-in players and the fault fallback.

Policies see only a seat's view (view.py), exactly like an external bot, so the `greedy`
fallback that stands in for a faulted bot never learns a hidden card.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Protocol

from .cards import Card, Rank
from .engine import Action, ActionKind, Decision
from .expert import DEFAULT_ITERATIONS, MAX_ITERATIONS, ExpertPolicy
from .good import GoodPolicy
from .rules import Lines, Rules
from .scoring import card_points
from .view import SeatView

__all__ = [
    "Policy",
    "RandomPolicy",
    "GreedyPolicy",
    "GoodPolicy",
    "ExpertPolicy",
    "POLICIES",
    "OPTIONS",
    "make_policy",
    "policy_settings",
]


class Policy(Protocol):
    """Something that picks one legal action from a seat's view."""

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """Pick one of `legal`."""
        ...


class RandomPolicy:
    """Uniform over the legal actions."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """Pick a legal action uniformly at random."""
        return self.rng.choice(legal)


# Expected points of a card nobody has seen: near the mean of a deck's values.
_UNSEEN = 5.0


class GreedyPolicy:
    """A one-ply heuristic: keeps low cards, builds matching columns, avoids feeding the next seat."""

    def __init__(self, rules: Rules, rng: random.Random | None = None) -> None:
        self.rules = rules
        self.rng = rng or random.Random(0)
        self._points: dict[str, float] = {}
        rows, cols = rules.rows, rules.cols
        lines = [[r * cols + c for r in range(rows)] for c in range(cols)]
        if rules.lines in (Lines.ROWS, Lines.DIAGONALS):
            lines += [[r * cols + c for c in range(cols)] for r in range(rows)]
        self.lines = [line for line in lines if len(line) >= 2]

    def points(self, card: Card | None) -> float:
        """A card's points by the card table and its suit's own value (one-eyed jacks); a deck's mean when unseen."""
        if card is None:
            return _UNSEEN
        # Kept by the card's written form (a str, its hash cached): this runs for every slot of every trial grid.
        known = self._points.get(card.name)
        if known is None:
            known = self._points[card.name] = float(card_points(card, self.rules))
        return known

    def estimate(self, grid: Sequence[Card | None]) -> float:
        """Expected score of a grid, unseen cards counted at a deck's mean."""
        zero = set()
        for line in self.lines:
            first = grid[line[0]]
            if first is not None and all((c := grid[s]) is not None and c.rank is first.rank for s in line):
                zero.update(line)
        return sum(0.0 if i in zero else self.points(c) for i, c in enumerate(grid))

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """Pick the action with the best one-ply estimate."""
        decision = seat_view.decision
        own = list(seat_view.grids[seat_view.seat])
        if decision is Decision.REVEAL or decision is Decision.FLIP:
            flips = [a for a in legal if a.slot is not None]
            return flips[0] if flips else legal[0]
        if decision is Decision.DRAW:
            return self._draw(seat_view, own, legal)
        if decision is Decision.PLACE:
            return self._place(seat_view, own, legal)
        if decision is Decision.TARGET:
            return self._target(seat_view, legal)
        return legal[0]

    def _draw(self, v: SeatView, own: list[Card | None], legal: Sequence[Action]) -> Action:
        kinds = {a.kind: a for a in legal}
        if ActionKind.KNOCK in kinds and None not in own:
            mine = self.estimate(own)
            others = [self.estimate(g) for s, g in enumerate(v.grids) if s != v.seat]
            if mine < min(others) - 2:
                return kinds[ActionKind.KNOCK]
        top = v.discard[-1] if v.discard else None
        if top is not None and self._best_swap(own, top)[1] > 1.0:
            return kinds[ActionKind.DRAW_DISCARD]
        return kinds[ActionKind.DRAW_STOCK]

    def _best_swap(self, own: list[Card | None], card: Card) -> tuple[int, float]:
        base = self.estimate(own)
        best_slot, best_gain = 0, -1e9
        for slot in range(len(own)):
            trial = own.copy()
            trial[slot] = card
            gain = base - self.estimate(trial)
            if gain > best_gain:
                best_slot, best_gain = slot, gain
        return best_slot, best_gain

    def _place(self, v: SeatView, own: list[Card | None], legal: Sequence[Action]) -> Action:
        card = v.drawn
        kinds = {a.kind: a for a in legal}
        if card is None:
            return legal[0]
        slot, gain = self._best_swap(own, card)
        swap = next((a for a in legal if a.kind is ActionKind.SWAP and a.slot == slot), None)
        if ActionKind.POWER in kinds and gain <= 2.0 and self._something_to_peek(v, card.rank):
            return kinds[ActionKind.POWER]
        # Throw a card that does not help, unless the next seat could use it and a swap is possible.
        if ActionKind.THROW in kinds and (swap is None or (gain <= 0.0 and not self._feeds_next(v, card))):
            return kinds[ActionKind.THROW]
        if swap is not None:
            return swap
        return legal[0]

    def _something_to_peek(self, v: SeatView, rank: Rank) -> bool:
        """Whether a J (own grid) or Q (others' grids) power would show a card not yet seen."""
        if rank is Rank.JACK:
            return None in v.grids[v.seat]
        if rank is Rank.QUEEN:
            return any(None in g for s, g in enumerate(v.grids) if s != v.seat)
        return False

    def _feeds_next(self, v: SeatView, card: Card) -> bool:
        nxt = (v.seat + 1) % len(v.grids)
        return any(c is not None and c.rank is card.rank for c in v.grids[nxt])

    def _target(self, v: SeatView, legal: Sequence[Action]) -> Action:
        if v.power is not Rank.KING:
            # A peek is worth most on a card this seat has not seen yet.
            unseen = [a for a in legal if _targeted(v, a) is None]
            return unseen[0] if unseen else legal[0]

        # King: move my worst visible card to the opponent with the best visible one.
        def worth(a: Action) -> float:
            return self.points(_targeted(v, a))

        if v.first_target is None:
            mine = [a for a in legal if a.seat == v.seat]
            return max(mine or legal, key=worth)
        theirs = [a for a in legal if a.seat != v.seat]
        return min(theirs or legal, key=worth)


def _targeted(v: SeatView, action: Action) -> Card | None:
    """The card a `target` action points at, as this seat sees it."""
    seat, slot = action.seat, action.slot
    assert seat is not None and slot is not None, action  # every target action names both
    return v.grids[seat][slot]


POLICIES = ("random", "greedy", "good", "expert")
"""The built-in policies, weakest first: the ladder of docs/OPPONENTS.md."""

OPTIONS: dict[str, dict[str, tuple[int, int, int]]] = {
    "expert": {"iterations": (1, MAX_ITERATIONS, DEFAULT_ITERATIONS), "seed": (0, 2**63 - 1, 0)},
}
"""Each built-in's options: name -> (lowest, highest, default); a built-in not listed has none."""


def policy_settings(name: str, options: Mapping[str, object] | None = None) -> dict[str, int]:
    """Every option of built-in `name`: those of `options` (checked), the rest at their defaults."""
    given = dict(options or {})
    allowed = OPTIONS.get(name, {})
    for key, value in given.items():
        if key not in allowed:
            known = ", ".join(allowed) or "none"
            raise ValueError(f"built-in {name!r} has no option {key!r} (its options: {known})")
        lo, hi, _ = allowed[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"built-in {name!r}: option {key} must be an integer from {lo} to {hi}, got {value!r}")
    return {key: int(given.get(key, default)) for key, (_, _, default) in allowed.items()}  # type: ignore[call-overload]


def make_policy(name: str, rules: Rules, rng: random.Random, options: Mapping[str, object] | None = None) -> Policy:
    """Build the built-in policy called `name` with `options` (OPTIONS says which it takes)."""
    if name not in POLICIES:
        raise ValueError(f"unknown built-in policy {name!r} (built-ins: {', '.join(POLICIES)})")
    settings = policy_settings(name, options)
    if name == "random":
        return RandomPolicy(rng)
    if name == "greedy":
        return GreedyPolicy(rules, rng)
    if name == "good":
        return GoodPolicy(rules)
    return ExpertPolicy(rules, iterations=settings["iterations"], seed=settings["seed"])
