"""The text summary's tables (golfref/show/tournament_text.py): exact text on fixed small results.

The numbers in them are checked against hand computations in tests/test_outcomes.py (the same
records); here the text itself is pinned, in tests/data/summary-*.txt: the columns, their order,
widths and words. A change of the text is a change of those files, read in review.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from golfref.config.tournament import GateRule, SprtRule
from golfref.show.tournament_text import CSV_TABLES, results_csv, results_json, results_lines, verdict_lines
from golfref.stats.records import MatchRecord
from golfref.tournament.results import TournamentResults, Verdicts, tournament_results
from golfref.tournament.runner import StoredTournament, sprt_result
from golfref.tournament.store import StoredMatch
from tests.conftest import TESTS
from tests.test_outcomes import FIXTURE, record, sweep


def stored(records: tuple[MatchRecord, ...], challenger: str | None = None) -> StoredTournament:
    matches = tuple(StoredMatch(r, f"logs/m{r.match_index:05d}-d{r.deal_set}.json", "x") for r in records)
    return StoredTournament(Path("t"), matches, 2, True, "t", challenger=challenger)


def with_verdicts() -> TournamentResults:
    kept = stored(FIXTURE)
    rule = SprtRule("A", "B", d0=0.0, d1=-1.0)
    verdicts = Verdicts(GateRule("A", "B", 0.5), sprt_result(rule, kept.counted()), "A", None, rule)
    return tournament_results(kept, verdicts)


SUMMARY = (TESTS / "data" / "summary-outcomes.txt").read_text(encoding="utf-8")
"""What `results_lines` and `verdict_lines` print for `with_verdicts()`, every line of it."""


def test_the_summary_shows_outcomes_paired_counts_elo_the_sprt_and_the_gate() -> None:
    results = with_verdicts()
    assert "\n".join(results_lines(results) + verdict_lines(results, True)) + "\n" == SUMMARY


# A gauntlet: C against A in deal sets 0 and 1, against B in 2 and 3, each both ways, one hole a match.
# C - A: deal set 0 (2 + 3) / 2 - (4 + 3) / 2 = -1, deal set 1 (1 + 2) / 2 - (5 + 6) / 2 = -4: -2.5;
# C's points per match 3/4 and 1: mean 7/8, Elo -400 log10(1/7) = +338.0. C - B: +5 and +3: +4, four losses.
GAUNTLET = (
    record(0, 0, ("C", "A"), ((2, 4),)), record(1, 0, ("A", "C"), ((3, 3),)),
    record(2, 1, ("C", "A"), ((1, 5),)), record(3, 1, ("A", "C"), ((6, 2),)),
    record(4, 2, ("C", "B"), ((7, 1),)), record(5, 2, ("B", "C"), ((2, 6),)),
    record(6, 3, ("C", "B"), ((5, 3),)), record(7, 3, ("B", "C"), ((0, 4),)),
)  # fmt: skip

GAUNTLET_SECTION = (TESTS / "data" / "summary-gauntlet.txt").read_text(encoding="utf-8")


def test_a_gauntlet_shows_the_challenger_against_each_opponent_apart() -> None:
    lines = results_lines(tournament_results(stored(GAUNTLET, "C"), Verdicts(None, None, None, None)))
    start = next(i for i, line in enumerate(lines) if line.startswith("gauntlet: "))
    assert "\n".join(lines[start : start + 5]) + "\n" == GAUNTLET_SECTION
    # A round robin has no such section.
    assert not any(line.startswith("gauntlet") for line in results_lines(tournament_results(
        stored(GAUNTLET), Verdicts(None, None, None, None))))  # fmt: skip


def test_the_json_has_the_outcomes_and_the_sprts_running_llr() -> None:
    data = json.loads(results_json(with_verdicts()))
    (pair,) = data["outcomes"]
    assert (pair["wins"], pair["draws"], pair["losses"], pair["paired"]) == (4, 1, 3, [1, 0, 1, 1, 1])
    assert pair["elo"] > 0 and pair["elo_low"] is None and pair["elo_high"] is None and pair["sweep"] is None
    assert [round(x, 3) for x in data["sprt_llr"]] == [0.0, 0.805, -0.167, -0.262]


def strict_json(text: str) -> object:
    """`text` read as JSON is, refusing Infinity, -Infinity and NaN (Python's json takes them)."""

    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} is no JSON")

    return json.loads(text, parse_constant=refuse)


SWEEP_BOUND = "+28.4"
"""The one-sided bound of 6 swept deal sets at 95% (tests/test_outcomes.py works it out by hand)."""


@pytest.mark.parametrize("a_wins", [True, False], ids=["won all", "lost all"])
def test_a_sweep_is_said_in_words_and_finite_numbers_in_every_output_form(a_wins: bool) -> None:
    # Once `-inf [-inf, -inf]` in the text and "-inf" strings in the JSON.
    results = tournament_results(stored(sweep(6, a_wins), "A"), Verdicts(None, None, None, None))
    text = "\n".join(results_lines(results))
    assert not re.search(r"inf|nan", text, flags=re.I), text
    cell, interval = ("n/a (won all)", f">= {SWEEP_BOUND}") if a_wins else ("n/a (lost all)", f"<= -{SWEEP_BOUND[1:]}")
    (row,) = [line for line in text.splitlines() if re.match(r"A\s+B\s+12\s", line)]
    assert row.split("  0-2:")[0].rstrip().endswith(f"{cell}  {interval}"), row
    (gauntlet,) = [line for line in text.splitlines() if re.match(r"B\s+6\s", line)]
    assert gauntlet.rstrip().endswith(f"{cell}  {interval}"), gauntlet
    assert "n/a when A won or lost every match (a sweep), its interval then one-sided" in text
    data = strict_json(results_json(results))
    assert isinstance(data, dict)
    (pair,) = data["outcomes"]
    assert pair["elo"] is None and pair["sweep"] == ("won_all" if a_wins else "lost_all")
    bound = pair["elo_low"] if a_wins else -pair["elo_high"]
    assert f"{bound:+.1f}" == SWEEP_BOUND and pair["elo_high" if a_wins else "elo_low"] is None
    for table in CSV_TABLES:
        assert not re.search(r"inf|nan", results_csv(results, table), flags=re.I), table


def test_the_json_never_holds_a_number_json_has_not() -> None:
    # A non-finite number would be a bug upstream: it stops the output rather than writing NaN.
    results = with_verdicts()
    broken = dataclasses.replace(results, stats=dataclasses.replace(results.stats, confidence=float("nan")))
    with pytest.raises(ValueError, match="JSON compliant"):
        results_json(broken)
