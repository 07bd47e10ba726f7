"""The `good` built-in: the sample bot's heuristic (sample_matches/bots/greedy_bot.py) on a seat's view.

The sample bot stays a standalone program for authors to read (its folder is all a sandbox
shows it, so it cannot import golfref); tests/test_good.py holds the two to the same choice
on the same views. Change one, change the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from .cards import Card, Rank
from .engine import Action, ActionKind, Decision, target_action
from .rules import Cancel, Lines, PairScope, Rules
from .scoring import rank_values
from .view import SeatView

__all__ = ["GoodPolicy", "score_groups"]

UNSEEN = 5.0  # expected points of a card this seat has not seen: about a deck's mean
DRAW_MARGIN = 1.0  # the discard top must beat an unknown stock card by this much
KNOCK_MARGIN = 2.0  # knock only when clearly lowest: a failed knock costs a penalty
KEPT = 2.0  # a rival's face-down card at knock time is mostly one it has seen and chose to keep
RIVAL_WEIGHT = 0.5  # a point given to (or taken from) one rival is worth less than our own
PEEK_VALUE = 1.5  # learning one hidden card with a J or Q power, in points
CLOSE_PENALTY = 5.0  # closing the hole while not ahead ends our chances to catch up

Grid = list[Card | None] | tuple[Card | None, ...]


def score_groups(rules: Rules) -> list[list[int]]:
    """The groups of slots that cancel under `rules`: lines, or where pairs cancel (no single slots)."""
    rows, cols = rules.rows, rules.cols
    columns = [[r * cols + c for r in range(rows)] for c in range(cols)]
    lines = [[r * cols + c for c in range(cols)] for r in range(rows)]
    diagonals = [[i * cols + i for i in range(rows)], [i * cols + cols - 1 - i for i in range(rows)]]
    if rules.cancel is Cancel.PAIRS:
        scope = rules.pair_scope
        groups = [list(range(rows * cols))] if scope is PairScope.GRID else columns
        if scope is PairScope.ROWS:
            groups = columns + lines
    else:
        groups = columns + (lines if rules.lines in (Lines.ROWS, Lines.DIAGONALS) else [])
        groups += diagonals if rules.lines is Lines.DIAGONALS and rows == cols else []
    return [g for g in groups if len(g) >= 2]  # one card alone never cancels


class GoodPolicy:
    """The sample bot's one-ply heuristic: values each action by how it changes estimated grid scores."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.cols = rules.cols
        self.values: dict[Rank, float] = {r: float(v) for r, v in rank_values(rules).items()}
        self.pairs = rules.cancel is Cancel.PAIRS
        self.groups = score_groups(rules)
        self.swap_face_up = rules.swap_face_up

    def estimate(self, grid: Grid, unseen: float = UNSEEN) -> float:
        """Expected score of a grid: seen cards at their value, cancelled groups at 0, unseen cards `unseen`.

        Unseen cards never cancel, so completing a matching column is worth the whole
        column's points. Block bonuses are left out, as the sample bot leaves them out.
        """
        cancelled: set[int] = set()
        for group in self.groups:
            ranks = [None if (c := grid[s]) is None else c.rank for s in group]
            if self.pairs:
                counts = Counter(r for r in ranks if r is not None)
                cancelled.update(s for s, r in zip(group, ranks, strict=True) if r is not None and counts[r] > 1)
            elif None not in ranks and len(set(ranks)) == 1:
                cancelled.update(group)
        values = self.values
        total = 0.0
        for s, card in enumerate(grid):
            total += 0 if s in cancelled else unseen if card is None else values.get(card.rank, UNSEEN)
        return total

    def choose(self, seat_view: SeatView, legal: Sequence[Action]) -> Action:
        """Pick the action the sample bot would pick on this view."""
        return _Turn(self, seat_view).choose(legal)


