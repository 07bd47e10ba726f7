"""What match runners' users read first, and the report's finer tables: pure, no I/O.

Chess testers (fastchess, cutechess-cli, OpenBench) headline a pair's win / draw / loss counts,
the paired outcomes of each opening played both ways (fastchess's pentanomial counts) and an
Elo difference with its interval. Golf has the same shapes:

- A **match outcome** between two players of one match compares their places as the
  statistics count them (`stats.penalised`): the lower match total wins, equal totals draw,
  and a disqualified seat places last, so a forfeit loses (two forfeits draw).
- The **paired outcome** of a deal set is A's points over the deal set's matches where both
  sat (a win 1, a draw 1/2): with two seatings, 0, 1/2, 1, 3/2 or 2, the pentanomial.
- The **Elo-like effect size** is the logistic Elo of A's mean points per match, over deal
  sets: ``elo(s) = -400 log10(1 / s - 1)``, with its interval the t-interval of the per-deal-set
  points per match mapped through the same function (an end at or past 0 or 1 leaves the
  interval open on that side). A **sweep** (A won, or lost, every match) has no estimate: its
  score is 1 (or 0), whose Elo is infinite, and its t-interval has no width. Its interval is
  then one-sided and finite at the other end: each deal set A swept scores 1, so A's points per
  match are at least the share of deal sets it sweeps, and the exact (Clopper-Pearson) interval
  of that share, after n sweeps in n deal sets, starts at ``((1 - confidence) / 2) ** (1 / n)``.

The per-seat, per-deal-set and hole-ending tables are here too; docs/TOURNAMENT_STATS.md says
what each number means.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from ..game.engine import HoleEnd
from .records import MatchRecord
from .stats import CONFIDENCE, Estimate, estimate, penalised

__all__ = [
    "Outcome",
    "match_outcome",
    "elo",
    "sweep_bound",
    "EloEstimate",
    "PairOutcomes",
    "pair_outcomes",
    "all_pair_outcomes",
    "outcome_of",
    "PlayerSeat",
    "player_seats",
    "DealSetPair",
    "deal_set_pairs",
    "HoleEnding",
    "EndingCounts",
    "ending_counts",
]


class Outcome(Enum):
    """One match between two of its players, from the first player's side."""

    WIN = "win"
    """A lower match total than the other's (as the statistics count it), or the other forfeited alone."""
    DRAW = "draw"
    """Equal totals, or both forfeited."""
    LOSS = "loss"
    """A higher match total, or it forfeited and the other did not."""

    @property
    def points(self) -> float:
        """1 for a win, 1/2 for a draw, 0 for a loss."""
        return {Outcome.WIN: 1.0, Outcome.DRAW: 0.5, Outcome.LOSS: 0.0}[self]


def _best_place(record: MatchRecord, name: str) -> int:
    # A player at several seats of one match counts at its best place, as the ratings do.
    return min(p for n, p in zip(record.seating, record.placings, strict=True) if n == name)


def match_outcome(record: MatchRecord, a: str, b: str) -> Outcome | None:
    """A's outcome against B in one match (penalised as every statistic counts it), or None if not both sat."""
    if a == b or a not in record.seating or b not in record.seating:
        return None
    counted = penalised(record)
    pa, pb = _best_place(counted, a), _best_place(counted, b)
    return Outcome.WIN if pa < pb else Outcome.LOSS if pa > pb else Outcome.DRAW


