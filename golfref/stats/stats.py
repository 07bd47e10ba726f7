"""Tournament statistics from recorded matches: pure, no I/O.

The independent unit is the **deal set**, not the match or the hole. Every seating of one
deal set sees the same cards, so the matches of a deal set are correlated (a bad deal is bad
for every seating), and the holes of one match are correlated through the players' state.
Deal sets are drawn independently of each other, so one number per deal set (a *block*) is
an independent, identically distributed sample, and a t-interval over block means is honest.
Treating matches or holes as independent would make the intervals too narrow.

Scores are Golf scores: lower is better. A pairwise difference is ``A - B`` in points per
hole, so a negative difference favours A.

Every statistic counts a record as `penalised` gives it: a seat's fallback holes (the fallback
policy decided for it, or it was disqualified) score the match's forfeit score, an upper bound
of any hole's score, and placings follow from those totals. So the fallback's play is never
credited to the bot, and faulting can never help it.

See docs/TOURNAMENT_STATS.md for what each number means and when to trust it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from ..game.engine import placings
from .records import DISQUALIFIED, MatchRecord

__all__ = [
    "CONFIDENCE",
    "Estimate",
    "PlayerStats",
    "PairStats",
    "SeatStats",
    "Rating",
    "TournamentStats",
    "t_quantile",
    "estimate",
    "likelihood_of_superiority",
    "penalised",
    "complete_deal_sets",
    "percentile",
    "pair_block_differences",
    "rating_history",
    "ratings",
    "compute_stats",
    "pooled_sd_ratio",
]

CONFIDENCE = 0.95
"""The confidence level of every interval the statistics report."""


# --- Student's t quantile, exact (no scipy for one function) ---------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast only on one side of the mean; use the symmetry there.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t distribution with `df` >= 1 degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: p must be between 0 and 1, got {p}")
    if df < 1:
        raise ValueError(f"t_quantile: df must be at least 1, got {df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        low, high = high, high * 2.0
    for _ in range(200):  # bisection: the cdf is monotone, and 200 halvings reach float precision
        mid = (low + high) / 2.0
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2.0


# --- Value types -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over independent blocks with its standard error and confidence interval."""

    mean: float
    """The mean of the block values."""
    se: float | None
    """The standard error of the mean (sample SD / sqrt(n)); None under two blocks."""
    low: float | None
    """The interval's lower end (t-distribution, n - 1 degrees of freedom); None under two blocks."""
    high: float | None
    """The interval's upper end; None under two blocks."""
    n: int
    """How many blocks (deal sets) the estimate rests on."""
    confidence: float = CONFIDENCE
    """The interval's confidence level."""

    def interval(self, confidence: float) -> tuple[float, float] | None:
        """The interval at another confidence level, or None under two blocks."""
        if self.se is None:
            return None
        half = t_quantile(0.5 + confidence / 2.0, self.n - 1) * self.se
        return self.mean - half, self.mean + half

    def negated(self) -> Estimate:
        """The same estimate for the opposite difference (B - A instead of A - B)."""
        return Estimate(
            -self.mean,
            self.se,
            None if self.high is None else -self.high,
            None if self.low is None else -self.low,
            self.n,
            self.confidence,
        )

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's results over the tournament."""

    name: str
    matches: int
    """Seats played (a player at two seats of one match counts twice)."""
    holes: int
    """Holes played, over all its seats."""
    score_per_hole: Estimate | None
    """Mean score per hole, over the player's per-deal-set means; None if it played no hole."""
    mean_placing: float
    """The mean place over its seats, 1 best."""
    win_share: float
    """Wins per seat played, a first place shared by k seats counting 1/k; a disqualified seat never wins."""
    faults: int
    """Faults counted by the fault policy, over all its matches."""
    forfeits: int
    """Matches it forfeited: disqualified in them (a player at two seats of one match counts twice)."""
    fallback_holes: int
    """Holes scored at the forfeit score: the fallback decided for it there, or it was disqualified."""
    decisions: int
    """Answered decisions with a recorded thinking time."""
    decision_median_ms: float | None
    decision_p95_ms: float | None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PairStats:
    """Two players compared over the deal sets where both sat at the table."""

    a: str
    b: str
    diff: Estimate
    """Mean of the per-deal-set paired differences, A's score per hole minus B's; negative favours A."""
    los: float | None
    """Likelihood of superiority: the probability that A is truly better (lower), from Student's t with
    n - 1 degrees of freedom, as the interval; under two blocks None."""
    paired_sd: float | None
    """SD of the per-deal-set differences: the spread duplicate deals leave."""
    unpaired_sd: float | None
    """SD the same difference would have if A's and B's deal-set means were independent."""
    sd_ratio: float | None
    """paired_sd / unpaired_sd: below 1 when duplicate deals remove luck; None when undefined."""

    def flipped(self) -> PairStats:
        """The same comparison seen from B's side."""
        return PairStats(
            self.b,
            self.a,
            self.diff.negated(),
            None if self.los is None else 1.0 - self.los,
            self.paired_sd,
            self.unpaired_sd,
            self.sd_ratio,
        )

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SeatStats:
    """How a seat index scores, whoever sits there."""

    seat: int
    holes: int
    score_per_hole: Estimate
    """Mean score per hole at this seat, over deal sets."""
    effect: Estimate
    """This seat's score per hole minus the mean of all seats of the same matches, over deal sets."""

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's openskill Plackett-Luce rating after every match, in schedule order."""

    name: str
    mu: float
    sigma: float
    ordinal: float
    """mu - 3 sigma: a conservative skill, the usual sort key."""

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class TournamentStats:
    """Everything the statistics say about a set of recorded matches."""

    matches: int
    deal_sets: int
    players: tuple[PlayerStats, ...]
    """In order of first appearance in the schedule."""
    pairs: tuple[PairStats, ...]
    """Each unordered pair that shared a table once, A before B in `players` order."""
    seats: tuple[SeatStats, ...]
    ratings: tuple[Rating, ...]
    """In `players` order."""
    confidence: float = CONFIDENCE

    def player(self, name: str) -> PlayerStats | None:
        """The named player's statistics, or None."""
        return next((p for p in self.players if p.name == name), None)

    def rating(self, name: str) -> Rating | None:
        """The named player's rating, or None."""
        return next((r for r in self.ratings if r.name == name), None)

    def pair(self, a: str, b: str) -> PairStats | None:
        """The comparison of `a` against `b` (diff = a - b), or None if they never shared a table."""
        for pair in self.pairs:
            if (pair.a, pair.b) == (a, b):
                return pair
            if (pair.a, pair.b) == (b, a):
                return pair.flipped()
        return None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "matches": self.matches,
            "deal_sets": self.deal_sets,
            "confidence": self.confidence,
            "players": [p.to_json() for p in self.players],
            "pairs": [p.to_json() for p in self.pairs],
            "seats": [s.to_json() for s in self.seats],
            "ratings": [r.to_json() for r in self.ratings],
        }


