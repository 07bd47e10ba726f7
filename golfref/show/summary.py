"""Results as people and programs read them: a scored grid, a match's standings and faults.

The command line prints these lines and objects; they are built here so that the CLI stays
a shell and other front ends (a tournament runner, a viewer) print the same thing. Text a
bot controls goes through `terminal.sanitize`. Cheap to import: `golfref score` uses it at
start-up, so the referee is imported only for typing and by `fault_lines` when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..game.cards import Card
from ..game.scoring import GridScore, block_slots
from ..record.stderr import TERMINAL_STDERR_LINES, stderr_lines, stderr_tail_lines
from .terminal import sanitize

if TYPE_CHECKING:
    from ..game.rules import Rules
    from ..match.referee import MatchResult
    from ..record.faults import Fault
    from ..tournament.runner import BotChange, PlayerFaults

__all__ = [
    "fault_lines",
    "score_json",
    "score_lines",
    "standings_lines",
    "summary_json",
    "kind_counts",
    "tournament_fault_lines",
    "bot_change_lines",
]

REPORT_LINE = 120
"""Characters of a bot's offending line shown on the terminal."""
SHOWN_MATCHES = 5
"""Match indexes a tournament's fault summary lists per kind on the terminal (JSON has them all)."""


def _label(card: Card) -> str:
    return card.pretty if card.suit else card.rank.label


def score_json(grid: Sequence[Sequence[Card]], result: GridScore, preset: str) -> dict[str, Any]:
    """The object `golfref score --json` prints for a scored grid."""
    n_rows, n_cols = len(grid), len(grid[0])
    return {
        "score": result.total,
        "layout": f"{n_rows}x{n_cols}",
        "preset": preset,
        "points": [list(result.points[r * n_cols : (r + 1) * n_cols]) for r in range(n_rows)],
        "cancelled": [{"kind": line.kind, "index": line.index, "slots": list(line.slots)} for line in result.cancelled],
        "blocks": list(result.blocks),
    }


def score_lines(grid: Sequence[Sequence[Card]], result: GridScore, rules: Rules, explain: bool) -> list[str]:
    """What `golfref score` prints: the total; with `explain`, the cancelled lines, blocks and each card's points."""
    lines = [str(result.total)]
    if not explain:
        return lines
    n_cols = len(grid[0])
    labels = [_label(card) for row in grid for card in row]
    for line in result.cancelled:
        cards = " ".join(labels[s] for s in line.slots)
        lines.append(f"cancelled: {line} ({cards})")
    for top_left in result.blocks:
        square = block_slots(top_left, n_cols)
        lines.append(f"block: {' '.join(labels[s] for s in square)} scores {rules.block_bonus}")
    if result.bonus:
        lines.append(f"column bonus: {result.bonus:+d} (two_column_bonus, jack_columns_bonus)")
    width = max(len(label) for label in labels)
    for r in range(len(grid)):
        cells = [f"{labels[s]:>{width}} {result.points[s]:>3}" for s in range(r * n_cols, (r + 1) * n_cols)]
        lines.append("   ".join(cells))
    return lines


def kind_counts(kinds: Sequence[str]) -> dict[str, int]:
    """How many faults of each kind, in order of first appearance."""
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())


def _stderr(result: MatchResult, seat: int) -> str:
    """What the seat's bot wrote to stderr, as its log keeps it ("" for none)."""
    from ..record.matchlog import read_match_log

    return read_match_log(result.log).players[seat].stderr or ""


def _stderr_tail(result: MatchResult, seat: int) -> list[str]:
    return stderr_tail_lines(_stderr(result, seat), TERMINAL_STDERR_LINES)


def summary_json(result: MatchResult) -> dict[str, Any]:
    """The machine-readable summary `golfref run --json` prints: what the text shows, faults included."""
    from ..record.faults import fault_hint
    from ..record.matchlog import read_match_log

    players = []
    for i, name in enumerate(result.names):
        faults = [f for f in result.faults if f.seat == i]
        players.append({
            "seat": i,
            "name": name,
            "status": result.statuses[i].value,
            "faults": len(faults),
            "fault_kinds": kind_counts([f.kind.value for f in faults]),
            "first_fault": None if not faults else {**faults[0].to_json(),
                                                    "hint": fault_hint(faults[0], _stderr(result, i))},
            "stderr_tail": _stderr_tail(result, i) if faults else [],
            "holes": [h[i] for h in result.hole_scores],
            "total": result.totals[i],
            "place": result.placings[i],
        })  # fmt: skip
    log = read_match_log(result.log)
    return {
        "match_id": log.match_id,
        "log": str(result.log_path),
        "seed": log.seed,
        "players": players,
        "faults": [f.to_json() for f in result.faults],
    }


