"""golfref/stats/outcomes.py and the traces of golfref/stats/sprt.py: every number against a hand computation."""

from __future__ import annotations

import math

import pytest

from golfref.game.engine import HoleEnd
from golfref.stats.outcomes import (
    HoleEnding,
    Outcome,
    all_pair_outcomes,
    deal_set_pairs,
    elo,
    ending_counts,
    match_outcome,
    outcome_of,
    pair_outcomes,
    player_seats,
    sweep_bound,
)
from golfref.stats.records import MatchRecord
from golfref.stats.sprt import Gate, GateVerdict, SprtConfig, SprtState, gate_trace, sprt_trace

FORFEIT = 40


def record(
    index: int,
    deal_set: int,
    seating: tuple[str, ...],
    holes: tuple[tuple[int, ...], ...],
    statuses: tuple[str, ...] = ("ok", "ok"),
    fallback: tuple[tuple[int, ...], ...] = ((), ()),
) -> MatchRecord:
    """A record whose placings follow from its totals (a disqualified seat last), as the referee's do."""
    totals = tuple(sum(hole[s] for hole in holes) for s in range(len(seating)))
    out = [s for s, st in enumerate(statuses) if st == "disqualified"]
    ranked = [t for s, t in enumerate(totals) if s not in out]
    places = tuple(len(ranked) + 1 if s in out else 1 + sum(u < t for u in ranked) for s, t in enumerate(totals))
    faults = tuple(int(st != "ok") for st in statuses)
    kinds = tuple(("timeout",) * f for f in faults)
    return MatchRecord(index, deal_set, seating, holes, totals, places, statuses, faults, ((), ()), fallback, kinds,
                       FORFEIT)  # fmt: skip


# Four deal sets, each in both seatings; two holes per match. Match totals (A against B):
#   deal set 0: m0 A 3 - B 7 (win), m1 A 5 - B 7 (win): A's points 2
#   deal set 1: m2 A 4 - B 4 (draw), m3 A 3 - B 5 (win): 1.5
#   deal set 2: m4 A 7 - B 3 (loss), m5 A 2 - B 4 but A disqualified at hole 1 (a forfeit: loss): 0
#   deal set 3: m6 A 5 - B 8 (win), m7 A 5 - B 2 (loss): 1
FIXTURE = (
    record(0, 0, ("A", "B"), ((1, 3), (2, 4))),
    record(1, 0, ("B", "A"), ((2, 2), (5, 3))),
    record(2, 1, ("A", "B"), ((0, 0), (4, 4))),
    record(3, 1, ("B", "A"), ((3, 1), (2, 2))),
    record(4, 2, ("A", "B"), ((6, 2), (1, 1))),
    record(5, 2, ("B", "A"), ((2, 1), (2, 1)), ("ok", "disqualified"), ((), (1,))),
    record(6, 3, ("A", "B"), ((2, 5), (3, 3))),
    record(7, 3, ("B", "A"), ((1, 4), (1, 1))),
)


def test_a_match_outcome_is_the_lower_total_and_a_forfeit_loses() -> None:
    got = [match_outcome(r, "A", "B") for r in FIXTURE]
    W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
    assert got == [W, W, D, W, L, L, W, L]
    assert [match_outcome(r, "B", "A") for r in FIXTURE[:3]] == [L, L, D]
    assert match_outcome(FIXTURE[0], "A", "C") is None and match_outcome(FIXTURE[0], "A", "A") is None
    both_out = record(8, 4, ("A", "B"), ((1, 9), (1, 9)), ("disqualified", "disqualified"), ((0, 1), (0, 1)))
    assert match_outcome(both_out, "A", "B") is Outcome.DRAW


def test_the_pair_counts_its_paired_outcomes_and_an_elo_by_hand() -> None:
    p = pair_outcomes(FIXTURE, "A", "B")
    assert p is not None
    assert (p.matches, p.wins, p.draws, p.losses) == (8, 4, 1, 3)
    # Deal sets by A's points 0, 1/2, 1, 3/2, 2: one each at 0 (ds 2), 1 (ds 3), 3/2 (ds 1) and 2 (ds 0).
    assert p.paired == (1, 0, 1, 1, 1) and p.most == 2
    # Points per match by deal set: 1, 0.75, 0, 0.5: mean 0.5625; Elo -400 log10(0.4375 / 0.5625) = +43.66.
    assert p.score.mean == pytest.approx(0.5625)
    assert p.elo.elo == pytest.approx(43.6577, abs=1e-4)
    # Its interval: SD 0.42696, SE 0.21348, t(0.975, 3) = 3.18245: [-0.117, 1.242], past both ends: infinite.
    assert p.score.low == pytest.approx(-0.11688, abs=1e-4) and p.score.high == pytest.approx(1.24188, abs=1e-4)
    assert p.elo.low == -math.inf and p.elo.high == math.inf and p.elo.sweep is None
    flipped = outcome_of([p], "B", "A")
    assert flipped is not None and (flipped.wins, flipped.losses, flipped.paired) == (3, 4, (1, 1, 1, 0, 1))
    assert flipped.elo.elo == pytest.approx(-43.6577, abs=1e-4)
    assert all_pair_outcomes(FIXTURE) == (p,)
    # An interval open at both ends is null at both in JSON: never inf, which is no JSON.
    assert (p.to_json()["elo_low"], p.to_json()["elo_high"], p.to_json()["sweep"]) == (None, None, None)


