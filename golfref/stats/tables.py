"""Tournament statistics as plain-text tables and CSV rows, for the terminal and `golfref standings`.

Functions return lines or rows; printing and file writing are the caller's. Plain text with
no styling, so the same lines serve a terminal, a pipe and a CI log.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

from .outcomes import EloEstimate, Outcome, PairOutcomes, outcome_of
from .sprt import SprtResult
from .stats import Estimate, PlayerStats, Rating, TournamentStats, pooled_sd_ratio

__all__ = [
    "StandingsOrder",
    "STANDINGS_TITLE",
    "ranked_players",
    "standings_lines",
    "standings_table",
    "pairwise_lines",
    "pairwise_table",
    "seat_lines",
    "interval_text",
    "OUTCOMES_TITLE",
    "outcome_table",
    "outcome_lines",
    "elo_text",
    "elo_cell",
    "elo_interval_text",
    "gauntlet_table",
    "gauntlet_lines",
    "sprt_lines",
    "duplicate_deals_line",
    "standings_csv_rows",
    "pairwise_csv_rows",
]


class StandingsOrder(Enum):
    """How standings are sorted. The openskill ratings never order them: they rank by placings
    alone, so a rating order can put a player who scores more per hole above one who scores less."""

    SCORE = "score"
    """By score per hole (penalised), lowest (best) first; then by mean placing."""
    PLACING = "placing"
    """By mean placing, lowest (best) first; then by score per hole."""


STANDINGS_TITLE = (
    "standings: best first by score per hole; ordinal, mu, sigma: openskill ratings (from placings alone), "
    "which do not order the table"
)
"""The heading printed above the standings: it says what orders them."""

_NONE = "-"


def ranked_players(stats: TournamentStats, order: StandingsOrder = StandingsOrder.SCORE) -> list[PlayerStats]:
    """The players, best first by `order`, ties broken by the other key and then by name."""

    def key(p: PlayerStats) -> tuple[float, float, str]:
        # A player without a hole scored has no score per hole: it goes after every one that has.
        score = p.score_per_hole.mean if p.score_per_hole is not None else math.inf
        if order is StandingsOrder.SCORE:
            return (score, p.mean_placing, p.name)
        return (p.mean_placing, score, p.name)

    return sorted(stats.players, key=key)


def _num(value: float | None, digits: int = 2) -> str:
    return _NONE if value is None else f"{value:.{digits}f}"


def _signed(value: float | None, digits: int = 2) -> str:
    return _NONE if value is None else f"{value:+.{digits}f}"


def interval_text(est: Estimate | None, signed: bool = False) -> str:
    """An estimate's interval as the tables show it, `[low, high]`, or `-` without one."""
    if est is None or est.low is None or est.high is None:
        return _NONE
    fmt = _signed if signed else _num
    return f"[{fmt(est.low)}, {fmt(est.high)}]"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Aligned columns: the first `left` columns flush left (names), the rest flush right (numbers)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(parts).rstrip()

    return [line(headers), "  ".join("-" * w for w in widths), *(line(row) for row in rows)]


def standings_lines(stats: TournamentStats, order: StandingsOrder = StandingsOrder.SCORE) -> list[str]:
    """The standings table: one line per player, best first."""
    return _table(*standings_table(stats, order), left=2)


def standings_table(
    stats: TournamentStats, order: StandingsOrder = StandingsOrder.SCORE
) -> tuple[list[str], list[list[str]]]:
    """The standings as (headers, rows of cells), best first: what `standings_lines` aligns."""
    pct = f"{stats.confidence:.0%}"
    ratings: dict[str, Rating] = {r.name: r for r in stats.ratings}
    headers = ["#", "player", "matches", "score/hole", f"{pct} CI", "place", "wins", "faults", "forfeits",
               "fb holes", "ordinal", "mu", "sigma", "median ms", "p95 ms"]  # fmt: skip
    rows = []
    for rank, p in enumerate(ranked_players(stats, order), start=1):
        r = ratings.get(p.name)
        rows.append([
            str(rank),
            p.name,
            str(p.matches),
            _num(p.score_per_hole.mean if p.score_per_hole else None),
            interval_text(p.score_per_hole),
            _num(p.mean_placing),
            f"{p.win_share:.1%}",
            str(p.faults),
            str(p.forfeits),
            str(p.fallback_holes),
            _num(r.ordinal if r else None),
            _num(r.mu if r else None),
            _num(r.sigma if r else None),
            _num(p.decision_median_ms, 1),
            _num(p.decision_p95_ms, 1),
        ])  # fmt: skip
    return headers, rows


def pairwise_lines(stats: TournamentStats) -> list[str]:
    """The pairwise table: A - B per hole (negative favours A), LOS, and the SD duplicate deals removed."""
    return _table(*pairwise_table(stats), left=2)


