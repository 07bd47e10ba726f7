"""Tournament statistics: hand-computed values on a small fixed result set, and CI coverage."""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce

from golfref.stats.records import MatchRecord
from golfref.stats.stats import (
    Estimate,
    PairStats,
    TournamentStats,
    complete_deal_sets,
    compute_stats,
    estimate,
    likelihood_of_superiority,
    pair_block_differences,
    penalised,
    percentile,
    pooled_sd_ratio,
    rating_history,
    ratings,
    t_quantile,
)
from golfref.stats.tables import (
    STANDINGS_TITLE,
    StandingsOrder,
    duplicate_deals_line,
    pairwise_csv_rows,
    pairwise_lines,
    pairwise_table,
    ranked_players,
    seat_lines,
    standings_csv_rows,
    standings_lines,
    standings_table,
)

FORFEIT = 40  # standard 2x2: four cards at 10


def record(
    index: int,
    deal_set: int,
    seating: tuple[str, ...],
    holes: tuple[tuple[int, ...], ...],
    placings: tuple[int, ...],
    statuses: tuple[str, ...] = ("ok", "ok"),
    faults: tuple[int, ...] = (0, 0),
    decision_ms: tuple[tuple[float, ...], ...] = ((), ()),
    fallback: tuple[tuple[int, ...], ...] = ((), ()),
    forfeit: int = FORFEIT,
) -> MatchRecord:
    totals = tuple(sum(hole[seat] for hole in holes) for seat in range(len(seating)))
    kinds = tuple(("timeout",) * n for n in faults)
    return MatchRecord(
        index, deal_set, seating, holes, totals, placings, statuses, faults, decision_ms, fallback, kinds, forfeit
    )


# Three deal sets, each played in both seatings (A,B) and (B,A), two holes per match.
# Per deal set, a player's score per hole is its total over both seatings divided by 4 holes:
#   deal set 0: A (3+5)/4 = 2.00, B (7+7)/4 = 3.50, A - B = -1.5
#   deal set 1: A (4+3)/4 = 1.75, B (4+5)/4 = 2.25, A - B = -0.5
#   deal set 2: A (7+6)/4 = 3.25, B (3+4)/4 = 1.75, A - B = +1.5
FIXTURE = (
    record(0, 0, ("A", "B"), ((1, 3), (2, 4)), (1, 2), decision_ms=((10.0, 20.0, 30.0, 40.0), ())),
    record(1, 0, ("B", "A"), ((2, 2), (5, 3)), (2, 1)),
    record(2, 1, ("A", "B"), ((0, 0), (4, 4)), (1, 1)),  # 4 to 4: a shared first place
    record(3, 1, ("B", "A"), ((3, 1), (2, 2)), (2, 1)),
    record(4, 2, ("A", "B"), ((6, 2), (1, 1)), (2, 1)),
    record(5, 2, ("B", "A"), ((2, 2), (2, 4)), (1, 2), ("ok", "disqualified"), (0, 2)),
)
T_975_DF2 = 4.302652729749752  # Student's t, 97.5% quantile, 2 degrees of freedom (tables: 4.3027)


def test_t_quantile_matches_published_tables() -> None:
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 2) == pytest.approx(4.3027, abs=1e-4)
    assert t_quantile(0.975, 29) == pytest.approx(2.0452, abs=1e-4)
    assert t_quantile(0.975, 100) == pytest.approx(1.9840, abs=1e-4)
    assert t_quantile(0.95, 5) == pytest.approx(2.0150, abs=1e-4)
    assert t_quantile(0.025, 2) == pytest.approx(-4.3027, abs=1e-4)
    assert t_quantile(0.975, 100_000) == pytest.approx(1.9600, abs=1e-4)