def sweep(deal_sets: int, a_wins: bool) -> tuple[MatchRecord, ...]:
    """`deal_sets` deal sets of A against B, both seatings, one hole a match: A wins every match, or loses every one."""
    won, lost = (1, 5) if a_wins else (5, 1), (5, 1) if a_wins else (1, 5)
    return tuple(r for d in range(deal_sets) for r in (record(2 * d, d, ("A", "B"), (won,)),
                                                       record(2 * d + 1, d, ("B", "A"), (lost,))))  # fmt: skip


@pytest.mark.parametrize("a_wins", [True, False], ids=["won all", "lost all"])
def test_a_sweep_has_no_elo_and_a_one_sided_interval_by_hand(a_wins: bool) -> None:
    # Once `-inf [-inf, -inf]`: a score of 0 (or 1) has no finite Elo, and its t-interval no width.
    p = pair_outcomes(sweep(6, a_wins), "A", "B")
    assert p is not None and (p.wins, p.losses) == ((12, 0) if a_wins else (0, 12))
    # 6 deal sets, each swept: the exact 95% interval of the share swept starts at 0.025 ** (1/6) = 0.5407,
    # whose Elo is -400 log10(1 / 0.5407 - 1) = +28.4: A is at least that much better (or B, when A lost all).
    share = 0.025 ** (1 / 6)
    assert sweep_bound(6, 0.95) == pytest.approx(share) and share == pytest.approx(0.54074, abs=1e-5)
    bound = -400 * math.log10(1 / share - 1)
    assert round(bound, 1) == 28.4
    assert p.elo.elo is None
    if a_wins:
        assert p.elo.sweep is Outcome.WIN and p.elo.low == pytest.approx(bound) and p.elo.high == math.inf
    else:
        assert p.elo.sweep is Outcome.LOSS and p.elo.low == -math.inf and p.elo.high == pytest.approx(-bound)
    flipped = p.flipped()
    assert flipped.elo.sweep is (Outcome.LOSS if a_wins else Outcome.WIN)
    assert (flipped.elo.low, flipped.elo.high) == (-p.elo.high, -p.elo.low)
    data = p.to_json()
    assert data["elo"] is None and data["sweep"] == ("won_all" if a_wins else "lost_all")
    assert (data["elo_low"], data["elo_high"]) == ((p.elo.low, None) if a_wins else (None, p.elo.high))
    # More deal sets, a tighter bound; under two deal sets, no interval at all (as for every other estimate).
    more = pair_outcomes(sweep(20, a_wins), "A", "B")
    assert more is not None and more.elo.low is not None and more.elo.high is not None
    assert abs(more.elo.low if a_wins else more.elo.high) > bound
    one = pair_outcomes(sweep(1, a_wins), "A", "B")
    assert one is not None and (one.elo.elo, one.elo.low, one.elo.high) == (None, None, None)


@pytest.mark.parametrize(("deal_sets", "confidence"), [(0, 0.95), (3, 1.0), (3, 0.0)])
def test_the_sweep_bound_refuses_what_has_none(deal_sets: int, confidence: float) -> None:
    with pytest.raises(ValueError, match="sweep_bound"):
        sweep_bound(deal_sets, confidence)


def test_a_finite_elo_interval_by_hand() -> None:
    # Six deal sets: A wins both matches of two, wins one and draws one of four (points per match 1 or 3/4).
    records = []
    for d, sweep in enumerate((True, False, False, True, False, False)):
        first = ((1, 5),) if sweep else ((3, 3),)
        records += [record(2 * d, d, ("A", "B"), first), record(2 * d + 1, d, ("B", "A"), ((5, 1),))]
    p = pair_outcomes(records, "A", "B")
    assert p is not None and (p.wins, p.draws, p.losses) == (8, 4, 0) and p.paired == (0, 0, 0, 4, 2)
    values = [1.0, 0.75, 0.75, 1.0, 0.75, 0.75]
    mean = sum(values) / 6  # 0.8333
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 5)  # 0.12910
    half = 2.570582 * sd / math.sqrt(6)  # t(0.975, 5)
    assert p.elo.elo == pytest.approx(-400 * math.log10(1 / mean - 1))  # +279.6
    assert p.elo.low == pytest.approx(-400 * math.log10(1 / (mean - half) - 1), abs=1e-3)
    assert p.elo.high == pytest.approx(-400 * math.log10(1 / (mean + half) - 1), abs=1e-3)
    assert p.elo.low is not None and p.elo.high is not None
    assert (round(p.elo.low, 1), round(p.elo.high, 1)) == (145.4, 596.9)  # [0.698, 0.969] in points per match