# --- Building blocks ---------------------------------------------------------------------------


def estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean, standard error and t-interval of independent block values (at least one)."""
    if not values:
        raise ValueError("estimate: no values")
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return Estimate(mean, None, None, None, n, confidence)
    se = statistics.stdev(values) / math.sqrt(n)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * se
    return Estimate(mean, se, mean - half, mean + half, n, confidence)


def likelihood_of_superiority(mean: float, se: float, df: int) -> float:
    """P(the true difference is below 0, i.e. favours A): Student's t with `df` degrees of freedom, as the interval."""
    if df < 1:
        raise ValueError(f"likelihood_of_superiority: df must be at least 1, got {df}")
    if se == 0.0:
        return 0.5 if mean == 0.0 else (1.0 if mean < 0.0 else 0.0)
    return _t_cdf(-mean / se, df)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile: no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    below = math.floor(pos)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (pos - below)


def _player_sums(record: MatchRecord) -> dict[str, tuple[int, int]]:
    """Per player in one match: (sum of its hole scores, holes played), over all its seats."""
    sums: dict[str, tuple[int, int]] = {}
    for seat, name in enumerate(record.seating):
        score = sum(hole[seat] for hole in record.hole_scores)
        total, holes = sums.get(name, (0, 0))
        sums[name] = (total + score, holes + len(record.hole_scores))
    return sums


def _check(record: MatchRecord) -> None:
    """Refuse a record whose per-seat fields disagree with its seating (a damaged store)."""
    seats = len(record.seating)
    fields = {
        "totals": len(record.totals),
        "placings": len(record.placings),
        "statuses": len(record.statuses),
        "faults": len(record.faults),
        "decision_ms": len(record.decision_ms),
        "fallback_holes": len(record.fallback_holes),
        "fault_kinds": len(record.fault_kinds),
        **{f"hole_scores[{h}]": len(hole) for h, hole in enumerate(record.hole_scores)},
    }
    for name, length in fields.items():
        if length != seats:
            raise ValueError(f"match {record.match_index}: {name} has {length} seats, its seating {seats}")
    holes = len(record.hole_scores)
    for seat, fallback in enumerate(record.fallback_holes):
        if any(not 0 <= h < holes for h in fallback):
            raise ValueError(f"match {record.match_index}: fallback_holes[{seat}] names a hole outside its {holes}")