def standings_lines(result: MatchResult) -> list[str]:
    """The standings table `golfref run` prints, best place first."""
    names = [sanitize(n) for n in result.names]
    holes = len(result.hole_scores)
    width = max(6, *(len(n) for n in names))
    head = (
        f"{'place':<5}  {'player':<{width}}  "
        + " ".join(f"{h:>4}" for h in range(holes))
        + f"  {'total':>5}  status"
    )
    lines = [head]
    order = sorted(range(len(names)), key=lambda s: (result.placings[s], s))
    for s in order:
        cells = " ".join(f"{h[s]:>4}" for h in result.hole_scores)
        status = result.statuses[s].value
        count = sum(1 for f in result.faults if f.seat == s)
        if count:
            status += f" ({count} fault{'s' if count != 1 else ''})"
        lines.append(f"{result.placings[s]:<5}  {names[s]:<{width}}  {cells}  {result.totals[s]:>5}  {status}")
    for f in result.faults:
        where = f"hole {f.hole}" if f.hole is not None else "match"
        req = f", request {f.request}" if f.request is not None else ""
        lines.append(f"fault: {names[f.seat]}: {f.kind.value} ({where}{req}): {sanitize(f.message)}")
    lines.append(f"log: {result.log_path}")
    return lines


def fault_lines(result: MatchResult) -> list[str]:
    """What a bot author needs to see of each faulted seat: its first fault's line, a hint, its stderr's tail."""
    from ..game.rules import rules_from_dict
    from ..record.faults import EXPLAINED, SeatStatus, explain_disqualification, explain_fault, fault_hint
    from ..record.matchlog import read_match_log

    log = read_match_log(result.log)
    rules = rules_from_dict(log.rules)
    waited = {s.request: s.ms for _, s in log.decisions() if s.request is not None}
    lines: list[str] = []
    for seat, name in enumerate(result.names):
        faults: list[Fault] = [f for f in result.faults if f.seat == seat]
        if not faults:
            continue
        first = faults[0]
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        lines.append(f"golfref: {sanitize(name)} (seat {seat}): {first.kind.value}{more}: {sanitize(first.message)}")
        if len(faults) > 1:
            lines.append(f"  faults by kind: {_counts_text(kind_counts([f.kind.value for f in faults]))}")
        if first.line is not None:
            shown = sanitize(first.line)
            if len(shown) > REPORT_LINE:
                shown = shown[:REPORT_LINE] + "..."
            lines.append(f"  the line: {shown}")
        who = f"{name} (seat {seat})"
        if first.kind in EXPLAINED:
            taken = waited.get(first.request) if first.request is not None else None
            why = explain_fault(first, log.time_control, rules.rows * rules.cols, taken, who)
            lines.append(f"  why: {sanitize(why)}")
        lines.append(f"  hint: {fault_hint(first, log.players[seat].stderr or '')}")
        if result.statuses[seat] is SeatStatus.DISQUALIFIED:
            at = log.players[seat].disqualified_at
            request, hole = (at.request, at.hole) if at is not None else (None, None)
            lines.append(f"  {sanitize(explain_disqualification(faults, log.fault_policy, request, hole, who))}")
        tail = _stderr_tail(result, seat)
        if tail:
            lines.append("  its stderr ends with:")
            lines.extend(f"    {sanitize(t)}" for t in tail)
    return lines


def tournament_fault_lines(players: Sequence[PlayerFaults]) -> list[str]:
    """What `golfref tournament` shows after its tables, per player that faulted: faults by kind and the
    matches they were in, forfeits, and the stderr tail of a bot that failed to start or exited."""
    if not players:
        return []
    lines = ["golfref: faults per player (match indexes from 0; each match's log named in the results' logs/):"]
    for p in players:
        forfeits = f"forfeited {p.forfeits} of {p.played} matches" if p.forfeits else "forfeited no match"
        lines.append(f"  {p.player}: {forfeits}; faults by kind: {_counts_text(p.counts())}")
        for kind in p.counts():
            where = p.matches_with(kind)
            shown = ", ".join(str(m.index) for m in where[:SHOWN_MATCHES])
            rest = f" and {len(where) - SHOWN_MATCHES} more" if len(where) > SHOWN_MATCHES else ""
            plural = "es" if len(where) != 1 else ""
            lines.append(f"    {kind}: in match{plural} {shown}{rest} (first: {where[0].log_path})")
        if p.stderr is not None:
            lines.append(f"    its stderr in match {p.stderr.index} ({p.stderr.kind}) ends with:")
            lines.extend(f"      {t}" for t in stderr_lines(p.stderr.tail))
    return lines


def bot_change_lines(found: Sequence[BotChange]) -> list[str]:
    """What `golfref tournament` shows of the matches played with a bot whose files had changed
    (`--allow-bot-changes`): per player and change, the matches."""
    if not found:
        return []
    grouped: dict[str, dict[str, list[int]]] = {}
    for c in found:
        grouped.setdefault(c.player, {}).setdefault(c.change, []).append(c.match_index)
    lines = ["golfref: bots whose files changed during the tournament (allowed; match indexes from 0):"]
    for player, by_change in grouped.items():
        for change, matches in by_change.items():
            shown = ", ".join(str(i) for i in matches[:SHOWN_MATCHES])
            rest = f" and {len(matches) - SHOWN_MATCHES} more" if len(matches) > SHOWN_MATCHES else ""
            plural = "es" if len(matches) != 1 else ""
            lines.append(f"  {player}: in match{plural} {shown}{rest}: {change}")
    return lines