def elo(score: float) -> float:
    """The logistic Elo difference of a mean score per match in [0, 1]: infinite at 0 and 1."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"elo: a score per match is between 0 and 1, got {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """A's Elo-like advantage over B (positive favours A), with its interval, open on a side it does not bound."""

    elo: float | None
    """None at a sweep (`sweep` says which way): a score of 1 or 0 has no finite Elo to estimate."""
    low: float | None
    """The interval's lower end, -inf where it has none; None under two deal sets (no interval)."""
    high: float | None
    """The interval's upper end, +inf where it has none; None under two deal sets (no interval)."""
    sweep: Outcome | None = None
    """WIN when A won every match against B, LOSS when it lost every one, else None."""

    def flipped(self) -> EloEstimate:
        """The same estimate from B's side."""
        sweep = {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN}.get(self.sweep) if self.sweep else None
        return EloEstimate(
            None if self.elo is None else -self.elo,
            None if self.high is None else -self.high,
            None if self.low is None else -self.low,
            sweep,
        )

    def to_json(self) -> dict[str, float | str | None]:
        """`elo`, `elo_low`, `elo_high` and `sweep` as JSON holds them: finite numbers or null, never inf or NaN.

        Null `elo`: a sweep (`sweep`: "won_all" or "lost_all", from A's side). Null `elo_low` or
        `elo_high`: the interval has no end on that side, or there is no interval at all (under two
        deal sets).
        """

        def finite(x: float | None) -> float | None:
            return x if x is not None and math.isfinite(x) else None

        sweep = {Outcome.WIN: "won_all", Outcome.LOSS: "lost_all"}.get(self.sweep) if self.sweep else None
        return {"elo": finite(self.elo), "elo_low": finite(self.low), "elo_high": finite(self.high), "sweep": sweep}


@dataclass(frozen=True, slots=True)
class PairOutcomes:
    """A pair's match outcomes over the complete deal sets where both sat, from A's side."""

    a: str
    b: str
    matches: int
    wins: int
    draws: int
    losses: int
    paired: tuple[int, ...]
    """Entry k: the deal sets in which A scored k/2 points over its matches with B (the pentanomial with two)."""
    score: Estimate
    """A's points per match (win 1, draw 1/2), over deal sets."""
    elo: EloEstimate

    @property
    def most(self) -> int:
        """The most matches the pair played in one deal set: the paired outcomes run from 0 to this."""
        return (len(self.paired) - 1) // 2

    def flipped(self) -> PairOutcomes:
        """The same outcomes seen from B's side."""
        return PairOutcomes(
            self.b, self.a, self.matches, self.losses, self.draws, self.wins, tuple(reversed(self.paired)),
            Estimate(1.0 - self.score.mean, self.score.se, None if self.score.high is None else 1.0 - self.score.high,
                     None if self.score.low is None else 1.0 - self.score.low, self.score.n, self.score.confidence),
            self.elo.flipped(),
        )  # fmt: skip

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict: every number finite (`EloEstimate.to_json` says what a null Elo field means)."""
        return {
            "a": self.a,
            "b": self.b,
            "matches": self.matches,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "paired": list(self.paired),
            "score": self.score.mean,
            "score_low": self.score.low,
            "score_high": self.score.high,
            "deal_sets": self.score.n,
            **self.elo.to_json(),
        }


def sweep_bound(deal_sets: int, confidence: float) -> float:
    """The lower bound of the points per match of a player that won every match of `deal_sets` deal sets.

    The lower end of the exact (Clopper-Pearson) interval at `confidence` of the share of deal sets
    it sweeps, all `deal_sets` of them so far: ``((1 - confidence) / 2) ** (1 / deal_sets)``.
    """
    if deal_sets < 1 or not 0.0 < confidence < 1.0:
        raise ValueError(f"sweep_bound: needs deal sets >= 1 and 0 < confidence < 1, got {deal_sets}, {confidence}")
    return float(((1.0 - confidence) / 2.0) ** (1.0 / deal_sets))


def _elo_of(score: Estimate, sweep: Outcome | None) -> EloEstimate:
    def bounded(x: float) -> float:
        return elo(min(1.0, max(0.0, x)))

    if sweep is not None:
        # The t-interval of a sweep has no width ([1, 1]): its bound comes from the count of sweeps instead.
        if score.n < 2:
            return EloEstimate(None, None, None, sweep)
        bound = elo(sweep_bound(score.n, score.confidence))
        if sweep is Outcome.WIN:
            return EloEstimate(None, bound, math.inf, sweep)
        return EloEstimate(None, -math.inf, -bound, sweep)
    if score.low is None or score.high is None:
        return EloEstimate(elo(score.mean), None, None)
    return EloEstimate(elo(score.mean), bounded(score.low), bounded(score.high))


def pair_outcomes(
    records: Iterable[MatchRecord], a: str, b: str, confidence: float = CONFIDENCE
) -> PairOutcomes | None:
    """A's outcomes against B over the records where both sat, or None when they never did."""
    counts = {o: 0 for o in Outcome}
    per_set: dict[int, list[float]] = defaultdict(list)
    for record in sorted(records, key=lambda r: r.match_index):
        outcome = match_outcome(record, a, b)
        if outcome is None:
            continue
        counts[outcome] += 1
        per_set[record.deal_set].append(outcome.points)
    if not per_set:
        return None
    most = max(len(points) for points in per_set.values())
    paired = [0] * (2 * most + 1)
    for points in per_set.values():
        paired[round(2 * sum(points))] += 1
    score = estimate([sum(p) / len(p) for _, p in sorted(per_set.items())], confidence)
    matches = sum(counts.values())
    sweep = next((o for o in (Outcome.WIN, Outcome.LOSS) if counts[o] == matches), None)
    return PairOutcomes(
        a, b, matches, counts[Outcome.WIN], counts[Outcome.DRAW], counts[Outcome.LOSS],
        tuple(paired), score, _elo_of(score, sweep),
    )  # fmt: skip


