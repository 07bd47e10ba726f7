"""Validating game logs: is this log intact, and does every recorded fact follow from the rules?

`validate(doc)` checks a log in three layers and stops at the first failure:

1. Integrity. When the log carries a digest string, the digest is recomputed over
   `log.canonical_bytes(doc)` first of all. A mismatch means the content was changed after
   golfref sealed it: `Status.TAMPERED`, whatever else may be wrong with it. Checking the
   digest before anything else is what makes *any* edit of a sealed log (a score, a card,
   a comma that breaks a field's type) come out as TAMPERED rather than as a confusing
   complaint about the edited field.
2. Schema. `schemas/log.schema.json` (JSON Schema 2020-12); a missing digest is caught here.
   The message names the hole, step and field.
3. Re-simulation. The rules are rebuilt and must resolve to themselves, the cards must be
   the declared decks, and the whole match is played again through the engine from the
   recorded deals, reshuffles and actions. Every step must be the right seat's, of the
   decision the engine asks for, and legal at that point; every hole's result, the totals
   and the placings must be exactly what the engine derives. A log whose digest matches
   but whose content does not add up (written by a buggy tool, or edited and sealed again)
   is `Status.INVALID` with the first point where it goes wrong. The checker reads the log
   through `golfref.record.matchlog` (typed values) once the schema holds.

A log of a match that did not finish (status running, interrupted or error) is checked as
far as it goes and reported as `Status.INCOMPLETE`, not as damaged.

`docs/LOG_FORMAT.md` documents every field.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jsonschema

from ..config.match import FaultPolicy, dotted
from ..config.schemas import load_schema
from ..files import LOG_MAX_BYTES
from ..game.cards import deck_set
from ..game.engine import Action, Game, IllegalAction, placings
from ..game.rules import Rules, rules_from_dict, shown
from .faults import Fault, FaultKind, SeatStatus, disqualifies
from .log import (
    LOG_FORMAT,
    READ_VERSIONS,
    LogError,
    NotALog,
    TamperedLog,
    compute_digest,
    hole_result_json,
    journal_cut,
    json_type,
    not_a_log,
    parse_log,
    read_log_bytes,
)
from .matchlog import (
    Chooser,
    DecisionStep,
    DisqualifiedAt,
    LogStatus,
    MalformedLog,
    MatchLog,
    ReshuffleStep,
    Step,
    read_match_log,
    sealed_digest,
    step_where,
)
from .schema_check import compile_check

__all__ = ["Status", "Validation", "TAMPERED_MESSAGE", "validate", "validate_file", "log_schema"]


class Status(enum.Enum):
    """The verdict on one log; the value is the word the CLI prints."""

    VALID = "valid"
    """Intact, well-formed, and every recorded fact follows from the rules: a finished match."""
    INCOMPLETE = "incomplete"
    """Intact and consistent as far as it goes, but the match did not finish (running, interrupted, error)."""
    INVALID = "invalid"
    """Unreadable, not a well-formed log, or its content does not follow from its own deals and actions."""
    TAMPERED = "tampered"
    """The content was changed after golfref wrote it: the digest does not match."""
    NOT_A_LOG = "not a log"
    """No golfref log at all: a missing or unreadable file, or JSON of another kind."""


@dataclass(frozen=True)
class Validation:
    """The outcome of validating one log."""

    status: Status
    message: str
    """One line; for a failure it names where, holes and steps from 0 as in the log.

    For example `hole 2, step 11 (seat 1, request 45): field action: ...`.
    """
    holes_checked: int = 0
    """Finished holes re-simulated and found to match their recorded result."""
    doc: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    """The parsed log, when it could be read as a JSON object."""

    @property
    def ok(self) -> bool:
        """Whether the log is VALID."""
        return self.status is Status.VALID

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (without the log itself)."""
        return {"status": self.status.value, "message": self.message, "holes_checked": self.holes_checked}