def penalised(record: MatchRecord) -> MatchRecord:
    """The record as every statistic counts it: each seat's fallback holes at the match's forfeit score,
    the totals summed again and the placings given again from them (D14; disqualified seats last)."""
    if not any(record.fallback_holes):
        return record
    seats = len(record.seating)
    charged = [set(holes) for holes in record.fallback_holes]
    hole_scores = tuple(
        tuple(record.forfeit_score if h in charged[seat] else score for seat, score in enumerate(hole))
        for h, hole in enumerate(record.hole_scores)
    )
    totals = tuple(sum(hole[seat] for hole in hole_scores) for seat in range(seats))
    out = [seat for seat, status in enumerate(record.statuses) if status == DISQUALIFIED]
    return dataclasses.replace(record, hole_scores=hole_scores, totals=totals, placings=placings(totals, out))


def complete_deal_sets(records: Iterable[MatchRecord], per_deal_set: int) -> list[MatchRecord]:
    """The records of the deal sets whose every seating (`per_deal_set` matches) is there.

    A half-played deal set would bias every paired comparison: the seatings missing from it
    are not a random sample. The tables, the gate and the SPRT all count these and only these.
    """
    kept = list(records)
    counts: dict[int, int] = defaultdict(int)
    for r in kept:
        counts[r.deal_set] += 1
    return [r for r in kept if counts[r.deal_set] == per_deal_set]


def _ordered(records: Iterable[MatchRecord]) -> list[MatchRecord]:
    """The records in schedule order, checked, and penalised as every statistic counts them."""
    ordered = sorted(records, key=lambda r: r.match_index)
    for record in ordered:
        _check(record)
    return [penalised(record) for record in ordered]


def _pair_blocks(records: Sequence[MatchRecord], a: str, b: str) -> list[tuple[int, float, float]]:
    """Per deal set where a and b sat at one table: (deal set, a's score per hole, b's), by deal set."""
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for record in records:
        if a not in record.seating or b not in record.seating:
            continue
        per = _player_sums(record)
        acc = sums[record.deal_set]
        acc[0] += per[a][0]
        acc[1] += per[a][1]
        acc[2] += per[b][0]
        acc[3] += per[b][1]
    return [
        (deal_set, acc[0] / acc[1], acc[2] / acc[3])
        for deal_set, acc in sorted(sums.items())
        if acc[1] and acc[3]
    ]


def pair_block_differences(records: Iterable[MatchRecord], a: str, b: str) -> list[float]:
    """Per shared deal set, in deal-set order: a's score per hole minus b's over the matches both played
    (penalised: a fallback hole at the forfeit score)."""
    return [sa - sb for _, sa, sb in _pair_blocks(_ordered(records), a, b)]


def _pair_stats(records: Sequence[MatchRecord], a: str, b: str, confidence: float) -> PairStats | None:
    blocks = _pair_blocks(records, a, b)
    if not blocks:
        return None
    a_means = [sa for _, sa, _ in blocks]
    b_means = [sb for _, _, sb in blocks]
    diffs = [sa - sb for sa, sb in zip(a_means, b_means, strict=True)]
    diff = estimate(diffs, confidence)
    los = None if diff.se is None else likelihood_of_superiority(diff.mean, diff.se, diff.n - 1)
    if len(blocks) < 2:
        return PairStats(a, b, diff, los, None, None, None)
    paired_sd = statistics.stdev(diffs)
    # Unpaired: what the difference's SD would be if the two means did not share their deals,
    # var(a - b) without the covariance term that duplicate deals create.
    unpaired_sd = math.sqrt(statistics.variance(a_means) + statistics.variance(b_means))
    ratio = paired_sd / unpaired_sd if unpaired_sd > 0.0 else None
    return PairStats(a, b, diff, los, paired_sd, unpaired_sd, ratio)


def ratings(records: Iterable[MatchRecord]) -> tuple[Rating, ...]:
    """openskill Plackett-Luce ratings from each match's placings, in schedule order."""
    history = rating_history(records)
    return history[-1] if history else ()


def rating_history(records: Iterable[MatchRecord]) -> list[tuple[Rating, ...]]:
    """The ratings after each match in schedule order: entry k is `ratings` of the first k + 1 matches."""
    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    order: list[str] = []
    history: list[tuple[Rating, ...]] = []
    for record in _ordered(records):
        # A player at several seats of one match (self-play) is rated once, at its best place:
        # openskill needs distinct players, and a match against oneself says nothing of skill.
        best: dict[str, int] = {}
        for name, place in zip(record.seating, record.placings, strict=True):
            if name not in current:
                current[name] = model.rating(name=name)
                order.append(name)
            best[name] = min(place, best.get(name, place))
        if len(best) >= 2:
            names = list(best)
            teams = [[current[name]] for name in names]
            rated = model.rate(teams, ranks=[float(best[name]) for name in names])
            for name, team in zip(names, rated, strict=True):
                current[name] = team[0]
        history.append(
            tuple(Rating(name, current[name].mu, current[name].sigma, current[name].ordinal()) for name in order)
        )
    return history