def _names(records: Sequence[MatchRecord]) -> list[str]:
    """The players in order of first appearance in the schedule (the statistics' `players` order)."""
    return list(dict.fromkeys(n for r in sorted(records, key=lambda r: r.match_index) for n in r.seating))


def all_pair_outcomes(records: Iterable[MatchRecord], confidence: float = CONFIDENCE) -> tuple[PairOutcomes, ...]:
    """Every pair that shared a table, in the order of `TournamentStats.pairs`."""
    kept = list(records)
    names = _names(kept)
    found = (pair_outcomes(kept, a, b, confidence) for i, a in enumerate(names) for b in names[i + 1 :])
    return tuple(p for p in found if p is not None)


def outcome_of(outcomes: Iterable[PairOutcomes], a: str, b: str) -> PairOutcomes | None:
    """A's outcomes against B among `outcomes` (either way round), or None."""
    for p in outcomes:
        if (p.a, p.b) == (a, b):
            return p
        if (p.a, p.b) == (b, a):
            return p.flipped()
    return None


@dataclass(frozen=True, slots=True)
class PlayerSeat:
    """One player at one seat index, over the deal sets it sat there."""

    name: str
    seat: int
    matches: int
    holes: int
    score_per_hole: Estimate
    """Penalised, as every statistic counts it; over the player's per-deal-set means at this seat."""


