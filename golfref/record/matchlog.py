"""Reading a match log: a parsed log (docs/LOG_FORMAT.md) as frozen typed values.

`read_match_log(doc)` is the one place that reads a log's fields by name; every other reader
(validation, audit, the printers, re-running a seat, the executor, seat messages) takes the
`MatchLog` it returns. It reads only what the log says (no engine state, no re-simulation), and
assumes a log that passed the schema (`golfref.record.validate` checks that first); anything
else raises `MalformedLog` naming the record, as `holes[2].steps[5]`. Writing stays in
`golfref.record.log`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..config.match import FaultMode, FaultPolicy, TimeControl
from ..game.engine import Action, Decision, Event, HoleEnd, Move, Shuffle
from ..game.fast import new_tuple
from .faults import Fault, FaultKind, SeatStatus
from .log import LogError

__all__ = [
    "LogStatus",
    "Chooser",
    "DecisionStep",
    "ReshuffleStep",
    "Step",
    "LogResult",
    "LogHole",
    "DisqualifiedAt",
    "LogPlayer",
    "LogSignature",
    "MatchLog",
    "MalformedLog",
    "read_match_log",
    "LogLike",
    "as_match_log",
    "step_where",
    "has_signature",
    "sealed_digest",
    "history_from_log",
]


class LogStatus(enum.Enum):
    """Where the match stood when its log was written; the value is the log's `status`."""

    RUNNING = "running"
    """The match is in play (a journal, or a log written while it runs): no seed, totals or placings yet."""
    FINISHED = "finished"
    """Every hole was played: totals and placings are final (`complete` is true)."""
    INTERRUPTED = "interrupted"
    """Stopped from outside (a signal, Ctrl-C) before its last hole ended."""
    ERROR = "error"
    """Stopped by a failure of the referee itself; `error` says what."""


class Chooser(enum.Enum):
    """Who chose a decision step's action; the value is the step's `by`."""

    BOT = "bot"
    """The bot's own answer."""
    BUILTIN = "builtin"
    """A built-in player (a human seat included)."""
    FALLBACK = "fallback"
    """The fault policy's fallback, for a bot that faulted on this request or is disqualified."""


class MalformedLog(LogError):
    """A log that is not what the schema allows, named by the record that is wrong."""


class DecisionStep(NamedTuple):
    """One decision of a hole: who decided what, and how it was asked."""

    seat: int
    decision: Decision
    action: str
    """The action as written (`swap:3`); `Action.parse` reads it."""
    by: Chooser
    request: int | None
    """The id of the request sent to the bot; None when none was sent."""
    ms: float | None
    """How long the bot took to answer; None when it was not asked."""


class ReshuffleStep(NamedTuple):
    """A D7 reshuffle: the new stock order of the recycled cards, as card names."""

    cards: tuple[str, ...]


Step = DecisionStep | ReshuffleStep


