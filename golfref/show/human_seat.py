"""A person at the terminal playing one seat (`builtin: human`, `golfref play`).

The human seat gets exactly the messages a bot in its seat would get (the request with
its view, events and legal choices; hole_end; match_end), built by the referee through
the one gate, and draws only from them (`pretty.SeatScreen`): it cannot show a card the
seat has not seen. It numbers the legal choices and reads one line per decision: the
number, or the choice as the protocol writes it (`swap:2`); anything else is asked again
with a one-line reason.

The clock: a person is never timed out. The seat has no deadline (a bot's limits are for
programs), its thinking time is counted and shown beside each bot's clock, and the bots'
limits are unchanged. End of input (Ctrl-D) raises `match.seat.SeatLeft`, which stops the match as
Ctrl-C does: the bots are stopped and the log is kept as an interrupted match.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ..game.rules import Rules
from ..match.seat import Clock, SeatLeft
from .terminal import sanitize

if TYPE_CHECKING:
    from .pretty import SeatScreen

__all__ = ["HumanSeat"]


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s"


class HumanSeat:
    """Draws a seat's messages on a terminal and reads the person's choices (a `match.seat.TerminalSeat`)."""

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        seat: int,
        *,
        stdin: TextIO,
        stdout: TextIO,
        color: bool = False,
        ascii_only: bool = False,
        width: int | None = None,
    ) -> None:
        # Imported here: only a match with a person in it needs rich's drawing.
        from .pretty import DEFAULT_WIDTH, SeatScreen

        self.screen: SeatScreen = SeatScreen(
            rules, names, seat, color=color, ascii_only=ascii_only, width=DEFAULT_WIDTH if width is None else width
        )
        self.seat = seat
        self.stdin = stdin
        self.stdout = stdout
        self.used_ms = 0.0
        self._hole: int | None = None
        # The events of this seat's turn in progress, told again (whole) with the next message.
        self._turn: list[dict[str, Any]] = []

    def _say(self, lines: Sequence[str] | str) -> None:
        for line in [lines] if isinstance(lines, str) else lines:
            self.stdout.write(line + "\n")
        self.stdout.flush()

    def decide(self, request: dict[str, Any], clocks: Sequence[Clock] = ()) -> str:
        """Draw a request (the JSON a bot would get), read a legal choice and return it as written."""
        view, legal = request["view"], request["legal"]
        screen = self.screen
        out = [""]
        if view["hole"] != self._hole:
            self._hole = view["hole"]
            out += [screen.hole_title(view["hole"], view["starter"])]
        events = self._turn + request["events"]
        self._turn = []
        if view["decision"] not in ("draw", "reveal"):
            own = [i for i, e in enumerate(events) if e["event"] == "draw" and e["seat"] == self.seat]
            start = own[-1] if own else len(events)
            self._turn = events[start:]
        out += screen.events(events)
        out += screen.table(view)
        out += [self._clock_line(clocks), self._situation(view)]
        out += [f"  {i:>2}  {self._describe(action, view)}" for i, action in enumerate(legal, 1)]
        self._say(out)
        started = time.monotonic()
        try:
            return self._read_choice(legal)
        finally:
            self.used_ms += (time.monotonic() - started) * 1000

    def _read_choice(self, legal: Sequence[str]) -> str:
        while True:
            self.stdout.write(f"choice (1-{len(legal)})> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self._say("")
                raise SeatLeft("the human seat's input ended")
            entry = line.strip()
            if entry in legal:
                return entry
            if entry.isdigit() and 1 <= int(entry) <= len(legal):
                return legal[int(entry) - 1]
            # The entry is echoed back, cut and with control characters made visible.
            why = "nothing entered" if not entry else f"'{sanitize(entry[:20])}' is not a choice"
            self._say(f"  {why}: enter a number from 1 to {len(legal)}, or a choice as written ({legal[0]})")

    def _clock_line(self, clocks: Sequence[Clock]) -> str:
        names = self.screen.names
        parts = [f"you {_seconds(self.used_ms)} (untimed)"]
        for c in clocks:
            bank = f", bank {_seconds(c.bank_ms)}" if c.bank_ms else ""
            parts.append(f"{names[c.seat]} {_seconds(c.used_ms)} used, {_seconds(c.move_ms)} a move{bank}")
        return "clocks   " + " · ".join(parts)

    def _situation(self, view: dict[str, Any]) -> str:
        decision = view["decision"]
        card = self.screen.card
        if decision == "place":
            return f"your move: place the {card(view['drawn'])} drawn from the {view['drawn_from']}"
        if decision == "target":
            power = {"J": "peek at one of your cards", "Q": "peek at any card", "K": "swap two cards"}
            first = view.get("first_target")
            also = f" (first: {self._slot(first[0], first[1])})" if first is not None else ""
            return f"your move: the {view['power']}'s power, {power.get(view['power'], 'a target')}{also}"
        return {
            "reveal": "your move: choose a card to reveal",
            "draw": "your move: draw",
            "flip": "your move: flip a face-down card",
        }.get(decision, f"your move: {decision}")

    def _slot(self, seat: int, slot: int) -> str:
        return f"your slot {slot}" if seat == self.seat else f"{self.screen.names[seat]}'s slot {slot}"

    def _describe(self, action: str, view: dict[str, Any]) -> str:
        """A legal choice as written, and what it does in words."""
        card = self.screen.card
        kind, _, rest = action.partition(":")
        own = view["grids"][self.seat]
        if kind == "stock":
            what = "draw from the stock"
        elif kind == "discard":
            what = f"take the discard {card(view['discard'][-1])}"
        elif kind == "knock":
            what = "knock: everyone else has one more turn"
        elif kind == "throw":
            what = "throw it away"
        elif kind == "power":
            what = "throw it away and use its power"
        elif kind == "pass":
            what = "flip nothing"
        elif kind in ("swap", "reveal", "flip"):
            verb = {"swap": "swap it into", "reveal": "reveal", "flip": "flip"}[kind]
            slot = int(rest)
            what = f"{verb} slot {slot} ({card(own[slot])})"
        elif kind == "target":
            seat, slot = (int(n) for n in rest.split(":"))
            what = f"{self._slot(seat, slot)} ({card(view['grids'][seat][slot])})"
        else:
            what = ""
        return f"{action:<10} {what}".rstrip()

    def hole_end(self, message: dict[str, Any]) -> None:
        """Draw a hole_end notice."""
        events = self._turn + message.get("events", [])
        self._turn = []
        self._say(["", *self.screen.hole_end({**message, "events": events})])

    def match_end(self, message: dict[str, Any]) -> None:
        """Draw a match_end notice: the totals and places."""
        names = self.screen.names
        ranked = sorted(range(len(names)), key=lambda s: message["placings"][s])
        parts = [f"{message['placings'][s]}. {names[s]} {message['totals'][s]}" for s in ranked]
        self._say(["", "match over: " + ", ".join(parts)])
