"""Results as people and programs read them: a scored grid, a match's standings and faults.

The command line prints these lines and objects; they are built here so that the CLI stays
a shell and other front ends (a tournament runner, a viewer) print the same thing. Text a
bot controls goes through `terminal.sanitize`. Cheap to import: `golfref score` uses it at
start-up, so the referee is imported only for typing and by `fault_report` when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .cards import Card
from .scoring import GridScore, block_slots
from .terminal import sanitize

if TYPE_CHECKING:
    from .referee import MatchResult
    from .rules import Rules

__all__ = ["fault_report", "score_json", "score_lines", "standings_lines", "summary_json"]

REPORT_LINE = 120
"""Characters of a bot's offending line shown on the terminal."""
STDERR_TAIL = 8
"""Lines of a bot's stderr shown on the terminal."""


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
    width = max(len(label) for label in labels)
    for r in range(len(grid)):
        cells = [f"{labels[s]:>{width}} {result.points[s]:>3}" for s in range(r * n_cols, (r + 1) * n_cols)]
        lines.append("   ".join(cells))
    return lines


def summary_json(result: MatchResult) -> dict[str, Any]:
    """The machine-readable summary `golfref run --json` prints."""
    return {
        "match_id": result.log["match_id"],
        "log": str(result.log_path),
        "seed": result.log["seed"],
        "players": [
            {
                "seat": i,
                "name": name,
                "status": result.statuses[i].value,
                "faults": sum(1 for f in result.faults if f.seat == i),
                "holes": [h[i] for h in result.hole_scores],
                "total": result.totals[i],
                "place": result.placings[i],
            }
            for i, name in enumerate(result.names)
        ],
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


def fault_report(result: MatchResult) -> list[str]:
    """What a bot author needs to see of each faulted seat: its first fault's line, a hint, its stderr's tail."""
    from .referee import fault_hint

    lines: list[str] = []
    for seat, name in enumerate(result.names):
        faults = [f for f in result.faults if f.seat == seat]
        if not faults:
            continue
        first = faults[0]
        more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
        lines.append(f"golfref: {sanitize(name)} (seat {seat}): {first.kind.value}{more}: {sanitize(first.message)}")
        if first.line is not None:
            shown = sanitize(first.line)
            if len(shown) > REPORT_LINE:
                shown = shown[:REPORT_LINE] + "..."
            lines.append(f"  the line: {shown}")
        lines.append(f"  hint: {fault_hint(first)}")
        stderr = result.log["players"][seat].get("stderr") or ""
        tail = stderr.rstrip("\n").splitlines()[-STDERR_TAIL:]
        if tail:
            lines.append("  its stderr ends with:")
            lines.extend(f"    {sanitize(t)}" for t in tail)
    return lines
