"""What one seat is sent, built outside a running match: for `check-bot` and `replay-bot`.

Each message is built from the engine through the one gate (`view.view`,
`view.events_for`) and `protocol`, by these functions alone: the referee sends what they
build, so a message built here for check-bot or replay-bot is byte for byte the one the
referee would send at that moment (tests/test_replay_bot.py compares them with a real
match's transcripts).
`log_messages` rebuilds, from a log alone, every message a seat received in that match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..config.match import TimeControl
from ..game.engine import Action, Game, HoleResult
from ..game.fast import enum_value
from ..game.rules import Rules
from ..game.view import events_for, view
from . import protocol

__all__ = ["EventMark", "request_line", "hole_end_line", "Expected", "SeatMessage", "log_messages"]

EventMark = tuple[int, int]
"""(hole, index into that hole's events) already sent to a seat, as the referee keeps it."""


def request_line(game: Game, seat: int, request_id: int, mark: EventMark, time_ms: int) -> tuple[str, EventMark]:
    """The request the referee sends `seat` (to move) now, and the seat's event mark after it."""
    hole, start = mark
    events = events_for(game, seat, start if hole == game.hole else 0)
    _, decision = game.turn()
    legal = [a.text for a in game.legal_actions()]
    line = protocol.request(request_id, enum_value(decision), view(game, seat).to_json(), events, legal, time_ms)
    return line, (game.hole, len(game.events))


def hole_end_line(game: Game, result: HoleResult, seat: int, mark: EventMark, card_names: Sequence[str]) -> str:
    """The hole_end notice the referee sends `seat` right after `result` was scored."""
    hole, start = mark
    events = events_for(game, seat, start if hole == result.hole else 0, finished=True)
    return protocol.hole_end(result, card_names, events)


@dataclass(frozen=True)
class Expected:
    """What the log says came of one request: the action the bot chose, or the fault it made."""

    action: str | None
    """The bot's action, when the bot's answer was applied."""
    fault: str | None
    """The kind of the fault recorded for the request (`illegal_action`, `exited`...), when it faulted."""
    fault_line: str | None = None
    """The offending line the fault recorded, if any."""

    def describe(self) -> str:
        """The logged outcome in words."""
        if self.action is not None:
            return f"answered {self.action!r}"
        line = f", the bot sent {self.fault_line}" if self.fault_line else ""
        return f"it faulted ({self.fault}{line})"


@dataclass(frozen=True)
class SeatMessage:
    """One line the referee sent a seat, with what the log says came of it (requests only)."""

    kind: str
    """The message's type: hello, request, hole_end, match_end or goodbye."""
    line: str
    request: int | None = None
    hole: int | None = None
    expected: Expected | None = None


def _time_budgets(doc: dict[str, Any], seat: int) -> dict[int, int]:
    """Each request's `time_ms` for `seat`, re-derived from the time control and the logged decision times.

    The referee charges a decision's time over `move_ms` to the bank; the log keeps times to
    0.01 ms, so a budget with a bank or a match limit in play may come out 1 ms off.
    """
    tc = doc["time_control"]
    move, bank, increment, match = tc["move_ms"], tc["bank_ms"], tc["increment_ms"], tc.get("match_ms", 0)
    kinds = {f["request"]: f["kind"] for f in doc["faults"] if f["seat"] == seat and f["request"] is not None}
    used = 0.0
    budgets: dict[int, int] = {}
    for hole in doc["holes"]:
        for step in hole["steps"]:
            rid = step.get("request")
            if rid is None or step.get("seat") != seat:
                continue
            budget = move + bank
            if match:
                budget = min(budget, max(0, int(match - used)))
            budgets[rid] = budget
            ms = float(step.get("ms") or 0.0)
            used += ms
            kind = kinds.get(rid)
            if kind == "timeout":
                bank = 0
            elif step["by"] == "bot" or kind == "illegal_action":
                over = ms - move
                if over > 0:
                    bank = max(0, bank - int(over))
                bank += increment
    return budgets


def _cut(doc: dict[str, Any], seat: int) -> tuple[bool, int | None, int | None]:
    """Whether the seat was disqualified, and where: (disqualified, request, hole)."""
    player = doc["players"][seat]
    if player.get("status") != "disqualified":
        return False, None, None
    at = player.get("disqualified_at") or {}
    return True, at.get("request"), at.get("hole")


def log_messages(doc: dict[str, Any], rules: Rules, seat: int) -> list[SeatMessage]:
    """Every message `seat` (a bot) was sent in the logged match, rebuilt through the engine and the one gate.

    `doc` must be a log that validates (`replay.validate`). A disqualified seat's messages
    stop at the request (or the hole) where it was disqualified, as the referee's did.
    """
    names = doc["cards"]
    ids = {name: i for i, name in enumerate(names)}
    players = [p["name"] for p in doc["players"]]
    # The log keeps the time control with its keys sorted; hello has them in the referee's order.
    time_control = TimeControl(**doc["time_control"]).to_json()
    out = [SeatMessage("hello", protocol.hello(seat, players, protocol.hello_rules(rules), time_control))]
    faults: dict[int, dict[str, Any]] = {}
    for f in doc["faults"]:
        if f["seat"] == seat and f["request"] is not None:
            faults.setdefault(f["request"], f)
    budgets = _time_budgets(doc, seat)
    disqualified, cut_request, cut_hole = _cut(doc, seat)
    if disqualified and cut_request is None and cut_hole is None:
        return out  # before its first hole: it never said ready
    game = Game(rules)
    mark: EventMark = (0, 0)
    for h, hole in enumerate(doc["holes"]):
        game.apply_shuffle([ids[n] for n in hole["deal"]])
        for step in hole["steps"]:
            if "reshuffle" in step:
                game.apply_shuffle([ids[n] for n in step["reshuffle"]])
                continue
            rid = step["request"]
            if rid is not None and step["seat"] == seat:
                line, mark = request_line(game, seat, rid, mark, budgets[rid])
                if step["by"] == "bot":
                    expected = Expected(step["action"], None)
                else:
                    fault = faults.get(rid, {})
                    expected = Expected(None, fault.get("kind", "unknown"), fault.get("line"))
                out.append(SeatMessage("request", line, rid, h, expected))
                if rid == cut_request:
                    return out
            game.apply(Action.parse(step["action"]))
        if len(game.results) > h:
            if cut_request is None and cut_hole is not None and cut_hole <= h:
                return out
            out.append(SeatMessage("hole_end", hole_end_line(game, game.results[h], seat, mark, names), hole=h))
    if disqualified:
        return out
    if game.over and doc.get("complete"):
        out_seats = [p["seat"] for p in doc["players"] if p["status"] == "disqualified"]
        out.append(SeatMessage("match_end", protocol.match_end(doc["totals"], doc["placings"], out_seats)))
        out.append(SeatMessage("goodbye", protocol.goodbye()))
    return out
