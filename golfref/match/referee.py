"""The match loop: engine, views, protocol and bot processes joined together.

A bot's misbehaviour is data: every timeout, crash, malformed line, wrong id, illegal
choice or unasked output becomes a `Fault` in the log and is handled by the match's
fault policy, so a match always finishes and always leaves a log. Only misuse of the
referee itself raises out of `run_match`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import secrets
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots.framing import ReadResult, ReadStatus
from ..bots.launch import LauncherFactory, StartedBot, StartFailed, match_seed_problem
from ..bots.policy_seat import SeatLauncher
from ..config.match import HUMAN, ConfigError, MatchConfig, PlayerSpec
from ..files import UnsafeFile
from ..game.engine import Action, Game, HoleResult
from ..game.fast import enum_value
from ..game.policies import Policy, make_policy
from ..game.view import view
from ..record.faults import EXIT_WAIT, Fault, FaultKind, SeatStatus, disqualifies
from ..record.log import Journal, LogBuilder, LogSigner, write_log
from ..record.transcript import STDERR_REQUEST_BYTES, StderrRecorder
from . import protocol
from .outputs import append_transcript, check_outputs, log_path_for, new_match_id, planned_log_path, start_transcripts
from .outputs import transcript_path as _transcript_path
from .seat import Clock, SeatFactory, SeatLeft, TerminalSeat
from .seat_messages import hole_end_line, request_line
from .stopping import Stop, stop_on_signals

__all__ = [
    "MatchResult",
    "MatchInterrupted",
    "run_match",
    "log_path_for",
]

# How much of an offending line a fault keeps.
_LINE_KEEP = 200
_CLOSE_GRACE = 0.5
# Late answers to a timed-out request are dropped, one per request: more is a fault.
_LATE_ALLOWANCE = 1


@dataclass
class _Seat:
    index: int
    spec: PlayerSpec
    policy: Policy | None  # a built-in player's policy
    fallback: Policy
    bot: StartedBot | None = None
    status: SeatStatus = SeatStatus.OK
    faults: int = 0
    reported_name: str | None = None
    reported_version: str | None = None
    bank_ms: int = 0
    used_ms: float = 0.0  # thinking time used over the match, against time.match_ms
    event_mark: tuple[int, int] = (0, 0)  # (hole, index into game.events) already sent
    answered: set[int] = field(default_factory=set)
    # timed-out request ids -> late answers still allowed (dropped); past that, a fault
    stale: dict[int, int] = field(default_factory=dict)
    sends: dict[int, int] = field(default_factory=dict)  # request id -> the bot's send count for it
    disqualified_at: dict[str, Any] | None = None
    transcript: list[str] = field(default_factory=list)
    transcript_refused: bool = False  # its path was found to be a link or not a file: no more writes
    stderr: StderrRecorder | None = None  # its stderr per request, for the transcript (with transcripts only)
    fingerprint: dict[str, Any] | None = None  # an external bot's build, hashed before any bot starts
    human: TerminalSeat | None = None  # a person at the terminal (`builtin: human`)

    @property
    def live(self) -> bool:
        return self.bot is not None and self.status is not SeatStatus.DISQUALIFIED


@dataclass(frozen=True)
class MatchResult:
    """What `golfref run` reports: the finished log and a summary of it."""

    log_path: Path
    log: dict[str, Any]
    names: tuple[str, ...]
    hole_scores: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    placings: tuple[int, ...]
    statuses: tuple[SeatStatus, ...]
    faults: tuple[Fault, ...]


class MatchInterrupted(Exception):
    """The match was stopped by a signal (Ctrl-C, SIGTERM, SIGHUP); the incomplete log was kept.

    `log_path` is None when the signal came before any bot started: there is no log then.
    """

    def __init__(self, log_path: Path | None, signum: int = signal.SIGINT, reason: str | None = None) -> None:
        what = "before any bot started" if log_path is None else f"the incomplete log is {log_path}"
        super().__init__(f"{reason or 'interrupted by ' + signal.Signals(signum).name}; {what}")
        self.log_path = log_path
        self.signum = signum


class Shuffler:
    """Shuffles for one match, each from its own generator seeded by a hash of (seed, hole, number).

    Every shuffle outcome ends up in the log. Were they all drawn from one Mersenne
    Twister, enough recorded shuffles would let a bot reconstruct its state and predict
    the next deal; a hash per shuffle leaves nothing to reconstruct without the seed.
    A shuffle depends only on the seed, the hole and its number within the hole (0 the
    deal, then each reshuffle), never on what happened earlier: two matches with one seed
    see the same deal in every hole however their earlier holes went (duplicate deals).
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.hole = -1
        self.count = 0  # shuffles done so far in `self.hole`

    def shuffle(self, cards: list[int], hole: int) -> None:
        """Shuffle `cards` in place: the next shuffle of `hole`."""
        if hole != self.hole:
            self.hole, self.count = hole, 0
        digest = hashlib.sha256(f"golfref-shuffle:{self.seed}:{hole}:{self.count}".encode()).digest()
        self.count += 1
        random.Random(int.from_bytes(digest, "big")).shuffle(cards)


