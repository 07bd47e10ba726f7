"""`golfref run` and `golfref check-config` as real subprocesses.

Exit codes (docs/COMMANDS.md): 0 the match finished, 1 a bot's seat was ended by a fault (disqualified)
unless --accept-faults (or, under --strict, a bot faulted at all), 2 usage or a bad config
(one `golfref: error:` line), 3 internal error, 128 + N
stopped by signal N: 130 Ctrl-C (SIGINT), 143 SIGTERM, 129 SIGHUP (every bot stopped, the
incomplete log kept).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from golfref.record.log import read_log

from .conftest import default_signals, private_to_root, system_first_path

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inspects /proc"),
]

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
TOKEN = "GOLFREF_TEST_TOKEN"
WAIT = 30.0  # seconds: only a hung referee takes this long
LOG_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))
)


def golfref(*args: str, cwd: Path = ROOT, path: str | None = None) -> subprocess.CompletedProcess[str]:
    """golfref as a real process; `path` replaces the PATH its bots get."""
    return subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=WAIT * 2,
        env={**os.environ, "PYTHONPATH": str(ROOT), **({} if path is None else {"PATH": path})},
    )


def bot(name: str, script: str, *args: str, token: str) -> dict[str, Any]:
    return {
        "name": name,
        "command": [sys.executable, "-X", f"golfref_test_token={token}", str(BOTS / script), *args],
        "env": {TOKEN: token},
    }


def write_config(tmp_path: Path, players: list[dict[str, Any]], move_ms: int = 10_000) -> Path:
    data = {
        "match": "cli",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 2, "turn_limit": 10},
        "players": players,
        "time": {"startup_ms": 10_000, "move_ms": move_ms},
        "log": {"path": str(tmp_path / "logs" / "{match_id}.json")},
    }
    path = tmp_path / "match.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def leftovers(token: str) -> list[str]:
    """Processes carrying `token` in their environment or command line, and our zombie children."""
    found = []
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        if f"{TOKEN}={token}".encode() in environ.split(b"\0") or token.encode() in cmdline:
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
        elif fields[0] == b"Z" and int(fields[1]) == me:
            found.append(f"zombie {name}")
    return found


def start_referee(config: Path, log: Path, *ignored: signal.Signals) -> subprocess.Popen[str]:
    """`golfref run CONFIG --log LOG` in the background, its stop signals at their defaults but `ignored`."""
    return subprocess.Popen(
        [sys.executable, "-m", "golfref.cli.app", "run", str(config), "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=default_signals(*ignored),
    )


def wait_for(path: Path, proc: subprocess.Popen[str], what: str) -> None:
    """Wait (generously) until `path` exists while `proc` still runs."""
    give_up = time.monotonic() + WAIT
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < give_up, f"{what} never happened"
        time.sleep(0.02)


def valid(log: dict[str, Any]) -> bool:
    return LOG_VALIDATOR.is_valid(log)


# -- run ------------------------------------------------------------------------------------------


def test_run_prints_the_standings(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(tmp_path, [bot("alpha", "echo_bot.py", token=token), {"name": "house", "builtin": "greedy"}])
    log = tmp_path / "out" / "match.json"
    done = golfref("run", str(config), "--log", str(log), "--seed", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["place", "player"] and lines[0].split()[-2:] == ["total", "status"]
    rows = {line.split()[1]: line.split() for line in lines[1:3]}
    assert set(rows) == {"alpha", "house"}
    assert all(
        row[-1] == "ok" and len(row) == 2 + 2 + 2 for row in rows.values()
    )  # place, name, 2 holes, total, status
    assert lines[-1] == f"log: {log}"
    assert "Traceback" not in done.stderr
    # Holes count from 0 here as in the log: the progress lines and the standings' columns.
    assert [line.split(":")[0] for line in done.stderr.splitlines()] == ["hole 0 of 0-1", "hole 1 of 0-1"]
    assert lines[0].split()[2:4] == ["0", "1"]
    written = json.loads(log.read_text(encoding="utf-8"))
    assert written["status"] == "finished" and written["seed"] == 3 and valid(written)
    assert leftovers(token) == []


def test_run_json_prints_one_object(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(
        tmp_path, [bot("alpha", "echo_bot.py", token=token), bot("beta", "bad_bot.py", "illegal", token=token)]
    )
    log = tmp_path / "m.json"
    done = golfref("run", str(config), "--log", str(log), "--json", "--quiet")
    assert done.returncode == 1, "a seat was disqualified: " + done.stderr
    assert done.stderr == "", "--json and --quiet print nothing but the summary"
    assert done.stderr == ""
    assert len(done.stdout.splitlines()) == 1
    summary = json.loads(done.stdout)
    written = json.loads(log.read_text(encoding="utf-8"))
    assert summary["log"] == str(log) and summary["match_id"] == written["match_id"]
    assert summary["seed"] == written["seed"]
    players = summary["players"]
    assert [p["name"] for p in players] == ["alpha", "beta"] and [p["seat"] for p in players] == [0, 1]
    assert [p["total"] for p in players] == written["totals"]
    assert [p["place"] for p in players] == written["placings"] == [1, 2]
    assert [p["holes"] for p in players] == [
        list(s) for s in zip(*(h["result"]["scores"] for h in written["holes"]), strict=True)
    ]
    assert [p["status"] for p in players] == ["ok", "disqualified"]
    assert [p["faults"] for p in players] == [0, 3]  # fallback with max_faults 3 by default
    assert summary["faults"] == written["faults"]
    assert {f["kind"] for f in summary["faults"]} == {"illegal_action"}
    assert leftovers(token) == []


def test_a_fault_is_shown_with_its_line_hint_and_stderr(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(
        tmp_path,
        [
            bot("alpha", "bad_bot.py", "crash-at-startup", token=token),
            bot("beta", "bad_bot.py", "garbage", token=token),
        ],
    )
    done = golfref("run", str(config), "--log", str(tmp_path / "m.json"))
    assert done.returncode == 1, "a disqualified seat makes the run fail: " + done.stderr
    err = done.stderr
    assert "golfref: alpha (seat 0): exited: the bot exited (code 1) before its ready" in err
    assert "RuntimeError: bad_bot: crashing at startup on purpose" in err, "the tail of the bot's stderr"
    assert "golfref: beta (seat 1): not_json (and 2 more)" in err
    assert "  the line: hello world" in err
    assert "hint: bots print only protocol lines on stdout; write debug output to stderr" in err
    assert "Traceback" in err and err.count("golfref:") == 2, "the bot's traceback, not one of golfref's"
    assert leftovers(token) == []


def test_a_start_failure_names_the_program_and_directory(tmp_path: Path) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/no/such/interpreter\n", encoding="utf-8")
    script.chmod(0o755)
    config = write_config(tmp_path, [{"name": "a", "command": ["./bot.sh"]}, {"name": "h", "builtin": "random"}])
    done = golfref("run", str(config), "--log", str(tmp_path / "m.json"))
    assert done.returncode == 1, done.stderr
    assert f"(program {script}, working directory {tmp_path})" in done.stderr
    assert "interpreter (#! line) was not found" in done.stderr


def test_strict_exits_1_when_a_bot_faulted(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(
        tmp_path, [bot("alpha", "echo_bot.py", token=token), bot("beta", "bad_bot.py", "garbage", token=token)]
    )
    done = golfref("run", str(config), "--log", str(tmp_path / "m.json"), "--strict", "--quiet")
    assert done.returncode == 1, done.stderr
    assert "fault: beta: not_json" in done.stdout
    first = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["faults"][0]
    assert f"fault: beta: {first['kind']} (hole {first['hole']}," in done.stdout  # numbered as in the log
    clean = write_config(tmp_path, [bot("alpha", "echo_bot.py", token=token), {"name": "h", "builtin": "random"}])
    assert golfref("run", str(clean), "--log", str(tmp_path / "c.json"), "--strict", "--quiet").returncode == 0
    assert leftovers(token) == []


def test_accept_faults_keeps_exit_0_after_a_disqualification_and_the_config_key_does_the_same(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    players = [bot("alpha", "bad_bot.py", "crash-at-startup", token=token), {"name": "h", "builtin": "random"}]
    config = write_config(tmp_path, players)
    log = str(tmp_path / "m.json")
    assert golfref("run", str(config), "--log", log, "--quiet").returncode == 1  # a seat ended by a fault
    done = golfref("run", str(config), "--log", log, "--quiet", "--accept-faults")
    assert done.returncode == 0, done.stderr
    assert "disqualified" in done.stdout  # accepted, still reported
    text = config.read_text(encoding="utf-8")
    for fail_on, code in (("never", 0), ("ended", 1), ("any", 1)):
        config.write_text(text + f"faults: {{fail_on: {fail_on}}}\n", encoding="utf-8")
        assert golfref("run", str(config), "--log", log, "--quiet").returncode == code, fail_on
    # The key decides the exit status only: the log records the fault policy without it.
    assert "fail_on" not in read_log(log)["fault_policy"]
    both = golfref("run", str(config), "--log", log, "--strict", "--accept-faults")
    assert both.returncode == 2
    assert both.stderr == ("golfref: error: --strict and --accept-faults: choose one (--strict exits 1 on any fault, "
                           "--accept-faults on none)\n")  # fmt: skip
    config.write_text(text + "faults: {fail_on: sometimes}\n", encoding="utf-8")
    bad = golfref("run", str(config), "--log", log)
    assert bad.returncode == 2 and "faults.fail_on: 'sometimes' is not one of: ended, any, never" in bad.stderr
    assert leftovers(token) == []


def test_a_fault_played_through_passes_unless_strict_or_fail_on_any(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(tmp_path, [bot("alpha", "echo_bot.py", token=token), bot("beta", "bad_bot.py", "wrong-id",
                                                                                  token=token)])  # fmt: skip
    text = config.read_text(encoding="utf-8")
    config.write_text(text + "faults: {max_faults: 1000}\n", encoding="utf-8")  # never disqualified
    log = str(tmp_path / "m.json")
    done = golfref("run", str(config), "--log", log, "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    beta = json.loads(done.stdout)["players"][1]
    assert beta["status"] == "faulted" and beta["fault_kinds"] == {"wrong_id": beta["faults"]} and beta["faults"] > 1
    assert beta["first_fault"]["kind"] == "wrong_id" and beta["first_fault"]["hint"]
    assert golfref("run", str(config), "--log", log, "--quiet", "--strict").returncode == 1
    config.write_text(text + "faults: {max_faults: 1000, fail_on: any}\n", encoding="utf-8")
    assert golfref("run", str(config), "--log", log, "--quiet").returncode == 1
    assert leftovers(token) == []


@pytest.mark.parametrize("command", ["run", "check-config"])
def test_bad_config_exits_2_with_one_line(tmp_path: Path, command: str) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(
        "match: bad\nplayers:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\nrules:\n  layot: 2x2\n",
        encoding="utf-8",
    )
    done = golfref(command, str(config))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"golfref: error: {config}:6: rules.layot: unknown rule option 'layot'")
    assert "did you mean 'layout'?" in lines[0]
    assert "Traceback" not in done.stderr


def test_a_missing_config_exits_2(tmp_path: Path) -> None:
    done = golfref("run", str(tmp_path / "nope.yaml"))
    assert done.returncode == 2
    assert done.stderr.startswith("golfref: error: ") and "no such file" in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("sig", "repeat", "gap"),
    [
        (signal.SIGINT, 1, 0.0),
        (signal.SIGTERM, 1, 0.0),
        (signal.SIGHUP, 1, 0.0),
        (signal.SIGINT, 3, 0.01),
        (signal.SIGTERM, 3, 0.01),
        (signal.SIGINT, 2, 0.0),
        (signal.SIGHUP, 2, 0.0),
    ],
    ids=["SIGINT", "SIGTERM", "SIGHUP", "SIGINT-x3", "SIGTERM-x3", "SIGINT-burst", "SIGHUP-burst"],
)
def test_interrupt_keeps_the_log_and_stops_every_bot(
    tmp_path: Path, sig: signal.Signals, repeat: int, gap: float
) -> None:
    """One signal, several in a row (an impatient Ctrl-C), or two within microseconds: the same clean stop."""
    token = uuid.uuid4().hex
    sleeper = bot("sleeper", "bad_bot.py", "sleep-forever", token=token)
    asleep = tmp_path / "asleep"
    sleeper["env"]["BAD_BOT_ASLEEP"] = str(asleep)
    config = write_config(tmp_path, [sleeper, bot("echo", "echo_bot.py", token=token)], move_ms=60_000)
    log = tmp_path / "logs" / "interrupted.json"
    proc = start_referee(config, log)
    try:
        # The sleeper has a request: the first hole is in play (the log exists since the match began).
        wait_for(asleep, proc, "a request to the sleeper")
        assert proc.poll() is None and log.exists()
        for _ in range(repeat):
            if proc.poll() is None:
                proc.send_signal(sig)
                time.sleep(gap)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert "interrupted" in err and str(log) in err
    written = json.loads(log.read_text(encoding="utf-8"))
    assert valid(written), [e.message for e in LOG_VALIDATOR.iter_errors(written)][:3]
    assert written["status"] == "interrupted" and written["complete"] is False
    assert written["error"] and written["finished_at"] is not None
    assert isinstance(written["seed"], int), "the match is over: the seed may be written"
    assert len(written["holes"]) == 1 and written["holes"][0]["result"] is None, "the open hole is kept"
    assert written["totals"] is None and written["placings"] is None
    assert leftovers(token) == []


def test_a_signal_ignored_at_start_stays_ignored(tmp_path: Path) -> None:
    """Started under nohup (SIGHUP ignored), a hang-up does not stop the match; SIGTERM still does."""
    token = uuid.uuid4().hex
    config = write_config(
        tmp_path,
        [bot("sleeper", "bad_bot.py", "sleep-forever", token=token), bot("echo", "echo_bot.py", token=token)],
        move_ms=60_000,
    )
    log = tmp_path / "logs" / "nohup.json"
    proc = start_referee(config, log, signal.SIGHUP)
    try:
        wait_for(log, proc, "the log")
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert json.loads(log.read_text(encoding="utf-8"))["error"] == "interrupted by SIGTERM"
    assert leftovers(token) == []


@pytest.mark.parametrize("module", ["golfref.game.cards", "golfref.config.match"], ids=["cli-import", "command-import"])
def test_ctrl_c_while_the_modules_load_exits_130_without_a_traceback(tmp_path: Path, module: str) -> None:
    """Deterministic: the process signals itself as an import reaches `module` (loaded with
    the CLI itself, or later by the command)."""
    config = write_config(tmp_path, [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}])
    code = (
        "import os, signal, sys\n"
        "class Hook:\n"
        "    def find_spec(self, name, path, target=None):\n"
        f"        if name == {module!r}:\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Hook())\n"
        f"sys.argv = ['golfref', 'run', {str(config)!r}]\n"
        "from golfref.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=WAIT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=default_signals(),
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr == "golfref: interrupted\n"


def test_bots_die_with_a_referee_killed_by_sigkill(tmp_path: Path) -> None:
    """A bot that stopped reading its input, and a descendant in its group, go when the referee is SIGKILLed."""
    token = uuid.uuid4().hex
    config = write_config(
        tmp_path,
        [
            bot("sleeper", "bad_bot.py", "sleep-forever", token=token),
            bot("forker", "bad_bot.py", "fork-child", token=token),
        ],
        move_ms=60_000,
    )
    log = tmp_path / "logs" / "killed.json"
    assert_bots_die_with_a_sigkilled_referee(config, log, token)
    assert read_log(log)["status"] == "running", "clearly incomplete"


def assert_bots_die_with_a_sigkilled_referee(config: Path, log: Path, token: str) -> None:
    """Run a match of a sleeping bot and a forking one (carrying `token`), SIGKILL its referee once
    every bot is ready, and see every bot process go."""
    proc = start_referee(config, log)
    try:
        wait_for(log, proc, "the log")  # written as the first hole starts: every bot said ready
        assert len(leftovers(token)) >= 3, "two bots and the forker's child are running"
    finally:
        proc.kill()
        proc.communicate()
    give_up = time.monotonic() + WAIT
    while leftovers(token) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert leftovers(token) == [], "bots outlived a referee killed by SIGKILL"


# -- check-config ---------------------------------------------------------------------------------


SAMPLES = sorted((ROOT / "sample_matches").glob("*.yaml"))


def _unsandboxable_here(sample: Path) -> str | None:
    """Why this machine, not the sample, keeps the sample's sandboxed bots from running as written, or None.

    With bubblewrap any `python3` plays (on its installation, which the sandbox shows); without it,
    as root, each bot's own user must reach the interpreter and the bots (not in a private checkout).
    """
    from golfref.bots.sandbox import Access, bubblewrap_problem, others_cannot

    if "tournament:" not in sample.read_text(encoding="utf-8"):
        return None  # a match config leaves the sandbox off
    python = shutil.which("python3", path=system_first_path()) or "python3"
    if bubblewrap_problem() is not None and os.geteuid() == 0:
        for path, access in ((python, Access.RUN), (sample.parent / "bots" / "greedy_bot.py", Access.READ)):
            stop = others_cannot(path, access)
            if stop is not None:
                return f"without bubblewrap, a sandboxed bot's own user cannot reach {path} here: {stop}"
    return None


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_check_config_accepts_every_sample(sample: Path) -> None:
    text = sample.read_text(encoding="utf-8")
    if "node " in text and shutil.which("node") is None:
        pytest.skip("this sample needs node")
    if "python3 " in text and shutil.which("python3") is None:
        pytest.skip("this sample needs python3 on PATH")
    if (reason := _unsandboxable_here(sample)) is not None:
        pytest.skip(reason)
    # The samples' bots are `python3 ...`: the system's, as on a stock machine (see system_first_path).
    done = golfref("check-config", str(sample.relative_to(ROOT)), path=system_first_path())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{sample.relative_to(ROOT)}: ok: ")
    assert done.stderr == ""


def test_an_unwritable_log_path_exits_2_before_any_bot_starts(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(tmp_path, [bot("a", "echo_bot.py", token=token), {"name": "b", "builtin": "random"}])
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = golfref("run", str(config), "--log", str(blocker / "match.json"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error: cannot write the log")
    assert leftovers(token) == []


@pytest.mark.parametrize(
    "args",
    [
        ["run", "x.yaml", "--seed", "abc"],
        ["run", "x.yaml", "--seed", "18446744073709551616"],
        ["rules", "--players", "x"],
        ["replay"],
        ["score"],
        ["nonsense"],
        ["run", "x.yaml", "--bogus"],
    ],
    ids=["seed-text", "seed-huge", "players-text", "replay-no-log", "score-no-grid", "no-command", "bad-option"],
)
def test_usage_errors_are_one_line(args: list[str]) -> None:
    proc = golfref(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_log_never_replaces_a_special_file(tmp_path: Path) -> None:
    config = write_config(tmp_path, [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random"}])
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = golfref("run", str(config), "--log", str(fifo))
    assert proc.returncode == 2 and "not a regular file" in proc.stderr
    assert fifo.exists() and not fifo.is_file(), "the fifo was replaced"


def test_log_option_fills_the_template_and_refuses_an_empty_path(tmp_path: Path) -> None:
    config = write_config(tmp_path, [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random"}])
    proc = golfref("run", str(config), "--quiet", "--log", str(tmp_path / "out" / "{match}-{match_id}.json"))
    assert proc.returncode == 0, proc.stderr
    (written,) = (tmp_path / "out").iterdir()
    assert written.name.startswith("cli-cli-") and "{" not in written.name
    proc = golfref("run", str(config), "--log", "")
    assert proc.returncode == 2 and "--log" in proc.stderr


# -- the files a match writes (issue 7, item 4) ---------------------------------------------------


BUILTINS = [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}]


def one_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error: "), proc.stderr
    return lines[0]


def test_the_log_replaces_only_a_golfref_log_unless_forced(tmp_path: Path) -> None:
    config = write_config(tmp_path, BUILTINS)
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": "precious"}\n', encoding="utf-8")
    line = one_error(golfref("run", str(config), "--quiet", "--log", str(notes)))
    assert "is not a golfref log" in line and "--force" in line
    assert notes.read_text(encoding="utf-8") == '{"mine": "precious"}\n'
    assert one_error(golfref("check-config", str(config), "--log", str(notes))) == line
    assert golfref("run", str(config), "--quiet", "--log", str(notes), "--force").returncode == 0
    assert json.loads(notes.read_text(encoding="utf-8"))["format"] == "golfref-log"
    again = golfref("run", str(config), "--quiet", "--log", str(notes))  # a golfref log is replaced
    assert again.returncode == 0, again.stderr


def test_the_log_never_replaces_an_input_of_the_match(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    script = tmp_path / "my_bot.py"
    shutil.copy(BOTS / "echo_bot.py", script)
    player = {"name": "mine", "command": [sys.executable, str(script)], "env": {TOKEN: token}}
    config = write_config(tmp_path, [player, BUILTINS[0]])
    before = config.read_bytes(), script.read_bytes()
    for target, what in ((config, "it is the match config"), (script, "it is a file in the command of players[0]")):
        for command in ("run", "check-config"):
            line = one_error(golfref(command, str(config), "--log", str(target), "--force"))
            assert what in line, line
    assert (config.read_bytes(), script.read_bytes()) == before
    assert leftovers(token) == []


@pytest.mark.parametrize(
    ("template", "shown"),
    [
        ("x/{bogus}.json", "{bogus}"),
        ("{match_id.__class__}.json", "{match_id.__class__}"),
        ("{match_id!r}", "{match_id!r}"),
        ("{}.json", "{}"),
        ("{0}", "{0}"),
    ],
    ids=["unknown", "attribute", "conversion", "positional", "index"],
)
@pytest.mark.parametrize("command", ["run", "check-config"])
def test_a_bad_log_placeholder_is_a_usage_error(tmp_path: Path, template: str, shown: str, command: str) -> None:
    config = write_config(tmp_path, BUILTINS)
    line = one_error(golfref(command, str(config), "--log", str(tmp_path / template)))
    assert f"unknown placeholder {shown} (use {{match_id}}, {{match}}, {{date}})" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.yaml"], "nothing is written"


@pytest.mark.parametrize("kind", ["directory", "device", "under-a-file", "not-a-log", "the-config"])
def test_check_config_finds_what_run_refuses(tmp_path: Path, kind: str) -> None:
    config = write_config(tmp_path, BUILTINS)
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    (tmp_path / "other.json").write_text("[]", encoding="utf-8")
    path = {
        "directory": str(tmp_path / "folder"),
        "device": os.devnull,
        "under-a-file": str(tmp_path / "a-file" / "m.json"),
        "not-a-log": str(tmp_path / "other.json"),
        "the-config": str(config),
    }[kind]
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["log"]["path"] = path
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    checked = one_error(golfref("check-config", str(config)))
    assert checked == one_error(golfref("run", str(config), "--quiet"))
    assert "cannot write the log" in checked


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh on PATH")
def test_check_config_finds_an_env_that_hides_the_program(tmp_path: Path) -> None:
    player = {"name": "s", "command": "sh -c 'exit 0'", "env": {"PATH": str(tmp_path / "nothing-here")}}
    config = write_config(tmp_path, [player, BUILTINS[0]])
    line = one_error(golfref("check-config", str(config)))
    assert "players[0].env.PATH: this PATH hides the program 'sh'" in line


def test_transcripts_belong_to_one_match(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    config = write_config(tmp_path, [bot("echo", "echo_bot.py", token=token), BUILTINS[0]])
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["log"]["transcript"] = True
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    log = tmp_path / "out" / "m.json"
    stale = tmp_path / "out" / "m.seat1.transcript.jsonl"  # from an earlier match in which seat 1 was a bot
    stale.parent.mkdir()
    stale.write_text('{"ms":1,"dir":"to_bot","line":"{}"}\n', encoding="utf-8")
    sizes = []
    for _ in range(2):
        done = golfref("run", str(config), "--quiet", "--seed", "5", "--log", str(log))
        assert done.returncode == 0, done.stderr
        transcript = log.with_name("m.seat0.transcript.jsonl")
        sizes.append(len(transcript.read_text(encoding="utf-8").splitlines()))
        assert transcript.stat().st_mode & 0o777 == log.stat().st_mode & 0o777 == 0o600
    assert sizes[0] > 0 and sizes[0] == sizes[1], "the second match's transcript holds only its own lines"
    assert not stale.exists()
    assert leftovers(token) == []


def test_relative_paths_do_not_depend_on_where_golfref_runs(tmp_path: Path) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    shutil.copy(BOTS / "echo_bot.py", folder / "bot.py")
    (folder / "bot.py").chmod(0o755)
    data = {
        "match": "rel",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "players": [{"name": "b", "command": f"{shlex.quote(sys.executable)} bot.py"}, BUILTINS[0]],
        "log": {"path": "out/{match}.json"},
    }
    config = folder / "match.yaml"
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = golfref("run", str(config), "--quiet", cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert (folder / "out" / "rel.json").is_file() and not (elsewhere / "out").exists()
    done = golfref("run", str(config), "--quiet", "--log", "here.json", cwd=elsewhere)  # --log: from the cwd
    assert done.returncode == 0, done.stderr
    assert (elsewhere / "here.json").is_file()


@pytest.mark.parametrize("command", ["run", "check-config"])
def test_every_config_problem_is_its_own_line(tmp_path: Path, command: str) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(
        "match: bad\nplayerz:\n  - {name: a, builtin: random}\nrules:\n  layot: 2x2\ntime:\n  mov_ms: 5\n",
        encoding="utf-8",
    )
    done = golfref(command, str(config))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"golfref: error: {config}:2: playerz: unknown key 'playerz'; did you mean 'players'?",
        f"golfref: error: {config}:5: rules.layot: unknown rule option 'layot'; did you mean 'layout'?",
        f"golfref: error: {config}:7: time.mov_ms: unknown key 'mov_ms'; did you mean 'move_ms'?",
    ]


SYSTEM_PYTHON = Path("/usr/bin/python3")


def _system_python_matches() -> bool:
    if not SYSTEM_PYTHON.exists():
        return False
    version = subprocess.run([str(SYSTEM_PYTHON), "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()  # fmt: skip
    return version == str(sys.version_info[:2])


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not _system_python_matches(),
    reason="needs root, setpriv and a system python3 of this version (to run as another user)",
)
def test_a_bot_of_the_same_user_cannot_read_the_referee(tmp_path: Path) -> None:
    """The referee and its bot run as one unprivileged user (nobody): the referee is not dumpable,
    so the bot cannot read its memory, environment or pipes. The system interpreter runs both,
    with this environment's packages: a virtual environment's may lie where nobody can look."""
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    private = private_to_root(ROOT / "golfref" / "__init__.py", Path(yaml.__file__), BOTS / "mem_spy_bot.py")
    if private is not None:
        pytest.skip(private)
    shared = Path(tempfile.mkdtemp(prefix="golfref-nobody-"))
    try:
        shared.chmod(0o777)
        out = shared / "spy.json"
        config = shared / "match.yaml"
        data = {
            "match": "spy",
            "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
            "players": [
                {"name": "spy", "command": [str(SYSTEM_PYTHON), str(BOTS / "mem_spy_bot.py"), str(out)]},
                {"name": "house", "builtin": "greedy"},
            ],
            "log": {"path": str(shared / "log.json")},
        }
        config.write_text(yaml.safe_dump(data), encoding="utf-8")
        code = (
            f"import site, sys; site.addsitedir({site_packages!r}); sys.path.insert(0, {str(ROOT)!r}); "
            f"sys.argv = ['golfref', 'run', {str(config)!r}, '--quiet']; "
            "from golfref.__main__ import main; main()"
        )
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(SYSTEM_PYTHON), "-c", code],
            capture_output=True, text=True, cwd=shared, timeout=WAIT * 2,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(out.read_text(encoding="utf-8")) == {
            "mem": "PermissionError",
            "environ": "PermissionError",
            "fd": "PermissionError",
        }
    finally:
        shutil.rmtree(shared, ignore_errors=True)
