"""Tournaments on a Dask cluster: `DaskExecutor` sends each match to a worker as a task.

The client (the tournament's process) keeps everything it keeps with local workers: the
store, the schedule, resume, the statistics, the signing key. A task plays one match on
a worker through the same `run_match`, in a match process of that worker's own (a signal
handler and the bots' lifetime need a main thread, which a Dask task has not), writes the
log into the worker's scratch space and sends its bytes back; the client writes the log
where a local run would. Workers so need no shared writable file system.

Bots reach workers by the same paths (a shared or synced file system), or in a folder the
client uploads to each worker once (`upload`: a worker plugin unpacks it with
`golfref.tournament.bundle`, run bits kept, and every path under the folder in a bot's command,
working directory or sandbox paths points into the worker's copy). Before its first match
of a tournament each worker fingerprints every bot (`golfref.bots.fingerprint`, the bot's own
files only: the tournament's results folder is left out wherever it lies) and refuses,
naming itself and the bot, when one differs from the client's; so a worker that joins or
restarts mid-run, after many logs were written, still takes matches. Every match then checks
its bots again before it starts (`executor.bots_changed`), as on local workers, and the
changes come back to the client, which stops the tournament or records them.

Scheduling: the client submits a match only when the schedule's `Release` lets it go (no
match of the same deal sharing a bot is in flight), every such match at once, with its place
in the schedule as its priority; each finished match lets the next go. A match submitted
counts as in flight until its task is done, queued or running, wherever the scheduler sends it.

Faults: a worker that dies mid-match takes its match process with it (a parent-death
signal: the match stops, its bots are killed) and the scheduler hands the match to another
worker, the same job with the same seed, so it is played again to the same result and
stored once. A task that keeps failing (its match process dying) is retried `MATCH_RETRIES`
times, then recorded as an error with its reason. A lost scheduler stops the tournament
with `ClusterLost`; the finished matches are in the store and the same command resumes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from distributed import Client, Future, LocalCluster, as_completed, get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from ..bots.fingerprint import Build, fingerprint
from ..config.match import LogSpec, PlayerSpec
from ..record.log import write_log
from ..record.matchlog import read_match_log
from ..stats.records import MatchRecord
from .bundle import BundleError, pack, unpack
from .executor import Executor, MatchJob, MatchOutcome, bots_changed
from .schedule import Release

if TYPE_CHECKING:
    from ..record.signing import Signer

__all__ = [
    "CONNECT_TIMEOUT_S",
    "MATCH_RETRIES",
    "RESOURCE",
    "ClusterError",
    "ClusterLost",
    "DaskExecutor",
    "parse_cluster",
    "quiet_dask_logs",
]

RESOURCE = "golfref-match"
"""The Dask resource each match task takes one of; a worker has as many as it may run matches at once."""
MATCH_RETRIES = 2
"""How many more times a match whose task failed (its match process died) is tried before it is an error."""
CONNECT_TIMEOUT_S = 10.0
"""How long the client tries to reach a scheduler before giving up."""
LOCAL_PREFIX = "local:"
"""`--cluster local:N`: a LocalCluster of N worker processes on this machine."""
UPLOAD_FOLDER = "golfref-bots"
"""The folder of a worker's scratch space that uploaded bots are unpacked into (one sub-folder per tournament run)."""

RUNNERS_PLUGIN = "golfref-runners"  # never unregistered: its teardown runs when the worker closes
_ADDRESS = re.compile(r"^(tcp|tls|ws|wss|ucx)://[^\s/]+:\d+$")


class ClusterError(Exception):
    """A cluster that cannot play the tournament: a bad address, no scheduler there, a bot a worker refuses."""


class ClusterLost(ClusterError):
    """The scheduler was lost during the tournament (the finished matches are stored; run again to resume)."""


