"""Auditing a played match for fair play: what was each bot shown, and could it know it then?

`audit_file(LOG)` takes a log and the transcripts next to it (a match run with
`log.transcript: true`). It validates the log first, as `golfref replay --check` does,
then replays the log's deals and actions through the engine and re-derives, without
looking at what the referee sent, what each seat could know at every message it
received: the message the engine's one gate (`view.py`) builds at that moment, the cards
whose identity at their present place the seat knows, and the cards it has seen at all in
the hole. Every message of a transcript is compared with that, and reported:

- a **leak**: a message shows a seat a card it has not seen (a face-down card of its own
  or another's grid, a card in the stock, another seat's stock draw), or the seed;
- a **mismatch** (a warning): a message differs from what the gate derives but shows
  nothing hidden, or the log records a request the transcript lacks;
- a **timing** anomaly (a warning): a line timed at an impossible moment, an answer
  before its request, an answer faster than a pipe round trip;
- a **fault cluster** (a warning): a seat whose faults come, out of its own turns, during
  or just after another seat's turns.

docs/AUDIT.md says what each check can and cannot see.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..files import LOG_MAX_BYTES, LinkRefused, UnsafeFile
from ..game.engine import Action, Game
from ..game.rules import Rules, rules_from_dict
from ..game.view import events_for, view
from ..match import protocol
from ..match.protocol import MessageError
from ..record.faults import SeatStatus
from ..record.matchlog import Chooser, DecisionStep, MatchLog, ReshuffleStep, has_signature, read_match_log
from ..record.signing import SignatureCheck, check_signature
from ..record.transcript import (
    STDERR_SEAT_BYTES,
    STDERR_SINCE_VERSION,
    Direction,
    TranscriptError,
    TranscriptLine,
    read_transcript,
    transcript_path,
    transcript_there,
)
from ..record.validate import TAMPERED_MESSAGE, Status, validate_file

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = [
    "MIN_ANSWER_MS",
    "CLUSTER_WINDOW_MS",
    "CLUSTER_MIN",
    "SEED_DIGITS_MIN",
    "AuditError",
    "Kind",
    "Finding",
    "Audit",
    "audit_file",
]

MIN_ANSWER_MS = 0.01
"""An answer timed under this (the log's `ms`, to 0.01 ms) came faster than any pipe round trip.

The referee's write, the bot's wake-up, its read and write and the referee's wake-up take
tens of microseconds (`make bench`: 65 us for a bare exchange); a line read at once was in
the pipe before the request was sent."""
CLUSTER_WINDOW_MS = 100
"""How long after another seat's answer a fault still counts as "around" that seat's turn."""
CLUSTER_MIN = 2
"""The fewest faults around one other seat's turns (and at least half the seat's faults) that warn."""
SEED_DIGITS_MIN = 4
"""A seed with at least this many digits is also looked for inside strings (a shorter one is in every card)."""

_CARD = re.compile(r"(?<![0-9A-Za-z#])(?:[A2-9TJQK][SHDC]|X[RB])(?:#[2-4])?(?![0-9A-Za-z#])")
_MISSING: Any = object()  # a field one side of a comparison has and the other has not
_SHOWN_MAX = 60  # characters of a value quoted in a finding


class AuditError(Exception):
    """The input cannot be audited: not a readable, valid log, or no transcripts (one line)."""


class Kind(enum.Enum):
    """What a finding is; the value is the word printed."""

    LEAK = "leak"
    """A message showed a seat a card identity, stock order or the seed before it could know it."""
    MISMATCH = "mismatch"
    """A message differs from what the engine's gate derives (without showing anything hidden), or is missing."""
    TIMING = "timing"
    """A line timed at an impossible moment, or an answer faster than the pipe allows."""
    FAULTS = "faults"
    """A seat's faults cluster around another seat's turns."""
    TAMPERED = "tampered"
    """The log was changed after it was written: nothing else could be audited."""
    INVALID = "invalid"
    """The log does not follow from its own deals and rules (or is damaged): nothing else could be audited."""

    @property
    def is_warning(self) -> bool:
        """Whether this kind is a warning to look at rather than a proven leak."""
        return self in (Kind.MISMATCH, Kind.TIMING, Kind.FAULTS)