TAMPERED_MESSAGE = "the content was changed after it was written (digest mismatch)"


class _Invalid(Exception):
    """Raised inside the checker: the first inconsistency found, with where it is."""


# -- reading -------------------------------------------------------------------------------


def validate_file(
    path: str | os.PathLike[str], max_bytes: int = LOG_MAX_BYTES, *, follow_links: bool = True
) -> Validation:
    """Read and validate one log file (of at most `max_bytes`); an unreadable file is INVALID (never an exception).

    `follow_links=False` for a log golfref found for itself (a path kept in a results store): a link there is
    NOT_A_LOG, and what it points to is never opened.
    """
    try:
        raw = read_log_bytes(path, max_bytes, follow_links=follow_links)
        doc = parse_log(raw)
    except TamperedLog as e:
        return Validation(Status.TAMPERED, str(e), 0, None)
    except NotALog as e:
        return Validation(Status.NOT_A_LOG, str(e), 0, None)
    except LogError as e:
        return Validation(Status.INVALID, str(e), 0, None)
    report = validate(doc)
    cut = journal_cut(raw)
    if cut is not None and report.status is Status.INCOMPLETE:
        report = dataclasses.replace(report, message=f"{report.message}; {cut}")
    return report


# -- the three layers ------------------------------------------------------------------------


def validate(doc: dict[str, Any]) -> Validation:
    """Validate a parsed log: integrity, then schema, then re-simulation (see the module docstring)."""
    problem = not_a_log(doc)
    if problem is not None:
        return Validation(Status.NOT_A_LOG, problem, 0, None)
    digest = sealed_digest(doc)
    if isinstance(digest, str):
        try:
            actual = compute_digest(doc)
        except LogError as e:
            return Validation(Status.INVALID, str(e), 0, doc)
        if actual != digest:
            return Validation(Status.TAMPERED, TAMPERED_MESSAGE, 0, doc)
    if not _well_formed()(doc):
        problem = _schema_problem(doc) or _float_problem(doc)
        if problem is not None:
            return Validation(Status.INVALID, problem, 0, doc)
    try:
        log = read_match_log(doc)
    except MalformedLog as e:
        return Validation(Status.INVALID, str(e), 0, doc)
    checker = _Checker(doc, log)
    try:
        message = checker.run()
    except _Invalid as e:
        return Validation(Status.INVALID, str(e), checker.holes_checked, doc)
    status = Status.VALID if log.complete else Status.INCOMPLETE
    return Validation(status, message, checker.holes_checked, doc)


# -- layer 2: the schema -----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    schema = load_schema("log.schema.json")
    return jsonschema.Draft202012Validator(schema)


def log_schema() -> dict[str, Any]:
    """The log's JSON Schema (schemas/log.schema.json)."""
    return load_schema("log.schema.json")


