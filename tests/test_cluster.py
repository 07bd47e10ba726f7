"""Tournaments on a Dask cluster: the same results as local workers, a killed worker, refused bots,
an interrupted client, uploaded bots, and the errors of a bad address or a missing extra.

One LocalCluster of two worker processes (one thread each) serves the module; it is closed at
the end, and the test of that checks its worker processes and its scheduler's port are gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from golfref.config.tournament import TournamentConfig, parse_tournament
from golfref.record.log import TournamentPlace
from golfref.record.signing import SignatureStatus, check_signature, keygen, load_public_key
from golfref.stats.stats import compute_stats
from golfref.tournament.runner import run_tournament
from golfref.tournament.store import Store

from .conftest import BOTS, ROOT

distributed = pytest.importorskip("distributed", reason="the cluster extra is not installed: pip install -e .[cluster]")

from golfref.tournament import cluster as cluster_module  # noqa: E402  (after the skip: it imports distributed)
from golfref.tournament.cluster import ClusterError, DaskExecutor  # noqa: E402

GOLFREF = [sys.executable, "-m", "golfref"]
# The command-line tests pass --no-sandbox: the sandbox's start-up probe would leave its bubblewrap
# init to this process to reap when an earlier test's referee made it a subreaper.
GREEDY = ROOT / "sample_matches" / "bots" / "greedy_bot.py"
HELD = "time: {startup_ms: 120000}\n"  # a bot held at a gate is never timed out


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a LocalCluster of two worker processes; afterwards, none of its processes or ports is left."""
    lc = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=50,
    )
    global _cluster
    _cluster = lc
    address = lc.scheduler_address
    try:
        yield address
    finally:
        pids = [pid for pid in _worker_pids(lc) if pid is not None]
        lc.close()
        _cluster = None
    for pid in pids:
        assert not _alive(pid), f"worker process {pid} outlived the cluster"
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    with socket.socket() as s:
        assert s.connect_ex((host, int(port))) != 0, "the scheduler's port is still open"


_cluster: Any = None


def _worker_pids(lc: Any) -> list[int | None]:
    return [getattr(getattr(n, "process", None), "pid", None) for n in lc.workers.values()]


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, waiting for a reaper, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _config(tmp: Path, players: list[str], results: str, deal_sets: int = 3, extra: str = "") -> TournamentConfig:
    seats = "".join(f"  - {p}\n" for p in players)
    text = (
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: 2}}\nplayers:\n{seats}"
        f"deal_sets: {deal_sets}\nseed: 5\nsandbox: {{enabled: false}}\nresults: {results}\n{extra}"
    )
    return parse_tournament(text, base_dir=tmp)


def _py(name: str, *argv: str) -> str:
    return f"{{name: {name}, command: {json.dumps([sys.executable, *argv])}}}"


POOL = ["{name: a, builtin: greedy}", "{name: b, builtin: random}", _py("py", str(GREEDY))]


def _comparable(records: Any) -> list[tuple[Any, ...]]:
    return [(r.match_index, r.seating, r.hole_scores, r.totals, r.placings, r.statuses, r.faults) for r in records]


def _stats(records: Any) -> Any:
    """Every statistic, the thinking times each made 1 ms (no two runs share them; their number they do)."""
    return compute_stats(
        [replace(r, decision_ms=tuple((1.0,) * len(ms) for ms in r.decision_ms)) for r in records]
    ).to_json()


@pytest.mark.process
def test_a_cluster_tournament_gives_the_results_of_local_workers(tmp_path: Path, scheduler: str) -> None:
    private, public, _ = keygen(tmp_path / "key")
    local = run_tournament(_config(tmp_path, POOL, "local"), workers=2)
    remote = run_tournament(_config(tmp_path, POOL, "remote"), executor=DaskExecutor(scheduler), sign_key=private)
    assert not remote.errors and remote.stopped_by is None
    assert len(remote.records) == remote.played == 18
    assert _comparable(remote.records) == _comparable(local.records)
    assert _stats(remote.records) == _stats(local.records)
    with Store(tmp_path / "remote", create=False) as store:  # the client wrote (and signed) every log, and the store
        for m in store.matches():
            doc = orjson.loads((tmp_path / "remote" / m.log_path).read_bytes())
            assert doc["digest"] == m.digest and doc["status"] == "finished"
            found_as = Path(m.log_path).name
            check = check_signature(doc, load_public_key(public), found_as=found_as)
            assert check.status is SignatureStatus.TRUSTED and check.identity is not None
            assert check.identity.tournament == TournamentPlace("t", m.record.match_index, m.record.deal_set)
            assert check.identity.file == found_as  # the name at the client, not the worker's scratch file