def pairwise_table(stats: TournamentStats) -> tuple[list[str], list[list[str]]]:
    """The pairwise table as (headers, rows of cells): what `pairwise_lines` aligns."""
    pct = f"{stats.confidence:.0%}"
    headers = ["A", "B", "deal sets", "A-B /hole", f"{pct} CI", "LOS(A)", "SD paired", "SD unpaired", "ratio"]
    rows = [
        [
            pair.a,
            pair.b,
            str(pair.diff.n),
            _signed(pair.diff.mean, 3),
            interval_text(pair.diff, signed=True),
            _NONE if pair.los is None else f"{pair.los:.1%}",
            _num(pair.paired_sd),
            _num(pair.unpaired_sd),
            _num(pair.sd_ratio),
        ]
        for pair in stats.pairs
    ]
    return headers, rows


def seat_lines(stats: TournamentStats) -> list[str]:
    """The seat table: score per hole by seat index, and its difference from the table's mean."""
    pct = f"{stats.confidence:.0%}"
    headers = ["seat", "holes", "score/hole", f"{pct} CI", "vs table", f"{pct} CI"]
    rows = [
        [
            str(s.seat),
            str(s.holes),
            _num(s.score_per_hole.mean),
            interval_text(s.score_per_hole),
            _signed(s.effect.mean, 3),
            interval_text(s.effect, signed=True),
        ]
        for s in stats.seats
    ]
    return _table(headers, rows, left=0)


OUTCOMES_TITLE = (
    "outcomes: A's wins, draws and losses against B by match total (a forfeit loses); paired: deal sets by A's "
    "points over its matches with B, 0 to the most (win 1, draw 1/2); Elo: from A's points per match, + favours A; "
    "n/a when A won or lost every match (a sweep), its interval then one-sided"
)
"""The heading printed above the outcomes table: what its columns count."""


def elo_text(value: float | None) -> str:
    """An Elo difference as the tables show it: signed, one decimal (`-` for none)."""
    if value is None or not math.isfinite(value):
        return _NONE
    return f"{value + 0.0:+.1f}" if round(value, 1) else "+0.0"  # no "-0.0" for an even score


def elo_cell(e: EloEstimate) -> str:
    """The Elo column: the estimate, or why there is none (`n/a (won all)` at a sweep)."""
    if e.sweep is not None:
        return "n/a (won all)" if e.sweep is Outcome.WIN else "n/a (lost all)"
    return elo_text(e.elo)


def elo_interval_text(e: EloEstimate) -> str:
    """The Elo's interval: `[+23.5, +231.9]`, or one-sided (`>= +23.5`, `<= -23.5`), `unbounded`, `-` for none."""
    if e.low is None or e.high is None:
        return _NONE
    low, high = math.isfinite(e.low), math.isfinite(e.high)
    if low and high:
        return f"[{elo_text(e.low)}, {elo_text(e.high)}]"
    if low:
        return f">= {elo_text(e.low)}"
    if high:
        return f"<= {elo_text(e.high)}"
    return "unbounded"


def outcome_table(stats: TournamentStats, outcomes: Sequence[PairOutcomes]) -> tuple[list[str], list[list[str]]]:
    """The outcomes per pair as (headers, rows of cells), in the pairwise table's order."""
    pct = f"{stats.confidence:.0%}"
    headers = ["A", "B", "matches", "W", "D", "L", "score", "Elo", f"{pct} CI", "paired"]
    found = (outcome_of(outcomes, pair.a, pair.b) for pair in stats.pairs)
    rows = [
        [p.a, p.b, str(p.matches), str(p.wins), str(p.draws), str(p.losses), f"{p.score.mean:.3f}", elo_cell(p.elo),
         elo_interval_text(p.elo), f"0-{p.most}: [{', '.join(str(k) for k in p.paired)}]"]
        for p in found
        if p is not None
    ]  # fmt: skip
    return headers, rows


def outcome_lines(stats: TournamentStats, outcomes: Sequence[PairOutcomes]) -> list[str]:
    """The outcomes table as aligned lines."""
    return _table(*outcome_table(stats, outcomes), left=2)


def gauntlet_table(
    stats: TournamentStats, outcomes: Sequence[PairOutcomes], challenger: str
) -> tuple[list[str], list[list[str]]]:
    """The challenger against each opponent, one row each (its own difference, never a mix of opponents)."""
    pct = f"{stats.confidence:.0%}"
    headers = ["opponent", "deal sets", "diff /hole", f"{pct} CI", "LOS", "W-D-L", "Elo", f"{pct} CI"]
    rows = []
    for other in (p.name for p in stats.players if p.name != challenger):
        pair = stats.pair(challenger, other)
        if pair is None:
            continue
        found = outcome_of(outcomes, challenger, other)
        rows.append([
            other,
            str(pair.diff.n),
            _signed(pair.diff.mean, 3),
            interval_text(pair.diff, signed=True),
            _NONE if pair.los is None else f"{pair.los:.1%}",
            _NONE if found is None else f"{found.wins}-{found.draws}-{found.losses}",
            _NONE if found is None else elo_cell(found.elo),
            _NONE if found is None else elo_interval_text(found.elo),
        ])  # fmt: skip
    return headers, rows