def _schema_problem(doc: dict[str, Any]) -> str | None:
    """The first schema violation as a located message, or None when the log is well-formed."""
    errors = list(_validator().iter_errors(doc))
    if not errors:
        return None
    error = jsonschema.exceptions.best_match(errors)
    assert error is not None
    if not (error.validator == "oneOf" and len(error.absolute_path) == 2 and error.absolute_path[0] == "players"):
        error = _narrow(error)
    path = tuple(error.absolute_path)
    validator = error.validator
    instance = error.instance
    if validator == "const" and path == ("format",):
        return f"not a golfref log: field format is {instance!r}, expected {LOG_FORMAT!r}"
    if validator == "enum" and path == ("schema_version",):
        *earlier, last = (str(v) for v in READ_VERSIONS)
        versions = f"{', '.join(earlier)} and {last}" if earlier else last
        return f"field schema_version: version {instance!r} is not supported (this golfref reads versions {versions})"
    if validator == "required":
        missing = next((k for k in error.validator_value if k not in instance), "?")
        return _locate(doc, path + (missing,), "missing")
    if validator == "additionalProperties":
        allowed = error.schema.get("properties", {})
        extra = next((k for k in instance if k not in allowed), "?")
        return _locate(doc, path + (extra,), f"unknown field {extra!r} (fields: {', '.join(allowed)})")
    if validator == "enum":
        choices = ", ".join(_show(c) for c in error.validator_value)
        return _locate(doc, path, f"{_show(instance)} is not one of: {choices}")
    if validator == "const":
        return _locate(doc, path, f"expected {_show(error.validator_value)}, got {_show(instance)}")
    if validator == "type":
        wanted = error.validator_value
        wanted_text = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return _locate(doc, path, f"expected {wanted_text}, got {json_type(instance)} ({_show(instance)})")
    if validator in ("oneOf", "anyOf"):
        if len(path) == 2 and path[0] == "players" and isinstance(instance, dict):
            return _locate(doc, path, "a player has exactly one of builtin or command")
        forms = " or ".join(dict.fromkeys(_describe(s) for s in error.validator_value))
        return _locate(doc, path, f"{_show(instance)} is not {forms}")
    if validator in ("minItems", "maxItems"):
        bound = "at least" if validator == "minItems" else "at most"
        return _locate(doc, path, f"{len(instance)} items, {bound} {error.validator_value}")
    if validator in ("minLength", "maxLength"):
        bound = "at least" if validator == "minLength" else "at most"
        return _locate(doc, path, f"{len(instance):,} characters, {bound} {error.validator_value}")
    if validator == "pattern":
        return _locate(
            doc,
            path,
            f"{_show(instance)} is not {_PATTERNS.get(error.validator_value, 'of the form ' + error.validator_value)}",
        )
    return _locate(doc, path, error.message)


def _float_problem(doc: dict[str, Any]) -> str | None:
    """A number with a decimal point where golfref writes a whole number (the schema allows `1.0`)."""

    def walk(node: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], float] | None:
        if type(node) is float and (not path or path[-1] != "ms"):
            return path, node
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            found = walk(value, path + (key,))
            if found is not None:
                return found
        return None

    found = walk(doc, ())
    if found is None:
        return None
    path, value = found
    return _locate(doc, path, f"{value!r}: golfref writes a whole number here, without a decimal point")


