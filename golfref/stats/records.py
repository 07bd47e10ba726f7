"""What a finished tournament match contributes to the statistics: one `MatchRecord`.

The tournament runner writes one record per match into its store; the statistics read
records back. This module is the contract between them and holds no logic.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MatchRecord", "DISQUALIFIED"]

DISQUALIFIED = "disqualified"
"""The status of a seat a fault ended (the log's, `record.faults.SeatStatus.DISQUALIFIED`): it forfeited the match."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One tournament match, as played: who sat where, and what each seat got."""

    match_index: int
    """The match's place in the tournament's fixed schedule, from 0."""
    deal_set: int
    """The deal set (a block of the statistics): every seating of it sees the same cards."""
    seating: tuple[str, ...]
    """The player (by its name in the tournament's pool) at each seat."""
    hole_scores: tuple[tuple[int, ...], ...]
    """Per hole, per seat: the hole's score (penalties included)."""
    totals: tuple[int, ...]
    """Per seat: the match total."""
    placings: tuple[int, ...]
    """Per seat: the place, 1 best; equal totals share a place; disqualified seats last."""
    statuses: tuple[str, ...]
    """Per seat: ``ok``, ``faulted`` or ``disqualified`` (`DISQUALIFIED`)."""
    faults: tuple[int, ...]
    """Per seat: faults recorded."""
    decision_ms: tuple[tuple[float, ...], ...]
    """Per seat: the thinking time of each of its bot's answered decisions (empty for built-ins)."""
    fallback_holes: tuple[tuple[int, ...], ...]
    """Per seat: its *fallback holes*, ascending: the holes in which the fallback policy made any of
    its decisions, and every hole from the one it was disqualified at (a start failure: every hole).
    Empty for a built-in."""
    fault_kinds: tuple[tuple[str, ...], ...]
    """Per seat: the kind of every fault the log records for it, in order (those after a
    disqualification too, which `faults` does not count)."""
    forfeit_score: int
    """What a fallback hole counts in the statistics: `scoring.forfeit_score` of the match's rules."""