def parse_cluster(text: str) -> tuple[str | None, int | None]:
    """`--cluster`'s value as (scheduler address, None) or (None, local workers); ClusterError when it is neither."""
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX) :]
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {text!r}: expected local:N with N worker processes, 1 or more")
        return None, int(count)
    if not _ADDRESS.match(text):
        raise ClusterError(f"--cluster {text!r}: expected a scheduler address such as tcp://HOST:8786, or local:N")
    return text, None


def quiet_dask_logs() -> None:
    """Keep Dask's log lines (reconnecting, closing, retiring workers) off stderr in this process."""
    # Its loggers have levels of their own, set when distributed is imported: each is set, not just the parent.
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.split(".")[0] == "distributed":
            logging.getLogger(name).setLevel(logging.CRITICAL)


# -- what the client sends with every task --------------------------------------------------


@dataclass(frozen=True)
class _Expected:
    """A bot as the client sees it, with the fingerprint each worker must find."""

    player: PlayerSpec
    file_sha256: str
    directory_sha256: str


@dataclass(frozen=True)
class _Setup:
    """One tournament run's terms for the workers: its id, the uploaded folder, the bots to check."""

    run_id: str
    upload_root: str | None
    """The client's folder whose copy the worker runs bots from (None: the same paths)."""
    expected: tuple[_Expected, ...]
    outputs: tuple[str, ...] = ()
    """The tournament's own folders (absolute, on the client), which no fingerprint covers."""

    def outputs_here(self) -> tuple[str, ...]:
        """The outputs as this worker's fingerprints leave them out: moved into the uploaded copy, if any."""
        return tuple(_moved(path, self.upload_root, _uploads.get(self.run_id)) for path in self.outputs)


@dataclass(frozen=True)
class _Played:
    """What a task sends back: the outcome, the log's bytes, or why the worker refused to play."""

    index: int
    record: MatchRecord | None = None
    log: bytes | None = None
    error: str | None = None
    interrupted: bool = False
    refused: str | None = None
    changed: tuple[tuple[str, Build | None], ...] = ()
    """The outcome's bots whose files had changed (`MatchOutcome.changed`)."""


# -- the worker's side ----------------------------------------------------------------------

# Module state of a worker process, shared by its task threads.
_lock = threading.Lock()
_idle: list[_Runner] = []
_busy: dict[_Runner, str] = {}  # runner -> the run id of the match it plays
_stopped: set[str] = set()  # run ids the client stopped
_uploads: dict[str, Path] = {}  # run id -> the unpacked copy of the client's folder
_refusals: dict[str, str | None] = {}  # run id -> the worker's verdict on the bots, once checked


def _close_runners() -> None:
    """Stop every match process of this worker (and a match under way) and reap it.

    Left alone they would still die (a parent-death signal), but as orphans of whatever
    adopts them: the process that started the worker, when it is a subreaper, would never reap them.
    """
    with _lock:
        idle, busy = list(_idle), list(_busy)
        _idle.clear()
    for runner in busy:
        runner.interrupt()
    for runner in idle + busy:
        runner.close()


class _Runner:
    """A match process of this worker (`executor.serve`), reused from match to match."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        with theirs:
            code = (
                "import sys; from golfref.tournament.executor import serve; serve(int(sys.argv[1]), int(sys.argv[2]))"
            )
            fd = theirs.fileno()
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code, str(fd), str(os.getpid())], pass_fds=(fd,), stdin=subprocess.DEVNULL
            )
        self.conn = Connection(mine.detach())
        try:
            self.conn.recv()  # its stop handling is in place: from now on an interrupt stops a match, not it
        except (EOFError, OSError):
            raise RuntimeError(f"the match process did not start (exit code {self.proc.wait()})") from None

    def play(self, job: MatchJob, should_stop: Callable[[], bool]) -> MatchOutcome:
        """Play `job`; SIGINT the match (its log kept as interrupted) once `should_stop` says so."""
        self.conn.send(job)
        interrupted = False
        while not self.conn.poll(0.1):
            if not interrupted and should_stop():
                self.interrupt()
                interrupted = True
        try:
            outcome: MatchOutcome = self.conn.recv()
        except (EOFError, OSError):
            code = self.proc.wait()
            raise RuntimeError(f"the match process died (exit code {code})") from None
        return outcome

    def interrupt(self) -> None:
        """Stop the match under way, as Ctrl-C does."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGINT)

    def close(self) -> None:
        """End the process (its end of the socket closes: it leaves)."""
        self.conn.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _moved(text: str, root: str | None, copy: Path | None) -> str:
    """`text` pointing into the worker's copy when it is a path under the client's folder `root`."""
    if root is None or copy is None:
        return text
    if text == root or text.startswith(root + os.sep):
        return str(copy) + text[len(root) :]
    return text