@dataclass(frozen=True)
class Finding:
    """One thing the audit found, located by seat, message and field."""

    kind: Kind
    seat: int | None
    where: str
    """The message or line: `request 12 (hole 0), transcript line 25`; empty for the whole log."""
    field: str | None
    """The message's field, dotted with indices (`view.grids[0][2]`), when one field is concerned."""
    text: str

    def line(self) -> str:
        """The finding as one line (without the log's path)."""
        label = f"warning: {self.kind.value}" if self.kind.is_warning else self.kind.value
        place = [] if self.seat is None else [f"seat {self.seat}"]
        if self.where:
            place.append(self.where)
        if self.field is not None:
            place.append(f"field {self.field}")
        return f"{label}: {', '.join(place)}: {self.text}" if place else f"{label}: {self.text}"

    def to_json(self) -> dict[str, Any]:
        """The finding as plain data."""
        return {
            "kind": self.kind.value,
            "warning": self.kind.is_warning,
            "seat": self.seat,
            "where": self.where,
            "field": self.field,
            "text": self.text,
        }


@dataclass(frozen=True)
class Audit:
    """The outcome of auditing one log."""

    path: str
    findings: tuple[Finding, ...]
    transcripts: int
    """Seats whose transcript was read."""
    messages: int
    """Messages to bots compared with what the engine derives."""
    signature: SignatureCheck | None = None
    """The verdict on the log's signature and the match it names: for a signed log, or any log when asked."""

    @property
    def clean(self) -> bool:
        """Whether nothing at all was found."""
        return not self.findings

    def summary(self) -> str:
        """One line: clean, or how many leaks and warnings."""
        checked = f"{self.messages} messages to {self.transcripts} seat{'s' if self.transcripts != 1 else ''} checked"
        if self.clean:
            return f"clean: {checked}, no leak, no warning"
        for kind in (Kind.TAMPERED, Kind.INVALID):
            if any(f.kind is kind for f in self.findings):
                return f"not audited: the log is {kind.value}"
        leaks = sum(1 for f in self.findings if f.kind is Kind.LEAK)
        warnings = len(self.findings) - leaks
        return f"{_count(leaks, 'leak')}, {_count(warnings, 'warning')} ({checked})"

    def to_json(self) -> dict[str, Any]:
        """The audit as plain data."""
        return {
            "path": self.path,
            "status": "clean" if self.clean else "findings",
            "transcripts": self.transcripts,
            "messages": self.messages,
            "findings": [f.to_json() for f in self.findings],
            "signature": None if self.signature is None else self.signature.to_json(),
        }


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


# -- reading ---------------------------------------------------------------------------------


class _Line(NamedTuple):
    """One line of a transcript."""

    number: int
    ms: Any
    """As written: the referee writes whole milliseconds since it started."""
    to_bot: bool
    text: str
    stderr: TranscriptLine | None = None
    """A line of the bot's stderr (never a message to or from it), as read."""


def _read_transcript(path: Path, max_bytes: int) -> list[_Line]:
    try:
        read = read_transcript(path, max_bytes)
    except TranscriptError as e:
        raise AuditError(str(e)) from None
    return [
        _Line(t.number, t.ms, t.direction is Direction.TO_BOT, t.text, t if t.direction is Direction.STDERR else None)
        for t in read
    ]