def _truncate(text: str | None) -> str | None:
    if text is None or len(text) <= _LINE_KEEP:
        return text
    return text[:_LINE_KEEP] + f"... ({len(text)} characters)"


def _exit_words(code: int | None) -> str:
    """How a bot whose stdout closed stands: exited with a code, killed, or still running."""
    if code is None:
        return "the bot closed its stdout but is still running"
    if code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        return f"the bot was killed by signal {-code}{name}"
    return f"the bot exited (code {code})"


class _Referee:
    def __init__(
        self,
        config: MatchConfig,
        seed: int | None,
        log_path: str | None,
        on_hole: Callable[[HoleResult, tuple[str, ...]], None] | None,
        on_turn: Callable[[Game], None] | None = None,
        sign: LogSigner | None = None,
        stop_check: Callable[[], None] | None = None,
        human: SeatFactory | None = None,
        launcher: LauncherFactory | None = None,
    ) -> None:
        self.config = config
        self.stop_check = stop_check
        self.sign = sign
        self.rules = config.rules
        self.seed = seed if seed is not None else (config.seed if config.seed is not None else secrets.randbits(63))
        self.shuffler = Shuffler(self.seed)
        self.playing = False
        # Built-in and fallback policies draw from their own stream, so that which bots
        # fault never changes the deal.
        policy_rng = random.Random(self.seed ^ 0x5EED_F00D)
        self.game = Game(self.rules)
        self.names = tuple(p.name for p in config.players)
        self.on_hole = on_hole
        self.on_turn = on_turn
        now = dt.datetime.now(dt.UTC)
        self.match_id, slug = new_match_id(config.name, now)
        self.log_path = planned_log_path(config, log_path, self.match_id, slug, now)
        self.hidden: tuple[Path, ...] = ()  # `box_bots`'s `hide`: more of the referee's files
        self.request_id = 0
        self.request_holes: dict[int, int] = {}
        self.seats = [
            _Seat(
                index=i,
                spec=spec,
                policy=(
                    make_policy(spec.builtin, self.rules, policy_rng, dict(spec.options))
                    if spec.builtin not in (None, HUMAN)
                    else None
                ),
                fallback=make_policy(config.faults.fallback, self.rules, policy_rng),
                bank_ms=config.time.bank_ms,
            )
            for i, spec in enumerate(config.players)
        ]
        for seat in self.seats:
            if seat.spec.builtin == HUMAN:
                if human is None:
                    raise ValueError(
                        f"player {seat.index} ({seat.spec.name}) is a person at the terminal (builtin: human): "
                        "run_match needs `human`, the factory of its seat (golfref.show.human_seat.HumanSeat)"
                    )
                seat.human = human(seat.index, self.names)
        self.launcher = (launcher or SeatLauncher)(stop_check)
        self.clock = self.launcher.clock  # every deadline and time taken is on the bots' clock
        self.t0 = self.clock()
        self.faults: list[Fault] = []
        self.builder = LogBuilder(
            match_id=self.match_id,
            match=config.name,
            started_at=now.isoformat(timespec="seconds"),
            seed=self.seed,
            rules=self.rules,
            card_names=[str(c) for c in self.game.cards],
            time_control=config.time.to_json(),
            fault_policy=config.faults.to_json(),
            players=[],
        )
        self.card_names = self.builder.card_names
        self.journal = Journal(self.log_path)
        self.written: dict[str, Any] = {}  # the log as last written to disk

    # -- bookkeeping ---------------------------------------------------------------

    def _now_ms(self) -> int:
        return int((self.clock() - self.t0) * 1000)

    def _fault(
        self,
        seat: _Seat,
        kind: FaultKind,
        message: str,
        line: str | None = None,
        request: int | None = None,
        hole: int | None = None,
    ) -> None:
        if hole is None:
            # The hole of the request it concerns; else the hole in play, if any.
            if request is not None and request in self.request_holes:
                hole = self.request_holes[request]
            elif self.playing and not self.game.over:
                hole = self.game.hole
        fault = Fault(seat.index, kind, message, _truncate(line), hole, request, self._now_ms())
        self.faults.append(fault)
        self.builder.fault(fault.to_json())
        if seat.status is SeatStatus.DISQUALIFIED:
            return
        seat.faults += 1
        seat.status = SeatStatus.FAULTED
        if disqualifies(self.config.faults, kind, seat.faults):
            self._disqualify(seat, request, hole)

    def _disqualify(self, seat: _Seat, request: int | None, hole: int | None) -> None:
        seat.status = SeatStatus.DISQUALIFIED
        seat.disqualified_at = {"hole": hole, "request": request}
        if seat.bot is not None:
            seat.bot.close(grace=0.1)

    def _players_json(self) -> list[dict[str, Any]]:
        out = []
        for seat in self.seats:
            entry = seat.spec.to_json()
            entry["seat"] = seat.index
            entry["reported_name"] = seat.reported_name
            entry["reported_version"] = seat.reported_version
            entry["status"] = seat.status.value
            entry["faults"] = seat.faults
            entry["disqualified_at"] = seat.disqualified_at
            entry["stderr"] = seat.bot.stderr_text() if seat.bot is not None else None
            if seat.spec.external:
                entry["fingerprint"] = seat.fingerprint
                entry["sandbox"] = self.launcher.protections(seat.index)
            out.append(entry)
        return out

    def _save(self, status: str, include_open_hole: bool, error: str | None = None) -> None:
        doc = self.builder.snapshot(include_open_hole)
        doc["players"] = players = self._players_json()
        doc["status"] = status
        doc["complete"] = status == "finished"
        doc["error"] = error
        if status == "running":
            # The seed decides every deal still to come; it reaches the disk only at the end.
            doc["seed"] = None
        else:
            doc["finished_at"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if status == "running":
            # Appended, not rewritten: a hole costs the same to record however long the match.
            self.journal.write(doc, self.builder.hole_bytes)
        else:
            # Only a final log is signed; it replaces the journal in one rename.
            self.journal.close()
            write_log(self.log_path, doc, body=self.builder.canonical(doc), sign=self.sign)
        self.builder.doc["players"] = players
        self.written = doc

    def _flush_transcripts(self) -> None:
        # Written only between holes: a transcript shows what its seat saw, which another
        # bot (same user, same disk) must not read while the hole is in play.
        if not self.config.log.transcript:
            return
        for seat in self.seats:
            if not seat.transcript or seat.transcript_refused:
                continue
            try:
                append_transcript(_transcript_path(self.log_path, seat.index), "".join(seat.transcript))
            except UnsafeFile:
                # Something replaced the transcript (a link to elsewhere, a FIFO): the match stops
                # as an error naming it, and the abort's own flush does not try that path again.
                seat.transcript_refused = True
                raise
            seat.transcript.clear()

    def _note(self, seat: _Seat, direction: str, line: str) -> None:
        if self.config.log.transcript:
            seat.transcript.append(
                json.dumps({"ms": self._now_ms(), "dir": direction, "line": line}, ensure_ascii=False) + "\n"
            )

    def _take_stderr(self, seat: _Seat, request: int | None, final: bool = False) -> None:
        """Put what the bot wrote to stderr since the last take into its transcript, as written during `request`."""
        recorder, bot = seat.stderr, seat.bot
        if recorder is None or bot is None:
            return
        data, dropped = bot.take_stderr()
        if data or dropped or final:
            seat.transcript.extend(recorder.records(data, dropped, request, self._now_ms(), final))

    def _send(self, seat: _Seat, line: str) -> bool:
        assert seat.bot is not None
        self._note(seat, "to_bot", line)
        deadline = self.clock() + max(1.0, self.config.time.move_ms / 1000)
        return seat.bot.send(line, deadline)

    # -- startup -------------------------------------------------------------------

    def box_bots(self, hide: Sequence[Path]) -> None:
        """Set up each external bot's sandbox when the config asks for one (a ConfigError before any bot starts).

        `hide` are more of the referee's files to keep out of the bots' sight, beside the
        config, the log's folder and golfref's own Python packages (its virtual environment).
        """
        self.launcher.prepare(self.config.sandbox, self.config.players, self.log_path.parent, self.config.source, hide)
        self.hidden = tuple(hide)

    def outputs(self) -> list[Path]:
        """The referee's own files, which no fingerprint covers: the log, its folder, the transcripts, `hide`'s."""
        seats = [_transcript_path(self.log_path, seat.index) for seat in self.seats]
        return [self.log_path, self.log_path.parent, *seats, *self.hidden]

    def release_sandboxes(self) -> None:
        """Give back the user ids of sandboxes whose bot never started (a started bot's close does it)."""
        self.launcher.release()

    def start(self) -> None:
        tc = self.config.time
        rules_json = protocol.hello_rules(self.rules)
        started = []
        # Every build is hashed before the first bot runs, so no bot can change another's files first.
        outputs = self.outputs()
        for seat in self.seats:
            if seat.spec.external:
                seat.fingerprint = self.launcher.fingerprint(seat.index, seat.spec, outputs)
        for seat in self.seats:
            if not seat.spec.external:
                continue
            try:
                seat.bot = self.launcher.start(seat.index, seat.spec)
            except StartFailed as e:
                self._fault(seat, FaultKind.START_FAILED, str(e))
                continue
            started.append(seat)
            if self.config.log.transcript:
                # Timing decides which request a stderr line falls in: the transcript keeps it, never the log.
                seat.bot.follow_stderr(STDERR_REQUEST_BYTES)
                seat.stderr = StderrRecorder()
            if self.stop_check is not None:
                self.stop_check()  # a signal during the fork ran its handler in a fork hook, which cannot raise
        for seat in started:
            if not self._send(seat, protocol.hello(seat.index, self.names, rules_json, tc.to_json())):
                self._send_failed(seat, "its ready", None)
        deadline = self.clock() + (tc.startup_ms + tc.grace_ms) / 1000
        for seat in started:
            if seat.live:
                self._await_ready(seat, deadline)
            if seat.live and seat.reported_name is None:
                # A bot that never said ready cannot be trusted to answer anything.
                self._disqualify(seat, None, None)

    def _await_ready(self, seat: _Seat, deadline: float) -> None:
        # Lines before ready (a library's banner, a debug print) are faults like any other,
        # charged by the fault policy; the bot may still say ready before its deadline.
        assert seat.bot is not None
        # What it printed before the hello reached it comes first: whether a banner is read
        # before or after the hello was sent depends only on timing, and the record must not.
        early = seat.bot.take_unasked()
        while seat.live and seat.reported_name is None:
            result = early.pop(0) if early else seat.bot.read_line(deadline)
            if result.status is not ReadStatus.LINE or result.line is None:
                self._read_fault(seat, result, "ready", None)
                if result.status in (ReadStatus.TIMEOUT, ReadStatus.EXITED):
                    return
                continue
            line = result.line
            self._note(seat, "from_bot", line)
            try:
                seat.reported_name, seat.reported_version = protocol.parse_ready(line)
            except protocol.NotJson as e:
                self._fault(seat, FaultKind.NOT_JSON, f"expected ready: {e}", line)
            except protocol.InvalidMessage as e:
                self._fault(seat, FaultKind.INVALID_MESSAGE, str(e), line)

    def _read_fault(
        self, seat: _Seat, result: ReadResult, waiting_for: str | None, request: int | None, hole: int | None = None
    ) -> None:
        """Record a failed read; `waiting_for` names what was awaited ("ready", "answer to request 3")."""
        status = result.status
        if status is ReadStatus.TIMEOUT:
            self._fault(seat, FaultKind.TIMEOUT, f"no {waiting_for} within the time limit", None, request, hole)
        elif status is ReadStatus.EXITED:
            code = seat.bot.wait_exit(EXIT_WAIT) if seat.bot is not None else None
            when = f"before its {waiting_for}" if waiting_for else "while no request was open"
            # (_send_failed words a failed write to an exiting bot the same way)
            self._exit_fault(seat, code, f"{_exit_words(code)} {when}", request, hole)
        elif status is ReadStatus.TOO_LONG:
            self._fault(seat, FaultKind.LINE_TOO_LONG, "a line longer than the limit", result.raw, request, hole)
        elif status is ReadStatus.NOT_UTF8:
            self._fault(seat, FaultKind.NOT_UTF8, "a line that is not UTF-8", result.raw, request, hole)
        else:  # pragma: no cover - every status is handled above
            raise AssertionError(status)

    def _send_failed(self, seat: _Seat, before: str, request: int | None, hole: int | None = None) -> None:
        """Record a line the bot could not be sent: it exited (said as a failed read says it), or it does not read.

        Whether a bot that is exiting fails the write or the read after it depends only on
        timing, so both are recorded alike.
        """
        code = seat.bot.wait_exit(EXIT_WAIT) if seat.bot is not None else None
        if code is None:
            message = f"the bot does not take its input (closed, or not reading it) before {before}"
        else:
            message = f"{_exit_words(code)} before {before}"
        self._exit_fault(seat, code, message, request, hole)

    def _exit_fault(self, seat: _Seat, code: int | None, message: str, request: int | None, hole: int | None) -> None:
        """Record a bot's end: at one of its sandbox limits (`resource_limit`, naming it) or not (`exited`)."""
        limit = seat.bot.limit_hit(code) if seat.bot is not None and code else None
        if limit is not None:
            self._fault(seat, FaultKind.RESOURCE_LIMIT, f"hit its {limit} limit: {message}", None, request, hole)
        else:
            self._fault(seat, FaultKind.EXITED, message, None, request, hole)

    # -- decisions -----------------------------------------------------------------

    def _check_unasked(self, seat: _Seat, hole: int | None = None) -> None:
        assert seat.bot is not None
        for result in seat.bot.take_unasked():
            if not seat.live:
                return
            if result.status is not ReadStatus.LINE or result.line is None:
                self._read_fault(seat, result, None, None, hole)
                continue
            self._note(seat, "from_bot", result.line)
            try:
                answer_id, _ = protocol.parse_answer(result.line)
            except protocol.MessageError:
                answer_id = None
            if answer_id is not None and self._late(seat, answer_id):
                continue
            if answer_id is not None and result.sends < seat.sends.get(answer_id, result.sends + 1):
                self._fault(
                    seat,
                    FaultKind.UNASKED_OUTPUT,
                    f"an answer to request {answer_id} before request {answer_id} was sent",
                    result.line,
                    None,
                    hole,
                )
            elif answer_id is not None and answer_id in seat.answered:
                self._fault(
                    seat, FaultKind.REPEATED_ID, f"a second answer to request {answer_id}", result.line, answer_id
                )
            else:
                self._fault(seat, FaultKind.UNASKED_OUTPUT, "output when no request was open", result.line, None, hole)

    def _late(self, seat: _Seat, answer_id: int) -> bool:
        """Whether a line answering `answer_id` is an allowed late answer to a timed-out request (dropped)."""
        left = seat.stale.get(answer_id)
        if left is None:
            return False
        if left <= 1:
            # Spent: a further answer to it is a repeat, charged as a fault.
            del seat.stale[answer_id]
            seat.answered.add(answer_id)
        else:
            seat.stale[answer_id] = left - 1
        return True

    def _ask(
        self, seat: _Seat, legal: tuple[Action, ...], decision: str
    ) -> tuple[Action | None, int | None, float | None]:
        """Ask a bot for a decision: (action or None when it faulted, request id, ms taken).

        The request id is None when no request was sent (the seat was disqualified first, or
        its match time is used up).
        """
        bot = seat.bot
        assert bot is not None
        self._check_unasked(seat)
        if not seat.live:
            return None, None, None
        match_ms = self.config.time.match_ms
        if match_ms and seat.used_ms >= match_ms:
            # Like a flag falling on a chess clock: the bot has no time left to answer anything.
            self._fault(seat, FaultKind.MATCH_TIME, f"the bot's match time ({match_ms} ms) is used up")
            return None, None, None
        if seat.stderr is not None:
            self._take_stderr(seat, None)  # written since its last request: between requests
        action, rid, ms = self._request(seat, bot, legal, decision)
        if seat.stderr is not None:
            self._take_stderr(seat, rid)
        seat.used_ms += ms
        if action is None and rid not in seat.answered:
            seat.stale.setdefault(rid, _LATE_ALLOWANCE)  # settled by the fallback: a later answer is dropped
        return action, rid, ms

    def _request(
        self, seat: _Seat, bot: StartedBot, legal: tuple[Action, ...], decision: str
    ) -> tuple[Action | None, int, float]:
        game = self.game
        self.request_id += 1
        rid = self.request_id
        self.request_holes[rid] = game.hole
        tc = self.config.time
        budget_ms = tc.move_ms + seat.bank_ms
        if tc.match_ms:
            budget_ms = min(budget_ms, max(0, int(tc.match_ms - seat.used_ms)))
        line, seat.event_mark = request_line(game, seat.index, rid, seat.event_mark, budget_ms)
        sent = self.clock()
        seat.sends[rid] = bot.sends + 1
        if not self._send(seat, line):
            self._send_failed(seat, f"its answer to request {rid}", rid)
            return None, rid, 0.0
        deadline = sent + (budget_ms + tc.grace_ms) / 1000
        while True:
            result = bot.read_line(deadline)
            ms = (self.clock() - sent) * 1000
            if result.status is not ReadStatus.LINE or result.line is None:
                if result.status is ReadStatus.TIMEOUT:
                    seat.bank_ms = 0  # the whole budget, bank included, is spent
                self._read_fault(seat, result, f"answer to request {rid}", rid)
                return None, rid, ms
            self._note(seat, "from_bot", result.line)
            try:
                answer_id, action_text = protocol.parse_answer(result.line)
            except protocol.NotJson as e:
                self._fault(seat, FaultKind.NOT_JSON, str(e), result.line, rid)
                return None, rid, ms
            except protocol.InvalidMessage as e:
                self._fault(seat, FaultKind.INVALID_MESSAGE, str(e), result.line, rid)
                return None, rid, ms
            if answer_id != rid and self._late(seat, answer_id):
                continue
            if answer_id != rid:
                if answer_id in seat.answered:
                    kind, what = FaultKind.REPEATED_ID, f"a second answer to request {answer_id}"
                else:
                    kind, what = FaultKind.WRONG_ID, f"answer id {protocol.clip(answer_id)}"
                self._fault(seat, kind, f"{what}, but the open request is {rid}", result.line, rid)
                return None, rid, ms
            seat.answered.add(rid)
            self._charge(seat, ms)
            action = next((a for a in legal if a.text == action_text), None)
            if action is None:
                self._fault(
                    seat,
                    FaultKind.ILLEGAL_ACTION,
                    f"{action_text!r} is not a legal choice (legal: {' '.join(a.text for a in legal)})",
                    result.line,
                    rid,
                )
                return None, rid, ms
            return action, rid, ms

    def _charge(self, seat: _Seat, ms: float) -> None:
        tc = self.config.time
        over = ms - tc.move_ms
        if over > 0:
            seat.bank_ms = max(0, seat.bank_ms - int(over))
        seat.bank_ms += tc.increment_ms

    # -- the match -----------------------------------------------------------------

    def play(self) -> None:
        game = self.game
        builder = self.builder
        self.playing = True
        self._save("running", include_open_hole=False)
        while not game.over:
            chance = game.chance
            if chance is not None:
                order = list(chance)
                self.shuffler.shuffle(order, game.hole)
                builder.shuffle(game, order)
                continue
            to_move, turn_decision = game.turn()
            seat = self.seats[to_move]
            legal = game.legal_actions()
            decision = enum_value(turn_decision)
            holes_before = len(game.results)
            if self.on_turn is not None:
                self.on_turn(game)
            if seat.human is not None:
                action = self._ask_human(seat, seat.human, legal)
                builder.step(seat.index, decision, str(action), "builtin", None, None)
            elif seat.policy is not None:
                action = seat.policy.choose(view(game, seat.index), legal)
                builder.step(seat.index, decision, str(action), "builtin", None, None)
            else:
                action_or_none: Action | None = None
                rid: int | None = None
                ms: float | None = None
                if seat.live:
                    action_or_none, rid, ms = self._ask(seat, legal, decision)
                if action_or_none is None:
                    action = seat.fallback.choose(view(game, seat.index), legal)
                    by = "fallback"
                else:
                    action, by = action_or_none, "bot"
                builder.step(seat.index, decision, str(action), by, rid, None if ms is None else round(ms, 2))
            game.apply(action)
            if len(game.results) > holes_before:
                self._hole_over(game.results[-1])

    def _ask_human(self, seat: _Seat, human: TerminalSeat, legal: tuple[Action, ...]) -> Action:
        """A person's decision, from the request a bot in that seat would get (untimed: see match/seat.py)."""
        # No request id is taken: the bots' ids stay those of a match with a built-in here.
        line, seat.event_mark = request_line(self.game, seat.index, 0, seat.event_mark, 0)
        clocks = [
            Clock(s.index, s.used_ms, self.config.time.move_ms, s.bank_ms) for s in self.seats if s.spec.external
        ]
        text = human.decide(json.loads(line), clocks)
        return next(a for a in legal if a.text == text)

    def _hole_over(self, result: HoleResult) -> None:
        self.builder.end_hole(result)
        for seat in self.seats:
            if seat.human is not None:
                line = hole_end_line(self.game, result, seat.index, seat.event_mark, self.card_names)
                seat.human.hole_end(json.loads(line))
                seat.event_mark = (result.hole, len(self.game.events))
            if seat.live:
                self._check_unasked(seat, result.hole)
            if seat.live:
                line = hole_end_line(self.game, result, seat.index, seat.event_mark, self.card_names)
                if not self._send(seat, line):
                    self._send_failed(seat, f"the end of hole {result.hole} reached it", None, result.hole)
        self._flush_transcripts()
        self._save("running", include_open_hole=False)
        if self.on_hole is not None:
            self.on_hole(result, self.names)

    def finish(self) -> MatchResult:
        game = self.game
        disqualified = [s.index for s in self.seats if s.status is SeatStatus.DISQUALIFIED]
        placings = game.placings(disqualified)
        end_line = protocol.match_end(game.totals, placings, disqualified)
        for seat in self.seats:
            if seat.human is not None:
                seat.human.match_end(json.loads(end_line))
            if seat.live:
                self._check_unasked(seat, len(game.results) - 1)
            if seat.live:
                self._send(seat, end_line)
                self._send(seat, protocol.goodbye())
        self.launcher.close_all(_CLOSE_GRACE)
        self._last_stderr()
        self.builder.doc["totals"] = list(game.totals)
        self.builder.doc["placings"] = list(placings)
        self._flush_transcripts()
        self._save("finished", include_open_hole=False)
        return MatchResult(
            log_path=self.log_path,
            log=self.written,
            names=self.names,
            hole_scores=tuple(r.scores for r in game.results),
            totals=tuple(game.totals),
            placings=placings,
            statuses=tuple(s.status for s in self.seats),
            faults=tuple(self.faults),
        )

    def _last_stderr(self) -> None:
        """Each bot's last stderr, once every bot has ended: between requests, a line begun ended here."""
        for seat in self.seats:
            self._take_stderr(seat, None, final=True)

    def abort(self, status: str, error: str | None) -> None:
        # Bots go first: once none is running, the open hole may reach the disk.
        self.launcher.close_all(0.1)
        self._last_stderr()
        self._flush_transcripts()
        self._save(status, include_open_hole=True, error=error)


def run_match(
    config: MatchConfig,
    *,
    seed: int | None = None,
    log_path: str | None = None,
    on_hole: Callable[[HoleResult, tuple[str, ...]], None] | None = None,
    on_turn: Callable[[Game], None] | None = None,
    force: bool = False,
    sign: LogSigner | None = None,
    hide: Sequence[Path] = (),
    human: SeatFactory | None = None,
    stop: Callable[[], bool] | None = None,
    launcher: LauncherFactory | None = None,
) -> MatchResult:
    """Play a whole match and write its log; raises MatchInterrupted on SIGINT, SIGTERM or SIGHUP.

    `log_path` (a template, from the current directory) replaces the config's log.path.
    A log path that the match may not write raises ConfigError before any bot starts
    (`outputs.check_outputs`; `force` replaces a file that is not a golfref log). `on_turn`
    is called with the game (to read, not to change) before each decision of a hole. Called
    from the main thread, it owns the stop signals for the match: the first one stops it
    (bots closed, the log saved as ``interrupted``), and any later one is ignored until
    that is done, however soon it comes. `sign` (`signing.Signer`) signs the final log
    (finished, interrupted or error), not the journal written while the match runs.
    `hide`: more of the caller's files for sandboxed bots not to see (`Referee.box_bots`).
    `human` makes the terminal seat of each `builtin: human` player, from its seat and the
    players' names (`match.seat.SeatFactory`; the command line passes golfref.show.human_seat's);
    a config with such a player and no `human` is a ValueError, before anything starts.
    `stop`, when given, is asked at the referee's waits (at least every `multiplex._CHECK_EVERY`
    seconds of a wait for a bot, and after each bot starts): once it says yes, the match stops as
    on SIGINT, at a point where the stop cannot be lost. A caller that stops matches this way
    sends no signal, so no handler can run inside a lock, a finalizer or a fork hook.
    `launcher` makes the door through which the seats' bots are started (`bots.launch`; default:
    `bots.policy_seat.SeatLauncher`: each command player's program as a process, in its sandbox when
    asked, through `ProcessLauncher`; each python player's policy in this process, as a `PolicyBot`).

    `on_turn` and `on_hole` may also stop the match by raising, to end it at a chosen point:
    KeyboardInterrupt stops it as Ctrl-C does (the log saved as ``interrupted`` with the open
    hole, MatchInterrupted raised); any other exception saves it as ``error`` and propagates.
    """
    with stop_on_signals() as stopped:

        def check() -> None:
            stopped.check()
            if stop is not None and stopped.signum is None and stop():
                stopped.signum = signal.SIGINT  # as a first stop signal: a later one waits for the cleanup
                raise Stop(signal.SIGINT)

        referee: _Referee | None = None
        try:
            problem = match_seed_problem(config) if seed is None else None  # a seed given overrides the file's
            if problem is not None:
                raise ConfigError(problem)
            referee = _Referee(config, seed, log_path, on_hole, on_turn, sign, check, human, launcher)
            check_outputs(config, referee.log_path, force=force)
            referee.box_bots(hide)
        except Stop as e:  # nothing started, nothing written: no log to keep
            stopped.cleaning = True
            if referee is not None:
                referee.release_sandboxes()
            raise MatchInterrupted(None, e.signum) from None
        try:
            transcribed = (
                [i for i, p in enumerate(config.players) if p.external] if config.log.transcript else []
            )
            try:
                start_transcripts(referee.log_path, transcribed)
            except OSError as e:
                raise ConfigError(
                    f"cannot write the transcripts next to {referee.log_path}: {e.strerror or e}"
                ) from None
            try:
                referee.start()
                referee.play()
                return referee.finish()
            except (Stop, KeyboardInterrupt) as e:
                signum = e.signum if isinstance(e, Stop) else signal.SIGINT
                stopped.cleaning = True
                reason = str(e) if isinstance(e, SeatLeft) else f"interrupted by {signal.Signals(signum).name}"
                referee.abort("interrupted", reason)
                raise MatchInterrupted(referee.log_path, signum, reason if isinstance(e, SeatLeft) else None) from None
            except BaseException as e:
                stopped.cleaning = True
                referee.abort("error", f"{type(e).__name__}: {e}")
                raise
        finally:
            referee.release_sandboxes()
