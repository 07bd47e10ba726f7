"""What a finished tournament match contributes to the statistics: one `MatchRecord`.

The tournament runner writes one record per match into its store; the statistics read
records back. This module is the contract between them and holds no logic.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MatchRecord"]


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
    """Per seat: ``ok``, ``faulted`` or ``disqualified``."""
    faults: tuple[int, ...]
    """Per seat: faults recorded."""
    decision_ms: tuple[tuple[float, ...], ...]
    """Per seat: the thinking time of each of its bot's answered decisions (empty for built-ins)."""
