"""The progress display `golfref tournament` draws on a terminal: a bar (matches done, ETA, faults) and live standings.

The standings are the statistics' own numbers (`golfref.stats.stats`), recomputed at most
twice a second.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..stats.stats import compute_stats
from ..stats.tables import ranked_players
from ..tournament.runner import Progress as TournamentProgress
from .terminal import sanitize

__all__ = ["LiveTournament"]

_STANDINGS_EVERY = 0.5  # s between recomputations of the live standings


class LiveTournament:
    """A rich Live display on stderr; `update` is the tournament's progress callback."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = [sanitize(p) for p in players]
        self.bar = Progress(
            TextColumn("matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("faults {task.fields[faults]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self.task = self.bar.add_task("matches", total=None, faults=0)
        self.table = Table()
        # No refresh thread: the tournament forks its workers after the display starts, and
        # a fork must not copy a thread that may hold the console's lock.
        self.live = Live(Group(self.bar, self.table), console=Console(stderr=True), auto_refresh=False)
        self.last = 0.0

    def __enter__(self) -> LiveTournament:
        self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.live.__exit__(kind, exc, tb)

    def update(self, progress: TournamentProgress) -> None:
        """Move the bar; refresh the standings now and then."""
        self.bar.update(self.task, total=progress.total, completed=progress.done, faults=progress.faults)
        now = time.monotonic()
        if now - self.last < _STANDINGS_EVERY and progress.done < progress.total:
            self.live.refresh()
            return
        self.last = now
        if not progress.records:
            self.live.refresh()
            return
        stats = compute_stats(progress.records)
        table = Table("player", "points/hole", "mean place", "wins", "faults")
        for p in ranked_players(stats):  # by score per hole, as the final standings
            per_hole = "-" if p.score_per_hole is None else f"{p.score_per_hole.mean:.2f}"
            table.add_row(sanitize(p.name), per_hole, f"{p.mean_placing:.2f}", f"{p.win_share:.0%}", str(p.faults))
        self.live.update(Group(self.bar, table), refresh=True)
