"""The executor: runs scheduled matches through the one `run_match` and hands back their results.

Nothing else knows where a match runs. `LocalExecutor` uses a pool of local worker
processes; another back end (a cluster) implements the same `Executor` interface. Every back
end hands its jobs out through the schedule's `Release` (`MatchJob.claim`): no two matches of
one deal that share a bot are ever in flight at once.

Stopping: the parent stops its workers through a shared flag (`stop`), never a signal. Each
match asks the flag between turns and during every wait for a bot (`run_match`'s `stop`), so
a `kill -INT` of the tournament alone, or an SPRT decision, stops the matches too, at points
where the stop cannot be lost. A signal sent to a worker would run its handler wherever the
worker is: inside a lock it holds (a `multiprocessing.Event`'s, which then stays locked and
hangs every process that asks it), a finalizer or a fork hook (where the exception is
printed as "Exception ignored" and dropped). A Ctrl-C on a terminal still reaches the
workers, with the tournament, and `run_match` takes it during a match; between matches a
worker ignores it. Should the parent die (SIGKILL), each worker gets SIGTERM from the kernel
and leaves.
"""

from __future__ import annotations

import abc
import collections
import concurrent.futures as cf
import ctypes
import functools
import multiprocessing
import os
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bots.fingerprint import Build, build
from ..config.match import ConfigError, MatchConfig
from ..record.faults import SeatStatus
from ..record.log import LogError, TournamentPlace, read_log
from ..record.matchlog import Chooser, LogLike, as_match_log, read_match_log
from ..stats.records import MatchRecord
from .schedule import Claim, Release, bots_of

if TYPE_CHECKING:
    from ..record.signing import Signer

__all__ = ["MatchJob", "MatchOutcome", "Executor", "LocalExecutor", "play", "record_from_log", "serve"]


@dataclass(frozen=True)
class MatchJob:
    """One match to play: its config (seed included), where its log goes, and its place in the schedule."""

    index: int
    deal_set: int
    config: MatchConfig
    log_path: Path
    sign_key: Path | None = None
    """The private key that signs the log (`golfref tournament --sign`), read by the worker."""
    tournament: str | None = None
    """The tournament's name, which a signature names with the match's index and deal set (`place`)."""
    outputs: tuple[Path, ...] = ()
    """The tournament's own folders (its results directory): no sandboxed bot sees them, and no
    fingerprint covers them where they lie inside a bot's folder (the logs written there change them)."""
    builds: tuple[tuple[str, tuple[str, str]], ...] = ()
    """Per external player (by name), its build as the tournament started with it (`Build.key`):
    each is fingerprinted again before the match starts, and one that differs is `changed`."""
    allow_bot_changes: bool = False
    """Play the match even so (the outcome says which bots changed); else it is not played."""

    def place(self) -> TournamentPlace | None:
        """The match's place in its tournament, as its log's signature names it."""
        return None if self.tournament is None else TournamentPlace(self.tournament, self.index, self.deal_set)

    def claim(self) -> Claim:
        """What the match holds while in flight: its deal, and its bots by name, program and build (`Release`)."""
        seed = self.config.seed
        assert seed is not None, "a scheduled match has its seed"
        return Claim(seed, bots_of(self.config.players, dict(self.builds)))


@dataclass(frozen=True)
class MatchOutcome:
    """What playing a job gave: a record and the log's digest, or why there is none."""

    index: int
    record: MatchRecord | None
    digest: str | None
    log_path: Path
    error: str | None = None
    interrupted: bool = False
    changed: tuple[tuple[str, Build | None], ...] = ()
    """Each player whose files differed from the job's `builds` before the match, with its build
    then (None: its program was gone). Without `allow_bot_changes` the match was not played."""


def bots_changed(job: MatchJob) -> tuple[tuple[str, Build | None], ...]:
    """The job's players whose build now differs from the one it names, with their build now."""
    expected = dict(job.builds)
    outputs = [Path(job.config.log.directory or "."), *job.outputs]
    changed: list[tuple[str, Build | None]] = []
    for player in job.config.players:
        if player.command is None or player.name not in expected or player.name in dict(changed):
            continue
        now = build(player.command, player.cwd, dict(player.env), outputs, exclude=player.fingerprint_exclude)
        if now is None or now.key() != expected[player.name]:
            changed.append((player.name, now))
    return tuple(changed)


