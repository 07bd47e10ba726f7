"""A tournament as one HTML report: `golfref standings DIR --html OUT.html` (or `golfref tournament ... --html`).

The report shows first what match runners' users read first (per pair the match count, wins,
draws and losses, the paired outcomes per deal set, an Elo-like effect size with its interval,
the SPRT's hypotheses, bounds and running log-likelihood ratio, the gate's verdict), then the
standings, the pairwise table and a gauntlet's per-opponent table with their intervals drawn as
bars, the tables per seat, per player and seat, per deal set of each pair, how each bot's holes
ended, the ratings and the score distributions, and one row per match linking to its replay page
and to each seat's own page.

The replays are written when the report is (not on demand: a report opened from a file has no
server to make them), into the folder `OUT-replays/` beside the report: for each stored match
whose log validates one page named as its log (`m00003-d1.html`) and one per seat
(`m00003-d1.seat0.html`, holding only what that seat saw), each linking back to the report.
`replays=False` (`--no-replays`) writes none. The tournament directory is only read. A match
whose log is missing or does not validate is listed with the reason and no link.

The numbers are the statistics' own (`golfref.stats`, formatted by `golfref.stats.tables`), over
the complete deal sets as `golfref standings` counts them; the list of matches has every stored
one. docs/TOURNAMENTS.md describes the page.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import LOG_MAX_BYTES, write_text
from ..record.matchlog import MatchLog, as_match_log
from ..record.transcript import read_transcripts
from ..record.validate import Status, validate_file
from ..stats import tables
from ..stats.outcomes import HoleEnding, deal_set_pairs, ending_counts, outcome_of, player_seats
from ..stats.sprt import GateStep, SprtResult
from ..stats.stats import Estimate, penalised, rating_history
from ..tournament.results import TournamentResults
from ..tournament.store import StoredMatch
from .html_replay import render_html, replay_html

__all__ = ["ReportWritten", "write_report", "replays_folder", "report_data", "COLUMN_NOTES"]

REPORT_DATA_VERSION = 2
"""The version of the report page's data (`data.version`): 2 added the outcomes, traces and finer tables."""


@dataclass(frozen=True)
class ReportWritten:
    """What `write_report` wrote."""

    matches: int
    replays: int
    """Match replay pages written (matches whose log validated), each with its seats' pages; 0 without replays."""
    problems: tuple[str, ...]
    """One line for each match without a replay: its log and why."""


def replays_folder(target: Path) -> Path:
    """Where the report at `target` keeps its matches' replay pages: `OUT-replays/` beside it."""
    return target.with_name(target.stem + "-replays")


def _link(page: Path, start: Path) -> str:
    return os.path.relpath(page, start).replace(os.sep, "/")


def write_report(results: TournamentResults, target: Path, replays: bool = True) -> ReportWritten:
    """Write the report of `results` to `target` and, with `replays`, every match's replay and seat pages.

    Raises OSError when a page cannot be written.
    """
    stored = results.stored
    folder = replays_folder(target)
    links: dict[int, dict[str, Any]] = {}
    problems: dict[int, str] = {}
    logs: dict[int, MatchLog] = {}
    if replays:
        folder.mkdir(parents=True, exist_ok=True)
    for m in stored.matches:
        # A path the store keeps, not one the user named: never read through a link.
        check = validate_file(stored.directory / m.log_path, follow_links=False)
        if check.status is not Status.VALID or check.doc is None:
            problems[m.record.match_index] = f"{check.status.value}: {check.message}"
            continue
        log = logs[m.record.match_index] = as_match_log(check.doc)
        if not replays:
            continue
        stem = Path(m.log_path).stem
        back = _link(target, folder)
        # The transcripts beside the log, when the tournament kept them; a seat's page gets its own seat's only.
        bots = [p.seat for p in log.players if p.is_bot]
        transcripts, unread = read_transcripts(stored.directory / m.log_path, bots, LOG_MAX_BYTES)
        page = folder / f"{stem}.html"
        write_text(page, replay_html(log, None, transcripts, unread, report=back))
        seats = []
        for seat in range(len(m.record.seating)):
            seat_page = folder / f"{stem}.seat{seat}.html"
            mine = {s: lines for s, lines in transcripts.items() if s == seat}
            why = {s: text for s, text in unread.items() if s == seat}
            write_text(seat_page, replay_html(log, seat, mine, why, report=back))
            seats.append(_link(seat_page, target.parent))
        links[m.record.match_index] = {"replay": _link(page, target.parent), "seats": seats}
    data = report_data(results, links, problems, logs, replays)
    write_text(target, render_html(data, "standings"))
    by_index = {m.record.match_index: m for m in stored.matches}
    lines = tuple(f"{by_index[i].log_path}: {why}" for i, why in sorted(problems.items()))
    return ReportWritten(len(stored.matches), len(links), lines)