def test_player_score_per_hole_over_deal_set_means() -> None:
    stats = compute_stats(FIXTURE)
    a, b = stats.player("A"), stats.player("B")
    assert a is not None and b is not None
    # A: 2.00, 1.75, 3.25; mean 7/3; squared deviations 0.1111 + 0.3403 + 0.8403 = 1.2917,
    # variance 1.2917/2 = 0.6458, se sqrt(0.6458/3) = 0.46398; half width 4.30265 * 0.46398 = 1.99636.
    assert a.score_per_hole is not None
    assert a.score_per_hole.mean == pytest.approx(7 / 3)
    assert a.score_per_hole.se == pytest.approx(0.46398036)
    assert a.score_per_hole.low == pytest.approx(7 / 3 - 1.99635, abs=1e-5)
    assert a.score_per_hole.high == pytest.approx(7 / 3 + 1.99635, abs=1e-5)
    assert a.score_per_hole.n == 3
    # B: 3.50, 2.25, 1.75; mean 2.5; squared deviations 1 + 0.0625 + 0.5625, variance 0.8125,
    # se sqrt(0.8125/3) = 0.52042; interval 2.5 -+ 4.30265 * 0.52042 = [0.26083, 4.73917].
    assert b.score_per_hole is not None
    assert b.score_per_hole.mean == pytest.approx(2.5)
    assert b.score_per_hole.low == pytest.approx(0.26083, abs=1e-5)
    assert b.score_per_hole.high == pytest.approx(4.73917, abs=1e-5)


def test_player_tallies() -> None:
    stats = compute_stats(FIXTURE)
    a, b = stats.player("A"), stats.player("B")
    assert a is not None and b is not None
    assert (a.matches, a.holes, b.matches, b.holes) == (6, 12, 6, 12)
    # A placed 1, 1, 1, 1, 2, 2 -> 8/6; B 2, 2, 1, 2, 1, 1 -> 9/6.
    assert a.mean_placing == pytest.approx(8 / 6)
    assert b.mean_placing == pytest.approx(9 / 6)
    # A won 1 + 1 + 1/2 (shared) + 1 of 6; B 1/2 + 1 + 1; together one win per match.
    assert a.win_share == pytest.approx(3.5 / 6)
    assert b.win_share == pytest.approx(2.5 / 6)
    assert (a.faults, a.forfeits, b.faults, b.forfeits) == (2, 1, 0, 0)
    assert (a.fallback_holes, b.fallback_holes) == (0, 0)  # the fixture's disqualification came after its last hole
    # A's times 10, 20, 30, 40: median 25; 95th percentile at rank 0.95 * 3 = 2.85: 30 + 0.85 * 10.
    assert (a.decisions, a.decision_median_ms, a.decision_p95_ms) == (4, 25.0, pytest.approx(38.5))
    # B is a built-in: no decision times, so no median either.
    assert (b.decisions, b.decision_median_ms, b.decision_p95_ms) == (0, None, None)


def test_pairwise_difference_los_and_variance_reduction() -> None:
    stats = compute_stats(FIXTURE)
    assert pair_block_differences(FIXTURE, "A", "B") == [-1.5, -0.5, 1.5]
    pair = stats.pair("A", "B")
    assert pair is not None
    # Differences -1.5, -0.5, +1.5: mean -1/6; squared deviations 1.7778 + 0.1111 + 2.7778 = 4.6667,
    # variance 2.3333, SD 1.52753, se 1.52753 / sqrt 3 = 0.88192; half width 4.30265 * 0.88192 = 3.79458.
    assert pair.diff.mean == pytest.approx(-1 / 6)
    assert pair.diff.se == pytest.approx(0.88191710)
    assert pair.diff.low == pytest.approx(-1 / 6 - 3.79458, abs=1e-5)
    assert pair.diff.high == pytest.approx(-1 / 6 + 3.79458, abs=1e-5)
    # LOS: P(true A - B < 0) from Student's t with 2 degrees of freedom, as the interval:
    # t = 0.16667 / 0.88192 = 0.18898, and with 2 df the cdf is 1/2 + t / (2 sqrt(2 + t^2)) = 0.56623
    # (the normal's Phi(0.18898) would say 0.57495).
    assert pair.los == pytest.approx(0.566227, abs=1e-6)
    # Paired SD 1.52753; unpaired sqrt(var A + var B) = sqrt(0.64583 + 0.8125) = 1.20761; ratio 1.26491.
    assert pair.paired_sd == pytest.approx(1.52753, abs=1e-5)
    assert pair.unpaired_sd == pytest.approx(1.20761, abs=1e-5)
    assert pair.sd_ratio == pytest.approx(1.26491, abs=1e-5)
    # Seen from B's side everything turns over.
    flipped = stats.pair("B", "A")
    assert flipped is not None and flipped.los is not None
    assert flipped.diff.mean == pytest.approx(1 / 6)
    assert flipped.diff.low == pytest.approx(-pair.diff.high)
    assert flipped.los == pytest.approx(1 - pair.los)