class LogResult(NamedTuple):
    """A hole's result as recorded."""

    end: HoleEnd
    ender: int | None
    grids: tuple[tuple[str, ...], ...]
    raw: tuple[int, ...]
    penalties: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    turns: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The result as the log writes it (`log.hole_result_json`'s form), for comparing and messages."""
        return {
            "end": self.end.value,
            "ender": self.ender,
            "grids": [list(g) for g in self.grids],
            "raw": list(self.raw),
            "penalties": list(self.penalties),
            "scores": list(self.scores),
            "totals": list(self.totals),
            "turns": list(self.turns),
        }


class LogHole(NamedTuple):
    """One hole: its deal, its steps in order, and its result (None for an open last hole)."""

    hole: int
    """The hole's index, from 0."""
    starter: int
    deal: tuple[str, ...]
    steps: tuple[Step, ...]
    result: LogResult | None


class DisqualifiedAt(NamedTuple):
    """The hole and request of the fault that disqualified a seat (either may be None)."""

    hole: int | None
    request: int | None

    def to_json(self) -> dict[str, Any]:
        """As the log writes it."""
        return {"hole": self.hole, "request": self.request}


@dataclass(frozen=True, slots=True)
class LogPlayer:
    """One seat's entry in `players`."""

    seat: int
    name: str
    builtin: str | None
    """`random`, `greedy` or `human` for a built-in player; None for a bot."""
    command: tuple[str, ...] | None
    """A bot's program and arguments; None for a built-in player or a python one."""
    python: str | None
    """A python player's ``module:object``, or ``<object>`` for an object no reference names; None otherwise."""
    object: str | None
    """What a python player given as an object was (``module.Qualname``), when `python` is ``<object>``."""
    cwd: str | None
    env: Mapping[str, str]
    reported_name: str | None
    reported_version: str | None
    status: SeatStatus
    faults: int
    """Faults counted by the fault policy."""
    disqualified_at: DisqualifiedAt | None
    stderr: str | None
    fingerprint: Mapping[str, Any] | None
    """The bot's build as hashed before the match (docs/LOG_FORMAT.md#players); None when absent."""
    sandbox: Mapping[str, Any] | None
    """What isolated the bot (docs/SANDBOX.md); None when absent."""

    @property
    def is_bot(self) -> bool:
        """Whether the seat is an external bot (not a built-in player)."""
        return self.builtin is None


@dataclass(frozen=True, slots=True)
class LogSignature:
    """The log's signature as written (golfref.record.signing checks it)."""

    alg: str
    public_key: str
    value: str
    scheme: int | None
    """2 for a signature naming its match; None for the earlier scheme."""
    identity: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A whole match log, read."""

    schema_version: int
    golfref_version: str
    match_id: str
    match: str
    status: LogStatus
    complete: bool
    started_at: str
    finished_at: str | None
    seed: int | None
    rules: Mapping[str, Any]
    """The resolved rules as written; `rules_from_dict` rebuilds them."""
    time_control: TimeControl
    fault_policy: FaultPolicy
    cards: tuple[str, ...]
    players: tuple[LogPlayer, ...]
    holes: tuple[LogHole, ...]
    faults: tuple[Fault, ...]
    totals: tuple[int, ...] | None
    placings: tuple[int, ...] | None
    error: str | None
    digest: str | None
    signature: LogSignature | None

    @property
    def finished(self) -> bool:
        """Whether the match played to its end."""
        return self.status is LogStatus.FINISHED

    @property
    def step_count(self) -> int:
        """The steps of every hole, decisions and reshuffles."""
        return sum(len(h.steps) for h in self.holes)

    def decisions(self) -> list[tuple[int, DecisionStep]]:
        """Every decision step of the match with its hole index, in order."""
        return [(h, s) for h, hole in enumerate(self.holes) for s in hole.steps if type(s) is DecisionStep]

    def seat_faults(self, seat: int) -> list[Fault]:
        """The faults of one seat, in order."""
        return [f for f in self.faults if f.seat == seat]


# -- reading ---------------------------------------------------------------------------------

_STATUS = {s.value: s for s in LogStatus}
_CHOOSER = {c.value: c for c in Chooser}
_DECISION = {d.value: d for d in Decision}
_SEAT_STATUS = {s.value: s for s in SeatStatus}


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(values)


def _step(step: Mapping[str, Any]) -> Step:
    # Validation reads every step of every log it checks (bench/replay.py measures it): new_tuple
    # halves a step's cost; tests/test_fast.py checks each call's arity.
    if "reshuffle" in step:
        return new_tuple(ReshuffleStep, (tuple(step["reshuffle"]),))
    return new_tuple(
        DecisionStep,
        (step["seat"], _DECISION[step["decision"]], step["action"], _CHOOSER[step["by"]], step["request"], step["ms"]),
    )


def _result(result: Mapping[str, Any] | None) -> LogResult | None:
    if result is None:
        return None
    return LogResult(
        HoleEnd(result["end"]),
        result["ender"],
        tuple(tuple(g) for g in result["grids"]),
        _ints(result["raw"]),
        _ints(result["penalties"]),
        _ints(result["scores"]),
        _ints(result["totals"]),
        _ints(result["turns"]),
    )


def _hole(h: int, hole: Mapping[str, Any]) -> LogHole:
    steps = []
    for t, step in enumerate(hole["steps"]):
        try:
            steps.append(_step(step))
        except (KeyError, TypeError, ValueError) as e:
            raise MalformedLog(f"holes[{h}].steps[{t}]: {_why(e)}") from None
    try:
        return LogHole(hole["hole"], hole["starter"], tuple(hole["deal"]), tuple(steps), _result(hole["result"]))
    except (KeyError, TypeError, ValueError) as e:
        raise MalformedLog(f"holes[{h}]: {_why(e)}") from None


def _player(p: Mapping[str, Any]) -> LogPlayer:
    at = p["disqualified_at"]
    command = p.get("command")
    return LogPlayer(
        seat=p["seat"],
        name=p["name"],
        builtin=p.get("builtin"),
        command=tuple(command) if command is not None else None,
        python=p.get("python"),
        object=p.get("object"),
        cwd=p.get("cwd"),
        env=p.get("env") or {},
        reported_name=p["reported_name"],
        reported_version=p["reported_version"],
        status=_SEAT_STATUS[p["status"]],
        faults=p["faults"],
        disqualified_at=None if at is None else DisqualifiedAt(at["hole"], at["request"]),
        stderr=p["stderr"],
        fingerprint=p.get("fingerprint"),
        sandbox=p.get("sandbox"),
    )


def _fault(f: Mapping[str, Any]) -> Fault:
    return Fault(f["seat"], FaultKind(f["kind"]), f["message"], f["line"], f["hole"], f["request"], f["at_ms"])


def _signature(sig: Mapping[str, Any] | None) -> LogSignature | None:
    if sig is None:
        return None
    return LogSignature(sig["alg"], sig["public_key"], sig["value"], sig.get("scheme"), sig.get("identity"))


def _why(e: Exception) -> str:
    if isinstance(e, KeyError):
        return f"field {e.args[0]} missing"
    return str(e)


def _each(name: str, items: Any, read: Any) -> tuple[Any, ...]:
    out = []
    for i, item in enumerate(items):
        try:
            out.append(read(item))
        except (KeyError, TypeError, ValueError) as e:
            raise MalformedLog(f"{name}[{i}]: {_why(e)}") from None
    return tuple(out)


def read_match_log(doc: Mapping[str, Any]) -> MatchLog:
    """Read a parsed, schema-valid log; raises MalformedLog naming the record of anything it cannot read."""
    holes = doc.get("holes")
    if not isinstance(holes, list):
        raise MalformedLog("holes: missing or not an array")
    read_holes = tuple(_hole(h, hole) for h, hole in enumerate(holes))
    players = _each("players", doc["players"], _player)
    faults = _each("faults", doc["faults"], _fault)
    try:
        tc = doc["time_control"]
        policy = doc["fault_policy"]
        totals, placings = doc["totals"], doc["placings"]
        return MatchLog(
            schema_version=doc["schema_version"],
            golfref_version=doc["golfref_version"],
            match_id=doc["match_id"],
            match=doc["match"],
            status=_STATUS[doc["status"]],
            complete=doc["complete"],
            started_at=doc["started_at"],
            finished_at=doc["finished_at"],
            seed=doc["seed"],
            rules=doc["rules"],
            time_control=TimeControl(**tc),
            fault_policy=FaultPolicy(FaultMode(policy["policy"]), policy["fallback"], policy["max_faults"]),
            cards=tuple(doc["cards"]),
            players=players,
            holes=read_holes,
            faults=faults,
            totals=None if totals is None else _ints(totals),
            placings=None if placings is None else _ints(placings),
            error=doc["error"],
            digest=doc.get("digest"),
            signature=_signature(doc.get("signature")),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise MalformedLog(f"the log: {_why(e)}") from None


LogLike = MatchLog | Mapping[str, Any]
"""What a public reader takes: a `MatchLog`, or a parsed log it reads into one."""


def as_match_log(log: LogLike) -> MatchLog:
    """`log` itself when it is already read, else `read_match_log(log)`."""
    return log if isinstance(log, MatchLog) else read_match_log(log)


def step_where(doc: Mapping[str, Any], h: int, t: int) -> str:
    """`hole 2, step 11 (seat 1, request 45)` for holes[2].steps[11] of a parsed log, as far as the step can be read.

    It reads the JSON as it is, so that a log the schema rejects is still named by its record.
    """
    where = f"hole {h}, step {t}"
    try:
        step = doc["holes"][h]["steps"][t]
    except (KeyError, IndexError, TypeError):
        return where
    if not isinstance(step, dict):
        return where
    if "reshuffle" in step:
        return where + " (reshuffle)"
    seat, request = step.get("seat"), step.get("request")
    details = []
    if isinstance(seat, int) and not isinstance(seat, bool):
        details.append(f"seat {seat}")
    if isinstance(request, int) and not isinstance(request, bool):
        details.append(f"request {request}")
    return where + (f" ({', '.join(details)})" if details else "")


def sealed_digest(doc: Mapping[str, Any]) -> object:
    """The `digest` a parsed log carries, whatever it is (None when absent): checked before the schema is."""
    return doc.get("digest")


def has_signature(doc: Mapping[str, Any]) -> bool:
    """Whether a parsed log, valid or not, carries a signature (not null): read before validation trusts it."""
    return doc.get("signature") is not None


def history_from_log(doc: LogLike) -> list[Event]:
    """The engine history (shuffles and moves) recorded in a log, for `Game.replay`.

    Raises LogError naming the hole and step of anything it cannot read.
    """
    log = as_match_log(doc)
    cards = log.cards
    ids = {name: i for i, name in enumerate(cards)}
    if len(ids) != len(cards):
        raise LogError("cards: a card name is listed twice")

    def to_ids(names: tuple[str, ...], where: str) -> tuple[int, ...]:
        try:
            return tuple(ids[n] for n in names)
        except KeyError as e:
            raise LogError(f"{where}: unknown card {e.args[0]!r}") from None

    history: list[Event] = []
    for h, hole in enumerate(log.holes):
        history.append(Shuffle(to_ids(hole.deal, f"hole {h} deal")))
        for t, step in enumerate(hole.steps):
            if type(step) is ReshuffleStep:
                history.append(Shuffle(to_ids(step.cards, f"hole {h}, step {t} reshuffle")))
                continue
            assert type(step) is DecisionStep
            try:
                action = Action.parse(step.action)
            except ValueError as e:
                raise LogError(f"hole {h}, step {t}: {e}") from None
            history.append(Move(step.seat, action))
    return history
