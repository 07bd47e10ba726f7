"""JUnit XML of a tournament: valid under Jenkins' JUnit schema, faults and failed gates as failures."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from golfref.show.junit import Case, MatchExtras, write_junit
from golfref.stats.records import MatchRecord
from golfref.stats.sprt import Gate, GateVerdict, evaluate_gate
from golfref.stats.stats import compute_stats

from .conftest import TESTS

SCHEMA = xmlschema.XMLSchema(TESTS / "data" / "junit-10.xsd")


def rec(
    index: int, deal_set: int, seating: tuple[str, str], holes: tuple[tuple[int, int], ...], **kw: object
) -> MatchRecord:
    totals = tuple(sum(h[s] for h in holes) for s in range(2))
    placings = tuple(1 + sum(t < mine for t in totals) for mine in totals)
    fields: dict[str, object] = {
        "statuses": ("ok", "ok"), "faults": (0, 0), "decision_ms": ((), ()), "fallback_holes": ((), ()),
        "fault_kinds": ((), ()), "forfeit_score": 40,
    } | kw  # fmt: skip
    return MatchRecord(index, deal_set, seating, holes, totals, placings, **fields)  # type: ignore[arg-type]


RECORDS = [
    rec(0, 0, ("new", "base"), ((1, 3), (2, 4))),
    rec(1, 0, ("base", "new"), ((2, 2), (5, 3))),
    rec(2, 1, ("new", "base"), ((9, 0), (9, 1)), statuses=("disqualified", "ok"), faults=(3, 0)),
    rec(3, 1, ("base", "new"), ((3, 1), (2, 2))),
]
EXTRAS = {
    2: MatchExtras(
        log_path="t/logs/match-2.jsonl",
        seconds=1.25,
        fault_messages={0: "move 4: timed out after 100 ms"},
        stderr_tails={0: "thinking...\n\x1b[31mpanic: index out of range\x1b[0m\n"},
    ),
    0: MatchExtras(log_path="t/logs/match-0.jsonl", seconds=0.5),
}


def test_matches_and_gate_validate_against_the_junit_schema(tmp_path: Path) -> None:
    gate = evaluate_gate(Gate("new", "base", margin=0.5), compute_stats(RECORDS))
    assert gate.verdict is GateVerdict.FAIL  # new forfeited match 2: whatever the margin
    sprt = Case("sprt: SPRT continue", failure="fail: undecided", details="fail: undecided", kind="sprt")
    out = tmp_path / "junit.xml"
    write_junit(out, RECORDS, EXTRAS, gate, more=[sprt])
    SCHEMA.validate(str(out))  # raises on any violation
    root = ET.parse(out).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "3", "0")
    cases = suite.findall("testcase")
    names = [c.get("name") for c in cases[:2]]
    assert names == ["match 0: deal set 0: new vs base", "match 1: deal set 0: base vs new"]
    assert cases[2].get("time") == "1.250" and suite.get("time") == "1.750"
    failure = cases[-1].find("failure")
    assert cases[-1].get("name") == "sprt: SPRT continue" and failure is not None
    assert (failure.get("type"), failure.get("message")) == ("sprt", "fail: undecided")


def test_a_fault_is_a_failure_carrying_the_message_and_stderr_tail(tmp_path: Path) -> None:
    out = tmp_path / "junit.xml"
    write_junit(out, RECORDS, EXTRAS)
    cases = ET.parse(out).getroot().findall("testsuite/testcase")
    assert len(cases) == 4  # no gate given, no gate test
    assert all(c.find("failure") is None for i, c in enumerate(cases) if i != 2)
    failure = cases[2].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("message") == "seat 0 (new): 3 fault(s), disqualified"
    assert "move 4: timed out after 100 ms" in failure.text
    # The control characters of the bot's colours are shown, not written raw (XML 1.0 forbids them).
    assert "\\x1b[31mpanic: index out of range\\x1b[0m" in failure.text
    assert "log: t/logs/match-2.jsonl" in failure.text
    err = cases[2].find("system-err")
    assert err is not None and err.text is not None and "panic: index out of range" in err.text
    SCHEMA.validate(str(out))


@pytest.mark.parametrize(
    ("margin", "failed"),
    [(5.0, False), (0.0, True)],  # new is worse by about 0.44 per hole: passes 5, fails 0
)
def test_gate_case_fails_unless_the_gate_passed(tmp_path: Path, margin: float, failed: bool) -> None:
    # Four deal sets where new always scores 1 or 2 points more over 4 holes than base.
    records = []
    for d in range(4):
        extra = 1 + d % 2
        records.append(rec(2 * d, d, ("new", "base"), ((2 + extra, 2), (1, 1))))
        records.append(rec(2 * d + 1, d, ("base", "new"), ((2, 2 + extra), (1, 1))))
    gate = evaluate_gate(Gate("new", "base", margin=margin), compute_stats(records))
    out = tmp_path / "junit.xml"
    write_junit(out, records, None, gate)
    SCHEMA.validate(str(out))
    case = ET.parse(out).getroot().findall("testsuite/testcase")[-1]
    assert (case.get("name") or "").startswith("gate: new not worse than base by more than")
    failure = case.find("failure")
    assert (failure is not None) is failed
    if failure is not None:
        assert failure.get("message") == gate.message and gate.verdict is GateVerdict.FAIL


def test_schema_rejects_what_it_should() -> None:
    # The checker itself works: a testcase without its required name is refused.
    bad = '<testsuites><testsuite name="x" tests="1" failures="0" errors="0"><testcase/></testsuite></testsuites>'
    assert not SCHEMA.is_valid(bad)


def test_junit_extras_quote_each_faulted_seat_from_its_log_and_leave_clean_matches_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored tournament's extras: the log's path, and for the seats that make a case fail, their
    fault messages and the JUnit's share of their stderr, as the runner reads them from the log."""
    from golfref.record.stderr import JUNIT_STDERR_LINES
    from golfref.show.junit import junit_extras
    from golfref.tournament import runner
    from golfref.tournament.store import StoredMatch

    asked: list[tuple[Path, list[int], int]] = []

    def seat_details(path: Path, seats: list[int], lines: int) -> tuple[dict[int, str], dict[int, str]]:
        asked.append((path, list(seats), lines))
        return {0: "exited: gone"}, {0: "the end"}

    monkeypatch.setattr(runner, "seat_details", seat_details)
    monkeypatch.chdir(tmp_path)
    stored = [StoredMatch(RECORDS[2], "logs/m2.json", "d2"), StoredMatch(RECORDS[0], "logs/m0.json", "d0")]
    extras = junit_extras(tmp_path / "out", stored)
    assert asked == [(tmp_path / "out" / "logs" / "m2.json", [0], JUNIT_STDERR_LINES)]  # match 0 had no fault
    assert extras[2] == MatchExtras("out/logs/m2.json", fault_messages={0: "exited: gone"}, stderr_tails={0: "the end"})
    assert extras[0] == MatchExtras("out/logs/m0.json")
