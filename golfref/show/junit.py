"""A tournament as JUnit XML, so CI systems show it natively: one test per match, one for the gate.

A match with a fault or a disqualification is a failure whose text carries the faults, the
caller's fault messages and each faulty bot's stderr tail; a gate that did not pass is a
failure with its one-line message. The document follows the JUnit schema Jenkins uses
(tests/data/junit-10.xsd). Plain data in, one file out; nothing else is read or written, but
by `junit_extras`, which reads a stored tournament's logs for what its cases quote.
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..files import replace_file
from ..record.stderr import JUNIT_STDERR_LINES
from ..stats.records import MatchRecord
from ..stats.sprt import GateResult

if TYPE_CHECKING:
    from ..tournament.store import StoredMatch

__all__ = [
    "MatchExtras",
    "problem_seats",
    "junit_extras",
    "junit_document",
    "write_junit",
    "Case",
    "cases_document",
    "write_cases",
]

_OK = "ok"
# XML 1.0 cannot hold most control characters, and bots write ANSI colours to stderr.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True)
class MatchExtras:
    """What the runner knows about a match beyond its record."""

    log_path: str | None = None
    seconds: float | None = None
    """Wall-clock time of the match."""
    fault_messages: Mapping[int, str] = field(default_factory=dict)
    """Per seat: what went wrong (the fault's message)."""
    stderr_tails: Mapping[int, str] = field(default_factory=dict)
    """Per seat: the end of the bot's stderr."""


def _clean(text: str) -> str:
    """Text that XML 1.0 can hold: control characters shown as escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _seconds(value: float | None) -> str:
    # The schema's time is digits with at most three decimals.
    return f"{max(value or 0.0, 0.0):.3f}"


def problem_seats(record: MatchRecord) -> list[int]:
    """The seats of a match that faulted or did not finish ok: what makes its test case a failure."""
    return [
        seat
        for seat in range(len(record.seating))
        if record.faults[seat] > 0 or record.statuses[seat] != _OK
    ]


def junit_extras(directory: Path, matches: Sequence[StoredMatch]) -> dict[int, MatchExtras]:
    """Per stored match, what its JUnit test case shows beyond the record: the log, and each faulted seat's
    fault messages and stderr tail (read from the log, which keeps them; unreadable logs give none)."""
    from ..tournament.runner import seat_details, shown_path  # only here: check-bot's cases need no tournament

    extras: dict[int, MatchExtras] = {}
    for m in matches:
        record = m.record
        path = directory / m.log_path
        problems = problem_seats(record)
        messages, tails = seat_details(path, problems, JUNIT_STDERR_LINES) if problems else ({}, {})
        extras[record.match_index] = MatchExtras(shown_path(path), fault_messages=messages, stderr_tails=tails)
    return extras


def _match_case(record: MatchRecord, extras: MatchExtras, classname: str) -> tuple[ET.Element, bool]:
    name = f"match {record.match_index}: deal set {record.deal_set}: {' vs '.join(record.seating)}"
    case = ET.Element("testcase", name=_clean(name), classname=classname, time=_seconds(extras.seconds))
    results = ", ".join(
        f"{player} {total} (place {place})"
        for player, total, place in zip(record.seating, record.totals, record.placings, strict=True)
    )
    out = [f"result: {results}"]
    if extras.log_path:
        out.append(f"log: {extras.log_path}")
    problems = problem_seats(record)
    if problems:
        summary = "; ".join(
            f"seat {seat} ({record.seating[seat]}): {record.faults[seat]} fault(s), {record.statuses[seat]}"
            for seat in problems
        )
        text = [summary]
        for seat in problems:
            if seat in extras.fault_messages:
                text.append(f"seat {seat} ({record.seating[seat]}): {extras.fault_messages[seat]}")
            tail = extras.stderr_tails.get(seat)
            if tail:
                text.append(f"--- stderr of seat {seat} ({record.seating[seat]}), last lines ---\n{tail.rstrip()}")
        if extras.log_path:
            text.append(f"log: {extras.log_path}")
        failure = ET.SubElement(case, "failure", message=_clean(summary), type="fault")
        failure.text = _clean("\n".join(text))
    ET.SubElement(case, "system-out").text = _clean("\n".join(out))
    tails = [
        f"--- seat {seat} ({record.seating[seat]}) ---\n{tail.rstrip()}"
        for seat, tail in sorted(extras.stderr_tails.items())
        if tail
    ]
    if tails:
        ET.SubElement(case, "system-err").text = _clean("\n".join(tails))
    return case, bool(problems)


def _gate_case(gate: GateResult, classname: str) -> tuple[ET.Element, bool]:
    case = ET.Element("testcase", name=_clean(f"gate: {gate.gate.describe()}"), classname=classname, time="0.000")
    if not gate.passed:
        # Not enough data fails too: the gate asks for proof that the player is not worse.
        failure = ET.SubElement(case, "failure", message=_clean(gate.message), type=f"gate {gate.verdict.value}")
        failure.text = _clean(gate.message)
    ET.SubElement(case, "system-out").text = _clean(gate.message)
    return case, not gate.passed


def junit_document(
    records: Sequence[MatchRecord],
    extras: Mapping[int, MatchExtras] | None = None,
    gate: GateResult | None = None,
    name: str = "golfref tournament",
    more: Sequence[Case] = (),
) -> ET.ElementTree:
    """The JUnit XML tree: one testcase per match (by match_index), then one for the gate, then `more`
    (the SPRT's verdict)."""
    extras = extras or {}
    classname = "golfref.tournament.runner"  # CI tools group test cases by it, dots as packages
    cases: list[tuple[ET.Element, bool]] = [
        _match_case(r, extras.get(r.match_index, MatchExtras()), classname)
        for r in sorted(records, key=lambda r: r.match_index)
    ]
    if gate is not None:
        cases.append(_gate_case(gate, classname))
    cases.extend((_case_element(case, classname), case.failure is not None) for case in more)
    total = sum(
        (extras.get(r.match_index, MatchExtras()).seconds or 0.0) for r in records
    )
    failures = sum(failed for _, failed in cases)
    root, suite = _suite(name, len(cases), failures, 0, total)
    suite.extend(case for case, _ in cases)
    ET.indent(root)
    return ET.ElementTree(root)


def _suite(name: str, tests: int, failures: int, skipped: int, seconds: float) -> tuple[ET.Element, ET.Element]:
    """The document's root and its one testsuite, with the counts CI reads."""
    root = ET.Element("testsuites", name=_clean(name), tests=str(tests), failures=str(failures), errors="0")
    root.set("time", _seconds(seconds))
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_clean(name),
        tests=str(tests),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=_seconds(seconds),
    )
    return root, suite


def write_junit(
    path: str | os.PathLike[str],
    records: Sequence[MatchRecord],
    extras: Mapping[int, MatchExtras] | None = None,
    gate: GateResult | None = None,
    name: str = "golfref tournament",
    more: Sequence[Case] = (),
) -> None:
    """Write the JUnit XML file, whole or not at all (a temporary file renamed into place)."""
    _write_tree(path, junit_document(records, extras, gate, name, more))


@dataclass(frozen=True, slots=True)
class Case:
    """One test case of a report that is not a tournament (`golfref check-bot`): passed, failed or skipped."""

    name: str
    seconds: float = 0.0
    failure: str | None = None
    """The failure's one-line message; None when the case passed or was skipped."""
    details: str = ""
    """The failure's full text (its message, where it showed, the hint, the line sent, the bot's stderr tail)."""
    skipped: str | None = None
    """Why the case was skipped; None when it ran."""
    kind: str = "check"
    """The failure's type attribute: what kind of check failed."""


def cases_document(cases: Sequence[Case], name: str, classname: str, seconds: float | None = None) -> ET.ElementTree:
    """The JUnit XML tree of `cases`, one testsuite; its time is `seconds`, or the cases' sum."""
    total = sum(c.seconds for c in cases) if seconds is None else seconds
    failures = sum(1 for c in cases if c.failure is not None)
    skipped = sum(1 for c in cases if c.skipped is not None and c.failure is None)
    root, suite = _suite(name, len(cases), failures, skipped, total)
    suite.extend(_case_element(case, classname) for case in cases)
    ET.indent(root)
    return ET.ElementTree(root)


def _case_element(case: Case, classname: str) -> ET.Element:
    element = ET.Element("testcase", name=_clean(case.name), classname=classname, time=_seconds(case.seconds))
    if case.failure is not None:
        failure = ET.SubElement(element, "failure", message=_clean(case.failure), type=case.kind)
        failure.text = _clean(case.details or case.failure)
    elif case.skipped is not None:
        ET.SubElement(element, "skipped", message=_clean(case.skipped))
    return element


def write_cases(
    path: str | os.PathLike[str], cases: Sequence[Case], name: str, classname: str, seconds: float | None = None
) -> None:
    """Write `cases` as a JUnit XML file, whole or not at all (`seconds`: the suite's time, if not the cases' sum)."""
    _write_tree(path, cases_document(cases, name, classname, seconds))


def _write_tree(path: str | os.PathLike[str], tree: ET.ElementTree) -> None:
    out = io.BytesIO()
    tree.write(out, encoding="utf-8", xml_declaration=True)
    out.write(b"\n")
    replace_file(path, out.getvalue(), mode=0o644)  # a report for CI to read, not private
