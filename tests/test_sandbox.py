"""The bot sandbox (golfref/sandbox.py, docs/SANDBOX.md): its own user, bubblewrap, resource limits.

The attacks of hostile bots, run with the sandbox on and off, are in test_sandbox_attacks.py;
here: each limit and its fault, what the log records, the config and the command line, and
what happens where bubblewrap is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref import sandbox
from golfref.config import ConfigError, parse_config
from golfref.referee import FaultKind, SeatStatus, run_match
from golfref.replay import Status, validate_file
from golfref.tournament_config import parse_tournament

from .conftest import BOTS, ROOT

SYSTEM_PYTHON = "/usr/bin/python3"
"""The interpreter sandboxed bots run: under /usr, which the sandbox shows (a virtual environment it hides)."""
GOLFREF = [sys.executable, "-m", "golfref"]

needs_bubblewrap = pytest.mark.skipif(
    sandbox.bubblewrap_problem() is not None or not os.path.exists(SYSTEM_PYTHON),
    reason=f"needs a usable bubblewrap and {SYSTEM_PYTHON} ({sandbox.bubblewrap_problem() or 'python3 missing'})",
)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (bots get a user of their own only then)")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may enter (a bot's own user must reach its folder)."""
    folder = Path(tempfile.mkdtemp(prefix="golfref-sandbox-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _config(folder: Path, players: list[dict[str, Any]], sandbox_section: dict[str, Any] | None, **extra: Any) -> str:
    data: dict[str, Any] = {
        "match": "box",
        "rules": {"preset": "standard", "layout": "2x2", "holes": 1},
        "seed": 11,
        "players": players,
        "time": {"startup_ms": 60_000, "move_ms": 60_000},
        "log": {"path": str(folder / "logs" / "{match}.json")},
        **extra,
    }
    if sandbox_section is not None:
        data["sandbox"] = sandbox_section
    return yaml.safe_dump(data)


def _hog(mode: str) -> dict[str, Any]:
    return {"name": f"hog-{mode}", "command": [SYSTEM_PYTHON, str(BOTS / "hog_bot.py"), mode]}


HOUSE = {"name": "house", "builtin": "greedy"}
SMALL = {"memory_mb": 128, "cpu_seconds": 1, "processes": 16, "open_files": 32, "file_size_mb": 2, "tmp_mb": 4}


def _play(folder: Path, text: str) -> tuple[Any, dict[str, Any]]:
    config = parse_config(text, source=str(folder / "match.yaml"), base_dir=folder)
    result = run_match(config)
    assert validate_file(result.log_path).status is Status.VALID
    return result, result.log


# -- limits ------------------------------------------------------------------------------


@needs_bubblewrap
@pytest.mark.parametrize(
    ("mode", "limit"),
    [
        ("memory", "memory_mb"),
        ("cpu", "cpu_seconds"),
        ("file-size", "file_size_mb"),
        ("tmp", "tmp_mb"),
        ("open-files", "open_files"),
        pytest.param("processes", "processes", marks=needs_root),
    ],
)
def test_a_bot_at_a_limit_gets_a_resource_limit_fault_naming_it_and_the_match_goes_on(
    shared: Path, mode: str, limit: str
) -> None:
    text = _config(shared, [_hog(mode), HOUSE], {"enabled": True, "limits": SMALL})
    result, log = _play(shared, text)
    (fault,) = result.faults
    assert fault.kind is FaultKind.RESOURCE_LIMIT and fault.seat == 0
    assert fault.message.startswith(f"hit its {limit} ({SMALL[limit]} ")
    assert result.statuses == (SeatStatus.DISQUALIFIED, SeatStatus.OK)
    assert log["status"] == "finished" and len(log["holes"]) == 1  # the fallback played its seat


@needs_bubblewrap
def test_a_well_behaved_bot_is_not_faulted_by_the_limits(shared: Path) -> None:
    text = _config(shared, [_hog("none"), HOUSE], {"enabled": True, "limits": SMALL})
    result, _ = _play(shared, text)
    assert result.faults == () and result.statuses == (SeatStatus.OK, SeatStatus.OK)


@needs_bubblewrap
@needs_root
def test_nothing_of_the_bot_survives_the_match(shared: Path) -> None:
    """Children forked at the process limit sleep on; the bot's user is swept when it closes."""
    text = _config(shared, [_hog("processes"), HOUSE], {"enabled": True, "limits": SMALL})
    _, log = _play(shared, text)
    uid = log["players"][0]["sandbox"]["user"]
    assert uid not in sandbox._process_uids().values()


# -- what the log records ----------------------------------------------------------------


@needs_bubblewrap
@needs_root
def test_the_log_records_the_protections_of_each_bot(shared: Path) -> None:
    players = [_hog("none"), _hog("none") | {"name": "other"}]
    _, log = _play(shared, _config(shared, players, {"enabled": True}))
    boxes = [p["sandbox"] for p in log["players"]]
    limits = {"memory_mb": 1024, "cpu_seconds": 600, "processes": 64, "open_files": 256, "file_size_mb": 16,
              "tmp_mb": 64}  # fmt: skip
    for box, player in zip(boxes, log["players"], strict=True):
        assert box == {"enabled": True, "user": box["user"], "bubblewrap": True, "network_isolated": True,
                       "limits": limits, "missing": []}  # fmt: skip
        assert box["user"] not in (0, None, os.getuid())
        assert f"hog: uid {box['user']}" in player["stderr"]  # it really ran as that user
    assert boxes[0]["user"] != boxes[1]["user"]


def test_with_the_sandbox_off_the_log_says_so(shared: Path) -> None:
    players = [{"name": "echo", "command": [sys.executable, str(BOTS / "echo_bot.py")]}, HOUSE]
    _, log = _play(shared, _config(shared, players, None))
    assert log["players"][0]["sandbox"] == {"enabled": False, "user": None, "bubblewrap": False,
                                            "network_isolated": False, "limits": {}, "missing": []}  # fmt: skip
    assert "sandbox" not in log["players"][1]  # a built-in player runs no program


@needs_root
def test_without_bubblewrap_a_bot_still_gets_its_own_user_and_limits(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    player = {"name": "hog", "command": [python, str(BOTS / "hog_bot.py"), "none"]}
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    box = log["players"][0]["sandbox"]
    assert box["bubblewrap"] is False and box["network_isolated"] is False
    assert box["user"] not in (0, None) and f"hog: uid {box['user']}" in log["players"][0]["stderr"]
    assert set(box["limits"]) == {"memory_mb", "cpu_seconds", "processes", "open_files", "file_size_mb"}
    assert box["missing"] == [
        "bubblewrap: bubblewrap is not installed (test)",
        "network: not isolated without bubblewrap",
    ]
    assert result.faults == ()


def test_a_required_sandbox_without_bubblewrap_refuses_before_any_bot_starts(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    player = {"name": "peek", "command": [sys.executable, str(BOTS / "peek_bot.py")]}
    config = parse_config(_config(shared, [player, HOUSE], {"enabled": True, "required": True}), base_dir=shared)
    refusal = r"^sandbox: the sandbox is required but bubblewrap is not installed \(test\)$"
    with pytest.raises(ConfigError, match=refusal):
        run_match(config)
    assert not (shared / "logs").exists() or not any((shared / "logs").iterdir())


# -- what a bot can see ------------------------------------------------------------------


@needs_bubblewrap
def test_a_bot_sees_its_folder_but_not_the_config_the_logs_or_the_rest(shared: Path) -> None:
    """The bot's folder holds the config and the log folder too: both are covered."""
    bot = shared / "peek_bot.py"
    shutil.copy(BOTS / "peek_bot.py", bot)
    (shared / "weights.txt").write_text("12345", encoding="utf-8")
    (shared / "logs").mkdir()
    (shared / "logs" / "old.json").write_text("{}", encoding="utf-8")
    outside = ROOT / "README.md"
    host_tmp = shared.parent / f"{shared.name}-beside"  # in the real /tmp, beside the bot's folder
    host_tmp.write_text("x", encoding="utf-8")
    looks = [str(shared / "weights.txt"), str(shared / "match.yaml"), str(shared / "logs"), str(outside), "/root",
             sys.prefix, str(host_tmp)]  # fmt: skip
    player = {"name": "peek", "command": [SYSTEM_PYTHON, "peek_bot.py", *looks]}
    text = _config(shared, [player, HOUSE], {"enabled": True}, log={"path": "logs/{match}.json"})
    (shared / "match.yaml").write_text(text, encoding="utf-8")
    try:
        _, log = _play(shared, text)
    finally:
        host_tmp.unlink()
    seen = dict(re.findall(r"^peek (\S+): (.+)$", log["players"][0]["stderr"], flags=re.M))
    assert seen[str(shared / "weights.txt")] == "5 bytes"  # its own files
    assert seen[str(shared / "match.yaml")] == "PermissionError"  # the config: covered by /dev/null, on a nodev mount
    assert seen[str(shared / "logs")] == "0 entries"  # the logs: covered
    assert seen[str(outside)] == "FileNotFoundError"
    assert seen["/root"] == "FileNotFoundError"
    assert seen[sys.prefix] == "FileNotFoundError"
    assert seen[str(host_tmp)] == "FileNotFoundError"  # a private /tmp


@needs_bubblewrap
def test_a_log_folder_that_holds_the_bot_is_refused(shared: Path) -> None:
    bot = shared / "peek_bot.py"
    shutil.copy(BOTS / "peek_bot.py", bot)
    player = {"name": "peek", "command": [SYSTEM_PYTHON, str(bot)]}
    text = _config(shared, [player, HOUSE], {"enabled": True}, log={"path": str(shared / "{match}.json")})
    config = parse_config(text, base_dir=shared)
    with pytest.raises(ConfigError, match=r"^sandbox: seat 0: its folder .* would show the referee's .*; keep logs"):
        run_match(config)


@needs_bubblewrap
def test_a_program_the_sandbox_does_not_show_is_a_one_line_error(shared: Path) -> None:
    player = {"name": "venv", "command": [sys.executable, str(BOTS / "echo_bot.py")]}
    config = parse_config(_config(shared, [player, HOUSE], {"enabled": True}), base_dir=shared)
    if Path(sys.executable).resolve().is_relative_to("/usr"):
        pytest.skip("this interpreter lies under /usr, which the sandbox shows")
    with pytest.raises(ConfigError, match=r"^sandbox: seat 0: its program .* is not visible in the sandbox"):
        run_match(config)


@needs_bubblewrap
def test_extra_paths_and_network_are_the_configs_to_allow(shared: Path) -> None:
    extra = shared / "data"
    extra.mkdir()
    (extra / "book.txt").write_text("abc", encoding="utf-8")
    player = {"name": "peek", "command": [SYSTEM_PYTHON, str(BOTS / "peek_bot.py"), str(extra / "book.txt")]}
    text = _config(shared, [player, HOUSE], {"enabled": True, "network": True, "paths": [str(extra)]})
    _, log = _play(shared, text)
    assert f"peek {extra / 'book.txt'}: 3 bytes" in log["players"][0]["stderr"]
    box = log["players"][0]["sandbox"]
    assert box["network_isolated"] is False and "network: allowed by the config" in box["missing"]


# -- configs and the command line -------------------------------------------------------


def test_sandbox_config_mistakes_are_located_one_line_errors(shared: Path) -> None:
    text = (
        "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: greedy}\n"
        "sandbox:\n  enabeld: true\n  limits: {processes: 2, memroy_mb: 5}\n"
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="m.yaml", base_dir=shared)
    assert list(caught.value.errors) == [
        "m.yaml:5: sandbox.enabeld: unknown key 'enabeld'; did you mean 'enabled'?",
        "m.yaml:6: sandbox.limits.memroy_mb: unknown key 'memroy_mb'; did you mean 'memory_mb'?",
        "m.yaml:6: sandbox.limits.processes: 2 is less than the minimum of 8",
    ]
    text = text.split("sandbox:")[0] + "sandbox:\n  paths: [nowhere, .]\n"
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="m.yaml", base_dir=shared)
    assert list(caught.value.errors) == [f"m.yaml:5: sandbox.paths[0]: no such file or folder: {shared / 'nowhere'}"]


def test_the_sandbox_is_off_for_a_match_and_on_for_a_tournament_unless_told(shared: Path) -> None:
    players = "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: greedy}\n"
    assert parse_config(players, base_dir=shared).sandbox.enabled is False
    tournament = parse_tournament("tournament: t\n" + players, base_dir=shared)
    assert tournament.sandbox.enabled is True
    off = parse_tournament("tournament: t\n" + players + "sandbox: {enabled: false}\n", base_dir=shared)
    assert off.sandbox.enabled is False
    assert off.sandbox.switched(True).enabled is True and off.sandbox.switched(None).enabled is False


@needs_bubblewrap
def test_run_takes_sandbox_and_no_sandbox(shared: Path) -> None:
    player = {"name": "peek", "command": [SYSTEM_PYTHON, str(BOTS / "peek_bot.py")]}
    config = shared / "match.yaml"
    config.write_text(_config(shared, [player, HOUSE], None), encoding="utf-8")
    for flag, enabled in (("--sandbox", True), ("--no-sandbox", False)):
        log = shared / f"{flag}.json"
        done = subprocess.run([*GOLFREF, "run", str(config), "-q", "--log", str(log), flag], capture_output=True,
                              text=True, cwd=ROOT, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(log.read_text(encoding="utf-8"))["players"][0]["sandbox"]["enabled"] is enabled


def test_a_missing_bubblewrap_is_said_in_one_line(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from golfref.cli import app

    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    config = shared / "match.yaml"
    config.write_text(_config(shared, [HOUSE, HOUSE | {"name": "b"}], {"enabled": True}), encoding="utf-8")
    done = CliRunner().invoke(app, ["run", str(config), "-q"])
    assert done.exit_code == 0
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "golfref: warning: sandbox: bubblewrap is not installed (test); bots run with a user of their own "
        "(as root) and resource limits only, as each log records"
    ]


@needs_bubblewrap
def test_a_tournament_sandboxes_its_bots_by_default(shared: Path) -> None:
    text = (
        "tournament: t\nrules: {preset: standard, layout: 2x2, holes: 1}\ndeal_sets: 1\nseed: 2\n"
        f"players:\n  - {{name: peek, command: [{SYSTEM_PYTHON}, {BOTS / 'peek_bot.py'}]}}\n"
        "  - {name: g, builtin: greedy}\nresults: out\n"
    )
    path = shared / "t.yaml"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([*GOLFREF, "tournament", str(path), "-q", "-j", "1"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    logs = sorted((shared / "out" / "logs").glob("*.json"))
    assert len(logs) == 2
    for log in logs:
        doc = json.loads(log.read_text(encoding="utf-8"))
        assert next(p for p in doc["players"] if p["name"] == "peek")["sandbox"]["bubblewrap"] is True


SAMPLE_BOTS = [p for p in sorted((ROOT / "sample_matches" / "bots").glob("*_bot.*"))]


@needs_bubblewrap
@pytest.mark.parametrize("program", SAMPLE_BOTS, ids=[p.name for p in SAMPLE_BOTS])
def test_every_sample_bot_plays_in_the_sandbox(shared: Path, program: Path) -> None:
    # Tournaments sandbox by default: a sample bot that reaches for a file outside its
    # folder (a library elsewhere in the checkout) would fault at once there.
    if program.suffix == ".js" and shutil.which("node") is None:
        pytest.skip("needs node for the JavaScript sample bot")
    interpreter = SYSTEM_PYTHON if program.suffix == ".py" else shutil.which("node")
    player = {"name": "sample", "command": [interpreter, str(program)]}
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert result.faults == (), result.faults
    assert log["players"][0]["sandbox"]["bubblewrap"] is True


def test_the_docs_config_example_shows_the_defaults() -> None:
    text = (ROOT / "docs" / "SANDBOX.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.S) if b.startswith("sandbox:")]
    section = yaml.safe_load(block)["sandbox"]
    assert section["limits"] == sandbox.Limits().to_json()
    defaults = sandbox.SandboxSpec(enabled=True)
    assert sandbox.sandbox_spec(section, ROOT, enabled_by_default=False) == defaults
    (record,) = [b for b in re.findall(r"```json\n(.*?)```", text, flags=re.S) if '"enabled": true' in b]
    assert set(json.loads(record)) == set(sandbox.OFF.to_json())


@needs_bubblewrap
def test_sandboxed_bots_die_with_a_referee_killed_by_sigkill(tmp_path: Path) -> None:
    from .test_cli_run import TOKEN, assert_bots_die_with_a_sigkilled_referee

    token = uuid.uuid4().hex
    players = [
        {"name": name, "command": [SYSTEM_PYTHON, "-X", f"golfref_test_token={token}", str(BOTS / "bad_bot.py"), mode],
         "env": {TOKEN: token}}
        for name, mode in (("sleeper", "sleep-forever"), ("forker", "fork-child"))
    ]  # fmt: skip
    config = tmp_path / "match.yaml"
    config.write_text(_config(tmp_path, players, {"enabled": True}), encoding="utf-8")
    assert_bots_die_with_a_sigkilled_referee(config, tmp_path / "logs" / "killed.json", token)


def _system_python_matches() -> bool:
    if not os.path.exists(SYSTEM_PYTHON):
        return False
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    return version == str(sys.version_info[:2])


@needs_bubblewrap
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not _system_python_matches(),
    reason="needs root, setpriv and a system python3 of this version (to run the referee as another user)",
)
def test_a_referee_that_is_not_root_still_sandboxes_and_says_what_it_could_not_apply(shared: Path) -> None:
    """Run as nobody, the bot keeps the referee's user (in a user namespace of its own): no process limit."""
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    shared.chmod(0o777)
    player = {"name": "peek", "command": [SYSTEM_PYTHON, str(BOTS / "peek_bot.py"), "/proc/1/environ"]}
    config = shared / "match.yaml"
    config.write_text(_config(shared, [player, HOUSE], {"enabled": True}), encoding="utf-8")
    code = (
        f"import site, sys; site.addsitedir({site_packages!r}); sys.path.insert(0, {str(ROOT)!r}); "
        f"sys.argv = ['golfref', 'run', {str(config)!r}, '--quiet']; "
        "from golfref.__main__ import main; main()"
    )
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON, "-c", code],
        capture_output=True, text=True, cwd=shared, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (log,) = (shared / "logs").glob("*.json")
    entry = json.loads(log.read_text(encoding="utf-8"))["players"][0]
    box = entry["sandbox"]
    assert box["user"] is None and box["bubblewrap"] is True and box["network_isolated"] is True
    assert "processes" not in box["limits"]
    assert box["missing"] == [
        "own user: the referee is not root, so the bot runs as the referee's user",
        "processes: counted per user, and the bot has no user of its own",
    ]
    # Its own PID namespace: process 1 is its own bubblewrap, whose environment it may read
    # (the machine's init is root's, which nobody could not read).
    assert re.search(r"^peek /proc/1/environ: \d+ bytes$", entry["stderr"], flags=re.M)


@needs_bubblewrap
def test_check_config_reports_what_would_stop_a_sandboxed_bot_and_writes_nothing(shared: Path) -> None:
    hidden = {"name": "venv", "command": [sys.executable, str(BOTS / "echo_bot.py")]}
    if Path(sys.executable).resolve().is_relative_to("/usr"):
        pytest.skip("this interpreter lies under /usr, which the sandbox shows")
    match = shared / "match.yaml"
    match.write_text(_config(shared, [hidden, HOUSE], {"enabled": True}), encoding="utf-8")
    done = subprocess.run([*GOLFREF, "check-config", str(match)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("golfref: error: sandbox: seat 0: its program ") and "not visible" in done.stderr
    tournament = shared / "t.yaml"
    tournament.write_text(
        "tournament: t\nplayers:\n"
        f"  - {{name: venv, command: [{json.dumps(sys.executable)}, {json.dumps(str(BOTS / 'echo_bot.py'))}]}}\n"
        "  - {name: g, builtin: greedy}\nresults: out\n",
        encoding="utf-8",
    )
    done = subprocess.run([*GOLFREF, "check-config", str(tournament)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("golfref: error: sandbox: player venv: its program ")
    fine = shared / "fine.yaml"
    player = {"name": "peek", "command": [SYSTEM_PYTHON, str(BOTS / "peek_bot.py")]}
    fine.write_text(_config(shared, [player, HOUSE], {"enabled": True}), encoding="utf-8")
    done = subprocess.run([*GOLFREF, "check-config", str(fine)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (shared / "logs").exists() and not (shared / "out").exists()  # nothing written


@needs_bubblewrap
def test_the_bubblewrap_trial_leaves_no_child_behind() -> None:
    """bubblewrap's PID-namespace init can outlive the trial's bwrap and come to a referee, a child
    subreaper, as a zombie nobody reaps (it failed later tests' checks for leftovers)."""
    from golfref import process

    def children() -> set[int]:
        me, found = str(os.getpid()), set()
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    stat = Path(f"/proc/{name}/stat").read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if stat[stat.rindex(")") + 2 :].split()[1] == me:
                    found.add(int(name))
        return found

    process._become_subreaper()  # as a referee is once its first bot started
    before = children()
    for _ in range(3):
        assert sandbox.bubblewrap_problem.__wrapped__() is None  # the trial itself, not its cached verdict
    assert children() <= before