class _Turn:
    """One decision's working state (the sample bot keeps it on itself)."""

    def __init__(self, policy: GoodPolicy, v: SeatView) -> None:
        self.p = policy
        self.v = v
        self.me = v.seat
        self.own: list[Card | None] = list(v.grids[v.seat])

    def choose(self, legal: Sequence[Action]) -> Action:
        decision = self.v.decision
        if decision is Decision.REVEAL:
            return self.reveal(legal)
        if decision is Decision.DRAW:
            return self.draw(legal)
        if decision is Decision.PLACE:
            return self.place(legal)
        if decision is Decision.FLIP:
            return self.flip(legal)
        if decision is Decision.TARGET:
            return self.target(legal)
        return legal[0]

    # -- estimates --------------------------------------------------------------

    def rivals(self) -> list[tuple[Card | None, ...]]:
        return [g for s, g in enumerate(self.v.grids) if s != self.me]

    def ahead(self, grid: Grid) -> bool:
        estimate = self.p.estimate
        return estimate(grid) < min(estimate(g) for g in self.rivals())

    def help_to_next(self, card: Card | None) -> float:
        """How much `card` on the discard pile would help the next seat, if it plays again."""
        v = self.v
        nxt = (self.me + 1) % len(v.grids)
        if card is None or nxt in (v.closer, v.knocker):
            return 0.0
        theirs = list(v.grids[nxt])
        estimate = self.p.estimate
        base = estimate(theirs)
        # A card matching one they show completes a column for them: a big gain here.
        best = max(base - estimate(theirs[:s] + [card] + theirs[s + 1 :]) for s in range(len(theirs)))
        return max(best, 0.0)

    def swap_values(self, card: Card) -> dict[Action, float]:
        """Value of swapping `card` into each own slot: our gain, less what we hand the next seat."""
        v, own, estimate = self.v, self.own, self.p.estimate
        base = estimate(own)
        values: dict[Action, float] = {}
        for slot in range(len(own)):
            trial = own[:slot] + [card] + own[slot + 1 :]
            value = base - estimate(trial) - RIVAL_WEIGHT * self.help_to_next(own[slot])
            face_up = list(v.face_up[self.me])
            face_up[slot] = self.p.swap_face_up
            closes = all(face_up) and v.closer is None and v.knocker is None
            if closes and not self.ahead(trial):
                value -= CLOSE_PENALTY
            values[Action(ActionKind.SWAP, slot)] = value
        return values

    def king_moves(self) -> Iterator[tuple[float, int, int, int]]:
        """(value, own slot, rival seat, rival slot) for each trade a K power can make."""
        estimate, own = self.p.estimate, self.own
        base = estimate(own)
        for slot, mine in enumerate(own):
            for seat, grid in enumerate(self.v.grids):
                if seat == self.me:
                    continue
                theirs = list(grid)
                for their_slot, card in enumerate(theirs):
                    ours = own[:slot] + [card] + own[slot + 1 :]
                    after = theirs[:their_slot] + [mine] + theirs[their_slot + 1 :]
                    value = base - estimate(ours) + RIVAL_WEIGHT * (estimate(after) - estimate(theirs))
                    yield value, slot, seat, their_slot

    # -- decisions ----------------------------------------------------------------

    def reveal(self, legal: Sequence[Action]) -> Action:
        # Spread the start reveals over columns: each known column is a place we can pair.
        cols = self.p.cols
        known_columns = {s % cols for s, card in enumerate(self.own) if card}
        for action in legal:
            if action.slot is not None and action.slot % cols not in known_columns:
                return action
        return legal[0]

    def draw(self, legal: Sequence[Action]) -> Action:
        own, estimate = self.own, self.p.estimate
        kinds = {a.kind: a for a in legal}
        # Counting rivals' hidden cards at UNSEEN here made about four knocks in ten fail.
        if (
            ActionKind.KNOCK in kinds
            and None not in own
            and estimate(own) < min(estimate(g, unseen=KEPT) for g in self.rivals()) - KNOCK_MARGIN
        ):
            return kinds[ActionKind.KNOCK]
        discard = self.v.discard
        if ActionKind.DRAW_DISCARD in kinds and discard and max(self.swap_values(discard[-1]).values()) > DRAW_MARGIN:
            return kinds[ActionKind.DRAW_DISCARD]
        return kinds.get(ActionKind.DRAW_STOCK, legal[0])

    def place(self, legal: Sequence[Action]) -> Action:
        card = self.v.drawn
        if card is None:
            return legal[0]
        values = self.swap_values(card)
        # Throwing a card away (or using its power, which throws it too) hands it to the next seat.
        handed = RIVAL_WEIGHT * self.help_to_next(card)
        values[Action(ActionKind.THROW)] = -handed
        if card.rank in (Rank.JACK, Rank.QUEEN):
            values[Action(ActionKind.POWER)] = PEEK_VALUE - handed
        elif card.rank is Rank.KING:
            values[Action(ActionKind.POWER)] = max(self.king_moves())[0] - handed
        return max((a for a in legal if a in values), key=values.__getitem__, default=legal[0])

    def flip(self, legal: Sequence[Action]) -> Action:
        flips = [a for a in legal if a.kind is ActionKind.FLIP]
        unseen = [a for a in flips if a.slot is not None and self.own[a.slot] is None]
        if any(a.kind is ActionKind.PASS for a in legal):
            closing = len(flips) == 1 and self.v.closer is None and self.v.knocker is None
            if (closing and not self.ahead(self.own)) or (not closing and not unseen):
                return next(a for a in legal if a.kind is ActionKind.PASS)
        # Flip a card we have not seen: the flip then also tells us something.
        return (unseen or flips or list(legal))[0]

    def target(self, legal: Sequence[Action]) -> Action:
        v, me = self.v, self.me
        if v.power is Rank.KING:
            first = v.first_target
            moves = list(self.king_moves())
            if first is None:
                return target_action(me, max(moves)[1])
            seat, slot = first
            if seat == me:
                _, _, their_seat, their_slot = max(m for m in moves if m[1] == slot)
                return target_action(their_seat, their_slot)
            return target_action(me, max(m for m in moves if (m[2], m[3]) == (seat, slot))[1])
        # J and Q peek: a card we have not seen yet; for Q, at the rival who looks best,
        # since that is whose score decides whether we should knock.
        grids, estimate = v.grids, self.p.estimate
        unseen = [a for a in legal if a.seat is not None and a.slot is not None and grids[a.seat][a.slot] is None]
        return min(unseen or list(legal), key=lambda a: estimate(grids[a.seat or 0]))