def record_from_log(doc: LogLike, index: int, deal_set: int) -> MatchRecord:
    """The record of a finished match, read from its log (the one source for live and resumed matches)."""
    from ..game.rules import rules_from_dict
    from ..game.scoring import forfeit_score

    log = as_match_log(doc)
    assert log.totals is not None and log.placings is not None, "a finished log has totals and placings"
    players = log.players
    seats = len(players)
    holes = log.holes
    decision_ms: list[list[float]] = [[] for _ in range(seats)]
    fallback: list[set[int]] = [set() for _ in range(seats)]
    answered = [False] * seats
    for h, step in log.decisions():
        if step.by is Chooser.BOT:
            answered[step.seat] = True
            if step.ms is not None:
                decision_ms[step.seat].append(float(step.ms))
        elif step.by is Chooser.FALLBACK:
            fallback[step.seat].add(h)
    for seat, player in enumerate(players):
        at = player.disqualified_at
        if player.status is not SeatStatus.DISQUALIFIED or at is None:
            continue
        first = at.hole
        if first is None:
            # No hole in play: before the first deal (a start failure), unless the seat had
            # answered decisions, when it came after the last hole.
            first = len(holes) if answered[seat] else 0
        fallback[seat].update(range(first, len(holes)))
    return MatchRecord(
        match_index=index,
        deal_set=deal_set,
        seating=tuple(p.name for p in players),
        hole_scores=tuple(h.result.scores for h in holes if h.result is not None),
        totals=log.totals,
        placings=log.placings,
        statuses=tuple(p.status.value for p in players),
        faults=tuple(p.faults for p in players),
        decision_ms=tuple(tuple(ms) for ms in decision_ms),
        fallback_holes=tuple(tuple(sorted(holes_of)) for holes_of in fallback),
        fault_kinds=tuple(tuple(f.kind.value for f in log.seat_faults(seat)) for seat in range(seats)),
        forfeit_score=forfeit_score(rules_from_dict(log.rules)),
    )


def play(job: MatchJob) -> MatchOutcome:
    """Play one job through `run_match` (in whatever process the executor chose)."""
    global _in_play
    _in_play = True  # before the stop check in _play: a signal from here on is not lost
    try:
        return _play(job)
    except KeyboardInterrupt:
        _in_play = False  # the stop is taken: another signal must not cut the look below short
        # A stop signal before run_match had its own handler in place, or after it let go: a
        # match it let go of had ended, its log whole. That match is kept now, not found by a
        # resume (which would then hold a match the stopped run never reported).
        return _finished(job) or MatchOutcome(job.index, None, None, job.log_path, "interrupted", interrupted=True)
    finally:
        _in_play = False
        if _parent is not None and os.getppid() != _parent:
            # The tournament is gone (its death signal stopped the match): nobody is left to
            # take a result, and the pool's queue would never tell this worker to leave.
            os._exit(1)


def _finished(job: MatchJob) -> MatchOutcome | None:
    """The outcome of `job` when its log on disk is of the match, finished and valid (else None)."""
    from ..record.validate import Status, validate_file

    report = validate_file(job.log_path)
    doc = report.doc
    if report.status is not Status.VALID or doc is None:
        return None
    log = read_match_log(doc)
    if log.seed != job.config.seed or [p.name for p in log.players] != [p.name for p in job.config.players]:
        return None
    return MatchOutcome(job.index, record_from_log(log, job.index, job.deal_set), log.digest, job.log_path)


@functools.cache
def _signer(path: Path) -> Signer:
    """The signer of a key file, read once per worker."""
    from ..record.signing import Signer

    return Signer.from_file(path)


def _play(job: MatchJob) -> MatchOutcome:
    stopping = _stopping
    if stopping is not None and stopping.value:
        # Queued in the pool before the stop (a pool hands workers more than they run):
        # never started, so nothing is lost.
        return MatchOutcome(job.index, None, None, job.log_path, "not started: stopping", interrupted=True)

    # Checked before the bots start, as the referee's own fingerprints are, from the same files:
    # a bot that rewrote another's program (without the sandbox) is caught before it plays again.
    changed = bots_changed(job) if job.builds else ()
    if changed and not job.allow_bot_changes:
        names = ", ".join(name for name, _ in changed)
        return MatchOutcome(job.index, None, None, job.log_path, f"not played: {names} changed", True, changed)
    outcome = _played(job)
    return replace(outcome, changed=changed) if changed else outcome