def _transcripts(path: Path, log: MatchLog, max_bytes: int) -> tuple[dict[int, list[_Line]], list[Finding]]:
    bots = [p.seat for p in log.players if p.is_bot]
    if not bots:
        raise AuditError(f"{path}: no transcripts: every seat is a built-in player, no bot was sent anything")
    found: dict[int, list[_Line]] = {}
    absent: dict[int, str] = {}
    refused: dict[int, str] = {}
    for seat in bots:
        tpath = transcript_path(path, seat)
        if not transcript_there(tpath):
            absent[seat] = f"no transcript ({tpath.name}): not audited"
            continue
        try:
            found[seat] = _read_transcript(tpath, max_bytes)
        except LinkRefused as e:
            # A link where the referee writes a file (a bot without the sandbox can put one there):
            # nothing to trust, nor to open. The seat counts as without a transcript, said why.
            refused[seat] = f"{tpath.name} {e.reason}: not audited"
        except UnsafeFile as e:
            raise AuditError(str(e)) from None
        except OSError as e:
            raise AuditError(f"{tpath}: cannot read: {e.strerror or e}") from None
    if not found and not refused:
        raise AuditError(
            f"{path}: no transcripts next to it ({transcript_path(path, bots[0]).name}): "
            "the match ran without log.transcript: true"
        )
    findings = [Finding(Kind.MISMATCH, seat, "", None, text) for seat, text in sorted((absent | refused).items())]
    return found, findings


# -- what each seat could know -----------------------------------------------------------------


@dataclass(frozen=True)
class _Moment:
    """What one seat could know when a message was sent to it."""

    game: Game
    """The table then (a copy); at a hole's end, the table before its cards were turned up."""
    seat: int
    seen: frozenset[int]
    """Every card the seat has seen in this hole so far (face up, peeked, drawn...)."""
    known: frozenset[int]
    """The cards whose identity at their present place the seat knows now."""
    dealt: bool = True
    """False before the first deal (hello): then nothing is known, and places are the coming deal's."""

    def where(self, card: int) -> str:
        """Where `card` is, in words, as seen from this seat."""
        g = self.game
        place = "out of play"
        for s, grid in enumerate(g.grids):
            if card in grid:
                owner = "its own" if s == self.seat else f"seat {s}'s"
                place = f"{owner} face-down card at slot {grid.index(card)}"
                break
        else:
            if card in g.stock:
                depth = len(g.stock) - 1 - g.stock.index(card)  # the top of the stock is its last card
                place = "the stock's next card" if depth == 0 else f"the stock's card {depth + 1} from the top"
            elif card == g.drawn:
                place = f"the card seat {g.to_move} drew from the stock"
            elif card in g.discard:
                place = "the discard pile"
        return place if self.dealt else f"not dealt yet; hole {g.hole}'s deal puts it at {place}"


def _known_now(game: Game, seat: int, ended: bool) -> frozenset[int]:
    bit = 1 << seat
    up, known = game.up, game.known
    cards = {c for grid in game.grids for c in grid if ended or up[c] or known[c] & bit}
    cards.update(game.discard)
    if game.drawn >= 0 and (not game.drawn_from_stock or up[game.drawn] or known[game.drawn] & bit):
        cards.add(game.drawn)
    return frozenset(cards)


class _Expected(NamedTuple):
    """A message golfref sends, as the engine re-derives it, and the moment it is sent at."""

    message: dict[str, Any]
    moment: _Moment
    hole: int | None


@dataclass
class _Derived:
    """Every message the log says was sent to a bot seat, re-derived from the engine."""

    hello: dict[int, _Expected] = field(default_factory=dict)
    requests: dict[int, tuple[int, _Expected]] = field(default_factory=dict)
    """Request id -> (seat, expected request); with `time_ms` 0: a budget is not re-derived."""
    pending: dict[int, tuple[int, _Expected]] = field(default_factory=dict)
    """The request open when an incomplete match stopped: it may be in a transcript, not in the log."""
    hole_ends: dict[tuple[int, int], _Expected] = field(default_factory=dict)
    match_end: dict[int, _Expected] = field(default_factory=dict)
    last: dict[int, _Moment] = field(default_factory=dict)
    """Each seat's moment after the last hole played."""


