"""`golfref check-bot`'s report as it prints and writes it: the rules line, a check's lines, the closing
lines, and the JUnit XML (a test per check)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..tools.botcheck import BotCommand, CheckResult, CheckRun, Outcome
from .junit import Case, write_cases
from .terminal import sanitize


def rules_line(presets: Sequence[str], options: Mapping[str, Any]) -> str | None:
    """The rules checked, when options change the presets' (None when they do not)."""
    if not options:
        return None
    shown = ", ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in options.items())
    return sanitize(f"rules: {', '.join(presets)}, with {shown}")


def result_lines(result: CheckResult) -> list[str]:
    """One check's line, and its details indented beneath."""
    return [sanitize(result.line()), *(f"      {sanitize(line)}" for line in result.details())]


def report_lines(report: CheckRun) -> list[str]:
    """The lines after the checks': where the run stopped (if it did), the decision times, the summaries."""
    stopped, house = report.stopped_line(), report.house_summary()
    closing = [report.times_line(), report.summary(), *([] if house is None else [house])]
    return [*([] if stopped is None else [stopped]), *closing]


def write_report_junit(path: str, report: CheckRun, command: BotCommand) -> None:
    """Write the report as JUnit XML, a test case per check (a failed check fails its case, a skipped one skips)."""
    cases = [
        Case(
            r.name,
            r.seconds,
            failure=r.message if r.outcome is Outcome.FAIL else None,
            details="\n".join([r.message, *r.details()]),
            skipped=r.message if r.outcome is Outcome.SKIP else None,
        )
        for r in report.results
    ]
    name = f"golfref check-bot {' '.join(command.argv)}"
    write_cases(path, cases, name, "golfref.check_bot", seconds=report.seconds)