def _played(job: MatchJob) -> MatchOutcome:
    from ..match.referee import MatchInterrupted, run_match

    stopping = _stopping

    def stopped() -> bool:
        return stopping is not None and bool(stopping.value)

    def stop_between_turns(game: object) -> None:
        if stopped():
            raise KeyboardInterrupt  # run_match stops as on Ctrl-C: the log kept as interrupted

    try:
        # The results directory (the store, every log) and the signing key stay out of sandboxed bots' sight.
        hide = list(dict.fromkeys([Path(job.config.log.directory or "."), *job.outputs]))
        signer = None
        if job.sign_key is not None:
            signer = _signer(job.sign_key).at(job.place())
            hide.append(job.sign_key)
        result = run_match(
            job.config, log_path=str(job.log_path), on_turn=stop_between_turns, hide=hide, sign=signer, stop=stopped
        )
    except MatchInterrupted:
        return MatchOutcome(job.index, None, None, job.log_path, "interrupted", interrupted=True)
    except ConfigError as e:
        return MatchOutcome(job.index, None, None, job.log_path, str(e))
    except OSError as e:
        return MatchOutcome(job.index, None, None, job.log_path, f"cannot write the log: {e.strerror or e}")
    try:
        log = read_match_log(read_log(result.log_path))
    except LogError as e:
        return MatchOutcome(job.index, None, None, job.log_path, f"cannot read the log back: {e}")
    return MatchOutcome(job.index, record_from_log(log, job.index, job.deal_set), log.digest, result.log_path)


class Executor(abc.ABC):
    """Runs jobs and yields their outcomes as they finish (in any order)."""

    @abc.abstractmethod
    def run(self, jobs: Sequence[MatchJob]) -> Iterator[MatchOutcome]:
        """Start every job, each when the schedule's `Release` lets it go (never two that clash at once); yield each
        outcome as it comes. Jobs cancelled by `stop`, or never started, yield nothing."""

    @abc.abstractmethod
    def outcomes(self) -> Iterator[MatchOutcome]:
        """Yield the outcomes of started jobs not yielded yet (after `stop`: what still finishes)."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Cancel the jobs not started and interrupt the running matches (their logs kept as interrupted)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the workers."""


_parent: int | None = None  # in a worker: the tournament's pid
# In a worker: a shared boolean the tournament sets when it stops: the matches under way ask
# it, and the jobs already queued to a worker do not start. Shared memory without a lock,
# read and written whole: nothing a signal can leave half done.
_stopping: Any = None
_in_play = False  # in a worker: whether a job is being played


def _interrupt_play(signum: int, frame: object) -> None:
    # Between matches a stop signal has nothing to stop (the stop event keeps queued jobs
    # from starting); within one it must, whether or not run_match's handler is in place yet.
    if _in_play:
        raise KeyboardInterrupt


def _worker_init(parent: int, stopping: Any) -> None:
    global _parent, _stopping
    _parent, _stopping = parent, stopping
    # A handler, not SIG_IGN: run_match takes the signal during a match, and a bot started
    # from here gets the default back at exec (an ignored signal would stay ignored in it).
    signal.signal(signal.SIGINT, _interrupt_play)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # not the tournament's handlers, inherited at the fork
        signal.signal(sig, signal.SIG_DFL)
    # Forked with them blocked (`LocalExecutor.run`); a bot would inherit the block across exec.
    from ..match.stopping import STOP_SIGNALS

    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    from ..bots.lifetime import libc_prctl

    prctl = libc_prctl()
    if prctl is not None:
        prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG: the tournament's death stops this worker
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)