def compute_stats(records: Iterable[MatchRecord], confidence: float = CONFIDENCE) -> TournamentStats:
    """All tournament statistics from the recorded matches (in any order)."""
    ordered = _ordered(records)
    names: list[str] = []
    for record in ordered:
        for name in record.seating:
            if name not in names:
                names.append(name)

    # Per player per deal set: [score sum, holes]; per player: seat-level tallies.
    block_sums: dict[str, dict[int, list[int]]] = {name: defaultdict(lambda: [0, 0]) for name in names}
    seats_played: dict[str, int] = defaultdict(int)
    holes: dict[str, int] = defaultdict(int)
    placing_sum: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    faults: dict[str, int] = defaultdict(int)
    forfeits: dict[str, int] = defaultdict(int)
    fallback_holes: dict[str, int] = defaultdict(int)
    times: dict[str, list[float]] = defaultdict(list)
    # Per seat index per deal set: [score sum, holes, sum of the table means, matches].
    seat_sums: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0, 0.0, 0]))

    for record in ordered:
        n_holes = len(record.hole_scores)
        # A disqualified seat never wins, even sharing first place when every seat was disqualified.
        won = [p == 1 and s != DISQUALIFIED for p, s in zip(record.placings, record.statuses, strict=True)]
        winners = sum(won)
        seat_scores = [sum(hole[seat] for hole in record.hole_scores) for seat in range(len(record.seating))]
        table_mean = statistics.fmean(seat_scores) / n_holes if n_holes else 0.0
        for seat, name in enumerate(record.seating):
            acc = block_sums[name][record.deal_set]
            acc[0] += seat_scores[seat]
            acc[1] += n_holes
            seats_played[name] += 1
            holes[name] += n_holes
            placing_sum[name] += record.placings[seat]
            if won[seat]:
                wins[name] += 1.0 / winners
            faults[name] += record.faults[seat]
            forfeits[name] += record.statuses[seat] == DISQUALIFIED
            fallback_holes[name] += len(record.fallback_holes[seat])
            times[name].extend(record.decision_ms[seat])
            if n_holes:
                seat_acc = seat_sums[seat][record.deal_set]
                seat_acc[0] += seat_scores[seat]
                seat_acc[1] += n_holes
                seat_acc[2] += table_mean
                seat_acc[3] += 1

    players = []
    for name in names:
        per_block = [s / h for s, h in (block_sums[name][d] for d in sorted(block_sums[name])) if h]
        ms = times[name]
        players.append(
            PlayerStats(
                name=name,
                matches=seats_played[name],
                holes=holes[name],
                score_per_hole=estimate(per_block, confidence) if per_block else None,
                mean_placing=placing_sum[name] / seats_played[name],
                win_share=wins[name] / seats_played[name],
                faults=faults[name],
                forfeits=forfeits[name],
                fallback_holes=fallback_holes[name],
                decisions=len(ms),
                decision_median_ms=statistics.median(ms) if ms else None,
                decision_p95_ms=percentile(ms, 95.0) if ms else None,
            )
        )

    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pair = _pair_stats(ordered, a, b, confidence)
            if pair is not None:
                pairs.append(pair)

    seats = []
    for seat in sorted(seat_sums):
        blocks = [seat_sums[seat][d] for d in sorted(seat_sums[seat])]
        means = [s / h for s, h, _, _ in blocks]
        effects = [s / h - t / m for s, h, t, m in blocks]
        seats.append(
            SeatStats(
                seat=seat,
                holes=int(sum(h for _, h, _, _ in blocks)),
                score_per_hole=estimate(means, confidence),
                effect=estimate(effects, confidence),
            )
        )

    return TournamentStats(
        matches=len(ordered),
        deal_sets=len({r.deal_set for r in ordered}),
        players=tuple(players),
        pairs=tuple(pairs),
        seats=tuple(seats),
        ratings=ratings(ordered),
        confidence=confidence,
    )


def pooled_sd_ratio(pairs: Iterable[PairStats]) -> tuple[float, int] | None:
    """Paired SD over unpaired SD, pooled over the pairs where both are defined, and how many pairs that is.

    Pooled as sqrt(sum of paired variances / sum of unpaired variances), so every pair weighs
    by its spread; None when no pair has both (under two shared deal sets, or no spread).
    """
    usable = [(p.paired_sd, p.unpaired_sd) for p in pairs if p.paired_sd is not None and p.unpaired_sd]
    if not usable:
        return None
    paired = math.fsum(sd * sd for sd, _ in usable)
    unpaired = math.fsum(sd * sd for _, sd in usable if sd is not None)
    return math.sqrt(paired / unpaired), len(usable)