def test_seat_effect() -> None:
    stats = compute_stats(FIXTURE)
    seat0 = stats.seats[0]
    # Seat 0 per deal set: (3+7)/4 = 2.50, (4+5)/4 = 2.25, (7+4)/4 = 2.75: mean 2.5, SD 0.25,
    # se 0.25 / sqrt 3 = 0.14434, half width 4.30265 * 0.14434 = 0.62104.
    assert seat0.seat == 0 and seat0.holes == 12
    assert seat0.score_per_hole.mean == pytest.approx(2.5)
    assert seat0.score_per_hole.low == pytest.approx(2.5 - 0.62104, abs=1e-5)
    # Against the table mean of the same matches (2.75, 2.00, 2.50): -0.25, +0.25, +0.25;
    # mean 1/12, SD 0.28868, se 1/6, half width 4.30265 / 6 = 0.71711.
    assert seat0.effect.mean == pytest.approx(1 / 12)
    assert seat0.effect.high == pytest.approx(1 / 12 + 0.71711, abs=1e-5)
    assert stats.seats[1].effect.mean == pytest.approx(-1 / 12)


def test_ratings_are_openskill_plackett_luce_in_schedule_order() -> None:
    # The records come in shuffled; the ratings follow match_index, with placings as ranks.
    shuffled = list(reversed(FIXTURE))
    model = PlackettLuce()
    a, b = model.rating(name="A"), model.rating(name="B")
    for r in FIXTURE:
        by_name = dict(zip(r.seating, r.placings, strict=True))
        [[a], [b]] = model.rate([[a], [b]], ranks=[float(by_name["A"]), float(by_name["B"])])
    got = {r.name: r for r in ratings(shuffled)}
    assert got["A"].mu == pytest.approx(a.mu) and got["A"].sigma == pytest.approx(a.sigma)
    assert got["B"].mu == pytest.approx(b.mu)
    assert got["A"].ordinal == pytest.approx(a.mu - 3 * a.sigma)
    first = {r.name: r.mu for r in ratings(FIXTURE[:1])}
    assert first["A"] > 25.0 > first["B"]  # placing 1 is the winner; openskill starts at mu 25
    assert compute_stats(shuffled).ratings == ratings(FIXTURE)


def test_rating_history_is_the_ratings_after_each_match_in_schedule_order() -> None:
    history = rating_history(reversed(FIXTURE))
    assert len(history) == len(FIXTURE)
    for k, snapshot in enumerate(history):
        assert snapshot == ratings(FIXTURE[: k + 1])
    assert rating_history([]) == [] and ratings([]) == ()


def test_the_table_cells_are_what_the_text_tables_align() -> None:
    stats = compute_stats(FIXTURE)
    headers, rows = standings_table(stats)
    lines = standings_lines(stats)
    assert lines[0].split() == " ".join(headers).split() and len(rows) == len(lines) - 2
    assert all(lines[i + 2].split() == " ".join(row).split() for i, row in enumerate(rows))
    headers, rows = pairwise_table(stats)
    assert [line.split() for line in pairwise_lines(stats)[2:]] == [" ".join(row).split() for row in rows]


