"""A tournament as one HTML report: `golfref standings DIR --html OUT.html`.

The report shows the standings, the pairwise table with its confidence intervals, the
ratings, each player's distribution of hole scores and its rating as the matches
accumulate, and one row per match linking to that match's replay page. The replays are
written when the report is (not on demand: a report opened from a file has no server to
make them), into the folder `OUT-replays/` beside the report: one page named as its log
(`m00003-d1.html`) for each stored match whose log validates; the tournament directory is
only read. A match whose log is missing or does not validate is listed with the reason
and no link.

The numbers are the statistics' own (`golfref.stats.stats`, formatted by `golfref.stats.tables`),
over the complete deal sets as `golfref standings` counts them; the list of matches has every
stored one. docs/VIEWER.md describes the page.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import write_text
from ..record.validate import Status, validate_file
from ..stats.stats import compute_stats, penalised, rating_history
from ..stats.tables import pairwise_table, ranked_players, standings_table
from ..tournament.runner import StoredTournament, load_stored, shown_path
from ..tournament.store import StoredMatch
from .html_replay import render_html, replay_html

__all__ = ["ReportWritten", "write_report", "replays_folder"]


@dataclass(frozen=True)
class ReportWritten:
    """What `write_report` wrote."""

    matches: int
    replays: int
    """Match replay pages written (matches whose log validated)."""
    problems: tuple[str, ...]
    """One line for each match without a replay: its log and why."""


def replays_folder(target: Path) -> Path:
    """Where the report at `target` keeps its matches' replay pages: `OUT-replays/` beside it."""
    return target.with_name(target.stem + "-replays")


def write_report(directory: Path, target: Path) -> ReportWritten:
    """Write the report of the tournament in `directory` to `target`, and its replay pages.

    Raises StoreError for a directory without results, OSError when a page cannot be written.
    """
    stored = load_stored(directory)
    matches = list(stored.matches)
    folder = replays_folder(target)
    folder.mkdir(parents=True, exist_ok=True)
    links: dict[int, str] = {}
    problems: dict[int, str] = {}
    for m in matches:
        log = directory / m.log_path
        report = validate_file(log)
        if report.status is not Status.VALID or report.doc is None:
            problems[m.record.match_index] = f"{report.status.value}: {report.message}"
            continue
        page = folder / (Path(m.log_path).stem + ".html")
        write_text(page, replay_html(report.doc))
        links[m.record.match_index] = os.path.relpath(page, target.parent).replace(os.sep, "/")
    data = report_data(stored, links, problems)
    write_text(target, render_html(data, "standings"))
    lines = tuple(f"{matches_by_index(matches)[i].log_path}: {why}" for i, why in sorted(problems.items()))
    return ReportWritten(len(matches), len(links), lines)


def matches_by_index(matches: list[StoredMatch]) -> dict[int, StoredMatch]:
    """The stored matches by their schedule index."""
    return {m.record.match_index: m for m in matches}


def report_data(stored: StoredTournament, links: dict[int, str], problems: dict[int, str]) -> dict[str, Any]:
    """The report page's data: tables as cells, series for the charts (complete deal sets, penalised as the
    statistics count them), the matches (every stored one)."""
    matches = list(stored.matches)
    records = [m.record for m in matches]
    counted = stored.counted()
    stats = compute_stats(counted)
    players = [p.name for p in ranked_players(stats)]
    scores: dict[str, list[int]] = {p: [] for p in players}
    for r in map(penalised, counted):
        for seat, player in enumerate(r.seating):
            scores[player].extend(hole[seat] for hole in r.hole_scores)
    history = rating_history(counted)
    standings_head, standings_rows = standings_table(stats)
    pairwise_head, pairwise_rows = pairwise_table(stats)
    ordered = sorted(records, key=lambda r: r.match_index)
    return {
        "version": 1,
        "tournament": stored.name,
        "directory": shown_path(stored.directory),
        "matches_count": stats.matches,
        "deal_sets": stats.deal_sets,
        "confidence": stats.confidence,
        "standings": {"headers": standings_head, "rows": standings_rows},
        "pairwise": {"headers": pairwise_head, "rows": pairwise_rows},
        "ratings": [
            {"name": r.name, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal, 3)}
            for r in sorted(stats.ratings, key=lambda r: -r.ordinal)
        ],
        "players": players,
        "scores": scores,
        "rating_history": [{r.name: round(r.ordinal, 3) for r in snapshot} for snapshot in history],
        "matches": [
            {
                "index": r.match_index,
                "deal_set": r.deal_set,
                "seating": list(r.seating),
                "totals": list(r.totals),
                "placings": list(r.placings),
                "statuses": list(r.statuses),
                "log": matches_by_index(matches)[r.match_index].log_path,
                "replay": links.get(r.match_index),
                "problem": problems.get(r.match_index),
            }
            for r in ordered
        ],
    }
