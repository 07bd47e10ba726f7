"""The bot sandbox (golfref/bots/sandbox.py, docs/SANDBOX.md): its own user, bubblewrap, resource limits.

The attacks of hostile bots, run with the sandbox on and off, are in test_sandbox_attacks.py;
here: each limit and its fault, what the log records, the config and the command line, and
what happens where bubblewrap is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from golfref.bots import sandbox
from golfref.config import sandbox_spec
from golfref.config.match import ConfigError, load_config, parse_config
from golfref.config.tournament import parse_tournament
from golfref.match.referee import run_match
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.validate import Status, validate_file

from .conftest import BOTS, ROOT, private_to_root

SYSTEM_PYTHON = "/usr/bin/python3"
"""The interpreter sandboxed bots run: under /usr, which the sandbox shows (a virtual environment it hides)."""
GOLFREF = [sys.executable, "-m", "golfref"]

needs_bubblewrap = pytest.mark.skipif(
    sandbox.bubblewrap_problem() is not None or not os.path.exists(SYSTEM_PYTHON),
    reason=f"needs a usable bubblewrap and {SYSTEM_PYTHON} ({sandbox.bubblewrap_problem() or 'python3 missing'})",
)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (bots get a user of their own only then)")


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


@pytest.mark.process
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


@pytest.mark.process
@needs_bubblewrap
def test_a_well_behaved_bot_is_not_faulted_by_the_limits(shared: Path) -> None:
    text = _config(shared, [_hog("none"), HOUSE], {"enabled": True, "limits": SMALL})
    result, _ = _play(shared, text)
    assert result.faults == () and result.statuses == (SeatStatus.OK, SeatStatus.OK)


@pytest.mark.process
@needs_bubblewrap
@needs_root
def test_nothing_of_the_bot_survives_the_match(shared: Path) -> None:
    """Children forked at the process limit sleep on; the bot's user is swept when it closes."""
    text = _config(shared, [_hog("processes"), HOUSE], {"enabled": True, "limits": SMALL})
    _, log = _play(shared, text)
    uid = log["players"][0]["sandbox"]["user"]
    assert uid not in sandbox._process_uids().values()


# -- what the log records ----------------------------------------------------------------


@pytest.mark.process
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


@pytest.mark.process
def test_with_the_sandbox_off_the_log_says_so(shared: Path) -> None:
    players = [{"name": "echo", "command": [sys.executable, str(BOTS / "echo_bot.py")]}, HOUSE]
    _, log = _play(shared, _config(shared, players, None))
    assert log["players"][0]["sandbox"] == {"enabled": False, "user": None, "bubblewrap": False,
                                            "network_isolated": False, "limits": {}, "missing": []}  # fmt: skip
    assert "sandbox" not in log["players"][1]  # a built-in player runs no program


def _reachable_python() -> str:
    """An interpreter a bot's own user may run (it sees files as any other user); skips the test without one."""
    python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    stop = sandbox.others_cannot(python, sandbox.Access.RUN)
    if stop is not None:
        pytest.skip(f"no python3 another user may run: {python}: {stop}")
    return python