COLUMN_NOTES: dict[str, dict[str, str]] = {
    "outcomes": {
        "W, D, L": "A's wins, draws and losses against B: the lower match total wins, equal totals draw, a forfeit "
        "loses (fallback holes at the forfeit score)",
        "score": "A's points per match, a win 1 and a draw 1/2, over deal sets",
        "Elo": "-400 log10(1 / score - 1): positive favours A; its interval is the score's, mapped the same way. "
        "n/a at a sweep (A won or lost every match: a score of 1 or 0 has no finite Elo); the interval is then "
        "one-sided, its end from the exact interval of the share of deal sets swept",
        "paired": "deal sets by A's points over its matches with B in them, from 0 up (with two seatings "
        "0, 1/2, 1, 3/2, 2: fastchess's pentanomial counts)",
    },
    "standings": {
        "score/hole": "mean points per hole over the player's deal sets, lower is better; a fallback hole counts "
        "the forfeit score",
        "place": "mean place, 1 best",
        "wins": "share of its matches won, a shared first place split",
        "fb holes": "holes the fallback played for its bot, or after a disqualification: each at the forfeit score",
        "ordinal, mu, sigma": "openskill ratings from placings alone; they do not order the table",
        "median ms, p95 ms": "its bot's thinking time per decision",
    },
    "pairwise": {
        "A-B /hole": "A's points per hole minus B's over the deal sets both played: negative favours A",
        "LOS(A)": "the chance A is the better player (Student's t, as the interval)",
        "SD paired, SD unpaired": "the spread of a deal set's difference, with the shared cards and as if dealt "
        "apart; their ratio says how much luck duplicate deals removed",
    },
    "gauntlet": {
        "diff /hole": "the challenger's points per hole minus this opponent's, over the deal sets they shared: "
        "negative favours the challenger (one opponent at a time, never a mix)",
        "LOS": "the chance the challenger is the better of the two",
    },
    "seats": {
        "vs table": "the seat's points per hole minus the mean of all seats in the same matches: the seat's own "
        "advantage, without the cards' luck",
    },
    "player_seats": {
        "score/hole": "the player's points per hole at this seat index, over deal sets (penalised)",
    },
    "deal_sets": {
        "A-B /hole": "one deal set's difference: the number the pairwise table and the SPRT average",
        "A points": "A's points over the deal set's matches with B (a win 1, a draw 1/2): its paired outcome",
    },
    "endings": {
        "closed": "holes it ended with a full face-up grid",
        "knocked": "holes it ended by knocking",
        "caught": "of the holes it ended, those where another grid scored as low or lower",
        "beat ender": "of the holes another seat ended, those where its own grid scored the strictly lowest",
        "turn limit": "holes that ran to the turn limit",
    },
}
"""One line per column whose meaning is not obvious, per table: the page shows them under the table."""


def _num(value: float | None) -> float | None:
    """A JSON number (rounded), or None for none or an infinite value (the cells carry the text)."""
    return None if value is None or not math.isfinite(value) else round(value, 4)


def _bar(label: str, est: Estimate | None) -> dict[str, Any] | None:
    if est is None:
        return None
    return {"label": label, "mean": _num(est.mean), "low": _num(est.low), "high": _num(est.high), "n": est.n}


