"""The sequential test (GSPRT on per-deal-set differences) and the CI gate."""

from __future__ import annotations

import math
import random

import pytest

from golfref.stats.records import MatchRecord
from golfref.stats.sprt import Gate, GateVerdict, SprtConfig, SprtState, SprtVerdict, evaluate_gate, sprt
from golfref.stats.stats import compute_stats

from .conftest import ROOT

CONFIG = SprtConfig(d0=0.0, d1=-0.5, alpha=0.05, beta=0.05)  # H1: A scores half a point per hole less


def run_sprt(
    rng: random.Random, true_mean: float, sd: float = 2.0, cap: int = 3000, config: SprtConfig = CONFIG
) -> tuple[SprtState, int]:
    """Feed simulated deal-set differences one at a time until the test stops."""
    diffs: list[float] = []
    while len(diffs) < cap:
        diffs.append(rng.gauss(true_mean, sd))
        result = sprt(diffs, config)
        if result.finished:
            return result.state, len(diffs)
    return SprtState.CONTINUE, cap


def test_bounds_are_walds() -> None:
    result = sprt([], CONFIG)
    assert result.lower == pytest.approx(math.log(0.05 / 0.95))
    assert result.upper == pytest.approx(math.log(0.95 / 0.05))
    assert (result.state, result.llr, result.blocks, result.mean) == (SprtState.CONTINUE, 0.0, 0, None)


def test_llr_by_hand() -> None:
    # Differences -1, 0, -1: squared distances from d0 = 0 sum to 2, from d1 = -0.5 to 0.75;
    # LLR = (n - 1)/2 ln(2 / 0.75) = ln(8/3) = 0.98083.
    result = sprt([-1.0, 0.0, -1.0], CONFIG)
    assert result.llr == pytest.approx(math.log(8 / 3))
    assert result.state is SprtState.CONTINUE
    assert result.mean == pytest.approx(-2 / 3)
    assert "LLR +0.981" in result.describe()


def test_accepts_h1_on_a_clear_difference() -> None:
    state, blocks = run_sprt(random.Random(1), true_mean=-1.5)
    assert state is SprtState.ACCEPT_H1
    assert blocks < 60


def test_accepts_h0_on_no_difference() -> None:
    state, _ = run_sprt(random.Random(2), true_mean=0.0, sd=0.5)
    assert state is SprtState.ACCEPT_H0


def test_identical_differences_decide_without_infinity() -> None:
    # A deterministic bot against a copy of itself: every difference is exactly 0 = d0.
    result = sprt([0.0, 0.0], CONFIG)
    assert result.state is SprtState.ACCEPT_H0 and math.isfinite(result.llr)
    assert sprt([-0.5, -0.5], CONFIG).state is SprtState.ACCEPT_H1


def test_error_rates_stay_near_alpha_and_beta() -> None:
    # One point per hole against an SD of 2 per deal set: a few dozen deal sets per run, where
    # estimating the variance from few blocks matters most.
    config = SprtConfig(d0=0.0, d1=-1.0, alpha=0.05, beta=0.05)
    rng = random.Random(3)
    runs = 300
    false_h1 = sum(run_sprt(rng, 0.0, config=config)[0] is SprtState.ACCEPT_H1 for _ in range(runs))
    false_h0 = sum(run_sprt(rng, -1.0, config=config)[0] is SprtState.ACCEPT_H0 for _ in range(runs))
    # alpha = beta = 5%: 15 of 300 expected, SD about 3.8; 27 would be 9%, as the uncorrected
    # n/2 form gives (see sprt()).
    assert false_h1 <= 25
    assert false_h0 <= 25


def test_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="d0 and d1"):
        SprtConfig(d0=0.1, d1=0.1)
    with pytest.raises(ValueError, match="alpha"):
        SprtConfig(d0=0.0, d1=1.0, alpha=0.0)


# --- The gate ---------------------------------------------------------------------------------


def duplicate_records(diffs: list[float]) -> list[MatchRecord]:
    """One match per deal set, 'new' vs 'base' over 2 holes, with new's total - base's = 2 * diff."""
    records = []
    for d, diff in enumerate(diffs):
        extra = round(2 * diff)
        holes = ((5, 5), (5 + extra, 5))
        totals = (10 + extra, 10)
        placings = (1, 2) if extra < 0 else (2, 1) if extra > 0 else (1, 1)
        records.append(
            MatchRecord(d, d, ("new", "base"), holes, totals, placings, ("ok", "ok"), (0, 0), ((), ()), ((), ()),
                        ((), ()), 40)  # fmt: skip
        )
    return records


def test_gate_passes_when_the_interval_is_below_the_margin() -> None:
    # new - base per deal set: 0, 0.5, -0.5, 0, 0.5, -0.5: mean 0, SD sqrt(0.2) = 0.4472,
    # se 0.18257, t(0.975, 5) = 2.5706: CI [-0.4693, +0.4693], all below the margin 0.5.
    stats = compute_stats(duplicate_records([0, 0.5, -0.5, 0, 0.5, -0.5]))
    result = evaluate_gate(Gate("new", "base", margin=0.5), stats)
    assert result.verdict is GateVerdict.PASS and result.passed
    assert result.high == pytest.approx(0.4693, abs=1e-4)
    assert result.message.startswith("pass: new - base = +0.000 points per hole, 95% CI [-0.469, +0.469]")
    assert "\n" not in result.message
    # docs/TOURNAMENT_STATS.md quotes this very message.
    assert f"    {result.message}\n" in (ROOT / "docs" / "TOURNAMENT_STATS.md").read_text(encoding="utf-8")