def test_self_play_rated_once_and_single_deal_set_has_no_interval() -> None:
    same = record(0, 0, ("A", "A"), ((1, 2),), (1, 2))
    stats = compute_stats([same])
    a = stats.player("A")
    assert a is not None and a.score_per_hole is not None
    assert a.matches == 2 and a.score_per_hole.mean == pytest.approx(1.5)
    assert a.score_per_hole.low is None and a.score_per_hole.se is None  # one deal set: no interval
    assert stats.pairs == ()
    assert stats.ratings[0].mu == pytest.approx(25.0)  # no opponent, no update


def test_to_json_round_trips_through_json() -> None:
    import json

    data = compute_stats(FIXTURE).to_json()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["players"][0]["score_per_hole"]["n"] == 3


def test_helpers() -> None:
    assert percentile([5.0], 95) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert likelihood_of_superiority(-1.0, 0.0, 3) == 1.0
    assert likelihood_of_superiority(0.0, 1.0, 3) == 0.5
    # docs/TOURNAMENTS.md's example: -2.398 with se 0.667 over 12 deal sets is 99.79%, not the normal's 99.98%.
    assert likelihood_of_superiority(-2.398148, 0.667047, 11) == pytest.approx(0.9979, abs=5e-5)
    with pytest.raises(ValueError, match="df"):
        likelihood_of_superiority(-1.0, 1.0, 0)
    assert estimate([1.0, 3.0]).interval(0.5) == pytest.approx((2.0 - 1.0, 2.0 + 1.0))  # t(0.75, 1) = 1


# --- Coverage on simulated tournaments --------------------------------------------------------

TRUE_DIFF = 0.3  # A's extra points per hole over B


def simulated_tournament(rng: random.Random, deal_sets: int, holes: int = 9) -> list[MatchRecord]:
    """Duplicate two-player tournament: each seat's luck is fixed by the deal set, shared by both seatings."""
    records = []
    for d in range(deal_sets):
        luck = [[rng.randint(-2, 10) for _ in range(2)] for _ in range(holes)]
        for s, seating in enumerate((("A", "B"), ("B", "A"))):
            scores = tuple(
                tuple(
                    luck[h][seat]
                    + rng.randint(-3, 3)
                    + (1 if seating[seat] == "A" and rng.random() < TRUE_DIFF else 0)
                    for seat in range(2)
                )
                for h in range(holes)
            )
            totals = [sum(h[seat] for h in scores) for seat in range(2)]
            placings = tuple(1 + sum(t < mine for t in totals) for mine in totals)
            records.append(record(2 * d + s, d, seating, scores, placings))
    return records


def test_pairwise_interval_covers_true_difference_about_95_percent() -> None:
    rng = random.Random(20240909)
    covered = 0
    runs = 400
    for _ in range(runs):
        records = simulated_tournament(rng, deal_sets=30)
        diff = estimate(pair_block_differences(records, "A", "B"))
        assert diff.low is not None and diff.high is not None
        covered += diff.low <= TRUE_DIFF <= diff.high
    # Binomial(400, 0.95) has SD 4.4 hits: 92-98% is about -7/+5 SD.
    assert 0.92 * runs <= covered <= 0.98 * runs
    # And duplicate deals remove the shared luck: the paired SD is well below the unpaired one.
    pair = compute_stats(simulated_tournament(rng, deal_sets=30)).pair("A", "B")
    assert pair is not None and pair.sd_ratio is not None
    assert pair.sd_ratio < 0.8
    assert math.isfinite(pair.sd_ratio)


# --- Tables and CSV ---------------------------------------------------------------------------