def gauntlet_lines(stats: TournamentStats, outcomes: Sequence[PairOutcomes], challenger: str) -> list[str]:
    """The gauntlet table as aligned lines."""
    return _table(*gauntlet_table(stats, outcomes, challenger), left=1)


SHOWN_LLR = 12
"""The last LLRs of the SPRT's trace the text shows (the report and `--json` have every one)."""


def sprt_lines(steps: Sequence[SprtResult], player: str, baseline: str) -> list[str]:
    """The SPRT's hypotheses, bounds and running log-likelihood ratio, one deal set at a time."""
    if not steps:
        return []
    c, last = steps[-1].config, steps[-1]
    lines = [
        f"H0: {player} - {baseline} = {c.d0:+g} points per hole; H1: {player} - {baseline} = {c.d1:+g}; "
        f"alpha {c.alpha:g}, beta {c.beta:g}",
        f"bounds: accept H0 at LLR <= {last.lower:.3f}, H1 at LLR >= {last.upper:.3f}; "
        f"now {last.llr:+.3f} after {last.blocks} deal sets",
    ]
    shown = steps[-SHOWN_LLR:]
    more = f" (the last {len(shown)})" if len(shown) < len(steps) else ""
    lines.append(f"LLR by deal sets seen{more}: " + ", ".join(f"{s.blocks}: {s.llr:+.3f}" for s in shown))
    return lines


def duplicate_deals_line(stats: TournamentStats, duplicate_deals: bool = True) -> str:
    """One line on what duplicate deals bought: the pairwise differences' SD and variance, paired against unpaired.

    With `duplicate_deals` off every match had a deal of its own: the ratio then measures no
    pairing, and is the baseline a tournament with duplicate deals compares against.
    """
    pooled = pooled_sd_ratio(stats.pairs)
    if pooled is None:
        what = "duplicate deals" if duplicate_deals else "duplicate deals off"
        return f"{what}: no pair shared two deal sets with any spread yet: nothing to compare"
    ratio, pairs = pooled
    over = f"paired SD / unpaired SD {ratio:.2f} over {pairs} pair{'s' if pairs != 1 else ''}"
    if not duplicate_deals:
        return (
            f"duplicate deals off (duplicate_deals: false): every match had a deal of its own; {over}, "
            "with no luck shared to remove: the baseline for the same tournament with duplicate deals"
        )
    said = f"duplicate deals: {over}"
    if ratio == 0.0:
        # No spread at all is no measure of luck: a deterministic bot against itself, or a
        # fallback in a seat, gives the same difference on every deal.
        return f"{said}: every paired difference was the same, which says nothing of the deals' luck"
    if round(ratio, 2) == 1.0:
        return f"{said}: the same spread paired as unpaired, no luck removed"
    if ratio > 1.0:
        return f"{said}: the variance of a difference {ratio * ratio - 1.0:.0%} higher, no luck removed"
    return (
        f"{said}: the variance of a difference {1.0 - ratio * ratio:.0%} lower, "
        f"worth {1.0 / (ratio * ratio):.1f}x as many deal sets played unpaired"
    )


def _csv(value: float | int | str | None) -> str:
    return "" if value is None else str(value)


def standings_csv_rows(stats: TournamentStats, order: StandingsOrder = StandingsOrder.SCORE) -> list[list[str]]:
    """A header row, then one row per player best first, full precision (empty where undefined)."""
    ratings = {r.name: r for r in stats.ratings}
    rows = [[
        "rank", "player", "matches", "holes", "score_per_hole", "ci_low", "ci_high", "deal_sets", "mean_placing",
        "win_share", "faults", "forfeits", "fallback_holes", "ordinal", "mu", "sigma", "decisions",
        "decision_median_ms", "decision_p95_ms",
    ]]  # fmt: skip
    for rank, p in enumerate(ranked_players(stats, order), start=1):
        r = ratings.get(p.name)
        est = p.score_per_hole
        rows.append([_csv(v) for v in (
            rank, p.name, p.matches, p.holes, est.mean if est else None, est.low if est else None,
            est.high if est else None, est.n if est else 0, p.mean_placing, p.win_share, p.faults, p.forfeits,
            p.fallback_holes, r.ordinal if r else None, r.mu if r else None, r.sigma if r else None, p.decisions,
            p.decision_median_ms, p.decision_p95_ms,
        )])  # fmt: skip
    return rows


def pairwise_csv_rows(stats: TournamentStats) -> list[list[str]]:
    """A header row, then one row per pair that shared a table (diff = a - b per hole)."""
    rows = [["a", "b", "deal_sets", "diff_per_hole", "ci_low", "ci_high", "se", "los", "paired_sd", "unpaired_sd",
             "sd_ratio"]]  # fmt: skip
    for pair in stats.pairs:
        d = pair.diff
        rows.append([_csv(v) for v in (
            pair.a, pair.b, d.n, d.mean, d.low, d.high, d.se, pair.los, pair.paired_sd, pair.unpaired_sd, pair.sd_ratio,
        )])  # fmt: skip
    return rows