@pytest.mark.process
@needs_root
def test_without_bubblewrap_a_bot_still_gets_its_own_user_and_limits(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    shutil.copy(BOTS / "hog_bot.py", shared)  # where its user may read it: the checkout may be private
    player = {"name": "hog", "command": [_reachable_python(), str(shared / "hog_bot.py"), "none"]}
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


@pytest.mark.process
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
    """A program that is no Python (whose installation golfref would show) outside what the sandbox shows."""
    runner = _program(shared / "tools" / "runner", f'#!/bin/sh\nexec {SYSTEM_PYTHON} "$@"\n')
    player = {"name": "runner", "command": [str(runner), str(BOTS / "echo_bot.py")]}
    config = parse_config(_config(shared, [player, HOUSE], {"enabled": True}), base_dir=shared)
    with pytest.raises(ConfigError, match=r"^sandbox: seat 0: its program .*/tools/runner is not visible in the"):
        run_match(config)


@pytest.mark.process
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


# -- the program the user meant (bubblewrap) ---------------------------------------------


@pytest.fixture
def bubblewrap_present(monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap looks usable: the checks before a bot starts need no real one (its command lines are built,
    never run)."""
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: None)
    monkeypatch.setattr(sandbox, "_bwrap", lambda: "/nonexistent/bwrap")


def _program(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def _boxes(config: str, folder: Path, hide: tuple[Path, ...] = ()) -> list[Any]:
    """The sandboxes a match of `config` (written in `folder`) would get, as run and check-config build them."""
    from golfref.bots.launch import build_sandboxes

    path = folder / "match.yaml"
    path.write_text(config, encoding="utf-8")
    cfg = load_config(path)
    return build_sandboxes(cfg.sandbox, cfg.players, folder / "logs", cfg.source, hide, prepare=False)


def _close(boxes: list[Any]) -> None:
    for box in boxes:
        if box is not None:
            box.close()


def _venv_bot(shared: Path) -> tuple[Path, Path]:
    """A bot's folder whose PATH finds an interpreter (`node`: no Python, whose installation golfref would
    show) first in a folder of its own outside it (as nvm keeps it), and a `node` inside it second."""
    bots, venv = shared / "bots", shared / "venv"
    bots.mkdir()
    (bots / "bot.js").write_text("console.log('hi')\n", encoding="utf-8")
    _program(bots / "bin" / "node")
    _program(venv / "bin" / "node")
    return bots, venv


def test_a_program_the_shell_finds_outside_the_sandbox_is_named_with_the_one_inside_before_any_bot_starts(
    shared: Path, bubblewrap_present: None
) -> None:
    bots, venv = _venv_bot(shared)
    player = {"name": "venv", "command": "node bot.js", "cwd": "bots", "env": {"PATH": f"{venv}/bin:{bots}/bin"}}
    config = _config(shared, [player, HOUSE], {"enabled": True})
    refusal = (
        f"sandbox: seat 0: its program node is {venv}/bin/node on its PATH but {bots}/bin/node in the "
        f"sandbox, which does not show {venv}; add {venv} to the player's sandbox.paths, or name the interpreter "
        "by a path the sandbox shows"
    )
    with pytest.raises(ConfigError) as caught:
        _boxes(config, shared)
    assert str(caught.value) == refusal
    # The config names the folder: the bot alone sees it, read-only, and the log will say so.
    player["sandbox"] = {"paths": ["venv"]}
    boxes = _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    try:
        box = boxes[0]
        assert box.protections.paths == (str(venv),)
        bound = [box.argv[i + 1 : i + 3] for i, arg in enumerate(box.argv) if arg == "--ro-bind"]
        assert [str(venv), str(venv)] in bound and [str(bots), str(bots)] in bound
        assert box.protections.to_json()["paths"] == [str(venv)]
    finally:
        _close(boxes)


def test_a_link_to_the_systems_interpreter_from_a_folder_the_sandbox_does_not_show_is_still_another_program(
    shared: Path, bubblewrap_present: None
) -> None:
    """Its node is a link to a program under /usr, but its own modules may sit beside the link."""
    bots, venv = _venv_bot(shared)
    system = os.path.realpath(shutil.which("sh") or "/bin/sh")
    (venv / "bin" / "node").unlink()
    (venv / "bin" / "node").symlink_to(system)
    player = {"name": "venv", "command": [str(venv / "bin" / "node"), "bot.js"], "cwd": "bots"}
    refusal = (
        f"sandbox: seat 0: its program {venv}/bin/node is not visible in the sandbox (it does not show {venv}); "
        f"add {venv} to the player's sandbox.paths, or name an interpreter under /usr"
    )
    with pytest.raises(ConfigError) as caught:
        _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    assert str(caught.value) == refusal


def test_a_script_whose_interpreter_the_sandbox_does_not_show_is_refused(
    shared: Path, bubblewrap_present: None
) -> None:
    bots, venv = _venv_bot(shared)
    _program(bots / "bot", f"#!{venv}/bin/node\n")
    player = {"name": "script", "command": "./bot", "cwd": "bots"}
    with pytest.raises(ConfigError) as caught:
        _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    assert str(caught.value) == (
        f"sandbox: seat 0: the interpreter of its program ./bot, {venv}/bin/node, is not visible in the sandbox "
        f"(it does not show {venv}); add {venv} to the player's sandbox.paths, or name one under /usr on the #! line"
    )


@pytest.mark.parametrize("where", ["player", "config"])
@pytest.mark.parametrize("secret", ["config", "logs", "key", "venv"])
def test_the_referees_own_files_can_never_be_shown_to_a_bot(
    shared: Path, bubblewrap_present: None, where: str, secret: str
) -> None:
    """Neither a player's sandbox.paths nor the config's may show the config, the log folder (a
    tournament's results), the signing key or the virtual environment golfref runs in."""
    if secret == "venv" and sys.prefix == sys.base_prefix:
        pytest.skip("golfref does not run in a virtual environment here")
    bots, _ = _venv_bot(shared)
    key = shared / "key.pem"
    key.write_text("secret", encoding="utf-8")
    (shared / "logs").mkdir()
    shown = {"config": str(shared / "match.yaml"), "logs": str(shared / "logs" / "old"), "key": str(key),
             "venv": sys.prefix}[secret]  # fmt: skip
    if secret == "logs":
        Path(shown).mkdir()
    player = {"name": "peek", "command": [str(bots / "bin" / "node"), "bot.js"], "cwd": "bots"}
    section: dict[str, Any] = {"enabled": True}
    if where == "player":
        player["sandbox"] = {"paths": [shown]}
    else:
        section["paths"] = [shown]
    (shared / "match.yaml").write_text("", encoding="utf-8")  # the config's path exists before it is read
    with pytest.raises(ConfigError) as caught:
        _boxes(_config(shared, [player, HOUSE], section), shared, hide=(key,))
    private = {"config": shared / "match.yaml", "logs": shared / "logs", "key": key, "venv": Path(sys.prefix)}
    assert str(caught.value) == (
        f"sandbox: seat 0: its sandbox path {Path(shown).resolve()} would show the referee's "
        f"{private[secret].resolve()}, which no bot may see (its config, logs, results, signing key and Python "
        "packages); name another folder"
    )


@pytest.mark.process
def test_a_bot_on_the_referees_own_interpreter_runs_its_installations_never_the_referees_environment(
    shared: Path, bubblewrap_present: None
) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("golfref does not run in a virtual environment here")
    player = {"name": "venv", "command": [sys.executable, str(BOTS / "echo_bot.py")]}
    boxes = _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    try:
        argv = boxes[0].argv
        base = os.path.realpath(sys._base_executable)  # a venv's base interpreter (CPython 3.11 on)
        assert argv[argv.index("--") :][-2:] == [base, str(BOTS / "echo_bot.py")]
        bound = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--ro-bind"]
        assert not any(Path(p).is_relative_to(sys.prefix) for p in bound)  # the referee's venv: never
        record = boxes[0].protections.to_json()["interpreter"]
        assert record["program"] == sys.executable and record["executable"] == base
    finally:
        _close(boxes)


def test_a_folder_holding_the_referees_files_shows_them_covered(shared: Path, bubblewrap_present: None) -> None:
    bots, _ = _venv_bot(shared)
    (shared / "logs").mkdir()
    player = {"name": "peek", "command": [str(bots / "bin" / "node"), "bot.js"], "cwd": "bots",
              "sandbox": {"paths": ["."]}}  # fmt: skip
    boxes = _boxes(_config(shared, [player, HOUSE], {"enabled": True}), shared)
    try:
        argv = boxes[0].argv
        assert ["--tmpfs", str(shared / "logs")] == argv[argv.index(str(shared / "logs")) - 1 :][:2]
        assert ["--ro-bind", os.devnull, str(shared / "match.yaml")] in [argv[i : i + 3] for i in range(len(argv))]
    finally:
        _close(boxes)


def _recipe(folder: Path) -> tuple[dict[str, Any], list[str]]:
    """The numpy bot of docs/SANDBOX.md's recipe in `folder` (its player entry, from the docs) and the
    lines of the fault report the docs show for it without its sandbox line."""
    text = (ROOT / "docs" / "SANDBOX.md").read_text(encoding="utf-8")
    recipe = text[text.index("### Recipe: a numpy bot") :].split("\n## ")[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", recipe, flags=re.S)
    (player,) = yaml.safe_load(block)["players"]
    (report,) = re.findall(r"```text\n(golfref: numpy-bot .*?)```", recipe, flags=re.S)
    bots = folder / player["cwd"]
    bots.mkdir(parents=True)
    for name in ("greedy_bot.py", "golfbot.py"):
        shutil.copy(ROOT / "sample_matches" / "bots" / name, bots)
    # numpy stands for any package of the bot's environment: here a module only the environment has.
    (bots / "bot.py").write_text(
        "import runpy, sys\nimport numpy\nassert numpy.GOLFREF_RECIPE\nsys.path.insert(0, sys.path[0])\n"
        "runpy.run_path('greedy_bot.py', run_name='__main__')\n",
        encoding="utf-8",
    )
    return player, report.splitlines()


@pytest.mark.process
@needs_bubblewrap
def test_the_recipes_bot_in_a_virtual_environment_of_its_own_plays_sandboxed(shared: Path) -> None:
    """Without its sandbox line it runs on the Python its environment was made from, without numpy, and
    its fault report is the docs'; with it, on its environment, which it sees."""
    from golfref.show.summary import fault_lines

    player, report = _recipe(shared)
    venv = shared / "venvs" / "numpy-bot"
    made = subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"{SYSTEM_PYTHON} -m venv --without-pip fails here: {made.stderr.strip()[-200:]}")
    (site,) = venv.glob("lib/python3*/site-packages")
    (site / "numpy.py").write_text("GOLFREF_RECIPE = True\n", encoding="utf-8")
    without = dict(player)
    del without["sandbox"]
    result, log = _play(shared, _config(shared, [without, HOUSE], {"enabled": True}))
    assert [f.kind for f in result.faults] == [FaultKind.EXITED]
    assert "ModuleNotFoundError: No module named 'numpy'" in log["players"][0]["stderr"]
    assert fault_lines(result)[:2] == report
    ran = log["players"][0]["sandbox"]["interpreter"]
    assert ran["program"] == str(venv / "bin" / "python3")
    assert ran["executable"] == os.path.realpath(SYSTEM_PYTHON) and ran["shown"] == ran["covered"] == []
    result, log = _play(shared, _config(shared, [player, HOUSE], {"enabled": True}))
    assert result.faults == (), log["players"][0]["stderr"]
    assert log["players"][0]["sandbox"]["paths"] == [str(venv)]
    assert log["players"][0]["sandbox"]["bubblewrap"] is True
    assert "interpreter" not in log["players"][0]["sandbox"]  # the environment and its base: shown, run as they are


# -- without bubblewrap: what the bot's own user may reach ----------------------------------


def _open(shared: Path) -> Path:
    """`shared`, which a user of no groups must be able to enter (else the test's premise fails: skip)."""
    stop = sandbox.others_cannot(shared, sandbox.Access.ENTER)
    if stop is not None:
        pytest.skip(f"the temporary folder is private: {stop}")
    return shared


def test_others_cannot_names_where_a_user_of_no_groups_is_stopped(shared: Path) -> None:
    folder = _open(shared)
    private = folder / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    (private / "bot.py").write_text("x", encoding="utf-8")
    (folder / "secret.py").write_text("x", encoding="utf-8")
    (folder / "secret.py").chmod(0o600)
    (folder / "plain.py").write_text("x", encoding="utf-8")
    (folder / "plain.py").chmod(0o644)
    (folder / "into").symlink_to("private/bot.py")  # a link in an open folder into a closed one
    (folder / "up").symlink_to(f"../{folder.name}/plain.py")
    (folder / "half").mkdir()
    (folder / "half").chmod(0o750)
    read, run, enter = sandbox.Access.READ, sandbox.Access.RUN, sandbox.Access.ENTER
    assert str(sandbox.others_cannot(private / "bot.py", read)) == f"cannot enter {private} (mode 0700)"
    assert str(sandbox.others_cannot(folder / "into", read)) == f"cannot enter {private} (mode 0700)"
    assert str(sandbox.others_cannot(folder / "secret.py", read)) == f"cannot read {folder}/secret.py (mode 0600)"
    assert str(sandbox.others_cannot(folder / "plain.py", run)) == f"cannot run {folder}/plain.py (mode 0644)"
    assert str(sandbox.others_cannot(folder / "half", enter)) == f"cannot enter {folder}/half (mode 0750)"
    assert sandbox.others_cannot(folder / "plain.py", read) is None
    assert sandbox.others_cannot(folder / "up", read) is None
    assert sandbox.others_cannot(folder / "missing.py", read) is None  # it fails as a missing file


NO_BUBBLEWRAP_FIX = (
    "without bubblewrap, a root referee runs each bot as a user of its own; install bubblewrap (apt-get install "
    "bubblewrap), {fix}, or play with --no-sandbox"
)
ENTER = "keep the bot and its interpreter under folders other users may enter"


def _unreachable_layouts(folder: Path, python: str) -> dict[str, tuple[dict[str, Any], str]]:
    """Bots whose own user could not reach what they need, and the one line that says so."""
    private = folder / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    shutil.copy(BOTS / "echo_bot.py", private)
    shutil.copy(BOTS / "echo_bot.py", folder / "closed_bot.py")
    (folder / "closed_bot.py").chmod(0o600)
    shutil.copy(BOTS / "echo_bot.py", folder / "open_bot.py")
    _program(private / "mybot")
    _program(folder / "script", f"#!{private}/python\n")
    _program(private / "python")
    on_the_way = f"the bot's own user cannot enter {private} (mode 0700), on the way to"
    return {
        "folder": ({"command": [python, str(private / "echo_bot.py")]},
                   f"{on_the_way} its file {private}/echo_bot.py: " + NO_BUBBLEWRAP_FIX.format(fix=ENTER)),
        "file": ({"command": [python, "closed_bot.py"]},
                 f"the bot's own user cannot read its file {folder}/closed_bot.py (mode 0600): "
                 + NO_BUBBLEWRAP_FIX.format(fix="let other users read it (chmod o+r)")),
        "cwd": ({"command": [python, str(folder / "open_bot.py")], "cwd": "private"},
                f"the bot's own user cannot enter its working directory {private} (mode 0700): "
                + NO_BUBBLEWRAP_FIX.format(fix=ENTER)),
        "program": ({"command": "mybot", "env": {"PATH": f"{private}:/usr/bin:/bin"}},
                    f"{on_the_way} its program {private}/mybot: " + NO_BUBBLEWRAP_FIX.format(fix=ENTER)),
        "interpreter": ({"command": "./script"},
                        f"{on_the_way} the interpreter of its program {private}/python: "
                        + NO_BUBBLEWRAP_FIX.format(fix=ENTER)),
    }  # fmt: skip


@needs_root
@pytest.mark.parametrize("layout", ["folder", "file", "cwd", "program", "interpreter"])
def test_without_bubblewrap_a_bot_its_own_user_cannot_reach_is_refused_before_any_bot_starts(
    shared: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    folder = _open(shared)
    player, said = _unreachable_layouts(folder, _reachable_python())[layout]
    config = parse_config(_config(folder, [{"name": "bot", **player}, HOUSE], {"enabled": True}), base_dir=folder)
    with pytest.raises(ConfigError) as caught:
        run_match(config)
    assert str(caught.value) == f"sandbox: seat 0: {said}"
    assert not (folder / "logs").exists() or not any((folder / "logs").iterdir())
    # The referee's own files are never opened up for it: the folders keep their modes.
    assert stat.S_IMODE((folder / "private").stat().st_mode) == 0o700


@pytest.mark.process
@needs_root
def test_check_config_and_a_tournament_say_what_the_bots_own_user_cannot_reach_before_any_match(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from golfref.cli.app import app

    monkeypatch.setattr(sandbox, "bubblewrap_problem", lambda: "bubblewrap is not installed (test)")
    folder = _open(shared)
    player, said = _unreachable_layouts(folder, _reachable_python())["folder"]
    match = folder / "match.yaml"
    match.write_text(_config(folder, [{"name": "bot", **player}, HOUSE], {"enabled": True}), encoding="utf-8")
    done = CliRunner().invoke(app, ["check-config", str(match)])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr == f"golfref: error: sandbox: seat 0: {said}\n"
    tournament = folder / "t.yaml"
    tournament.write_text(
        yaml.safe_dump({"tournament": "t", "players": [{"name": "bot", **player}, HOUSE], "results": "out",
                        "rules": {"preset": "standard", "layout": "2x2", "holes": 1}, "deal_sets": 1}),
        encoding="utf-8",
    )
    done = CliRunner().invoke(app, ["check-config", str(tournament)])
    assert done.exit_code == 2 and done.stderr == f"golfref: error: sandbox: player bot: {said}\n"
    done = CliRunner().invoke(app, ["tournament", str(tournament), "--quiet"])
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"golfref: error: sandbox: player bot: {said}"
    assert not (folder / "out").exists()  # no store, no match
    done = CliRunner().invoke(app, ["tournament", str(tournament), "--quiet", "--no-sandbox", "-j", "1"])
    assert done.exit_code == 0, done.stderr  # the fix the line offers


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


def test_a_players_sandbox_paths_are_read_from_the_configs_folder_and_checked(shared: Path) -> None:
    (shared / "venv").mkdir()
    (shared / "x.sh").write_text("", encoding="utf-8")  # a missing script would be a problem of its own
    players = (
        "players:\n  - {name: a, command: [sh, x.sh], sandbox: {paths: [venv, ../" + shared.name + "/venv]}}\n"
        "  - {name: b, builtin: greedy}\n"
    )
    (first,) = [p for p in parse_config(players, base_dir=shared).players if p.command is not None]
    assert first.sandbox_paths == (str(shared / "venv"), str(shared / "venv"))
    assert "sandbox_paths" not in first.to_json() and "sandbox" not in first.to_json()  # the log's sandbox record says
    bad = (
        "players:\n  - {name: a, command: [sh, x.sh], sandbox: {paths: [nowhere]}}\n"
        "  - {name: b, builtin: greedy, sandbox: {paths: [venv]}}\n"
        "  - {name: c, command: [sh, x.sh], sandbox: {path: [venv]}}\n"
    )
    with pytest.raises(ConfigError) as caught:
        parse_config(bad, source="m.yaml", base_dir=shared)
    assert list(caught.value.errors) == [
        f"m.yaml:2: players[0].sandbox.paths[0]: no such file or folder: {shared / 'nowhere'}",
        "m.yaml:3: players[1].sandbox: applies only to a player with a command",
        "m.yaml:4: players[2].sandbox.path: unknown key 'path'; did you mean 'paths'?",
    ]


def test_a_players_sandbox_paths_are_no_part_of_what_a_resumed_tournament_keeps(shared: Path) -> None:
    """Like the sandbox section: adding the folder a refusal asked for must not make the tournament another."""
    (shared / "venv").mkdir()
    (shared / "x.sh").write_text("", encoding="utf-8")
    text = "tournament: t\nplayers:\n  - {{name: a, command: [sh, x.sh]{extra}}}\n  - {{name: b, builtin: greedy}}\n"
    plain = parse_tournament(text.format(extra=""), base_dir=shared)
    shown = parse_tournament(text.format(extra=", sandbox: {paths: [venv]}"), base_dir=shared)
    assert shown.players[0].sandbox_paths == (str(shared / "venv"),)
    assert plain.digest() == shown.digest()


def test_the_sandbox_is_off_for_a_match_and_on_for_a_tournament_unless_told(shared: Path) -> None:
    players = "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: greedy}\n"
    assert parse_config(players, base_dir=shared).sandbox.enabled is False
    tournament = parse_tournament("tournament: t\n" + players, base_dir=shared)
    assert tournament.sandbox.enabled is True
    off = parse_tournament("tournament: t\n" + players + "sandbox: {enabled: false}\n", base_dir=shared)
    assert off.sandbox.enabled is False
    assert off.sandbox.switched(True).enabled is True and off.sandbox.switched(None).enabled is False


@pytest.mark.process
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

    from golfref.cli.app import app

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


@pytest.mark.process
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


@pytest.mark.process
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
    assert section["limits"] == sandbox_spec.Limits().to_json()
    defaults = sandbox_spec.SandboxSpec(enabled=True)
    assert sandbox_spec.sandbox_spec(section, ROOT, enabled_by_default=False) == defaults
    (record,) = [b for b in re.findall(r"```json\n(.*?)```", text, flags=re.S) if '"enabled": true' in b]
    assert set(json.loads(record)) == set(sandbox.OFF.to_json())


@pytest.mark.process
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


@pytest.mark.process
@needs_bubblewrap
@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None or not _system_python_matches(),
    reason="needs root, setpriv and a system python3 of this version (to run the referee as another user)",
)
def test_a_referee_that_is_not_root_still_sandboxes_and_says_what_it_could_not_apply(shared: Path) -> None:
    """Run as nobody, the bot keeps the referee's user (in a user namespace of its own): no process limit."""
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    private = private_to_root(ROOT / "golfref" / "__init__.py", Path(yaml.__file__), BOTS / "peek_bot.py")
    if private is not None:
        pytest.skip(private)
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
        "memory_mb for the bot as a whole (per process only): the referee is not root",
    ]
    # Its own PID namespace: process 1 is its own bubblewrap, whose environment it may read
    # (the machine's init is root's, which nobody could not read).
    assert re.search(r"^peek /proc/1/environ: \d+ bytes$", entry["stderr"], flags=re.M)


@pytest.mark.process
@needs_bubblewrap
def test_check_config_reports_what_would_stop_a_sandboxed_bot_and_writes_nothing(shared: Path) -> None:
    runner = _program(shared / "tools" / "runner", f'#!/bin/sh\nexec {SYSTEM_PYTHON} "$@"\n')
    hidden = {"name": "venv", "command": [str(runner), str(BOTS / "echo_bot.py")]}
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
        f"  - {{name: venv, command: [{json.dumps(str(runner))}, {json.dumps(str(BOTS / 'echo_bot.py'))}]}}\n"
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


@pytest.mark.process
@needs_bubblewrap
def test_the_bubblewrap_trial_leaves_no_child_behind() -> None:
    """bubblewrap's PID-namespace init can outlive the trial's bwrap and come to a referee, a child
    subreaper, as a zombie nobody reaps (it failed later tests' checks for leftovers)."""
    from golfref.bots import lifetime

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

    lifetime.become_subreaper()  # as a referee is once its first bot started
    before = children()
    for _ in range(3):
        assert sandbox.bubblewrap_problem.__wrapped__() is None  # the trial itself, not its cached verdict
    assert children() <= before


CLOSER = """\
import os, sys, time
sys.stdin.readline()  # the hello
os.close(1)
time.sleep(120)  # alive, but it will never answer
"""


@pytest.mark.process
@pytest.mark.parametrize("boxed", [pytest.param(True, marks=needs_bubblewrap), False], ids=["on", "off"])
def test_a_bot_that_closes_its_stdout_exits_at_once_with_the_sandbox_on_and_off(shared: Path, boxed: bool) -> None:
    """Issue 21, item 8b: bubblewrap's own processes held a copy of the bot's stdout, so a bot that
    closed it waited out the start limit (a `timeout`) instead of the `exited` fault it gets without."""
    (shared / "closer.py").write_text(CLOSER, encoding="utf-8")
    python = SYSTEM_PYTHON if boxed else sys.executable
    player = {"name": "closer", "command": [python, str(shared / "closer.py")]}
    result, _ = _play(shared, _config(shared, [player, HOUSE], {"enabled": boxed}))
    (fault,) = result.faults
    assert fault.kind is FaultKind.EXITED, fault
    assert fault.message == "the bot closed its stdout but is still running before its ready"


@pytest.mark.parametrize(
    ("said", "limit"),
    [
        ("MemoryError", "memory_mb"),  # Python
        ("terminate called after throwing an instance of 'std::bad_alloc'", "memory_mb"),  # C++
        ("java.lang.OutOfMemoryError: Java heap space", "memory_mb"),
        ("fatal error: failed to reserve page summary memory", "memory_mb"),  # Go, at start under RLIMIT_AS
        ("OSError: [Errno 28] No space left on device", "tmp_mb"),
        ("OSError: [Errno 24] Too many open files", "open_files"),
    ],
)
def test_a_runtimes_words_at_a_limit_name_it(said: str, limit: str) -> None:
    from golfref.bots.sandbox import _STDERR_LIMITS

    assert [name for name, pattern in _STDERR_LIMITS if pattern.search(said.lower())][:1] == [limit]
