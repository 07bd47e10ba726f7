"""What the commands render, now in the library: a tournament's verdicts (golfref/tournament/results.py,
golfref/show/tournament_text.py), check-bot's report lines (golfref/show/check_bot_text.py) and replay
--check's verdicts (golfref/show/validation_text.py), tested without the command line."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from golfref.config.match import FailOn
from golfref.record.signing import SignatureCheck, SignatureStatus
from golfref.record.validate import Status, Validation
from golfref.show.check_bot_text import report_lines, rules_line
from golfref.show.tournament_text import verdict_lines
from golfref.show.validation_text import check_json, check_line
from golfref.stats.records import DISQUALIFIED, MatchRecord
from golfref.tournament.results import TournamentResults, fault_verdict


def record(index: int, seating: tuple[str, ...], statuses: tuple[str, ...], faults: tuple[int, ...]) -> MatchRecord:
    n = len(seating)
    return MatchRecord(
        match_index=index,
        deal_set=0,
        seating=seating,
        hole_scores=((0,) * n,),
        totals=(0,) * n,
        placings=(1,) * n,
        statuses=statuses,
        faults=faults,
        decision_ms=((),) * n,
        fallback_holes=((),) * n,
        fault_kinds=((),) * n,
        forfeit_score=10,
    )


CLEAN = record(0, ("a", "b"), ("ok", "ok"), (0, 0))
FAULTED = record(1, ("a", "b"), ("faulted", "ok"), (1, 0))
ENDED = record(2, ("b", "a"), ("ok", DISQUALIFIED), (0, 1))


@pytest.mark.parametrize(
    ("fail_on", "ended", "faulted", "fails"),
    [
        (FailOn.ENDED, True, True, True),
        (FailOn.ENDED, False, True, False),
        (FailOn.ANY, False, True, True),
        (FailOn.ANY, False, False, False),
        (FailOn.NEVER, True, True, False),
    ],
)
def test_which_faults_fail_a_run(fail_on: FailOn, ended: bool, faulted: bool, fails: bool) -> None:
    assert fail_on.fails(ended, faulted) is fails


def test_the_fault_verdict_names_the_bots_and_their_matches() -> None:
    assert fault_verdict([CLEAN, FAULTED, ENDED], None) is None
    assert fault_verdict([CLEAN, FAULTED], FailOn.ENDED) is None
    assert fault_verdict([CLEAN, FAULTED, ENDED], FailOn.NEVER) is None
    ended = fault_verdict([CLEAN, FAULTED, ENDED], FailOn.ENDED)
    assert ended is not None and ended.startswith("fail: a fault ended a bot's seat (disqualified): a in 1 match;")
    strict = "fail: bots faulted (--strict, faults.fail_on: any): a in 2 matches"
    assert fault_verdict([FAULTED, ENDED], FailOn.ANY) == strict


@dataclasses.dataclass
class FakeSprt:
    passed: bool

    def describe(self) -> str:
        return "sprt state"

    def verdict_line(self, player: str) -> str:
        return f"{player} {'passes' if self.passed else 'fails'}"


@dataclasses.dataclass
class FakeGate:
    passed: bool
    message: str


def results(**given: Any) -> TournamentResults:
    fields: dict[str, Any] = {f.name: None for f in dataclasses.fields(TournamentResults)}
    fields.update(faults=(), errors=(), counted=[], **given)
    return TournamentResults(**fields)


def test_the_verdicts_say_why_the_tournament_passed_or_not() -> None:
    assert verdict_lines(results(), with_tables=True) == []
    assert results().passed
    shown = results(sprt=FakeSprt(False), sprt_player="a", gate=FakeGate(True, "a <= b"), fault_failure="fail: x")
    assert verdict_lines(shown, with_tables=True) == ["sprt state", "sprt: a fails", "gate: a <= b", "faults: fail: x"]
    assert verdict_lines(shown, with_tables=False) == ["sprt: a fails", "gate: a <= b", "faults: fail: x"]
    assert not shown.passed
    early = results(sprt=FakeSprt(True), sprt_player="a", stopped_by="sprt")
    assert verdict_lines(early, with_tables=False) == ["stopped early: sprt state", "sprt: a passes"]
    assert early.passed
    interrupted = results(sprt=FakeSprt(True), sprt_player="a", stopped_by="SIGINT")
    assert verdict_lines(interrupted, with_tables=True) == ["sprt state"]  # no verdict on a tournament cut short
    assert not results(gate=FakeGate(False, "no")).passed


@dataclasses.dataclass
class FakeReport:
    stopped: str | None
    house: str | None = None

    def stopped_line(self) -> str | None:
        return self.stopped

    def times_line(self) -> str:
        return "times"

    def summary(self) -> str:
        return "summary"

    def house_summary(self) -> str | None:
        return self.house


def test_check_bot_lines() -> None:
    assert rules_line(["standard"], {}) is None
    assert rules_line(["standard", "quick"], {"jokers": -2, "layout": "2x3"}) == (
        "rules: standard, quick, with jokers: -2, layout: 2x3"
    )
    assert report_lines(FakeReport(None)) == ["times", "summary"]  # type: ignore[arg-type]
    assert report_lines(FakeReport("stopped")) == ["stopped", "times", "summary"]  # type: ignore[arg-type]
    # --house's checks: their own line, after the rules asked for.
    assert report_lines(FakeReport(None, "house")) == ["times", "summary", "house"]  # type: ignore[arg-type]


def test_replay_check_verdicts() -> None:
    valid = Validation(Status.VALID, "", holes_checked=3)
    missing = Validation(Status.NOT_A_LOG, "no such file")
    bad = Validation(Status.TAMPERED, "digest mismatch")
    sig = SignatureCheck(SignatureStatus.SIGNED, "k1", "signed by key k1")
    assert check_line("a.json", valid, None) == "a.json: valid"
    assert check_line("a.json", valid, sig) == "a.json: valid; signed by key k1"
    assert check_line("b.json", missing, None) == "b.json: no such file"
    assert check_line("c.json", bad, None) == "c.json: tampered: digest mismatch"
    items = json.loads(check_json(["a.json", "b.json"], [valid, missing], [sig, None], trusting=False))
    assert items[0]["path"] == "a.json" and items[0]["status"] == "valid" and items[0]["signature"]["key"] == "k1"
    assert "signature" not in items[1]
    trusted = json.loads(check_json(["b.json"], [missing], [None], trusting=True))
    assert trusted[0]["signature"] is None


def test_no_module_of_the_library_prints() -> None:
    """The modules the commands' words moved to return lines; only golfref.cli writes them."""
    root = Path(__file__).resolve().parent.parent / "golfref"
    moved = (
        "show/tournament_text.py", "show/check_bot_text.py", "show/validation_text.py", "show/audit_text.py",
        "tournament/results.py",
    )  # fmt: skip
    for name in moved:
        text = (root / name).read_text(encoding="utf-8")
        assert "print(" not in text and "sys.stdout" not in text and "sys.stderr" not in text, name