def _loads(line: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(line)
    return data


def _derive(log: MatchLog, rules: Rules, bots: Sequence[int]) -> _Derived:
    """Replay the log through the engine, keeping each bot seat's expected messages (see `_Derived`)."""
    out = _Derived()
    names = log.cards
    ids = {name: i for i, name in enumerate(names)}
    game = Game(rules)
    first = Game(rules)
    if log.holes:
        first.apply_shuffle([ids[n] for n in log.holes[0].deal])
    hello_rules = protocol.hello_rules(rules)
    players = [p.name for p in log.players]
    time_control = log.time_control.to_json()
    for s in bots:
        hello = protocol.hello(s, players, hello_rules, time_control)
        out.hello[s] = _Expected(_loads(hello), _Moment(first, s, frozenset(), frozenset(), dealt=False), None)
        out.last[s] = out.hello[s].moment
    seen: dict[int, set[int]] = {s: set() for s in bots}
    marks: dict[int, tuple[int, int]] = {s: (0, 0) for s in bots}  # (hole, events sent), as the referee keeps them

    def observe() -> None:
        # At a hole's end the engine has cleared the table: what its last step showed is on the last table.
        table = game.last_table if len(game.results) > h and game.last_table is not None else game
        for s in bots:
            bit = 1 << s
            seen[s].update(c for c in range(len(names)) if table.up[c] or table.known[c] & bit)

    def request(seat: int, rid: int, h: int) -> _Expected:
        hole, mark = marks[seat]
        events = events_for(game, seat, mark if hole == h else 0)
        marks[seat] = (h, len(game.events))
        decision = game.turn()[1].value
        legal = [a.text for a in game.legal_actions()]
        line = protocol.request(rid, decision, view(game, seat).to_json(), events, legal, 0)
        moment = _Moment(game.clone(), seat, frozenset(seen[seat]), _known_now(game, seat, False))
        return _Expected(_loads(line), moment, h)

    last_request = 0
    h = 0
    for h, hole in enumerate(log.holes):
        for s in bots:
            seen[s].clear()
        game.apply_shuffle([ids[n] for n in hole.deal])
        observe()
        for step in hole.steps:
            if type(step) is ReshuffleStep:
                game.apply_shuffle([ids[n] for n in step.cards])
                observe()
                continue
            assert type(step) is DecisionStep
            seat, rid = step.seat, step.request
            if rid is not None and seat in seen:
                out.requests[rid] = (seat, request(seat, rid, h))
                last_request = rid
            game.apply(Action.parse(step.action))
            observe()
        if len(game.results) > h:
            result, table = game.results[h], game.last_table
            assert table is not None
            for s in bots:
                hole_seen, mark = marks[s]
                events = events_for(game, s, mark if hole_seen == h else 0, finished=True)
                line = protocol.hole_end(result, names, events)
                grid_cards = {c for grid in result.grids for c in grid}
                moment = _Moment(
                    table.clone(), s, frozenset(seen[s] | grid_cards), _known_now(table, s, True) | grid_cards
                )
                out.hole_ends[(s, h)] = _Expected(_loads(line), moment, h)
                out.last[s] = moment
    if game.over and log.complete and log.totals is not None and log.placings is not None:
        disqualified = [p.seat for p in log.players if p.status is SeatStatus.DISQUALIFIED]
        line = protocol.match_end(list(log.totals), list(log.placings), disqualified)
        for s in bots:
            out.match_end[s] = _Expected(_loads(line), out.last[s], None)
    elif not game.over and game.chance is None and log.holes and game.to_move in seen:
        # The match stopped while this seat's request was open: the request is in the transcript only.
        seat = game.to_move
        out.pending[last_request + 1] = (seat, request(seat, last_request + 1, game.hole))
    return out


# -- comparing messages ----------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (dict, list)):
        return False  # containers are compared field by field
    return type(a) is type(b) and a == b


def _diff(sent: Any, expected: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Every place where `sent` differs from `expected`: (path, sent value, expected value)."""
    if isinstance(sent, dict) and isinstance(expected, dict):
        for key, value in sent.items():
            where = f"{path}.{key}" if path else str(key)
            if key in expected:
                yield from _diff(value, expected[key], where)
            else:
                yield where, value, _MISSING
        for key, value in expected.items():
            if key not in sent:
                yield (f"{path}.{key}" if path else key), _MISSING, value
    elif isinstance(sent, list) and isinstance(expected, list):
        for i, value in enumerate(sent):
            yield from _diff(value, expected[i] if i < len(expected) else _MISSING, f"{path}[{i}]")
        for i in range(len(sent), len(expected)):
            yield f"{path}[{i}]", _MISSING, expected[i]
    elif expected is _MISSING or sent is _MISSING or not _same(sent, expected):
        yield path, sent, expected


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, v in value.items():
            yield from _leaves(v, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def _cards_in(value: Any, ids: dict[str, int]) -> list[int]:
    """The cards a value names: as whole strings, or as words inside longer ones."""
    found: list[int] = []
    for _, leaf in _leaves(value):
        if isinstance(leaf, str):
            names = [leaf] if leaf in ids else _CARD.findall(leaf)
            found += [ids[n] for n in names if n in ids and ids[n] not in found]
    return found


def _has_seed(value: Any, seed: int | None) -> bool:
    if seed is None:
        return False
    for _, leaf in _leaves(value):
        if isinstance(leaf, int) and not isinstance(leaf, bool) and leaf == seed:
            return True
        if isinstance(leaf, float) and leaf == seed:
            return True
        if isinstance(leaf, str) and len(str(seed)) >= SEED_DIGITS_MIN and str(seed) in leaf:
            return True
    return False


def _show(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN_MAX else text[: _SHOWN_MAX - 3] + "..."


class _MessageCheck:
    """Compares the messages of one seat's transcript with what the engine derives."""

    def __init__(
        self, seat: int, derived: _Derived, ids: dict[str, int], seed: int | None, names: Sequence[str]
    ) -> None:
        self.seat = seat
        self.derived = derived
        self.ids = ids
        self.seed = seed
        self.names = names
        self.findings: list[Finding] = []
        self.checked = 0
        self.requests_seen: set[int] = set()

    def run(self, lines: list[_Line]) -> list[Finding]:
        moment = self.derived.hello[self.seat].moment
        for line in lines:
            if line.to_bot:  # a stderr line is never a message to the bot
                moment = self.message(line, moment)
        for rid, (seat, expected) in self.derived.requests.items():
            if seat == self.seat and rid not in self.requests_seen:
                self.findings.append(
                    Finding(
                        Kind.MISMATCH,
                        self.seat,
                        f"request {rid} (hole {expected.hole})",
                        None,
                        "the log records this request to the seat, but its transcript has no such line",
                    )
                )
        return self.findings

    def align(self, sent: Any) -> tuple[str, _Expected | None, str | None]:
        """(the message's name, what the engine derives for it or None, why none)."""
        d = self.derived
        kind = sent.get("type") if isinstance(sent, dict) else None
        if kind == "hello":
            return "hello", d.hello[self.seat], None
        if kind == "request" and isinstance(sent.get("id"), int):
            rid = sent["id"]
            known = d.requests.get(rid) or d.pending.get(rid)
            if known is None:
                return f"request {rid}", None, "the log records no request with this id"
            owner, expected = known
            name = f"request {rid} (hole {expected.hole})"
            if owner != self.seat:
                return name, None, f"the log records request {rid} to seat {owner}"
            self.requests_seen.add(rid)
            return name, expected, None
        if kind == "hole_end" and isinstance(sent.get("hole"), int):
            ended = d.hole_ends.get((self.seat, sent["hole"]))
            name = f"hole_end of hole {sent['hole']}"
            return name, ended, None if ended else "the log has no such finished hole"
        if kind == "match_end":
            final = d.match_end.get(self.seat)
            return "match_end", final, None if final else "the log's match did not finish"
        if kind == "goodbye":
            return "goodbye", _Expected({"type": "goodbye"}, self.moment_now(), None), None
        if isinstance(sent, dict):
            return f"a {protocol.clip(kind)} message", None, "not a message golfref sends"
        return "a line", None, "not a JSON object"

    def moment_now(self) -> _Moment:
        return self.derived.last[self.seat]

    def message(self, line: _Line, moment: _Moment) -> _Moment:
        try:
            sent: Any = json.loads(line.text)
        except ValueError:
            sent = line.text
        name, expected, why = self.align(sent)
        where = f"{name}, transcript line {line.number}"
        self.checked += 1
        if expected is None:
            # Nothing to compare with: every field but the type is looked at as shown at the last moment known.
            self.findings.append(Finding(Kind.MISMATCH, self.seat, where, None, f"{why}"))
            if isinstance(sent, dict):
                self.compare(where, sent, {"type": sent.get("type")}, moment, report=False)
            else:
                self.compare(where, {"line": sent}, {}, moment, report=False)
            return moment
        reference = dict(expected.message)
        if reference.get("type") == "request":
            budget = sent.get("time_ms")
            # A budget is not re-derived (it follows the bank, from timings the log rounds);
            # any whole number other than the seed passes.
            if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0 and budget != self.seed:
                reference["time_ms"] = budget
        self.compare(where, sent, reference, expected.moment, report=True)
        return expected.moment

    def compare(
        self, where: str, sent: dict[str, Any], expected: dict[str, Any], moment: _Moment, report: bool
    ) -> None:
        """Report every leak in `sent`, and with `report`, where it differs from `expected` otherwise."""
        differ: list[str] = []
        leaked: set[str] = set()
        diffs = list(_diff(sent, expected))
        for path, value, _ in diffs:
            if _has_seed(value, self.seed):
                self.leak(where, path, f"the match's seed ({self.seed})")
                leaked.add(path)
                continue
            hidden = [c for c in _cards_in(value, self.ids) if c not in moment.known]
            if hidden:
                self.leak(where, path, self.cards_text(hidden, moment))
                leaked.add(path)
            elif report:
                differ.append(path)
        # Apart from the gate: no card the seat has not seen, anywhere (a gate that leaked
        # would agree with the referee above, so this looks at every field).
        for path, value in _leaves(sent):
            if not isinstance(value, str) or value not in self.ids or any(_within(path, p) for p in leaked):
                continue
            if path.startswith("players[") and sent.get("type") == "hello":
                continue  # names from the config
            if self.ids[value] not in moment.seen:
                self.leak(where, path, self.cards_text([self.ids[value]], moment))
        if differ:
            shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
            first = next(d for d in diffs if d[0] == differ[0])
            self.findings.append(
                Finding(
                    Kind.MISMATCH,
                    self.seat,
                    where,
                    None,
                    f"differs from what the engine's gate derives at {shown} "
                    f"({differ[0]}: {_show(first[1])}, derived {_show(first[2])}); nothing hidden shown there",
                )
            )

    def cards_text(self, cards: list[int], moment: _Moment) -> str:
        shown = ", ".join(f"{self.names[c]} ({moment.where(c)})" for c in cards)
        return f"shows {shown}, which seat {self.seat} could not know"

    def leak(self, where: str, path: str, text: str) -> None:
        self.findings.append(Finding(Kind.LEAK, self.seat, where, path or None, text))


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")


# -- timing ------------------------------------------------------------------------------------------


def _duration_ms(log: MatchLog) -> int | None:
    """An upper bound of the referee's clock over the match, from the log's times (to the second)."""
    if log.finished_at is None:
        return None
    try:
        start = dt.datetime.fromisoformat(log.started_at)
        end = dt.datetime.fromisoformat(log.finished_at)
    except ValueError:
        return None
    # Both are cut to the second: the match lasted less than their difference plus one.
    return int((end - start).total_seconds() + 1) * 1000


def _answer_id(text: str) -> int | None:
    try:
        return protocol.parse_answer(text)[0]
    except MessageError:
        return None


def _request_id(text: str) -> int | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("type") == "request" and isinstance(data.get("id"), int):
        return int(data["id"])
    return None


def _timing(seat: int, lines: list[_Line], limit: int | None) -> list[Finding]:
    """Lines timed at impossible moments, and answers before their requests."""
    findings = []
    asked: dict[int, _Line] = {}
    for line in lines:
        rid = _request_id(line.text) if line.to_bot else None
        if rid is not None:
            asked.setdefault(rid, line)
    previous: _Line | None = None
    for line in lines:
        where = f"transcript line {line.number}"
        ms = line.ms
        if isinstance(ms, bool) or not isinstance(ms, int) or ms < 0:
            text = f"timed {_show(ms)}: the referee writes whole milliseconds from its start"
            findings.append(Finding(Kind.TIMING, seat, where, None, text))
            continue
        if limit is not None and ms > limit:
            text = f"timed {ms} ms, after the match ended (it lasted under {limit} ms)"
            findings.append(Finding(Kind.TIMING, seat, where, None, text))
        answered = None if line.to_bot or line.stderr is not None else _answer_id(line.text)
        request = None if answered is None else asked.get(answered)
        anomaly: str | None = None
        if request is not None and request.number > line.number:
            anomaly = f"answers request {answered} before it was sent (transcript line {request.number})"
        elif request is not None and isinstance(request.ms, int) and ms < request.ms:
            anomaly = (
                f"answers request {answered} at {ms} ms, before it was sent at {request.ms} ms "
                f"(transcript line {request.number})"
            )
        elif previous is not None and isinstance(previous.ms, int) and ms < previous.ms:
            anomaly = f"timed {ms} ms, before the line above it ({previous.ms} ms): the referee's clock never goes back"
        if anomaly is not None:
            findings.append(Finding(Kind.TIMING, seat, where, None, anomaly))
        previous = line
    return findings


def _fast_answers(log: MatchLog) -> list[Finding]:
    findings = []
    for h, step in log.decisions():
        ms = step.ms
        if step.by is Chooser.BOT and ms is not None and ms < MIN_ANSWER_MS:
            findings.append(
                Finding(
                    Kind.TIMING,
                    step.seat,
                    f"request {step.request} (hole {h})",
                    None,
                    f"answered in {ms} ms, faster than a pipe round trip (under {MIN_ANSWER_MS} ms): "
                    "the answer was written before the request reached the bot",
                )
            )
    return findings


class _Turn(NamedTuple):
    seat: int
    request: int
    start: int
    end: int


def _turns(transcripts: dict[int, list[_Line]]) -> list[_Turn]:
    """Each bot's requests as time spans: from the request to the bot's next line (its answer)."""
    turns = []
    for seat, lines in transcripts.items():
        for i, line in enumerate(lines):
            rid = _request_id(line.text) if line.to_bot else None
            if rid is None or not isinstance(line.ms, int):
                continue
            after = next((x.ms for x in lines[i + 1 :] if isinstance(x.ms, int) and x.stderr is None), line.ms)
            turns.append(_Turn(seat, rid, line.ms, max(after, line.ms)))
    return sorted(turns, key=lambda t: t.start)


def _fault_clusters(log: MatchLog, transcripts: dict[int, list[_Line]]) -> list[Finding]:
    """Seats whose faults out of their own turns come around the turns of one other seat."""
    turns = _turns(transcripts)
    findings = []
    for seat in sorted(transcripts):
        faults = log.seat_faults(seat)
        around: dict[int, list[int]] = {}
        for f in faults:
            if f.request is not None or f.hole is None:
                continue  # on its own request, or outside play: the seat's own doing
            latest = None
            for turn in turns:
                if turn.start > f.at_ms:
                    break
                latest = turn
            if latest is not None and latest.seat != seat and f.at_ms <= latest.end + CLUSTER_WINDOW_MS:
                around.setdefault(latest.seat, []).append(latest.request)
        for other, requests in sorted(around.items()):
            if len(requests) >= CLUSTER_MIN and 2 * len(requests) >= len(faults):
                findings.append(
                    Finding(
                        Kind.FAULTS,
                        seat,
                        "",
                        None,
                        f"{len(requests)} of its {len(faults)} faults came while no request of its own was open, "
                        f"during or just after seat {other}'s turns (requests {', '.join(map(str, requests))}): "
                        "was its output written by another?",
                    )
                )
    return findings


# -- stderr ------------------------------------------------------------------------------------------


def _stderr_findings(seat: int, lines: list[_Line], log: MatchLog, requests: dict[int, int]) -> list[Finding]:
    """The seat's stderr records that golfref does not write (`requests`: request id -> seat, as the log has them)."""
    findings = []
    kept = 0
    over = False
    for line in lines:
        record = line.stderr
        if record is None:
            continue
        where = f"transcript line {line.number}"
        if log.schema_version < STDERR_SINCE_VERSION:
            version = log.schema_version
            text = f"a stderr record in the transcript of a version {version} log, whose transcripts hold none"
            findings.append(Finding(Kind.MISMATCH, seat, where, None, text))
            continue
        if record.problem is not None:
            findings.append(Finding(Kind.MISMATCH, seat, where, None, f"{record.problem}: golfref writes none such"))
            continue
        owner = requests.get(record.request, seat) if record.request is not None else seat
        if record.request is not None and record.request not in requests:
            text = f"a stderr line of request {record.request}, which the log does not record"
            findings.append(Finding(Kind.MISMATCH, seat, where, None, text))
        elif owner != seat:
            text = f"a stderr line of request {record.request}, which the log records to seat {owner}"
            findings.append(Finding(Kind.MISMATCH, seat, where, None, text))
        if record.dropped == 0:
            kept += len(record.text.encode("utf-8", errors="surrogatepass")) + 1
            if kept > STDERR_SEAT_BYTES and not over:
                over = True
                text = f"the stderr kept passes {STDERR_SEAT_BYTES} bytes, what golfref keeps of a bot over a match"
                findings.append(Finding(Kind.MISMATCH, seat, where, None, text))
    return findings


# -- the audit ---------------------------------------------------------------------------------------


def audit_file(path: str, trusted: Ed25519PublicKey | None = None, max_bytes: int = LOG_MAX_BYTES) -> Audit:
    """Audit one log and its transcripts; raises AuditError for input that cannot be audited.

    The log's signature is checked when it carries one, and always against `trusted` when
    given; the verdict is the Audit's `signature`, not a finding: what a bot was shown does
    not depend on who signed the log. The log and each transcript are read only up to
    `max_bytes` each.
    """
    report = validate_file(path, max_bytes)
    if report.status is Status.NOT_A_LOG:
        raise AuditError(f"{path}: {report.message}")
    signature = None
    if report.doc is not None and (trusted is not None or has_signature(report.doc)):
        signature = check_signature(report.doc, trusted, found_as=Path(path).name)
    if report.status is Status.TAMPERED:
        finding = Finding(Kind.TAMPERED, None, "", None, f"{TAMPERED_MESSAGE}; nothing else was audited")
        return Audit(path, (finding,), 0, 0, signature)
    if report.status is Status.INVALID or report.doc is None:
        finding = Finding(Kind.INVALID, None, "", None, f"{report.message}; nothing else was audited")
        return Audit(path, (finding,), 0, 0, signature)
    log = read_match_log(report.doc)
    transcripts, findings = _transcripts(Path(path), log, max_bytes)
    rules = rules_from_dict(log.rules)
    derived = _derive(log, rules, sorted(transcripts))
    names = log.cards
    ids = {name: i for i, name in enumerate(names)}
    messages = 0
    limit = _duration_ms(log)
    requests = {rid: owner for rid, (owner, _) in (derived.requests | derived.pending).items()}
    for seat, lines in sorted(transcripts.items()):
        check = _MessageCheck(seat, derived, ids, log.seed, names)
        findings += check.run(lines)
        messages += check.checked
        findings += _timing(seat, lines, limit)
        findings += _stderr_findings(seat, lines, log, requests)
    findings += [f for f in _fast_answers(log) if f.seat in transcripts]
    findings += _fault_clusters(log, transcripts)
    return Audit(path, tuple(findings), len(transcripts), messages, signature)