def test_standings_are_sorted_by_score_per_hole_not_by_rating() -> None:
    stats = compute_stats(FIXTURE)
    # B's ordinal (4.36) is above A's (3.51): A's two last matches were losses. The table is
    # ordered by what it headlines, score per hole: A's 2.33 before B's 2.50.
    ordinal = {r.name: r.ordinal for r in stats.ratings}
    assert ordinal["B"] > ordinal["A"]
    lines = standings_lines(stats)
    assert lines[0].split()[:4] == ["#", "player", "matches", "score/hole"]
    assert [line.split()[1] for line in lines[2:]] == ["A", "B"]
    a_line = lines[2].split()
    assert a_line[3:6] == ["2.33", "[0.34,", "4.33]"]  # score/hole and its interval, as computed above
    assert a_line[8:11] == ["2", "1", "0"]  # faults, forfeits, fallback holes
    assert a_line[-2:] == ["25.0", "38.5"] and lines[3].split()[-2:] == ["-", "-"]  # B: no times
    assert len({len(line) for line in lines[:2]}) == 1  # header and rule line up
    assert "do not order the table" in STANDINGS_TITLE


def test_equal_scores_are_ordered_by_mean_placing_then_name() -> None:
    # Z and Y both score 2 per hole (Z: 1 and 3 per deal set, Y: 2 and 2); Z wins three matches by a
    # point and loses one by three, so it places better (1.25 against 1.75) and goes first.
    records = [
        record(0, 0, ("Z", "Y"), ((1, 2),), (1, 2)),
        record(1, 0, ("Y", "Z"), ((2, 1),), (2, 1)),
        record(2, 1, ("Z", "Y"), ((1, 2),), (1, 2)),
        record(3, 1, ("Y", "Z"), ((2, 5),), (1, 2)),
    ]
    stats = compute_stats(records)
    z, y = stats.player("Z"), stats.player("Y")
    assert z is not None and y is not None and z.score_per_hole is not None and y.score_per_hole is not None
    assert z.score_per_hole.mean == y.score_per_hole.mean == 2.0
    assert (z.mean_placing, y.mean_placing) == (1.25, 1.75)
    assert [p.name for p in ranked_players(stats)] == ["Z", "Y"]
    assert [p.name for p in ranked_players(stats, StandingsOrder.PLACING)] == ["Z", "Y"]
    tied = [record(0, 0, ("F", "E"), ((2, 2),), (1, 1)), record(1, 0, ("E", "F"), ((2, 2),), (1, 1))]
    assert [p.name for p in ranked_players(compute_stats(tied))] == ["E", "F"]


def test_pairwise_and_seat_tables() -> None:
    stats = compute_stats(FIXTURE)
    pair = pairwise_lines(stats)
    assert pair[2].split() == ["A", "B", "3", "-0.167", "[-3.96,", "+3.63]", "56.6%", "1.53", "1.21", "1.26"]
    seats = seat_lines(stats)
    assert seats[2].split()[:4] == ["0", "12", "2.50", "[1.88,"]


def test_csv_rows_full_precision_and_empty_when_undefined() -> None:
    stats = compute_stats(FIXTURE)
    rows = standings_csv_rows(stats)
    header = rows[0]
    a = dict(zip(header, rows[1], strict=True))
    b = dict(zip(header, rows[2], strict=True))
    assert (a["player"], float(a["score_per_hole"]), float(a["win_share"])) == ("A", 7 / 3, 3.5 / 6)
    assert (b["decision_median_ms"], b["decision_p95_ms"]) == ("", "")
    pair_rows = pairwise_csv_rows(stats)
    assert len(pair_rows) == 2 and float(dict(zip(pair_rows[0], pair_rows[1], strict=True))["los"]) == pytest.approx(
        0.566227, abs=1e-6
    )


def test_a_damaged_record_is_refused_with_one_line() -> None:
    bad = MatchRecord(7, 0, ("A", "B"), ((1, 2), (3,)), (4, 2), (2, 1), ("ok", "ok"), (0, 0), ((), ()), ((), ()),
                      ((), ()), 40)  # fmt: skip
    with pytest.raises(ValueError, match=r"^match 7: hole_scores\[1\] has 1 seats, its seating 2$"):
        compute_stats([bad])


def test_no_records_no_statistics() -> None:
    stats = compute_stats([])
    assert (stats.matches, stats.deal_sets, stats.players, stats.pairs, stats.seats) == (0, 0, (), (), ())
    assert standings_lines(stats)[2:] == []