@pytest.mark.process
def test_the_cli_plays_on_a_cluster_as_on_local_workers(tmp_path: Path, scheduler: str) -> None:
    players = "".join(f"  - {p}\n" for p in POOL)
    path = tmp_path / "t.yaml"
    path.write_text(
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: 2}}\nplayers:\n{players}deal_sets: 2\n"
        "seed: 5\nsandbox: {enabled: false}\n",
        encoding="utf-8",
    )
    runs = {}
    for name, how in (("local", ["-j", "2"]), ("remote", ["--cluster", scheduler])):
        done = subprocess.run([*GOLFREF, "tournament", str(path), "-q", "--csv", "pairwise", "--results",
                               str(tmp_path / name), *how], capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs[name] = done.stdout
    assert runs["remote"] == runs["local"] and runs["local"].count("\n") == 4


@pytest.mark.process
def test_a_worker_killed_mid_match_changes_nothing_and_leaves_no_bot(tmp_path: Path, scheduler: str) -> None:
    # The bot is greedy behind a gate: its first two starts play, the next ones wait, so each
    # worker is in the middle of a match when one of them is killed.
    def players(gate: Path) -> list[str]:
        gate.mkdir(parents=True)
        return ["{name: a, builtin: greedy}", _py("py", str(BOTS / "gated_bot.py"), str(gate), "2")]

    opened = tmp_path / "opened" / "gate"
    whole_cfg = _config(tmp_path, players(opened), "whole", 4, HELD)
    (opened / "open").touch()
    whole = run_tournament(whole_cfg, workers=2)
    gate = tmp_path / "gate"
    cfg = _config(tmp_path, players(gate), "cut", 4, HELD)
    victim = _worker_pids(_cluster)[0]
    assert victim is not None
    held: set[int] = set()

    def kill_a_worker_mid_match() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            family = _descendants(victim)
            if any("gated_bot" in _cmdline(p) for p in family):  # its match waits for the bot
                held.update(family)
                os.kill(victim, signal.SIGKILL)
                break
            time.sleep(0.02)
        (gate / "open").touch()

    killer = threading.Thread(target=kill_a_worker_mid_match)
    killer.start()
    try:
        result = run_tournament(cfg, executor=DaskExecutor(scheduler))
    finally:
        (gate / "open").touch()
        killer.join()
    assert held, "no match was held on the killed worker"
    assert not result.errors and result.stopped_by is None
    assert _comparable(result.records) == _comparable(whole.records)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in held) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [_cmdline(p) for p in held if _alive(p)], "a process of the killed worker's match outlived it"
    for pid in held:  # orphans come to this process when it is a subreaper (an earlier test's referee made it one)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    with Store(tmp_path / "cut", create=False) as store:
        assert [m.record.match_index for m in store.matches()] == list(range(8))  # each stored once


def _bots_under(workers: list[int], name: str) -> list[int]:
    """The running processes below the workers whose command line names `name`."""
    return [p for w in workers for p in _descendants(w) if name in _cmdline(p) and _alive(p)]