def _sprt(results: TournamentResults) -> dict[str, Any] | None:
    rule, steps = results.sprt_rule, results.sprt_steps
    last: SprtResult | None = results.sprt
    if rule is None or last is None:
        return None
    c = last.config
    return {
        "player": rule.player,
        "baseline": rule.baseline,
        "d0": c.d0,
        "d1": c.d1,
        "alpha": c.alpha,
        "beta": c.beta,
        "lower": _num(last.lower),
        "upper": _num(last.upper),
        "state": last.describe(),
        "verdict": None if results.sprt_player is None else last.verdict_line(results.sprt_player),
        "decides": results.sprt_player is not None,
        "lines": tables.sprt_lines(steps, rule.player, rule.baseline),
        "trace": [{"blocks": s.blocks, "llr": _num(s.llr), "mean": _num(s.mean)} for s in steps],
    }


def _gate(results: TournamentResults) -> dict[str, Any] | None:
    if results.gate is None:
        return None
    g = results.gate.gate
    steps: list[GateStep] = results.gate_steps
    return {
        "player": g.player,
        "baseline": g.baseline,
        "margin": g.margin,
        "confidence": g.confidence,
        "description": g.describe(),
        "verdict": results.gate.verdict.value,
        "message": results.gate.message,
        "trace": [
            {"blocks": s.blocks, "mean": _num(s.mean), "low": _num(s.low), "high": _num(s.high),
             "verdict": s.verdict.value}
            for s in steps
        ],
    }  # fmt: skip


def _endings(logs: dict[int, MatchLog], counted: set[int]) -> list[tuple[tuple[str, ...], list[HoleEnding]]]:
    """Each counted match's seating and hole endings, from its log (the record does not keep them)."""
    out = []
    for index in sorted(i for i in logs if i in counted):
        log = logs[index]
        holes = [
            HoleEnding(h.result.end, h.result.ender, tuple(h.result.raw)) for h in log.holes if h.result is not None
        ]
        out.append((tuple(p.name for p in log.players), holes))
    return out