def test_elo_at_the_ends_and_outside() -> None:
    assert elo(0.5) == 0.0 and elo(0.0) == -math.inf and elo(1.0) == math.inf
    assert elo(0.75) == pytest.approx(190.8485, abs=1e-4)
    with pytest.raises(ValueError, match="between 0 and 1"):
        elo(1.5)


def test_each_player_at_each_seat_and_each_deal_set_of_the_pair() -> None:
    seats = {(s.name, s.seat): s for s in player_seats(FIXTURE)}
    # A at seat 0 (m0, m2, m4, m6): per deal set 3/2, 4/2, 7/2, 5/2: mean 2.375.
    assert seats[("A", 0)].score_per_hole.mean == pytest.approx(2.375) and seats[("A", 0)].matches == 4
    # A at seat 1 (m1, m3, m5, m7): 5/2, 3/2, (1 + 40)/2 (the fallback hole at the forfeit score), 5/2: mean 6.75.
    assert seats[("A", 1)].score_per_hole.mean == pytest.approx(6.75) and seats[("A", 1)].holes == 8
    rows = deal_set_pairs(FIXTURE, "A", "B")
    assert [(d.deal_set, d.matches, d.points) for d in rows] == [(0, (0, 1), 2.0), (1, (2, 3), 1.5), (2, (4, 5), 0.0),
                                                                 (3, (6, 7), 1.0)]  # fmt: skip
    # Deal set 2: A (7 + 41) / 4 = 12, B (3 + 4) / 4 = 1.75.
    assert (rows[2].a_per_hole, rows[2].b_per_hole, rows[2].diff) == (12.0, 1.75, 10.25)


def test_hole_endings_count_who_closed_and_who_was_caught() -> None:
    holes = [
        HoleEnding(HoleEnd.CLOSED, 0, (3, 9)),  # A closed lowest
        HoleEnding(HoleEnd.KNOCKED, 0, (5, 5)),  # A knocked, tied: caught
        HoleEnding(HoleEnd.CLOSED, 1, (2, 7)),  # B closed with more: caught; A beat the ender
        HoleEnding(HoleEnd.TURN_LIMIT, None, (4, 4)),
    ]
    a, b = ending_counts([(("A", "B"), holes)])
    assert (a.name, a.holes, a.closed, a.knocked, a.caught, a.ended_by_others, a.beat_ender, a.turn_limit) == (
        "A", 4, 1, 1, 1, 1, 1, 1)  # fmt: skip
    assert (b.closed, b.knocked, b.caught, b.ended_by_others, b.beat_ender, b.turn_limit) == (1, 0, 1, 2, 0, 1)


def test_the_sprt_trace_by_hand() -> None:
    # A - B per deal set of FIXTURE: -1.5, -0.5, +10.25, 0 (see test_each_player_at_each_seat...).
    diffs = [-1.5, -0.5, 10.25, 0.0]
    steps = sprt_trace(diffs, SprtConfig(d0=0.0, d1=-1.0, alpha=0.05, beta=0.05))
    assert [s.blocks for s in steps] == [1, 2, 3, 4] and steps[0].llr == 0.0
    # After 2: s0 = 1.5^2 + 0.5^2 = 2.5, s1 = 0.5^2 + 0.5^2 = 0.5: LLR (2 - 1) / 2 ln 5.
    assert steps[1].llr == pytest.approx(0.5 * math.log(5.0))
    assert steps[2].llr == pytest.approx(math.log(107.5625 / 127.0625))
    assert steps[3].llr == pytest.approx(1.5 * math.log(107.5625 / 128.0625))
    assert all(s.state is SprtState.CONTINUE for s in steps)
    assert steps[-1].lower == pytest.approx(math.log(0.05 / 0.95))


def test_the_gate_trace_by_hand() -> None:
    gate = Gate("A", "B", 0.5)
    steps = gate_trace(gate, [-1.0, -1.2, -0.8])
    assert steps[0].low is None and steps[0].verdict is GateVerdict.NOT_ENOUGH_DATA
    # After 3: mean -1.0, SD 0.2, t(0.975, 2) = 4.302653: [-1.4968, -0.5032], below the margin.
    last = steps[-1]
    assert last.mean == pytest.approx(-1.0) and last.low == pytest.approx(-1.4968, abs=1e-4)
    assert last.high == pytest.approx(-0.5032, abs=1e-4) and last.verdict is GateVerdict.PASS
