"""The live line `golfref run` shows on a terminal while a hole is in play.

One line on stderr, redrawn by rich (`rich.live`) a few times a second: the hole and the
turn in play (both counted from 0), the match totals so far, the time elapsed and an
estimate of what is left. It is gone when the match ends; the hole-end lines stay above it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.live import Live
from rich.text import Text

from ..game.narrate import hole_label
from .terminal import sanitize

if TYPE_CHECKING:
    from ..game.engine import Game, HoleResult

__all__ = ["LiveProgress", "clock_text", "estimate_left", "progress_text"]


def clock_text(seconds: float) -> str:
    """`m:ss`, or `h:mm:ss` from an hour on."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def estimate_left(elapsed: float, hole_ends: Sequence[float], holes: int) -> float | None:
    """Seconds left in the match, from the mean time of the holes played so far.

    `hole_ends` holds the elapsed time at the end of each finished hole; None until the
    first hole ends, as nothing yet says how long a hole of this match takes.
    """
    if not hole_ends:
        return None
    per_hole = hole_ends[-1] / len(hole_ends)
    in_this_hole = elapsed - hole_ends[-1]
    return max(0.0, per_hole * (holes - len(hole_ends)) - in_this_hole)


def progress_text(
    hole: int,
    holes: int,
    turn: int,
    names: Sequence[str],
    totals: Sequence[int],
    elapsed: float,
    left: float | None,
) -> str:
    """The live line: `hole 2 of 0-8 · turn 14 · 0:42 elapsed, ~1:05 left · totals: a 12, b 30`.

    The totals come last: a narrow terminal cuts them rather than the clock.
    """
    scores = ", ".join(f"{sanitize(n)} {t}" for n, t in zip(names, totals, strict=True))
    estimate = "estimating the rest" if left is None else f"~{clock_text(left)} left"
    return f"{hole_label(hole, holes)} · turn {turn} · {clock_text(elapsed)} elapsed, {estimate} · totals: {scores}"


class LiveProgress:
    """The live line of one match; a context manager around `run_match`."""

    def __init__(
        self,
        names: Sequence[str],
        holes: int,
        console: Console | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.names = tuple(names)
        self.holes = holes
        self.clock = clock
        self.t0 = clock()
        self.hole_ends: list[float] = []
        # What the line shows, replaced whole on the main thread and read by rich's refresh
        # thread: one assignment, so the thread never sees half an update.
        self.state: tuple[int, int, tuple[int, ...]] | None = None
        self.live = Live(
            console=console or Console(stderr=True),
            get_renderable=self._render,
            transient=True,
            refresh_per_second=4,
            redirect_stdout=False,
            redirect_stderr=True,  # the hole-end lines print above the live line
        )

    def _render(self) -> Text:
        if self.state is None:
            return Text("starting the bots...", no_wrap=True, overflow="ellipsis")
        hole, turn, totals = self.state
        elapsed = self.clock() - self.t0
        line = progress_text(
            hole, self.holes, turn, self.names, totals, elapsed, estimate_left(elapsed, self.hole_ends, self.holes)
        )
        return Text(line, no_wrap=True, overflow="ellipsis")

    def on_turn(self, game: Game) -> None:
        """Called by the referee before each decision."""
        new_hole = self.state is None or self.state[0] != game.hole
        self.state = (game.hole, sum(game.turns), tuple(game.totals))
        if new_hole:  # at least one drawing per hole, however fast the holes go
            self.live.refresh()

    def on_hole(self, result: HoleResult) -> None:
        """Called when a hole has ended: its time feeds the estimate."""
        self.hole_ends.append(self.clock() - self.t0)

    def __enter__(self) -> LiveProgress:
        self.live.start(refresh=True)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.live.stop()