def _children() -> set[int]:
    """This process's children, zombies included."""
    me = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        found.add(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                continue
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def test_a_bot_whose_file_differs_on_a_worker_is_refused(
    tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = cluster_module.fingerprint

    def newer_on_the_client(*args: Any, **kw: Any) -> Any:
        # The client has another build of the bot than the workers (same paths, other bytes).
        found = real(*args, **kw)
        return None if found is None else {**found, "sha256": "0" * 64}

    monkeypatch.setattr(cluster_module, "fingerprint", newer_on_the_client)
    cfg = _config(tmp_path, POOL, "refused")
    with pytest.raises(ClusterError) as caught:
        run_tournament(cfg, executor=DaskExecutor(scheduler))
    message = str(caught.value)
    assert message.startswith("worker tcp://127.0.0.1:") and "refuses bot py" in message, message
    assert f"its file {GREEDY} differs from the client's" in message and "\n" not in message
    with Store(tmp_path / "refused", create=False) as store:
        assert store.matches() == []


@pytest.mark.process
def test_an_interrupted_client_resumes_to_the_same_results(tmp_path: Path, scheduler: str) -> None:
    local = run_tournament(_config(tmp_path, POOL, "local"), workers=2)
    cfg = _config(tmp_path, POOL, "remote")

    def interrupt(progress: Any) -> None:
        if progress.done >= 2:
            os.kill(os.getpid(), signal.SIGINT)

    # Ctrl-C's own handler, whatever this process inherited (a suite run in the background ignores SIGINT).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        cut = run_tournament(cfg, executor=DaskExecutor(scheduler), on_progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert cut.stopped_by == "SIGINT" and 2 <= len(cut.records) < 18
    workers = [pid for pid in _worker_pids(_cluster) if pid is not None]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (bots := _bots_under(workers, GREEDY.name)):
        time.sleep(0.05)
    assert not bots, "a bot of a stopped match still runs on a worker"
    again = run_tournament(cfg, executor=DaskExecutor(scheduler))
    assert again.stopped_by is None and again.kept == len(cut.records)
    assert _comparable(again.records) == _comparable(local.records)


@pytest.mark.process
def test_uploaded_bots_run_from_the_workers_copy_with_their_run_bit(tmp_path: Path, scheduler: str) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    program = bots / "greedy"
    program.write_text(f"#!{sys.executable}\n" + GREEDY.read_text(encoding="utf-8"), encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    (bots / "golfbot.py").write_bytes((GREEDY.parent / "golfbot.py").read_bytes())  # the greedy bot's library
    players = [POOL[0], f"{{name: up, command: [./greedy], cwd: {json.dumps(str(bots))}}}"]
    local = run_tournament(_config(tmp_path, players, "local", 2), workers=2)
    assert set(sum((r.faults for r in local.records), ())) == {0}
    result = run_tournament(_config(tmp_path, players, "remote", 2), executor=DaskExecutor(scheduler, upload=bots))
    assert not result.errors and set(sum((r.faults for r in result.records), ())) == {0}
    assert _comparable(result.records) == _comparable(local.records)
    with Store(tmp_path / "remote", create=False) as store:
        doc = orjson.loads((tmp_path / "remote" / store.matches()[0].log_path).read_bytes())
    cwd = next(p["cwd"] for p in doc["players"] if p["name"] == "up")
    assert f"/{cluster_module.UPLOAD_FOLDER}/" in cwd and not cwd.startswith(str(bots))  # the worker's copy ran
    assert not Path(cwd).exists()  # and is gone with the tournament


def test_a_worker_runs_an_uploaded_bot_with_its_paths_in_its_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command, the working directory and the player's sandbox paths under the uploaded folder move; others stay."""
    from golfref.config.match import PlayerSpec

    root, copy = tmp_path / "bots", tmp_path / "copy"
    player = PlayerSpec(name="up", command=("python3", f"{root}/up/bot.py"), cwd=f"{root}/up",
                        sandbox_paths=(f"{root}/venvs/up", "/opt/data"))  # fmt: skip
    setup = cluster_module._Setup("run", str(root), ())
    monkeypatch.setitem(cluster_module._uploads, "run", copy)
    moved = cluster_module._on_worker(player, setup)
    assert moved.command == ("python3", f"{copy}/up/bot.py") and moved.cwd == f"{copy}/up"
    assert moved.sandbox_paths == (f"{copy}/venvs/up", "/opt/data")


def test_an_upload_with_a_link_out_of_its_folder_is_refused_before_any_match(tmp_path: Path, scheduler: str) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "greedy_bot.py").write_bytes(GREEDY.read_bytes())
    (bots / "secrets").symlink_to("/etc")
    executor = DaskExecutor(scheduler, upload=bots)
    refusal = rf"^--cluster-upload {bots}: secrets: a link to an absolute path \(/etc\); workers unpack only"
    with pytest.raises(ClusterError, match=refusal):
        run_tournament(_config(tmp_path, POOL, "out"), executor=executor)
    with Store(tmp_path / "out", create=False) as store:
        assert store.matches() == []


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cfg = _config(tmp_path, POOL, "out")
    with pytest.raises(ClusterError, match=rf"^cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: "):
        run_tournament(cfg, executor=DaskExecutor(f"tcp://127.0.0.1:{port}", connect_timeout=0.5))


@pytest.mark.parametrize(
    ("value", "problem"),
    [("localhost", "expected a scheduler address"), ("local:0", "expected local:N"), ("tcp://h", "expected a")],
)
def test_a_bad_cluster_address_is_refused(value: str, problem: str) -> None:
    with pytest.raises(ClusterError, match=f"^--cluster {value!r}: {problem}"):
        cluster_module.parse_cluster(value)


@pytest.mark.process
def test_a_bad_cluster_address_is_a_one_line_error(tmp_path: Path) -> None:
    done = subprocess.run([*GOLFREF, "tournament", "--builtin", "a=greedy", "--builtin", "b=random", "--no-sandbox",
                           "--results", str(tmp_path / "o"), "--cluster", "localhost:8786"], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == (
        "golfref: error: --cluster 'localhost:8786': expected a scheduler address such as tcp://HOST:8786, or local:N\n"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.process
def test_without_the_cluster_extra_cluster_is_a_one_line_error(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['distributed'] = None; from golfref.cli.app import app; "
        "app(['tournament', '--builtin', 'a=greedy', '--builtin', 'b=random', '--no-sandbox', "
        f"'--results', {str(tmp_path)!r}, '--cluster', 'local:1'])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == (
        "golfref: error: --cluster needs dask and distributed, the optional extra 'cluster': "
        "pip install 'golfref[cluster]' (distributed is missing)\n"
    )


@pytest.mark.process
@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (["--cluster-per-worker", "2"], "--cluster-upload and --cluster-per-worker go with --cluster ADDRESS"),
        (["--cluster", "local:1", "-j", "2"], "--workers and --cluster: choose one"),
    ],
)
def test_cluster_options_that_make_no_sense_are_one_line_errors(options: list[str], problem: str) -> None:
    quick = ["--builtin", "a=greedy", "--builtin", "b=random", "--no-sandbox"]
    done = subprocess.run([*GOLFREF, "tournament", *quick, *options], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(f"golfref: error: {problem}")


@pytest.mark.process
def test_a_worker_runs_at_most_its_match_slots_at_once(tmp_path: Path) -> None:
    # One worker with two threads: with one slot a second match never starts while the first
    # is held at the gate; with two, it does.
    lc = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=50,
    )
    try:
        for slots in (1, 2):
            gate = tmp_path / f"gate{slots}"
            gate.mkdir()
            players = ["{name: a, builtin: greedy}", _py("py", str(BOTS / "gated_bot.py"), str(gate), "0")]
            cfg = _config(tmp_path, players, f"out{slots}", 2, HELD)
            seen: list[bool] = []

            def watch(gate: Path = gate, slots: int = slots, seen: list[bool] = seen) -> None:
                deadline = time.monotonic() + 60
                while not (gate / f"start.{slots - 1}").exists() and time.monotonic() < deadline:
                    time.sleep(0.02)
                time.sleep(0.5)  # time enough for a match beyond the slots to start, were it allowed to
                seen.append((gate / f"start.{slots}").exists())
                (gate / "open").touch()

            watcher = threading.Thread(target=watch)
            watcher.start()
            try:
                result = run_tournament(cfg, executor=DaskExecutor(lc.scheduler_address, per_worker=slots))
            finally:
                (gate / "open").touch()
                watcher.join()
            assert len(result.records) == 4 and not result.errors
            assert seen == [False], f"more than {slots} matches at once on a worker"
    finally:
        lc.close()


def test_a_match_that_fails_on_every_try_is_an_error_with_its_reason(tmp_path: Path, scheduler: str) -> None:
    # A "bot" that kills the process that started it: the worker's match process, every time.
    killer = tmp_path / "k" / "killer.py"  # its tally outside its folder: a bot's own files must not change
    killer.parent.mkdir()
    tries = tmp_path / "tries"
    killer.write_text(
        f"import os, signal\nopen({str(tries)!r}, 'a').write('try\\n')\nos.kill(os.getppid(), signal.SIGKILL)\n",
        encoding="utf-8",
    )
    cfg = _config(tmp_path, [POOL[0], _py("k", str(killer))], "out", 1)
    before = _children()
    result = run_tournament(cfg, executor=DaskExecutor(scheduler))
    # Each dead match process orphans its bot and watchdog: this process adopts them when it is a subreaper.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (new := _children() - before):
        for pid in new:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    assert result.records == () and len(result.errors) == 2
    assert tries.read_text(encoding="utf-8").count("try") == 2 * (1 + cluster_module.MATCH_RETRIES)  # then given up
    for error in result.errors:
        assert re.fullmatch(r"match \d: failed on the cluster: RuntimeError: the match process died \(exit code -9\)",
                            error), error  # fmt: skip


@pytest.mark.process
def test_a_lost_scheduler_stops_the_client_and_the_same_tournament_resumes(tmp_path: Path, scheduler: str) -> None:
    def players(gate: Path) -> list[str]:
        gate.mkdir(parents=True)
        return ["{name: a, builtin: greedy}", _py("py", str(BOTS / "gated_bot.py"), str(gate), "2")]

    opened = tmp_path / "opened" / "gate"
    whole_cfg = _config(tmp_path, players(opened), "whole", 3, HELD)
    (opened / "open").touch()
    whole = run_tournament(whole_cfg, workers=2)
    # A cluster of its own, in a process whose death takes the scheduler (and its worker) with it.
    code = (
        "import time, distributed; lc = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, "
        "host='127.0.0.1', dashboard_address=None, scheduler_kwargs={'dashboard_address': ':0'}, silence_logs=50); "
        "print(lc.scheduler_address, flush=True); time.sleep(600)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True)
    family: set[int] = set()
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().strip()
        gate = tmp_path / "gate"
        cfg = _config(tmp_path, players(gate), "cut", 3, HELD)

        def kill_the_scheduler_once_a_match_is_held() -> None:
            deadline = time.monotonic() + 60
            while not (gate / "start.2").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            family.update(_descendants(proc.pid))
            os.killpg(proc.pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_the_scheduler_once_a_match_is_held)
        killer.start()
        try:
            with pytest.raises(cluster_module.ClusterLost, match="^lost the Dask scheduler at tcp://"):
                run_tournament(cfg, executor=DaskExecutor(address, connect_timeout=1))
        finally:
            killer.join()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    with Store(tmp_path / "cut", create=False) as store:
        assert len(store.matches()) == 2  # the finished matches are kept
    (gate / "open").touch()
    again = run_tournament(cfg, executor=DaskExecutor(scheduler))
    assert again.kept == 2 and _comparable(again.records) == _comparable(whole.records)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [_cmdline(p) for p in family if _alive(p)], "a process of the lost cluster outlived it"
    for pid in family:  # orphans come to this process when it is a subreaper
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


@pytest.mark.process
def test_workers_that_join_or_restart_mid_run_take_matches_with_the_results_inside_a_bots_folder(
    tmp_path: Path,
) -> None:
    # The quick form's layout: the results under the bot's own folder, so every log written
    # lands among its files. A worker that joins, and one that restarts, once logs are there,
    # must still know the bot for the client's (and play its matches).
    bot, gate = tmp_path / "bot", tmp_path / "gate"
    bot.mkdir()
    gate.mkdir()
    gated = [str(BOTS / "gated_bot.py"), str(gate), "1"]
    (bot / "run.py").write_text(f"import os, sys\nos.execv(sys.executable, [sys.executable, *{gated!r}])\n")
    players = ["{name: a, builtin: greedy}", _py("py", str(bot / "run.py"))]
    cfg = _config(tmp_path, players, str(bot / "tournaments" / "t"), 4, HELD)
    lc = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
        silence_logs=50,
    )
    changed: list[str] = []

    def join_and_restart_once_a_log_is_written() -> None:
        deadline = time.monotonic() + 60
        while not (gate / "start.1").exists() and time.monotonic() < deadline:  # a match played, the next held
            time.sleep(0.02)
        with distributed.Client(lc.scheduler_address, set_as_default=False) as client:
            first = set(client.scheduler_info()["workers"])
            lc.scale(2)
            client.wait_for_workers(2, timeout=60)
            changed.append("joined")
            client.restart_workers(sorted(first), timeout=60)
            changed.append("restarted")
        (gate / "open").touch()

    helper = threading.Thread(target=join_and_restart_once_a_log_is_written)
    helper.start()
    try:
        result = run_tournament(cfg, executor=DaskExecutor(lc.scheduler_address))
    finally:
        (gate / "open").touch()
        helper.join()
        lc.close()
    assert changed == ["joined", "restarted"]
    assert not result.errors and result.stopped_by is None
    assert len(result.records) == 8 and set(sum((r.faults for r in result.records), ())) == {0}
    with Store(bot / "tournaments" / "t", create=False) as store:
        assert [m.record.match_index for m in store.matches()] == list(range(8))


def test_a_bot_that_rewrites_its_opponent_on_a_worker_stops_the_cluster_tournament(
    tmp_path: Path, scheduler: str
) -> None:
    from golfref.config.tournament import load_tournament
    from golfref.tournament.runner import BotChanged

    from .test_tournament_integrity import ECHO, MATCHES, _tournament

    config, program, out = _tournament(tmp_path)
    cfg = load_tournament(config)
    with pytest.raises(BotChanged, match=rf"^bot victim changed during the tournament: its file {program} changed"):
        run_tournament(cfg, executor=DaskExecutor(scheduler))
    assert orjson.loads(out.read_bytes())["rewrote"] == "done"
    with Store(cfg.results, create=False) as store:
        assert len(store.matches()) < MATCHES
    program.write_bytes(ECHO.read_bytes())  # restored: the same tournament resumes
    again = run_tournament(cfg, executor=DaskExecutor(scheduler))
    assert len(again.records) == MATCHES and not again.errors


def test_allowed_changes_on_a_cluster_play_on_and_are_recorded(tmp_path: Path, scheduler: str) -> None:
    from golfref.config.tournament import load_tournament
    from golfref.tournament.runner import load_stored

    from .test_tournament_integrity import MATCHES, _tournament

    config, program, _ = _tournament(tmp_path, "allow_bot_changes: true\n")
    result = run_tournament(load_tournament(config), executor=DaskExecutor(scheduler))
    assert len(result.records) == MATCHES and not result.errors
    changed = load_stored(tmp_path / "out").bot_changes
    assert changed and {(c.player, c.change) for c in changed} == {("victim", f"its file {program} changed")}


@pytest.mark.process
def test_a_worker_that_joins_after_a_bots_files_changed_stops_the_tournament_as_a_change(tmp_path: Path) -> None:
    # The joining worker finds the bot (by the same path) unlike the client's fingerprint at the
    # start: the files changed, which is the change's stop (exit 4), not a bad copy on a worker.
    from golfref.tournament.runner import BotChanged

    from .test_tournament_integrity import ECHO

    gate, victim = tmp_path / "gate", tmp_path / "victim"
    gate.mkdir()
    victim.mkdir()
    (victim / "bot.py").write_bytes(ECHO.read_bytes())
    players = [_py("gated", str(BOTS / "gated_bot.py"), str(gate), "1"), _py("victim", str(victim / "bot.py"))]
    cfg = _config(tmp_path, players, "out", 3, HELD)
    lc = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                                  silence_logs=50)  # fmt: skip

    def change_then_add_a_worker() -> None:
        deadline = time.monotonic() + 60
        while not (gate / "start.1").exists() and time.monotonic() < deadline:  # the only worker is held
            time.sleep(0.02)
        (victim / "bot.py").write_text("raise SystemExit(3)\n", encoding="utf-8")
        lc.scale(2)

    helper = threading.Thread(target=change_then_add_a_worker)
    helper.start()
    try:
        with pytest.raises(BotChanged, match=r"^bot victim changed during the tournament: its file .*bot\.py changed"):
            run_tournament(cfg, executor=DaskExecutor(lc.scheduler_address))
    finally:
        helper.join()
        (gate / "open").touch()
        lc.close()
