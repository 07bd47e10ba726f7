"""The replay page's bot panel ("inside a bot"): per turn, a bot's decision time against its limit,
what it wrote to stderr during that decision, and its faults in plain words.

`inside_data(log, seat, transcripts)` builds the panel's data from the log and the seats'
transcripts (`record.transcript.read_transcripts`); viewer/inside.js draws it. The times come
from the transcript's clock (a request's line to the answer's, whole milliseconds; the budget
is the request's own ``time_ms``); without a transcript from the log's ``ms``, against the
move limit, and the panel says so. What a bot wrote and how long it took are its own: a seat's
page holds only that seat's, the page of the whole table every bot's. Bot text is made safe
here (`terminal.sanitize`: control characters and bidirectional controls shown escaped) and
goes into the page as text only. docs/VIEWER.md ("Inside a bot") describes the panel.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..game.rules import rules_from_dict
from ..record.faults import explain_disqualification, explain_fault
from ..record.matchlog import Chooser, DecisionStep, MatchLog
from ..record.transcript import Direction, TranscriptLine, cut_text
from .terminal import sanitize

__all__ = ["inside_data"]


class _Turn:
    """One request to a bot as its transcript shows it."""

    __slots__ = ("sent_ms", "answer_ms", "budget_ms", "stderr", "before")

    def __init__(self, sent_ms: int | None, budget_ms: int | None, before: list[str]) -> None:
        self.sent_ms = sent_ms
        self.answer_ms: int | None = None
        self.budget_ms = budget_ms
        self.stderr: list[str] = []
        self.before = before


def _ms(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _read_turns(lines: Sequence[TranscriptLine]) -> tuple[dict[int, _Turn], list[str]]:
    """Each request of a transcript (by id) with its times and stderr, and the stderr after the last one."""
    turns: dict[int, _Turn] = {}
    between: list[str] = []
    open_request: _Turn | None = None
    for line in lines:
        if line.direction is Direction.STDERR:
            if line.problem is not None:
                continue  # not a record golfref writes: the audit reports it, the page leaves it out
            text = cut_text(line.dropped) if line.dropped else sanitize(line.text)
            turn = turns.get(line.request) if line.request is not None else None
            (turn.stderr if turn is not None else between).append(text)
            continue
        if line.direction is Direction.FROM_BOT:
            if open_request is not None and open_request.answer_ms is None:
                open_request.answer_ms = _ms(line.ms)
            continue
        try:
            message = json.loads(line.text)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("type") == "request" and isinstance(message.get("id"), int):
            budget = message.get("time_ms")
            open_request = _Turn(_ms(line.ms), budget if isinstance(budget, int) else None, between)
            turns[message["id"]] = open_request
            between = []
        else:
            open_request = None  # a notice: the bot's next line answers no request
    return turns, between


def inside_data(
    log: MatchLog,
    seat: int | None,
    transcripts: Mapping[int, Sequence[TranscriptLine]],
    unread: Mapping[int, str],
    last: tuple[int, int, str] | None,
) -> dict[str, Any]:
    """The bot panel's data for the page of `seat` (None: the whole table).

    `transcripts` are the seats' transcripts read, `unread` why a seat's could not be, `last`
    the (hole, step, kind) of the page's last frame, where the match's summary goes.
    """
    rules = rules_from_dict(log.rules)
    slots = rules.rows * rules.cols
    names = [p.name for p in log.players]
    bots = [p.seat for p in log.players if p.is_bot and (seat is None or p.seat == seat)]
    read = {s: _read_turns(transcripts[s]) for s in bots if s in transcripts}
    faults: dict[int, list[str]] = {}
    loose: list[str] = []
    waited = {step.request: step.ms for _, step in log.decisions() if step.request is not None}
    for f in log.faults:
        if f.seat not in bots:
            continue
        taken = waited.get(f.request) if f.request is not None else None
        if f.request is not None and f.request in read.get(f.seat, ({}, []))[0]:
            asked = read[f.seat][0][f.request]
            if asked.sent_ms is not None and asked.answer_ms is not None:
                taken = asked.answer_ms - asked.sent_ms
        words = sanitize(explain_fault(f, log.time_control, slots, taken, f"{names[f.seat]} (seat {f.seat})"))
        if f.request is not None and f.request in waited:
            faults.setdefault(f.request, []).append(words)
        else:
            loose.append(words)
    steps: dict[str, Any] = {}
    for h, hole in enumerate(log.holes):
        for t, step in enumerate(hole.steps):
            if type(step) is not DecisionStep or step.seat not in bots or step.request is None:
                continue
            # Short keys, defaults left out: a long match has tens of thousands of turns.
            entry: dict[str, Any] = {"s": step.seat, "r": step.request}
            turn = read.get(step.seat, ({}, []))[0].get(step.request)
            if turn is not None and turn.sent_ms is not None and turn.answer_ms is not None:
                entry["ms"] = turn.answer_ms - turn.sent_ms
            elif step.ms is not None:
                entry["ms"] = step.ms
                if step.seat in read:
                    entry["clock"] = "log"  # a seat without a transcript has only the log's times
            if turn is not None and turn.budget_ms is not None and turn.budget_ms != log.time_control.move_ms:
                entry["budget"] = turn.budget_ms
            if turn is not None and turn.stderr:
                entry["err"] = turn.stderr
            if turn is not None and turn.before:
                entry["before"] = turn.before
            if step.request in faults:
                entry["faults"] = faults[step.request]
            if step.by is Chooser.FALLBACK:
                entry["fallback"] = 1
            steps[f"{h}:{t}"] = entry
    notes = []
    missing = [s for s in bots if s not in transcripts and s not in unread]
    if bots and len(missing) == len(bots):
        notes.append(
            "No transcripts beside the log (the match ran without log.transcript: true): the decision times are "
            "the log's, against the move limit, and no stderr was recorded per turn."
        )
    else:
        notes += [f"No transcript of {names[s]} (seat {s}): its times are the log's, no stderr per turn."
                  for s in missing]  # fmt: skip
    notes += [sanitize(f"The transcript of {names[s]} (seat {s}) could not be read: {why}") for s, why in unread.items()
              if s in bots]  # fmt: skip
    summary = []
    for p in log.players:
        at = p.disqualified_at
        if p.status.value == "disqualified":
            summary.append(sanitize(explain_disqualification(
                log.seat_faults(p.seat), log.fault_policy, at.request if at else None, at.hole if at else None,
                f"{p.name} (seat {p.seat})",
            )))  # fmt: skip
    return {
        "seats": bots,
        "transcripts": sorted(s for s in read),
        "notes": notes,
        "who": {str(p.seat): f"{p.name} (seat {p.seat})" for p in log.players},
        "move_ms": log.time_control.move_ms,
        "grace_ms": log.time_control.grace_ms,
        "steps": steps,
        "tails": {str(s): read[s][1] for s in read if read[s][1]},
        "faults": loose,
        "summary": summary,
        "last": None if last is None else f"{last[0]}:{last[1]}:{last[2]}",
    }