def test_gate_fails_when_the_interval_is_above_the_margin() -> None:
    # new scores 1.5 or 2 points per hole more: CI well above the margin 0.5.
    stats = compute_stats(duplicate_records([1.5, 2.0, 1.5, 2.0, 1.5, 2.0]))
    result = evaluate_gate(Gate("new", "base", margin=0.5), stats)
    assert result.verdict is GateVerdict.FAIL and not result.passed
    assert "new is worse by more than 0.5" in result.message
    # The same data, asked the other way round, pass: base is not worse than new.
    assert evaluate_gate(Gate("base", "new", margin=0.0), stats).verdict is GateVerdict.PASS


def test_gate_without_enough_data() -> None:
    straddling = compute_stats(duplicate_records([1.0, -1.0, 0.5]))
    result = evaluate_gate(Gate("new", "base", margin=0.5), straddling)
    assert result.verdict is GateVerdict.NOT_ENOUGH_DATA and not result.passed
    assert "straddles the margin" in result.message
    one = compute_stats(duplicate_records([0.0]))
    assert "shared 1 deal set" in evaluate_gate(Gate("new", "base", margin=0.5), one).message
    never = evaluate_gate(Gate("new", "other", margin=0.5), one)
    assert never.verdict is GateVerdict.NOT_ENOUGH_DATA and "never sat at one table" in never.message


def test_gate_confidence_widens_the_interval() -> None:
    stats = compute_stats(duplicate_records([0, 0.5, -0.5, 0, 0.5, -0.5]))
    # At 99%, t(0.995, 5) = 4.0321: CI [-0.736, +0.736] straddles 0.5.
    result = evaluate_gate(Gate("new", "base", margin=0.5, confidence=0.99), stats)
    assert result.verdict is GateVerdict.NOT_ENOUGH_DATA
    assert result.high == pytest.approx(0.7362, abs=1e-4)
    with pytest.raises(ValueError, match="margin"):
        Gate("new", "base", margin=-1.0)


# --- The SPRT's verdict, as the exit status reads it ------------------------------------------


@pytest.mark.parametrize(
    ("d0", "d1", "diffs", "state", "verdict"),
    [
        # H1 (d1 = -0.5) favours the player: accepting it passes, accepting H0 fails.
        (0.0, -0.5, [-0.5, -0.5], SprtState.ACCEPT_H1, SprtVerdict.PASS),
        (0.0, -0.5, [0.0, 0.0], SprtState.ACCEPT_H0, SprtVerdict.FAIL),
        # The hypotheses the other way round: now H0 (d0 = -0.5) is the favourable one.
        (-0.5, 0.0, [-0.5, -0.5], SprtState.ACCEPT_H0, SprtVerdict.PASS),
        (-0.5, 0.0, [0.0, 0.0], SprtState.ACCEPT_H1, SprtVerdict.FAIL),
        (0.0, -0.5, [-1.0, 0.0, -1.0], SprtState.CONTINUE, SprtVerdict.UNDECIDED),
    ],
)
def test_the_sprt_passes_only_on_the_hypothesis_that_favours_the_player(
    d0: float, d1: float, diffs: list[float], state: SprtState, verdict: SprtVerdict
) -> None:
    result = sprt(diffs, SprtConfig(d0=d0, d1=d1))
    assert (result.state, result.verdict) == (state, verdict)
    assert result.passed is (verdict is SprtVerdict.PASS)
    line = result.verdict_line("new")
    assert line.startswith(f"{'pass' if result.passed else 'fail'}: ") and "\n" not in line
    assert result.to_json()["verdict"] == verdict.value
    if verdict is SprtVerdict.UNDECIDED:
        assert line == "fail: undecided after 3 deal sets: not enough data to accept either hypothesis"


def test_a_player_that_forfeited_fails_the_gate_whatever_the_margin() -> None:
    # new is far better on the numbers (4 points per hole less), but it forfeited one match of six.
    records = duplicate_records([-4.0] * 6)
    last = records[-1]
    records[-1] = MatchRecord(
        last.match_index, last.deal_set, last.seating, last.hole_scores, last.totals, last.placings,
        ("disqualified", "ok"), (1, 0), ((), ()), ((), ()), (("exited",), ()), 40,
    )  # fmt: skip
    stats = compute_stats(records)
    for margin in (0.0, 5.0, 1000.0):
        result = evaluate_gate(Gate("new", "base", margin=margin), stats)
        assert result.verdict is GateVerdict.FAIL and not result.passed
        assert result.message.startswith("fail: new forfeited 1 of 6 matches (disqualified: the fallback played")
    # The baseline's forfeits are no reason to fail the player.
    assert evaluate_gate(Gate("base", "new", margin=1000.0), stats).passed
