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

from ..game.engine import Action, Game, HoleResult
from ..game.fast import enum_value
from ..game.rules import Rules
from ..game.view import events_for, view
from ..record.faults import Fault, FaultKind, SeatStatus
from ..record.matchlog import (
    Chooser,
    DecisionStep,
    DisqualifiedAt,
    LogLike,
    MatchLog,
    ReshuffleStep,
    as_match_log,
)
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


def _time_budgets(log: MatchLog, seat: int) -> dict[int, int]:
    """Each request's `time_ms` for `seat`, re-derived from the time control and the logged decision times.

    The referee charges a decision's time over `move_ms` to the bank; the log keeps times to
    0.01 ms, so a budget with a bank or a match limit in play may come out 1 ms off.
    """
    tc = log.time_control
    move, bank, increment, match = tc.move_ms, tc.bank_ms, tc.increment_ms, tc.match_ms
    kinds = {f.request: f.kind for f in log.seat_faults(seat) if f.request is not None}
    used = 0.0
    budgets: dict[int, int] = {}
    for _, step in log.decisions():
        rid = step.request
        if rid is None or step.seat != seat:
            continue
        budget = move + bank
        if match:
            budget = min(budget, max(0, int(match - used)))
        budgets[rid] = budget
        ms = float(step.ms or 0.0)
        used += ms
        kind = kinds.get(rid)
        if kind is FaultKind.TIMEOUT:
            bank = 0
        elif step.by is Chooser.BOT or kind is FaultKind.ILLEGAL_ACTION:
            over = ms - move
            if over > 0:
                bank = max(0, bank - int(over))
            bank += increment
    return budgets


def _cut(log: MatchLog, seat: int) -> tuple[bool, int | None, int | None]:
    """Whether the seat was disqualified, and where: (disqualified, request, hole)."""
    player = log.players[seat]
    if player.status is not SeatStatus.DISQUALIFIED:
        return False, None, None
    at = player.disqualified_at or DisqualifiedAt(None, None)
    return True, at.request, at.hole


def log_messages(doc: LogLike, rules: Rules, seat: int) -> list[SeatMessage]:
    """Every message `seat` (a bot) was sent in the logged match, rebuilt through the engine and the one gate.

    `doc` must be a log that validates (`golfref.record.validate`). A disqualified seat's messages
    stop at the request (or the hole) where it was disqualified, as the referee's did.
    """
    log = as_match_log(doc)
    names = log.cards
    ids = {name: i for i, name in enumerate(names)}
    players = [p.name for p in log.players]
    # hello has the time control's keys in the referee's order (the log keeps them sorted).
    time_control = log.time_control.to_json()
    out = [SeatMessage("hello", protocol.hello(seat, players, protocol.hello_rules(rules), time_control))]
    faults: dict[int, Fault] = {}
    for f in log.seat_faults(seat):
        if f.request is not None:
            faults.setdefault(f.request, f)
    budgets = _time_budgets(log, seat)
    disqualified, cut_request, cut_hole = _cut(log, seat)
    if disqualified and cut_request is None and cut_hole is None:
        return out  # before its first hole: it never said ready
    game = Game(rules)
    mark: EventMark = (0, 0)
    for h, hole in enumerate(log.holes):
        game.apply_shuffle([ids[n] for n in hole.deal])
        for step in hole.steps:
            if type(step) is ReshuffleStep:
                game.apply_shuffle([ids[n] for n in step.cards])
                continue
            assert type(step) is DecisionStep
            rid = step.request
            if rid is not None and step.seat == seat:
                line, mark = request_line(game, seat, rid, mark, budgets[rid])
                if step.by is Chooser.BOT:
                    expected = Expected(step.action, None)
                else:
                    fault = faults.get(rid)
                    expected = (
                        Expected(None, "unknown") if fault is None else Expected(None, fault.kind.value, fault.line)
                    )
                out.append(SeatMessage("request", line, rid, h, expected))
                if rid == cut_request:
                    return out
            game.apply(Action.parse(step.action))
        if len(game.results) > h:
            if cut_request is None and cut_hole is not None and cut_hole <= h:
                return out
            out.append(SeatMessage("hole_end", hole_end_line(game, game.results[h], seat, mark, names), hole=h))
    if disqualified:
        return out
    if game.over and log.complete and log.totals is not None and log.placings is not None:
        out_seats = [p.seat for p in log.players if p.status is SeatStatus.DISQUALIFIED]
        out.append(SeatMessage("match_end", protocol.match_end(list(log.totals), list(log.placings), out_seats)))
        out.append(SeatMessage("goodbye", protocol.goodbye()))
    return out