def player_seats(records: Iterable[MatchRecord], confidence: float = CONFIDENCE) -> tuple[PlayerSeat, ...]:
    """Each player's score per hole at each seat index it played, players in schedule order, seats ascending."""
    kept = sorted(records, key=lambda r: r.match_index)
    sums: dict[tuple[str, int], dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    matches: dict[tuple[str, int], int] = defaultdict(int)
    for record in map(penalised, kept):
        n_holes = len(record.hole_scores)
        for seat, name in enumerate(record.seating):
            matches[(name, seat)] += 1
            if n_holes:
                acc = sums[(name, seat)][record.deal_set]
                acc[0] += sum(hole[seat] for hole in record.hole_scores)
                acc[1] += n_holes
    out = []
    for name in _names(kept):
        for seat in sorted(s for n, s in sums if n == name):
            blocks = [sums[(name, seat)][d] for d in sorted(sums[(name, seat)])]
            out.append(PlayerSeat(name, seat, matches[(name, seat)], sum(h for _, h in blocks),
                                  estimate([s / h for s, h in blocks], confidence)))  # fmt: skip
    return tuple(out)


@dataclass(frozen=True, slots=True)
class DealSetPair:
    """Two players over one deal set: the block the pairwise table and the SPRT take one number from."""

    deal_set: int
    matches: tuple[int, ...]
    """The indexes of the deal set's matches where both sat."""
    a_per_hole: float
    b_per_hole: float
    points: float
    """A's points over those matches (win 1, draw 1/2): the paired outcome."""

    @property
    def diff(self) -> float:
        """A's score per hole minus B's: the pairwise table's block value (negative favours A)."""
        return self.a_per_hole - self.b_per_hole


def deal_set_pairs(records: Iterable[MatchRecord], a: str, b: str) -> list[DealSetPair]:
    """Per deal set where A and B sat at one table, in deal-set order (penalised scores)."""
    acc: dict[int, list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0.0])
    indexes: dict[int, list[int]] = defaultdict(list)
    for record in sorted(records, key=lambda r: r.match_index):
        outcome = match_outcome(record, a, b)
        if outcome is None:
            continue
        counted = penalised(record)
        n_holes = len(counted.hole_scores)
        sums = acc[record.deal_set]
        for seat, name in enumerate(counted.seating):
            score = sum(hole[seat] for hole in counted.hole_scores)
            if name == a:
                sums[0] += score
                sums[1] += n_holes
            elif name == b:
                sums[2] += score
                sums[3] += n_holes
        sums[4] += outcome.points
        indexes[record.deal_set].append(record.match_index)
    return [
        DealSetPair(d, tuple(indexes[d]), s[0] / s[1], s[2] / s[3], s[4])
        for d, s in sorted(acc.items())
        if s[1] and s[3]
    ]


@dataclass(frozen=True, slots=True)
class HoleEnding:
    """How one hole ended, as its log records it."""

    end: HoleEnd
    ender: int | None
    """The seat that closed or knocked; None for a turn limit."""
    grid_scores: tuple[int, ...]
    """Each seat's grid score (the log's `raw`), before any penalty."""


@dataclass(frozen=True, slots=True)
class EndingCounts:
    """How the holes a player played ended: who closed, who was caught."""

    name: str
    holes: int
    closed: int
    """Holes it ended with a full face-up grid."""
    knocked: int
    """Holes it ended by knocking."""
    caught: int
    """Holes it ended (closed or knocked) without the strictly lowest grid score: another's was as low or lower."""
    ended_by_others: int
    """Holes another seat ended."""
    beat_ender: int
    """Of the holes another seat ended, those where its own grid score was the strictly lowest."""
    turn_limit: int
    """Holes that hit the turn limit."""


def ending_counts(matches: Iterable[tuple[Sequence[str], Sequence[HoleEnding]]]) -> tuple[EndingCounts, ...]:
    """Per player (in order of first appearance): how its holes ended; one (seating, hole endings) per match.

    The endings are the log's, as played: a hole the fallback played for a seat counts as it ended.
    """
    tally: dict[str, list[int]] = {}
    for seating, holes in matches:
        for name in seating:
            tally.setdefault(name, [0] * 7)
        for hole in holes:
            for seat, name in enumerate(seating):
                t = tally[name]
                t[0] += 1
                others = [g for s, g in enumerate(hole.grid_scores) if s != seat]
                if hole.ender is None:
                    t[6] += hole.end is HoleEnd.TURN_LIMIT
                elif hole.ender == seat:
                    t[1] += hole.end is HoleEnd.CLOSED
                    t[2] += hole.end is HoleEnd.KNOCKED
                    t[3] += any(g <= hole.grid_scores[seat] for g in others)
                else:
                    t[4] += 1
                    t[5] += all(hole.grid_scores[seat] < g for g in others)
    return tuple(EndingCounts(name, *t) for name, t in tally.items())
