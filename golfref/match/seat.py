"""What a seat at the terminal offers the match loop (`builtin: human`), and what it is shown of the bots' clocks.

The match loop defines the seam and the command line passes in the seat (golfref.show.human_seat's
`HumanSeat`, from a `SeatFactory`): the referee never draws a screen itself. A seat gets exactly the
messages a bot in its place would get, as JSON values, and is never timed out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Clock", "SeatFactory", "SeatLeft", "TerminalSeat"]


class SeatLeft(KeyboardInterrupt):
    """The person at a human seat ended its input: the match stops as at Ctrl-C, for this reason."""


@dataclass(frozen=True)
class Clock:
    """One bot's clock as the human seat shows it (the referee's figures, in milliseconds)."""

    seat: int
    used_ms: float
    move_ms: int
    bank_ms: int


class TerminalSeat(Protocol):
    """A person's seat: the referee asks it for decisions and tells it each hole's and the match's end."""

    def decide(self, request: dict[str, Any], clocks: Sequence[Clock] = ()) -> str:
        """A legal choice, as written, for a request (the JSON a bot would get); `SeatLeft` when the person left."""
        ...

    def hole_end(self, message: dict[str, Any]) -> None:
        """Take a hole_end notice (the JSON a bot would get)."""
        ...

    def match_end(self, message: dict[str, Any]) -> None:
        """Take a match_end notice (the JSON a bot would get)."""
        ...


SeatFactory = Callable[[int, tuple[str, ...]], TerminalSeat]
"""Makes the terminal seat of a `builtin: human` player, from its seat and the players' names."""