def _pair(paired: float | None, unpaired: float | None) -> PairStats:
    return PairStats("A", "B", Estimate(0.0, None, None, None, 1), None, paired, unpaired, None)


def test_pooled_sd_ratio_weighs_each_pair_by_its_variance() -> None:
    # Paired SDs 1 and 3, unpaired 2 and 4: sqrt((1 + 9) / (4 + 16)) = 0.707107 (the mean of the
    # ratios would be 0.625); a pair without both SDs and one without spread are left out.
    pairs = [_pair(1.0, 2.0), _pair(3.0, 4.0), _pair(None, None), _pair(0.0, 0.0)]
    pooled = pooled_sd_ratio(pairs)
    assert pooled is not None
    assert pooled[0] == pytest.approx(0.707107, abs=1e-6) and pooled[1] == 2
    assert pooled_sd_ratio([_pair(None, None)]) is None
    # Variance 1 - 1/2 = 50% lower, worth 2x the deal sets unpaired.
    stats = TournamentStats(0, 0, (), tuple(pairs), (), ())
    assert duplicate_deals_line(stats) == (
        "duplicate deals: paired SD / unpaired SD 0.71 over 2 pairs: the variance of a difference 50% lower, "
        "worth 2.0x as many deal sets played unpaired"
    )
    # The fixture's one pair: ratio 1.26491, variance 1.6 - 1 = 60% higher.
    assert duplicate_deals_line(compute_stats(FIXTURE)).endswith("1.26 over 1 pair: the variance of a difference "
                                                                 "60% higher, no luck removed")
    assert "nothing to compare" in duplicate_deals_line(compute_stats(FIXTURE[:2]))


# --- Faults count against the bot ---------------------------------------------------------------


def test_a_fallback_hole_scores_the_forfeit_score_and_placings_follow_the_penalised_totals() -> None:
    # B's seat played hole 1 through the fallback, which scored 0 there: B is charged 40 instead,
    # and loses the match it "won" 5 to 9.
    played = record(0, 0, ("A", "B"), ((4, 5), (5, 0)), (2, 1), ("ok", "faulted"), (0, 1), fallback=((), (1,)))
    charged = penalised(played)
    assert charged.hole_scores == ((4, 5), (5, 40)) and charged.totals == (9, 45) and charged.placings == (1, 2)
    assert (played.hole_scores, played.totals) == (((4, 5), (5, 0)), (9, 5))  # the record itself is unchanged
    clean = record(1, 0, ("A", "B"), ((4, 5),), (1, 2))
    assert penalised(clean) is clean
    # A disqualified seat places last whatever its penalised total (D14), here tied at 40 with A.
    out = record(2, 0, ("A", "B"), ((40, 1),), (1, 2), ("ok", "disqualified"), (0, 1), fallback=((), ()))
    worse = record(3, 0, ("A", "B"), ((40, 3), (0, 0)), (2, 1), ("ok", "disqualified"), (0, 1), fallback=((), (1,)))
    assert penalised(worse).totals == (40, 43) and penalised(worse).placings == (1, 2)
    assert penalised(out).placings == out.placings == (1, 2)


def crasher_tournament(deal_sets: int = 4) -> list[MatchRecord]:
    """`crasher` disqualified at the start of every match: the fallback plays every hole of its seat and
    happens to score exactly what `greedy` scores (the old bug: both then looked equal)."""
    records = []
    for d in range(deal_sets):
        for s, seating in enumerate((("crasher", "greedy"), ("greedy", "crasher"))):
            c = seating.index("crasher")
            holes = ((3 + d, 3 + d), (5, 5))
            records.append(
                record(2 * d + s, d, seating, holes, tuple(2 if i == c else 1 for i in range(2)),
                       tuple("disqualified" if i == c else "ok" for i in range(2)),
                       tuple(1 if i == c else 0 for i in range(2)),
                       fallback=tuple((0, 1) if i == c else () for i in range(2)))
            )  # fmt: skip
    return records