def _narrow(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """Inside a oneOf whose branches are all objects (a step), pick the branch the value meant."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[int, list[jsonschema.ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0], []).append(sub)  # type: ignore[arg-type]
        # A branch failing at its root on the value's type or constant was not meant.
        meant = {
            i: errs
            for i, errs in branches.items()
            if not any(not e.path and e.validator in ("type", "const") for e in errs)
        }
        if not meant:
            break
        if isinstance(error.instance, dict) and len(meant) > 1:
            # Objects of two shapes (an action step, a reshuffle step): the branch whose
            # required fields the value has is the one it meant.
            meant = {
                i: errs for i, errs in meant.items() if not any(not e.path and e.validator == "required" for e in errs)
            } or meant
        best = min(meant.values(), key=len)
        found = jsonschema.exceptions.best_match(best)
        if found is None:
            break
        error = found
    return error


_PATTERNS = {
    "^(?:[A2-9TJQK][SHDC]|X[RB])(?:#[2-4])?$": (
        "a card name (rank A 2-9 T J Q K and suit S H D C, or joker XR XB; #2 to #4 for a further deck)"
    ),
    "^sha256:[0-9a-f]{64}$": "sha256: followed by 64 lowercase hex digits",
    "^[0-9a-f]{64}$": "64 lowercase hex digits",
    "^[1-4]x[1-4]$": "ROWSxCOLS with 1 to 4 each",
    "^[^\\u0000-\\u001f\\u007f]+$": "a name without control characters",
}


def _describe(schema: Any) -> str:
    if isinstance(schema, dict):
        if "const" in schema:
            return _show(schema["const"])
        ref = schema.get("$ref", "")
        if ref.endswith("/seat"):
            return "a seat number (0-7)"
        if ref.endswith("/ints"):
            return "a list of integers"
        if ref:
            return f"a {ref.rsplit('/', 1)[-1]}"
        kind = schema.get("type")
        if kind == "null":
            return "null"
        if kind in ("integer", "object", "array"):
            return f"an {kind}" if kind != "array" else "an array"
        if kind:
            return f"a {kind}"
    return "a valid value"


def _steps(count: int) -> str:
    return f"{count} step{'s' if count != 1 else ''}"


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 80 else text[:77] + "..."
    return shown(value)  # a hostile string or number stays one short line


class _StepWhere:
    """A step's location, worked out only when a message needs it."""

    __slots__ = ("doc", "h", "t")

    def __init__(self, doc: dict[str, Any], h: int, t: int) -> None:
        self.doc, self.h, self.t = doc, h, t

    def __str__(self) -> str:
        return step_where(self.doc, self.h, self.t)


def _locate(doc: dict[str, Any], path: tuple[Any, ...], message: str) -> str:
    """Prefix `message` with where `path` points: hole, step or result, then the field."""
    if len(path) >= 2 and path[0] == "holes" and isinstance(path[1], int):
        h = path[1]
        rest = path[2:]
        if len(rest) >= 2 and rest[0] == "steps" and isinstance(rest[1], int):
            where, fields = step_where(doc, h, rest[1]), rest[2:]
        elif rest and rest[0] == "result":
            where, fields = f"hole {h}, result", rest[1:]
        else:
            where, fields = f"hole {h}", rest
        return f"{where}: field {dotted(fields)}: {message}" if fields else f"{where}: {message}"
    if path:
        return f"field {dotted(path)}: {message}"
    return message


# The schema compiled into one check (golfref/record/schema_check.py): a fraction of a millisecond
# on a 9-hole log, where jsonschema takes ~50 ms and fastjsonschema ~6 ms. It accepts exactly what
# the schema accepts, except a whole number written with a decimal point (1.0): whatever it rejects
# goes through jsonschema, which names the problem, or finds none and leaves it to _float_problem.


@lru_cache(maxsize=1)
def _well_formed() -> Callable[[Any], bool]:
    return compile_check(log_schema())


# -- layer 3: re-simulation ----------------------------------------------------------------------


def _names(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _permutation_problem(
    names: Sequence[str], expected: Sequence[int], ids: dict[str, int], card_names: Sequence[str], what: str
) -> str | None:
    """Why `names` is not an order of exactly the cards `expected`, or None when it is."""
    unknown = [n for n in names if n not in ids]
    if unknown:
        return f"{_names(unknown)} is not one of this match's cards"
    got = Counter(ids[n] for n in names)
    want = Counter(expected)
    if got == want:
        return None
    parts = []
    if len(names) != len(expected):
        parts.append(f"{len(names)} cards, expected {len(expected)}")
    twice = [card_names[c] for c, k in got.items() if k > 1]
    if twice:
        parts.append(f"{_names(twice)} listed more than once")
    foreign = [card_names[c] for c in got if c not in want]
    if foreign:
        parts.append(f"{_names(foreign)} not among them")
    missing = [card_names[c] for c in want if c not in got]
    if missing:
        parts.append(f"{_names(missing)} missing")
    return f"not an order of {what}: " + "; ".join(parts)


class _Checker:
    """Re-plays a well-formed log through the engine, raising _Invalid at the first inconsistency."""

    def __init__(self, doc: dict[str, Any], log: MatchLog) -> None:
        self.doc = doc  # the JSON as it is, only to name a step in a message
        self.log = log
        self.bots = [p.is_bot for p in log.players]  # read once: check_by asks at every step
        self.holes_checked = 0

    def fail(self, where: object, message: str) -> _Invalid:
        return _Invalid(f"{where}: {message}" if where else message)

    def run(self) -> str:
        """Check everything; returns the message of a VALID or INCOMPLETE report."""
        log = self.log
        rules = self.check_rules()
        self.check_status(rules)
        seat_status = self.check_players(rules)
        card_names = log.cards
        ids = {name: i for i, name in enumerate(card_names)}
        game = Game(rules)
        requests: dict[int, tuple[int, int]] = {}  # request id -> (seat, hole index), as recorded in the steps
        last_request = 0
        holes = log.holes
        finished = log.status is LogStatus.FINISHED
        stoppable = log.status in (LogStatus.INTERRUPTED, LogStatus.ERROR)
        if len(holes) > rules.holes:
            raise self.fail(f"hole {rules.holes}", f"the rules have {rules.holes} holes, the log has {len(holes)}")
        open_steps: int | None = None
        open_ended = False
        for h, hole in enumerate(holes):
            where = f"hole {h}"
            if hole.hole != h:
                raise self.fail(where, f"field hole: expected {h} (holes count from 0), got {hole.hole}")
            if hole.starter != h % rules.players:
                raise self.fail(
                    where,
                    f"field starter: seat {h % rules.players} starts this hole (D2), "
                    f"the log says seat {hole.starter}",
                )
            problem = _permutation_problem(
                hole.deal, game.chance or (), ids, card_names, f"the {len(card_names)} cards"
            )
            if problem:
                raise self.fail(where, f"field deal: {problem}")
            game.apply_shuffle([ids[n] for n in hole.deal])
            steps = hole.steps
            for t, step in enumerate(steps):
                last_request = self.check_step(game, h, t, step, ids, card_names, seat_status, requests, last_request)
            result = hole.result
            ended = len(game.results) > h
            if result is None:
                # Stopped in the instant between a hole's last step and its result being
                # recorded, an interrupted match can leave an ended hole without a result.
                stopped = h == len(holes) - 1 and stoppable
                if ended and not stopped:
                    raise self.fail(where, f"field result: null, but the hole ended at step {len(steps) - 1}")
                if h != len(holes) - 1:
                    raise self.fail(where, "field result: null, but only the last hole of a log can be open")
                if not stoppable:
                    raise self.fail(
                        where,
                        f"field result: null, but a log with status {log.status.value!r} has no open hole "
                        "(the referee writes an open hole only when a match is interrupted or fails)",
                    )
                open_steps = len(steps)
                open_ended = ended
                continue
            if not ended:
                raise self.fail(
                    where, f"the steps stop after {len(steps)} steps, but the hole is not over ({self.pending(game)})"
                )
            self.check_result(h, result.to_json(), hole_result_json(game.results[h], card_names))
            self.holes_checked += 1
        self.check_faults(rules, requests, finished)
        logged_totals = None if log.totals is None else list(log.totals)
        logged_placings = None if log.placings is None else list(log.placings)
        if finished or logged_totals is not None or logged_placings is not None:
            if not game.over:
                what = "the log is complete" if finished else "the log has totals or placings"
                raise self.fail("field holes", f"{what}, but it has {len(holes)} of the rules' {rules.holes} holes")
            totals = list(game.totals)
            if logged_totals != totals:
                raise self.fail("field totals", f"the holes give {totals}, the log says {logged_totals}")
            dq = [s for s, st in enumerate(seat_status) if st is SeatStatus.DISQUALIFIED]
            places = list(placings(totals, dq))
            if logged_placings != places:
                note = f" (disqualified, placed last: seat {', '.join(map(str, dq))})" if dq else ""
                raise self.fail("field placings", f"the totals give {places}{note}, the log says {logged_placings}")
            if finished:
                return (
                    f"{len(holes)} hole{'s' if len(holes) != 1 else ''}, {log.step_count} steps, "
                    f"totals {totals}, placings {places}"
                )
        status = log.status.value
        if not holes:
            return f"status {status}: no hole recorded yet"
        if open_steps is not None:
            state = "it ended there, but its result was not written" if open_ended else "the hole was open"
            through = f"hole {len(holes) - 1} and its {_steps(open_steps)}"
            return f"status {status}: validates through {through} ({state})"
        through = f"hole {len(holes) - 1} and its {_steps(len(holes[-1].steps))}"
        return f"status {status}: validates through {through}"

    # -- pieces ------------------------------------------------------------------------------

    def check_rules(self) -> Rules:
        log = self.log
        try:
            rules = rules_from_dict(dict(log.rules))
        except ValueError as e:
            raise self.fail("field rules", str(e).removeprefix("rules: ")) from None
        names = [str(c) for c in deck_set(rules.decks, rules.jokers is not None, rules.joker_count)]
        cards = log.cards
        if list(cards) != names:
            jokers = "no jokers" if rules.jokers is None else "2 jokers a deck"
            if rules.jokers is not None and rules.joker_count is not None:
                jokers = f"{rules.joker_count} joker{'s' if rules.joker_count > 1 else ''} in all"
            declared = f"{rules.decks} deck{'s' if rules.decks > 1 else ''}, {jokers}"
            if len(cards) != len(names):
                raise self.fail("field cards", f"{len(cards)} cards, but the rules declare {len(names)} ({declared})")
            i = next(i for i, (a, b) in enumerate(zip(cards, names, strict=True)) if a != b)
            raise self.fail(
                f"field cards[{i}]", f"{cards[i]!r}, but the declared cards ({declared}) have {names[i]!r} there"
            )
        return rules

    def check_status(self, rules: Rules) -> None:
        log = self.log
        status = log.status
        if log.complete != (status is LogStatus.FINISHED):
            raise self.fail("field complete", f"{_show(log.complete)}, but the status is {status.value!r}")
        if status is LogStatus.FINISHED:
            for key, value in (
                ("totals", log.totals),
                ("placings", log.placings),
                ("seed", log.seed),
                ("finished_at", log.finished_at),
            ):
                if value is None:
                    raise self.fail(f"field {key}", "null, but a finished log has it")
            for key, values in (("totals", log.totals), ("placings", log.placings)):
                assert values is not None
                if len(values) != rules.players:
                    raise self.fail(f"field {key}", f"{len(values)} entries for {rules.players} players")
            if log.error is not None:
                raise self.fail("field error", "a finished log has no error")
            return
        if status is LogStatus.RUNNING:
            for key, maybe in (("totals", log.totals), ("placings", log.placings)):
                if maybe is not None:
                    raise self.fail(f"field {key}", f"a running log has no {key} yet")
        if status is LogStatus.RUNNING and log.seed is not None:
            raise self.fail("field seed", "a running log keeps its seed off the disk (null) until the match ends")
        if status is LogStatus.ERROR and log.error is None:
            raise self.fail("field error", "null, but the status is 'error'")

    def check_players(self, rules: Rules) -> list[SeatStatus]:
        """Players and their fault bookkeeping; returns each seat's status."""
        log = self.log
        players = log.players
        if len(players) != rules.players:
            raise self.fail("field players", f"{len(players)} players, but the rules are for {rules.players}")
        for i, f in enumerate(log.faults):
            if f.seat >= rules.players:
                raise self.fail(f"field faults[{i}].seat", f"seat {f.seat}, but the match has {rules.players} players")
            if not players[f.seat].is_bot:
                raise self.fail(f"field faults[{i}].seat", f"seat {f.seat} is a built-in player, which cannot fault")
        policy = log.fault_policy
        statuses = []
        for s, p in enumerate(players):
            where = f"field players[{s}]"
            if p.seat != s:
                raise self.fail(f"{where}.seat", f"expected {s}, got {p.seat}")
            counted, trigger = self.apply_fault_policy(s, policy)
            status = (
                SeatStatus.DISQUALIFIED if trigger is not None else SeatStatus.FAULTED if counted else SeatStatus.OK
            )
            if p.status is not status:
                recorded = len(log.seat_faults(s))
                raise self.fail(
                    f"{where}.status",
                    f"{p.status.value!r}, but with {recorded} recorded fault(s) the fault policy "
                    f"({policy.mode.value}, at most {policy.max_faults}) makes seat {s} {status.value!r}",
                )
            if p.faults != counted:
                raise self.fail(
                    f"{where}.faults",
                    f"{p.faults}, but the fault policy counts {counted} "
                    "(faults after a disqualification are not counted)",
                )
            if p.disqualified_at != trigger:
                written = None if p.disqualified_at is None else p.disqualified_at.to_json()
                expected = None if trigger is None else trigger.to_json()
                raise self.fail(
                    f"{where}.disqualified_at", f"{_show(written)}, but the faults give {_show(expected)}"
                )
            statuses.append(status)
        return statuses

    def apply_fault_policy(self, seat: int, policy: FaultPolicy) -> tuple[int, DisqualifiedAt | None]:
        """(faults counted, where the seat was disqualified or None), as the referee applies the policy."""
        counted = 0
        last: Fault | None = None
        for f in self.log.faults:
            if f.seat != seat:
                continue
            counted += 1
            last = f
            if disqualifies(policy, f.kind, counted):
                return counted, DisqualifiedAt(f.hole, f.request)
        player = self.log.players[seat]
        if player.is_bot and player.reported_name is None and (last is not None or self.log.holes):
            # A bot that never said ready is disqualified once its startup is over, whatever
            # the policy; the faults it had until then (all before play) are counted.
            return counted, DisqualifiedAt(None, None) if last is None else DisqualifiedAt(last.hole, last.request)
        return counted, None

    def check_step(
        self,
        game: Game,
        h: int,
        t: int,
        step: Step,
        ids: dict[str, int],
        card_names: Sequence[str],
        seat_status: list[SeatStatus],
        requests: dict[int, tuple[int, int]],
        last_request: int,
    ) -> int:
        where = _StepWhere(self.doc, h, t)
        if len(game.results) > h:
            last = game.results[h]
            ender = f" by seat {last.ender}" if last.ender is not None else ""
            raise self.fail(
                where, f"the hole already ended ({last.end.value}{ender}) at step {t - 1}; nothing may follow"
            )
        if type(step) is ReshuffleStep:
            pending = game.chance
            if pending is None:
                raise self.fail(where, f"a reshuffle, but the stock is not empty ({self.pending(game)})")
            problem = _permutation_problem(
                step.cards,
                pending,
                ids,
                card_names,
                f"the {len(pending)} cards to reshuffle (the discard pile minus its top card)",
            )
            if problem:
                raise self.fail(where, f"field reshuffle: {problem}")
            game.apply_shuffle([ids[n] for n in step.cards])
            return last_request
        assert type(step) is DecisionStep
        if game.chance is not None:
            raise self.fail(
                where,
                f"the stock ran out: a reshuffle of {len(game.chance)} cards is due here (D7), the log has an action",
            )
        seat = step.seat
        if seat != game.to_move:
            raise self.fail(where, f"seat {seat} acted, but seat {game.to_move} is to move")
        decision = game.turn()[1]
        if step.decision is not decision:
            raise self.fail(
                where, f"field decision: {step.decision.value!r}, but seat {seat} faces a {decision.value!r} decision"
            )
        try:
            action = Action.parse(step.action)  # strict: one written form per action
        except ValueError as e:
            raise self.fail(where, f"field action: {e}") from None
        legal = game.legal_actions()
        if action not in legal:
            raise self.fail(
                where, f"field action: {step.action!r} is not legal here (legal: {' '.join(a.text for a in legal)})"
            )
        self.check_by(where, step, seat, seat_status, requests, last_request)
        try:
            game.apply(action)
        except IllegalAction as e:  # pragma: no cover - the legality check above comes first
            raise self.fail(where, f"field action: {e}") from None
        request = step.request
        return request if request is not None else last_request

    def check_by(
        self,
        where: object,
        step: DecisionStep,
        seat: int,
        seat_status: list[SeatStatus],
        requests: dict[int, tuple[int, int]],
        last_request: int,
    ) -> None:
        by, request = step.by, step.request
        if not self.bots[seat]:
            if by is not Chooser.BUILTIN:
                raise self.fail(where, f"field by: {by.value!r}, but seat {seat} is a built-in player")
            if request is not None or step.ms is not None:
                raise self.fail(
                    where, "field request: a built-in player is never sent a request (request and ms are null)"
                )
            return
        if by is Chooser.BUILTIN:
            raise self.fail(where, f"field by: 'builtin', but seat {seat} is a bot")
        if by is Chooser.FALLBACK and seat_status[seat] is SeatStatus.OK:
            raise self.fail(where, f"field by: 'fallback', but seat {seat} has no fault")
        if by is Chooser.BOT and step.ms is None:
            raise self.fail(where, "field ms: null, but a bot's answer is timed")
        if request is None:
            # Only a disqualified bot is no longer asked: the fallback plays without a request.
            if by is Chooser.FALLBACK and seat_status[seat] is SeatStatus.DISQUALIFIED:
                return
            raise self.fail(where, f"field request: null, but seat {seat} is a bot and was sent a request")
        if request != last_request + 1:
            raise self.fail(
                where,
                f"field request: {request}, but the previous request was {last_request} "
                "(requests are numbered 1, 2, 3... as sent)",
            )
        requests[request] = (seat, where.h if isinstance(where, _StepWhere) else -1)

    def check_result(self, h: int, logged: dict[str, Any], derived: dict[str, Any]) -> None:
        where = f"hole {h}, result"
        for key in ("end", "ender", "grids", "raw", "penalties", "scores", "totals", "turns"):
            if logged[key] == derived[key]:
                continue
            if key == "grids" and len(logged[key]) == len(derived[key]):
                s = next(s for s, (a, b) in enumerate(zip(logged[key], derived[key], strict=True)) if a != b)
                raise self.fail(
                    where,
                    f"field grids[{s}]: the steps give {_show(derived[key][s])}, the log says {_show(logged[key][s])}",
                )
            raise self.fail(
                where, f"field {key}: the steps give {_show(derived[key])}, the log says {_show(logged[key])}"
            )

    def check_faults(self, rules: Rules, requests: dict[int, tuple[int, int]], finished: bool) -> None:
        log = self.log
        holes = len(log.holes)
        top = max(requests, default=0)
        for i, f in enumerate(log.faults):
            where = f"field faults[{i}]"
            seat, hole, request = f.seat, f.hole, f.request
            if not log.players[seat].is_bot:
                raise self.fail(f"{where}.seat", f"seat {seat} is a built-in player, which cannot fault")
            # A running log may record a fault of the hole in play, which is not on disk yet.
            if hole is not None and (hole > holes or (hole == holes and finished)):
                raise self.fail(f"{where}.hole", f"hole index {hole}, but the log has {holes} holes (counted from 0)")
            if request is None:
                continue
            if request in requests:
                asked, in_hole = requests[request]
                if asked != seat:
                    raise self.fail(f"{where}.request", f"request {request} went to seat {asked}, not seat {seat}")
                # A second answer to an old request is noticed later; every other fault
                # with a request happens while that request is open.
                if f.kind is not FaultKind.REPEATED_ID and hole != in_hole:
                    raise self.fail(
                        f"{where}.hole", f"{_show(hole)}, but request {request} was asked in hole index {in_hole}"
                    )
            elif finished or request <= top:
                raise self.fail(f"{where}.request", f"no step records request {request}")

    @staticmethod
    def pending(game: Game) -> str:
        if game.chance is not None:
            return f"a reshuffle of {len(game.chance)} cards is due"
        if game.over:
            return "the match is over"
        seat, decision = game.turn()
        return f"seat {seat} is to move, decision {decision.value}"