def serve(fd: int, parent: int) -> None:
    """A worker process fed over a socket (the cluster's match runner): play each job received, send its outcome.

    `fd` is the socket's descriptor, `parent` the pid of the process that started this one
    (its death stops this process, and the match under way, as a tournament's does a pool worker).
    """
    from multiprocessing.connection import Connection

    _worker_init(parent, None)
    conn = Connection(fd)
    conn.send(os.getpid())  # ready: a stop signal from now on finds its handler
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the parent closed its end: nothing more to play
            return
        conn.send(play(job))


class LocalExecutor(Executor):
    """A pool of `workers` local processes (forked: they inherit the tournament directory's lock).

    Jobs go to the pool only as the schedule's `Release` lets them, at most one per worker: the
    pool runs what it is given in the order given, and a job queued there would count as in
    flight, holding back the jobs it clashes with, without running.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: cf.ProcessPoolExecutor | None = None
        self._jobs: Sequence[MatchJob] = ()
        self._release: Release | None = None
        self._futures: dict[cf.Future[MatchOutcome], int] = {}  # each job handed to the pool -> its position
        self._taken: set[cf.Future[MatchOutcome]] = set()
        self._ready: collections.deque[MatchOutcome] = collections.deque()  # finished, not yet yielded
        self._stopping = False
        self._stop_flag: Any = None

    def run(self, jobs: Sequence[MatchJob]) -> Iterator[MatchOutcome]:
        """Start the jobs the release lets go on the pool; yield outcomes as they finish, starting the next ones."""
        context = multiprocessing.get_context("fork")
        self._stop_flag = context.RawValue(ctypes.c_bool, False)
        self._pool = cf.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=context,
            initializer=_worker_init,
            initargs=(os.getpid(), self._stop_flag),
        )
        self._jobs = jobs
        self._release = Release([job.claim() for job in jobs], limit=self.workers)
        self._submit()
        return self.outcomes()

    def _submit(self) -> None:
        """Hand the pool every job the release lets go now."""
        release, pool = self._release, self._pool
        if release is None or pool is None or self._stopping:
            return
        # The pool forks its workers at the first submit. Until a worker has its own handlers
        # (`_worker_init`), it has this process's: a stop signal there would raise in the child's
        # copy of this process's stack, which would then run on as a second tournament (or test
        # session). So the stop signals wait, blocked, until each worker is ready for them.
        from ..match.stopping import STOP_SIGNALS

        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            for position in release.take():
                try:
                    future = pool.submit(play, self._jobs[position])
                except cf.process.BrokenProcessPool:
                    # A worker died (stopped between matches): the jobs not yet started count as not played.
                    release.finished(position)
                    release.drop()
                    return
                self._futures[future] = position
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def outcomes(self) -> Iterator[MatchOutcome]:
        """Yield each started job's outcome once, as it finishes; each finished job lets the next ones start."""
        while True:
            if self._ready:
                yield self._ready.popleft()
                continue
            pending = [f for f in self._futures if f not in self._taken]
            if not pending:
                return
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in sorted(done, key=self._futures.__getitem__):
                self._taken.add(future)
                if self._release is not None:
                    self._release.finished(self._futures[future])
                outcome = self._outcome(future)
                if outcome is not None:
                    self._ready.append(outcome)
            self._submit()  # before the outcomes are taken: the workers play on while this process stores them

    def _outcome(self, future: cf.Future[MatchOutcome]) -> MatchOutcome | None:
        """A finished future's outcome; None for a job not played (cancelled, or cut short by a stop)."""
        if future.cancelled():
            return None
        error = future.exception()  # returned, not raised: a stop signal to this process still propagates
        if error is None:
            return future.result()
        if isinstance(error, cf.process.BrokenProcessPool):
            return None  # a worker died (stopped between matches): its job counts as not played
        if self._stopping or not isinstance(error, Exception):
            # A stop signal that reached the worker just before or after run_match's own
            # handling of it (its set-up, its last write): the job counts as not played; a
            # resume keeps its log if it was finished.
            return None
        raise error

    def stop(self) -> None:
        """Start nothing more, cancel what has not started, and set the stop flag that every running match asks
        (no signal is sent)."""
        self._stopping = True
        if self._release is not None:
            self._release.drop()
        if self._stop_flag is not None:
            self._stop_flag.value = True
        for future in self._futures:
            future.cancel()

    def close(self) -> None:
        """Shut the pool down (cancelling whatever is still queued)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