def report_data(
    results: TournamentResults,
    links: dict[int, dict[str, Any]],
    problems: dict[int, str],
    logs: dict[int, MatchLog],
    replays: bool = True,
) -> dict[str, Any]:
    """The report page's data: tables as cells with their column notes, bars and traces for the charts
    (complete deal sets, penalised as the statistics count them), the matches (every stored one)."""
    stored, stats, counted = results.stored, results.stats, results.counted
    players = [p.name for p in tables.ranked_players(stats)]
    scores: dict[str, list[int]] = {p: [] for p in players}
    for r in map(penalised, counted):
        for seat, player in enumerate(r.seating):
            scores[player].extend(hole[seat] for hole in r.hole_scores)
    history = rating_history(counted)
    pct = f"{stats.confidence:.0%}"

    def table(name: str, head_rows: tuple[list[str], list[list[str]]]) -> dict[str, Any]:
        head, rows = head_rows
        return {"headers": head, "rows": rows, "notes": COLUMN_NOTES.get(name, {})}

    seat_rows = [
        [str(s.seat), str(s.holes), f"{s.score_per_hole.mean:.2f}", tables.interval_text(s.score_per_hole),
         f"{s.effect.mean:+.3f}", tables.interval_text(s.effect, signed=True)]
        for s in stats.seats
    ]  # fmt: skip
    by_player = [
        [p.name, str(p.seat), str(p.matches), str(p.holes), f"{p.score_per_hole.mean:.2f}",
         tables.interval_text(p.score_per_hole)]
        for p in player_seats(counted, stats.confidence)
    ]  # fmt: skip
    deal_sets = []
    for pair in stats.pairs:
        rows = [
            [str(d.deal_set), ", ".join(str(i) for i in d.matches), f"{d.a_per_hole:.3f}", f"{d.b_per_hole:.3f}",
             f"{d.diff:+.3f}", f"{d.points:g}"]
            for d in deal_set_pairs(counted, pair.a, pair.b)
        ]  # fmt: skip
        deal_sets.append({"a": pair.a, "b": pair.b, "headers": ["deal set", "matches", "A /hole", "B /hole",
                                                                "A-B /hole", "A points"], "rows": rows})  # fmt: skip
    endings = ending_counts(_endings(logs, {r.match_index for r in counted}))
    challenger = stored.challenger if stored.challenger is not None and stats.player(stored.challenger) else None
    gauntlet = None
    if challenger is not None:
        gauntlet = {
            "challenger": challenger,
            **table("gauntlet", tables.gauntlet_table(stats, results.outcomes, challenger)),
            "bars": [
                _bar(f"{challenger} - {p.name}", vs.diff)
                for p in stats.players
                if p.name != challenger and (vs := stats.pair(challenger, p.name)) is not None
            ],
        }
    outcome_json = []
    for pair in stats.pairs:
        found = outcome_of(results.outcomes, pair.a, pair.b)
        if found is not None:
            outcome_json.append(found.to_json())
    ordered = sorted(stored.records, key=lambda r: r.match_index)
    by_index: dict[int, StoredMatch] = {m.record.match_index: m for m in stored.matches}
    return {
        "version": REPORT_DATA_VERSION,
        "tournament": stored.name,
        "directory": results.shown,
        "matches_count": stats.matches,
        "stored": len(stored.records),
        "left_out": results.left_out,
        "deal_sets": stats.deal_sets,
        "confidence": stats.confidence,
        "duplicate_deals": tables.duplicate_deals_line(stats, stored.duplicate_deals),
        "outcomes": {**table("outcomes", tables.outcome_table(stats, results.outcomes)), "pairs": outcome_json},
        "standings": table("standings", tables.standings_table(stats)),
        "standings_bars": [_bar(p.name, p.score_per_hole) for p in tables.ranked_players(stats)],
        "pairwise": table("pairwise", tables.pairwise_table(stats)),
        "pairwise_bars": [_bar(f"{p.a} - {p.b}", p.diff) for p in stats.pairs],
        "gauntlet": gauntlet,
        "seats": {"headers": ["seat", "holes", "score/hole", f"{pct} CI", "vs table", f"{pct} CI"], "rows": seat_rows,
                  "notes": COLUMN_NOTES["seats"]},  # fmt: skip
        "player_seats": {"headers": ["player", "seat", "matches", "holes", "score/hole", f"{pct} CI"],
                         "rows": by_player, "notes": COLUMN_NOTES["player_seats"]},  # fmt: skip
        "deal_set_pairs": {"tables": deal_sets, "notes": COLUMN_NOTES["deal_sets"]},
        "endings": {
            "headers": ["player", "holes", "closed", "knocked", "caught", "ended by others", "beat ender",
                        "turn limit"],
            "rows": [[e.name, str(e.holes), str(e.closed), str(e.knocked), str(e.caught), str(e.ended_by_others),
                      str(e.beat_ender), str(e.turn_limit)] for e in endings],
            "notes": COLUMN_NOTES["endings"],
            "logs": sum(1 for r in counted if r.match_index in logs),
        },  # fmt: skip
        "sprt": _sprt(results),
        "gate": _gate(results),
        "ratings": [
            {"name": r.name, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal, 3)}
            for r in sorted(stats.ratings, key=lambda r: -r.ordinal)
        ],
        "players": players,
        "scores": scores,
        "rating_history": [{r.name: round(r.ordinal, 3) for r in snapshot} for snapshot in history],
        "replays": replays,
        "matches": [
            {
                "index": r.match_index,
                "deal_set": r.deal_set,
                "seating": list(r.seating),
                "totals": list(r.totals),
                "placings": list(r.placings),
                "statuses": list(r.statuses),
                "log": by_index[r.match_index].log_path,
                "replay": links.get(r.match_index, {}).get("replay"),
                "seat_pages": links.get(r.match_index, {}).get("seats", []),
                "problem": problems.get(r.match_index),
            }
            for r in ordered
        ],
    }