def _on_worker(player: PlayerSpec, setup: _Setup) -> PlayerSpec:
    """The player as this worker runs it: its paths moved into the uploaded copy, if any."""
    if player.command is None:
        return player
    copy = _uploads.get(setup.run_id)
    root = setup.upload_root
    return replace(
        player,
        command=tuple(_moved(arg, root, copy) for arg in player.command),
        cwd=None if player.cwd is None else _moved(player.cwd, root, copy),
        sandbox_paths=tuple(_moved(path, root, copy) for path in player.sandbox_paths),
    )


def _refusal(setup: _Setup, worker: str) -> str | None:
    """Why this worker must not play the tournament's matches (a bot differs from the client's), or None."""
    if setup.upload_root is not None and setup.run_id not in _uploads:
        return f"worker {worker}: the uploaded bots did not reach it"
    for want in setup.expected:
        player = _on_worker(want.player, setup)
        assert player.command is not None
        found = fingerprint(player.command, player.cwd, dict(player.env), outputs=setup.outputs_here(),
                            exclude=player.fingerprint_exclude)
        if found is None:
            return f"worker {worker} refuses bot {player.name}: its program is not there ({player.command[0]})"
        if found["sha256"] != want.file_sha256:
            return f"worker {worker} refuses bot {player.name}: its file {found['file']} differs from the client's"
        if found["directory"]["sha256"] != want.directory_sha256:
            return f"worker {worker} refuses bot {player.name}: the files of its folder differ from the client's"
    return None


def _checked(setup: _Setup, worker: str) -> str | None:
    """The worker's verdict on the run's bots, worked out before its first match and kept."""
    if setup.run_id not in _refusals:
        _refusals[setup.run_id] = _refusal(setup, worker)
    return _refusals[setup.run_id]


def _check_worker(setup: _Setup, dask_worker: Any = None) -> str | None:
    """`Client.run` target: the worker's verdict on the run's bots, before any match."""
    return _checked(setup, str(dask_worker.address))


def _stop_run(run_id: str) -> None:
    """`Client.run` target: start no more matches of the run, and interrupt those under way."""
    with _lock:
        _stopped.add(run_id)
        running = [r for r, run in _busy.items() if run == run_id]
    for runner in running:
        runner.interrupt()


