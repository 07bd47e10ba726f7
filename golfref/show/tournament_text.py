"""A tournament's results as golfref prints and writes them: the tables as text, one JSON object or
one CSV table, the verdict lines, the fault and bot-change lines, and the JUnit XML."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ..stats import tables as stats_tables
from ..stats.stats import pooled_sd_ratio
from ..tournament.results import TournamentResults
from .junit import Case, junit_extras, write_junit
from .summary import bot_change_lines, tournament_fault_lines
from .terminal import sanitize

CSV_TABLES = ("standings", "pairwise")
"""The tables `--csv TABLE` prints: one per invocation, so each output is one CSV table with one header."""


def results_json(results: TournamentResults) -> str:
    """The results as one JSON object (`--json`)."""
    stored, stats, fail_on = results.stored, results.stats, results.fail_on
    pooled = pooled_sd_ratio(stats.pairs)
    data: dict[str, Any] = {
        "directory": results.shown,
        "matches": len(results.counted),
        "stored": len(stored.records),
        "left_out": results.left_out,
        "stopped_by": results.stopped_by,
        "errors": list(results.errors),
        "stats": stats.to_json(),
        "duplicate_deals": {
            "enabled": stored.duplicate_deals,
            "pooled_sd_ratio": None if pooled is None else pooled[0],
            "pairs": 0 if pooled is None else pooled[1],
            "variance_reduction": None if pooled is None else 1.0 - pooled[0] ** 2,
        },
        "outcomes": [p.to_json() for p in results.outcomes],
        "sprt": None if results.sprt is None else results.sprt.to_json(),
        "sprt_llr": [step.llr for step in results.sprt_steps],
        "gate": None if results.gate is None else results.gate.to_json(),
        "faults": {
            "fail_on": None if fail_on is None else fail_on.value,
            "verdict": None if fail_on is None else ("fail" if results.fault_failure else "pass"),
            "message": results.fault_failure,
            "players": [f.to_json() for f in results.faults],
        },
        "bot_changes": [{"match": c.match_index, "player": c.player, "change": c.change} for c in stored.bot_changes],
    }
    return json.dumps(data, ensure_ascii=False, allow_nan=False)  # inf and NaN are no JSON: never write them


def results_csv(results: TournamentResults, table: str) -> str:
    """One of `CSV_TABLES` as CSV, header first."""
    rows = stats_tables.standings_csv_rows if table == "standings" else stats_tables.pairwise_csv_rows
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows(results.stats))
    return text.getvalue()


def results_lines(results: TournamentResults) -> list[str]:
    """The results as text: a line that says what is counted, then the standings, pairwise and seat tables."""
    stats, shown = results.stats, sanitize(results.shown)
    left = f" ({results.left_out} matches of incomplete deal sets left out)" if results.left_out else ""
    if not results.stored.records:
        return [f"{shown}: no finished match yet"]
    if not results.counted:
        return [f"{shown}: no complete deal set yet{left}"]
    lines = [f"{shown}: {stats.matches} matches, {stats.deal_sets} deal sets{left}; scores are points per hole, "
             "lower is better"]  # fmt: skip
    sections: list[tuple[str, list[str]]] = [
        (stats_tables.STANDINGS_TITLE, stats_tables.standings_lines(stats)),
        ("pairwise: A - B per hole, negative favours A; LOS(A): the chance A is the better",
         stats_tables.pairwise_lines(stats)),
        (stats_tables.OUTCOMES_TITLE, stats_tables.outcome_lines(stats, results.outcomes)),
        ("seats: score per hole by seat, and against the table's mean", stats_tables.seat_lines(stats)),
    ]  # fmt: skip
    challenger = results.stored.challenger
    if challenger is not None and stats.player(challenger) is not None:
        title = (f"gauntlet: {challenger} against each opponent: {challenger} - opponent per hole (negative favours "
                 f"{challenger}), LOS: the chance {challenger} is the better; W-D-L and Elo from {challenger}'s side")
        sections.append((title, stats_tables.gauntlet_lines(stats, results.outcomes, challenger)))
    rule = results.sprt_rule
    if rule is not None and results.sprt_steps:
        title = f"sprt: {rule.player} against {rule.baseline}, one deal set at a time"
        sections.append((title, stats_tables.sprt_lines(results.sprt_steps, rule.player, rule.baseline)))
    for title, section in sections:
        lines += ["", sanitize(title), *(sanitize(line) for line in section)]
    return [*lines, "", stats_tables.duplicate_deals_line(stats, results.stored.duplicate_deals)]


def verdict_lines(results: TournamentResults, with_tables: bool) -> list[str]:
    """The verdicts, the exit status's reasons: the SPRT's (its state only beside the tables, or when it stopped
    the tournament), the gate's and the faults'."""
    lines = []
    sprt, stopped_by = results.sprt, results.stopped_by
    if sprt is not None:
        if stopped_by == "sprt":
            lines.append(f"stopped early: {sprt.describe()}")
        elif with_tables:
            lines.append(sprt.describe())
        if results.sprt_player is not None and stopped_by in (None, "sprt"):
            lines.append(f"sprt: {sprt.verdict_line(results.sprt_player)}")
    if results.gate is not None:
        lines.append(f"gate: {results.gate.message}")
    if results.fault_failure is not None:
        lines.append(f"faults: {results.fault_failure}")
    return lines


def diagnostic_lines(results: TournamentResults) -> list[str]:
    """What went wrong for the bots: each faulted bot's faults, then the bots whose files changed."""
    faults = tournament_fault_lines(results.faults) if results.faults else []
    return [sanitize(line) for line in (*faults, *bot_change_lines(results.stored.bot_changes))]


def write_results_junit(path: str, results: TournamentResults) -> None:
    """Write the JUnit XML of the stored matches (with each faulted bot's stderr tail from its log), the gate and
    the SPRT; the gate's and the SPRT's cases count the complete deal sets, as the tables do."""
    stored, sprt = results.stored, results.sprt
    more = []
    if sprt is not None and results.sprt_player is not None:
        line = sprt.verdict_line(results.sprt_player)
        failed = None if sprt.passed else line
        more.append(Case(f"sprt: {sprt.describe()}", failure=failed, details=line, kind="sprt"))
    write_junit(path, stored.records, junit_extras(stored.directory, stored.matches), results.gate, more=more)