def test_a_bot_disqualified_in_every_match_scores_the_forfeit_score_not_the_fallbacks() -> None:
    stats = compute_stats(crasher_tournament())
    crasher, greedy = stats.player("crasher"), stats.player("greedy")
    assert crasher is not None and greedy is not None and crasher.score_per_hole is not None
    assert crasher.score_per_hole.mean == FORFEIT  # not greedy's 5.75
    assert (crasher.forfeits, crasher.fallback_holes, greedy.forfeits, greedy.fallback_holes) == (8, 16, 0, 0)
    assert (crasher.mean_placing, crasher.win_share, greedy.win_share) == (2.0, 0.0, 1.0)
    pair = stats.pair("crasher", "greedy")
    assert pair is not None and pair.diff.mean > 30 and pair.los is not None and pair.los < 1e-5
    # greedy's score per hole in deal set d: (3 + d + 5) / 2 over its two matches.
    assert pair_block_differences(crasher_tournament(), "crasher", "greedy") == [40 - (8 + d) / 2 for d in range(4)]
    assert [p.name for p in ranked_players(stats)] == ["greedy", "crasher"]
    line = standings_lines(stats)[3].split()
    assert line[:2] == ["2", "crasher"] and line[8:11] == ["8", "8", "16"]  # faults, forfeits, fallback holes
    header, row = standings_csv_rows(stats)[0], standings_csv_rows(stats)[2]
    assert dict(zip(header, row, strict=True))["forfeits"] == "8"
    assert dict(zip(header, row, strict=True))["fallback_holes"] == "16"
    # The ratings see the penalised placings: greedy won every match.
    rated = {r.name: r.ordinal for r in stats.ratings}
    assert rated["greedy"] > rated["crasher"]


def test_a_record_naming_a_hole_it_has_not_is_refused() -> None:
    bad = record(4, 0, ("A", "B"), ((1, 2),), (1, 2), fallback=((3,), ()))
    with pytest.raises(ValueError, match=r"^match 4: fallback_holes\[0\] names a hole outside its 1$"):
        compute_stats([bad])


def test_complete_deal_sets_keep_only_deal_sets_with_every_seating() -> None:
    half = [r for r in FIXTURE if r.match_index != 5]  # deal set 2 lost its second seating
    assert [r.match_index for r in complete_deal_sets(half, 2)] == [0, 1, 2, 3]
    assert complete_deal_sets(FIXTURE, 2) == list(FIXTURE)
    assert complete_deal_sets(FIXTURE, 3) == []


def test_the_duplicate_deals_line_claims_no_luck_removed_when_every_difference_is_the_same() -> None:
    same = TournamentStats(0, 0, (), (_pair(0.0, 2.0),), (), ())
    line = duplicate_deals_line(same)
    assert line.startswith(
        "duplicate deals: paired SD / unpaired SD 0.00 over 1 pair: every paired difference was the same"
    )
    assert "luck all removed" not in line and "says nothing of the deals' luck" in line
    # One side without spread (a constant forfeit score) gives exactly 1: no luck removed, and no "0% higher".
    flat = duplicate_deals_line(TournamentStats(0, 0, (), (_pair(1.3, 1.3),), (), ()))
    assert flat.endswith("1.00 over 1 pair: the same spread paired as unpaired, no luck removed")
    off = duplicate_deals_line(compute_stats(FIXTURE), duplicate_deals=False)
    assert off.startswith("duplicate deals off (duplicate_deals: false): every match had a deal of its own; ")
    assert "1.26 over 1 pair" in off and "lower" not in off and "higher" not in off


def test_a_disqualified_seat_never_wins_even_when_every_seat_was() -> None:
    out = ("disqualified", "disqualified")
    both = record(0, 0, ("A", "B"), ((40, 40),), (1, 1), out, (1, 1), fallback=((0,), (0,)))
    stats = compute_stats([both])
    assert [(p.name, p.win_share, p.mean_placing) for p in stats.players] == [("A", 0.0, 1.0), ("B", 0.0, 1.0)]