def _play_task(job: MatchJob, setup: _Setup) -> _Played:
    """The task of one match: check the bots, play it in a match process here, send back the outcome and log."""
    worker = get_worker()
    refused = _checked(setup, str(worker.address))
    if refused is not None:
        return _Played(job.index, refused=refused)
    if setup.run_id in _stopped:
        return _Played(job.index, error="not started: stopping", interrupted=True)
    key = worker.get_current_task()

    def should_stop() -> bool:
        if setup.run_id in _stopped:
            return True
        task = worker.state.tasks.get(key)  # read-only, from this thread: at worst one poll late
        return task is None or task.state in ("cancelled", "released", "forgotten")

    scratch = Path(tempfile.mkdtemp(prefix="golfref-match-", dir=worker.local_directory))
    try:
        log_name = Path(job.log_path).name
        config = replace(
            job.config,
            players=tuple(_on_worker(p, setup) for p in job.config.players),
            log=LogSpec(path=log_name, transcript=False, directory=str(scratch)),
        )
        outputs = tuple(Path(path) for path in setup.outputs_here())
        local = replace(job, config=config, log_path=scratch / log_name, sign_key=None, outputs=outputs)
        with _lock:
            runner = _idle.pop() if _idle else None
        if runner is None:
            runner = _Runner()
        with _lock:
            _busy[runner] = setup.run_id
        try:
            outcome = runner.play(local, should_stop)
        except BaseException:
            with _lock:
                del _busy[runner]
            runner.close()
            raise
        with _lock:
            del _busy[runner]
            _idle.append(runner)
        log = local.log_path.read_bytes() if local.log_path.is_file() else None
        return _Played(job.index, outcome.record, log, outcome.error, outcome.interrupted, changed=outcome.changed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class _Setting(WorkerPlugin):
    """Set a worker up for a tournament run: its match slots, and the uploaded bots unpacked (run bits kept)."""

    def __init__(self, run_id: str, per_worker: int | None, bundle: bytes | None, local: bool) -> None:
        self.run_id = run_id
        self.per_worker = per_worker
        self.bundle = bundle
        self.local = local

    async def setup(self, worker: Any) -> None:
        """Unpack the bots into the worker's scratch space; give the worker its match slots."""
        if self.local and threading.current_thread() is threading.main_thread():
            # A worker of `local:N` shares the terminal: Ctrl-C reaches the tournament (which
            # stops the cluster) and the matches, and must not kill the worker under them.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if self.bundle is not None:
            copy = Path(worker.local_directory) / UPLOAD_FOLDER / self.run_id
            shutil.rmtree(copy, ignore_errors=True)
            copy.mkdir(parents=True)
            try:
                unpack(self.bundle, copy)
            except BundleError as e:
                raise ClusterError(f"worker {worker.address}: the uploaded bots: {e}") from None
            _uploads[self.run_id] = copy
        # A worker runs at most as many matches at once as it has cores (or threads, if fewer).
        slots = self.per_worker or min(worker.state.nthreads, os.cpu_count() or 1)
        await worker.set_resources(**{RESOURCE: slots})

    def teardown(self, worker: Any) -> None:
        """Forget the run: its uploaded copy, its verdict, its stop."""
        copy = _uploads.pop(self.run_id, None)
        if copy is not None:
            shutil.rmtree(copy, ignore_errors=True)
        _refusals.pop(self.run_id, None)
        _stopped.discard(self.run_id)


class _Runners(WorkerPlugin):
    """Kept on every worker for its lifetime: when it closes, its match processes end with it and are reaped."""

    idempotent = True  # registered by every tournament, set up once

    def teardown(self, worker: Any) -> None:
        """Close the worker's match processes."""
        _close_runners()


# -- the client's side ----------------------------------------------------------------------


def _absolute(player: PlayerSpec) -> PlayerSpec:
    """The player with an absolute working directory: a worker's own is not the client's."""
    if player.command is None:
        return player
    return replace(player, cwd=os.path.abspath(player.cwd or "."))


class DaskExecutor(Executor):
    """Plays each job as a task on a Dask cluster: a scheduler's address, or a LocalCluster of `local_workers`."""

    def __init__(
        self,
        address: str | None = None,
        *,
        local_workers: int | None = None,
        per_worker: int | None = None,
        upload: Path | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
    ) -> None:
        if (address is None) == (local_workers is None):
            raise ValueError("give a scheduler address or a number of local workers")
        if upload is not None and not upload.is_dir():
            raise ClusterError(f"--cluster-upload {upload}: not a directory")
        self.address = address
        self.local_workers = local_workers
        self.per_worker = per_worker
        self.upload = None if upload is None else Path(os.path.abspath(upload))
        self.connect_timeout = connect_timeout
        self.run_id = uuid.uuid4().hex
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None
        self._plugin: str | None = None
        self._jobs: dict[Future[Any], MatchJob] = {}
        self._positions: dict[Future[Any], int] = {}  # each submitted job's position in the run's jobs
        self._taken: set[Future[Any]] = set()
        self._all: Sequence[MatchJob] = ()
        self._release: Release | None = None
        self._setup_sent: _Setup | None = None
        self._stopping = False
        self._signers: dict[Path, Signer] = {}

    @property
    def where(self) -> str:
        """The cluster, for messages."""
        return self.address or f"{LOCAL_PREFIX}{self.local_workers}"

    def _connect(self) -> Client:
        try:
            if self.local_workers is not None:
                self._cluster = LocalCluster(
                    n_workers=self.local_workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    # No dashboard, and the scheduler's small HTTP server on a free port, not 8787.
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
                self._client = Client(self._cluster, set_as_default=False)
            else:
                self._client = Client(self.address, timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {self.where}: {e}") from None
        return self._client

    def _setup(self, jobs: Sequence[MatchJob]) -> _Setup:
        """The run's terms: every bot's fingerprint as the client sees it."""
        players: dict[str, PlayerSpec] = {}
        for job in jobs:
            for p in job.config.players:
                if p.command is not None:
                    players.setdefault(p.name, _absolute(p))
        outputs = tuple(dict.fromkeys(os.path.abspath(path) for job in jobs for path in job.outputs))
        expected = []
        for p in players.values():
            assert p.command is not None
            found = fingerprint(p.command, p.cwd, dict(p.env), outputs=outputs, exclude=p.fingerprint_exclude)
            if found is not None:  # not on the client: the workers' copies cannot be compared (nor refused)
                expected.append(_Expected(p, found["sha256"], found["directory"]["sha256"]))
        root = None if self.upload is None else str(self.upload)
        return _Setup(self.run_id, root, tuple(expected), outputs)

    def run(self, jobs: Sequence[MatchJob]) -> Iterator[MatchOutcome]:
        """Connect, set the workers up, check their bots, and submit the jobs the schedule's `Release` lets go;
        yield outcomes as they finish, submitting the next ones."""
        client = self._connect()
        setup = self._setup(jobs)
        try:
            bundle = None if self.upload is None else pack(self.upload, leave_out=[Path(o) for o in setup.outputs])
        except BundleError as e:
            raise ClusterError(f"--cluster-upload {e}") from None
        self._plugin = f"golfref-{self.run_id}"
        try:
            client.register_plugin(_Runners(), name=RUNNERS_PLUGIN)
            client.register_plugin(
                _Setting(self.run_id, self.per_worker, bundle, self._cluster is not None), name=self._plugin
            )
            verdicts = client.run(_check_worker, setup)
        except (OSError, TimeoutError) as e:
            raise ClusterLost(f"lost the Dask scheduler at {self.where}: {e}") from None
        for refusal in verdicts.values():
            if refusal is not None:
                raise ClusterError(refusal)
        self._all = jobs
        self._release = Release([job.claim() for job in jobs])
        self._setup_sent = setup
        self._submit()
        return self.outcomes()

    def _submit(self) -> list[Future[Any]]:
        """Submit every job the release lets go now (none once stopping); the futures submitted."""
        release, client, setup = self._release, self._client, self._setup_sent
        if release is None or client is None or setup is None or self._stopping:
            return []
        submitted = []
        for position in release.take():
            job = self._all[position]
            remote = replace(
                job, config=replace(job.config, players=tuple(_absolute(p) for p in job.config.players)), sign_key=None
            )
            future = client.submit(
                _play_task,
                remote,
                setup,
                key=f"golfref-m{job.index}-{self.run_id}",
                retries=MATCH_RETRIES,
                resources={RESOURCE: 1},
                # Every job the release lets go is submitted at once (workers may join at any time), and
                # the scheduler starts them in schedule order: a deal's next seating, released late,
                # goes before the later deals' first ones, so deals still finish in order.
                priority=-job.index,
                pure=False,
            )
            self._jobs[future] = job
            self._positions[future] = position
            submitted.append(future)
        return submitted

    def outcomes(self) -> Iterator[MatchOutcome]:
        """Yield each submitted job's outcome once, as it finishes; its log is written here, signed if asked.

        Each finished job lets the release hand out the next ones, which join the wait.
        """
        from distributed.scheduler import KilledWorker

        pending = [f for f in self._jobs if f not in self._taken]
        if not pending:
            return
        waiting = as_completed(pending, loop=self._client.loop if self._client else None)
        for future in waiting:
            self._taken.add(future)
            if self._release is not None:
                self._release.finished(self._positions[future])
            job = self._jobs[future]
            if future.cancelled():
                if self._stopping:
                    continue
                raise ClusterLost(
                    f"lost the Dask scheduler at {self.where}: the finished matches are stored; "
                    "run the same command again to resume"
                )
            for started in self._submit():  # before the outcome is taken: the workers play on meanwhile
                waiting.add(started)
            if future.status == "error":
                error = future.exception()
                if isinstance(error, KilledWorker):
                    reason = f"it ended every worker that played it ({error})"
                else:
                    reason = f"{type(error).__name__}: {error}"
                yield MatchOutcome(job.index, None, None, job.log_path, f"failed on the cluster: {reason}")
                continue
            played: _Played = future.result()
            if played.refused is not None:
                # A worker that joined after a bot's files changed here (same paths) finds them
                # changed too: that is the tournament's stop for a changed bot, not a bad copy.
                changed = () if job.allow_bot_changes else bots_changed(job)
                if changed:
                    names = ", ".join(name for name, _ in changed)
                    yield MatchOutcome(job.index, None, None, job.log_path, f"not played: {names} changed", True,
                                       changed)  # fmt: skip
                    continue
                raise ClusterError(played.refused)
            yield self._kept(job, played)

    def _kept(self, job: MatchJob, played: _Played) -> MatchOutcome:
        """Write the log the worker sent (signing it here: the key never leaves the client) into its place."""
        digest = None
        if played.log is not None:
            doc = orjson.loads(played.log)
            try:
                write_log(job.log_path, doc, sign=self._signer(job))
            except OSError as e:
                return MatchOutcome(job.index, None, None, job.log_path, f"cannot write the log: {e.strerror or e}")
            digest = read_match_log(doc).digest
        if played.record is None:
            return MatchOutcome(job.index, None, None, job.log_path, played.error, played.interrupted, played.changed)
        return MatchOutcome(job.index, played.record, digest, job.log_path, changed=played.changed)

    def _signer(self, job: MatchJob) -> Signer | None:
        """The signer of the job's key (read once), naming the job's place in the tournament."""
        key = job.sign_key
        if key is None:
            return None
        if key not in self._signers:
            from ..record.signing import Signer

            self._signers[key] = Signer.from_file(key)
        return self._signers[key].at(job.place())

    def stop(self) -> None:
        """Start no more matches and interrupt those under way (their logs come back as interrupted)."""
        self._stopping = True
        if self._release is not None:
            self._release.drop()
        client = self._client
        if client is None:
            return
        with contextlib.suppress(Exception):  # a lost scheduler: nothing left to stop through it
            client.run(_stop_run, self.run_id)
            running = {key for keys in client.processing().values() for key in keys}
            client.cancel([f for f in self._jobs if f.key not in running and not f.done()])

    def close(self) -> None:
        """Stop whatever still runs, forget the run on the workers, and let go of the cluster."""
        client = self._client
        if client is None:
            return
        if not self._stopping and any(not f.done() for f in self._jobs):
            self.stop()  # an error cut the tournament short: no match of it keeps running
        with contextlib.suppress(Exception):
            client.cancel(list(self._jobs))
            if self._plugin is not None:
                client.unregister_worker_plugin(self._plugin)
        with contextlib.suppress(Exception):
            client.close()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close()
        self._client = self._cluster = None
