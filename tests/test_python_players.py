"""Python players (docs/PYTHON_API.md): policies seated in the referee's process through the launcher door, in a
child process (`process: true`), beside command bots; their faults, their log entry, and the tools that read it."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from golfref import api
from golfref.cli.app import app
from golfref.config.match import ConfigError, parse_config
from golfref.record.faults import FaultKind, SeatStatus
from golfref.record.log import SCHEMA_VERSION, compute_digest
from golfref.record.validate import Status, validate
from golfref.tools.rerun import RerunError, load_script

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
POLICIES = BOTS / "py_policies.py"


@pytest.fixture(autouse=True)
def _fresh_module() -> Iterator[None]:
    """Each test imports py_policies afresh (a class's instance count starts at 0)."""
    sys.modules.pop("py_policies", None)
    yield
    sys.modules.pop("py_policies", None)


def config_text(*players: str, holes: int = 2, extra: str = "") -> str:
    seats = "".join(f"  - {p}\n" for p in players)
    return f"match: py\nrules: {{preset: standard, holes: {holes}}}\nplayers:\n{seats}{extra}"


def play(
    tmp_path: Path, *players: str, seed: int = 5, holes: int = 2, extra: str = "", transcript: bool = False
) -> api.MatchOutcome:
    log = json.dumps(str(tmp_path / "{match_id}.json"))
    logged = f"log: {{path: {log}, transcript: {str(transcript).lower()}}}\n"
    text = config_text(*players, holes=holes, extra=logged + extra)
    return api.run(parse_config(text, "py.yaml", base_dir=BOTS), seed=seed)


def test_a_policy_plays_a_whole_match_and_the_log_records_its_kind(tmp_path: Path) -> None:
    outcome = play(tmp_path, "{name: mine, python: 'py_policies:Lowest'}", "{name: greedy, builtin: greedy}")
    assert outcome.faults == () and set(outcome.statuses) == {SeatStatus.OK}
    doc = json.loads(outcome.log_path.read_text(encoding="utf-8"))
    assert doc["schema_version"] == SCHEMA_VERSION == 3
    entry = doc["players"][0]
    assert entry["python"] == "py_policies:Lowest" and "command" not in entry and "builtin" not in entry
    assert entry["cwd"] == str(BOTS)
    assert entry["fingerprint"] == {"file": str(POLICIES), "sha256": hashlib.sha256(POLICIES.read_bytes()).hexdigest()}
    assert entry["reported_name"] == "lowest" and entry["sandbox"]["enabled"] is False and entry["stderr"] == ""
    assert validate(doc).status is Status.VALID
    player = outcome.log.players[0]
    assert player.python == "py_policies:Lowest" and player.is_bot and player.object is None
    bot_steps = [s for h in outcome.log.holes for s in h.steps if getattr(s, "seat", None) == 0]
    assert bot_steps and all(s.by.value == "bot" and s.request is not None for s in bot_steps)


def test_a_class_is_instantiated_once_per_match(tmp_path: Path) -> None:
    players = ("{name: mine, python: 'py_policies:Lowest'}", "{name: greedy, builtin: greedy}")
    play(tmp_path, *players)
    play(tmp_path, *players)
    assert sys.modules["py_policies"].Lowest.made == 1 + 2  # the module's INSTANCE, then one per match


def test_a_policy_that_raises_crashes_its_bot_with_its_traceback_as_stderr(tmp_path: Path) -> None:
    outcome = play(tmp_path, "{name: bad, python: 'py_policies:raises'}", "{name: greedy, builtin: greedy}")
    (fault,) = outcome.faults
    assert fault.kind is FaultKind.EXITED and fault.seat == 0
    assert fault.message == f"the bot exited (code 1) before its answer to request {fault.request}"
    assert outcome.statuses[0] is SeatStatus.DISQUALIFIED
    stderr = outcome.log.players[0].stderr
    assert stderr is not None and stderr.startswith("Traceback (most recent call last):")
    assert "RuntimeError: a policy that fails on purpose" in stderr and "policy_seat.py" not in stderr
    later = [s for h in outcome.log.holes for s in h.steps if getattr(s, "seat", None) == 0][-1]
    assert later.by.value == "fallback"


def test_an_answer_not_in_legal_is_an_illegal_action(tmp_path: Path) -> None:
    outcome = play(tmp_path, "{name: bad, python: 'py_policies:illegal'}", "{name: greedy, builtin: greedy}")
    assert [f.kind for f in outcome.faults] == [FaultKind.ILLEGAL_ACTION] * 3
    assert outcome.faults[0].message.startswith("'jump' is not a legal choice")
    assert outcome.statuses[0] is SeatStatus.DISQUALIFIED


def test_what_a_policy_prints_is_its_bots_output(tmp_path: Path) -> None:
    outcome = play(tmp_path, "{name: talk, python: 'py_policies:chatty'}", "{name: greedy, builtin: greedy}")
    assert outcome.faults[0].kind is FaultKind.NOT_JSON and outcome.faults[0].line == "thinking about draw"
    assert "to stderr" in (outcome.log.players[0].stderr or "")


def test_a_policy_over_its_limit_gets_the_timeout_after_the_fact(tmp_path: Path) -> None:
    outcome = play(
        tmp_path, "{name: slow, python: 'py_policies:slow'}", "{name: greedy, builtin: greedy}",
        holes=1, extra="time: {move_ms: 1, grace_ms: 0}\n",
    )  # fmt: skip
    assert [f.kind for f in outcome.faults] == [FaultKind.TIMEOUT] * 3
    assert outcome.faults[0].message == f"no answer to request {outcome.faults[0].request} within the time limit"
    steps = [s for h in outcome.log.holes for s in h.steps if getattr(s, "seat", None) == 0]
    assert steps[0].by.value == "fallback" and steps[0].ms is not None and steps[0].ms >= 10


def test_bad_references_are_one_line_errors_naming_the_key() -> None:
    cases = {
        "py_nothing_here:X": "py.yaml:4: players[0].python: 'py_nothing_here:X': cannot import module "
        "'py_nothing_here': ModuleNotFoundError: No module named 'py_nothing_here'",
        "py_policies:missing": "py.yaml:4: players[0].python: 'py_policies:missing': module 'py_policies' "
        "has no 'missing'",
        "py_policies:NOT_A_POLICY": "py.yaml:4: players[0].python: py_policies:NOT_A_POLICY: an instance of "
        "builtins.int has no choose(view, legal) method and is not a function",
        "not a reference": "py.yaml:4: players[0].python: 'not a reference' is not a reference of the form "
        "module:object (such as mypolicy:Greedy)",
    }
    for ref, message in cases.items():
        with pytest.raises(ConfigError) as e:
            parse_config(config_text(f"{{name: p, python: {ref!r}}}", "{name: g, builtin: greedy}"), "py.yaml",
                         base_dir=BOTS)  # fmt: skip
        assert str(e.value) == message


def test_the_schema_takes_exactly_one_kind_and_process_only_for_python() -> None:
    both = "{name: p, python: 'py_policies:first', builtin: greedy}"
    with pytest.raises(ConfigError, match=r"players\[0\]: a player needs exactly one of command"):
        parse_config(config_text(both, "{name: g, builtin: greedy}"), "py.yaml", base_dir=BOTS)
    with pytest.raises(ConfigError, match=r"players\[0\]\.process: applies only to a player with a command"):
        parse_config(config_text("{name: g, builtin: greedy, process: true}", "{name: h, builtin: greedy}"), "py.yaml")
    with pytest.raises(ConfigError, match=r"players\[0\]\.env: applies only to a bot process"):
        parse_config(config_text("{name: p, python: 'py_policies:first', env: {A: 1}}", "{name: g, builtin: greedy}"),
                     "py.yaml", base_dir=BOTS)  # fmt: skip
    sys.modules.pop("py_policies", None)
    boxed = parse_config(config_text("{name: p, python: 'py_policies:first', process: true}",
                                     "{name: g, builtin: greedy}"), "py.yaml", base_dir=BOTS)  # fmt: skip
    assert boxed.players[0].command == (sys.executable, "-m", "golfref.kit.run", "py_policies:first")
    assert "py_policies" not in sys.modules  # a child-process policy is not imported by the referee


def test_a_version_1_log_still_validates_and_a_python_entry_must_be_one_kind(tmp_path: Path) -> None:
    doc = json.loads((ROOT / "tests" / "logs" / "standard_2p.json").read_text(encoding="utf-8"))
    doc["schema_version"] = 1
    doc["signature"] = None
    doc["digest"] = compute_digest(doc)
    assert validate(doc).status is Status.VALID
    outcome = play(tmp_path, "{name: mine, python: 'py_policies:first'}", "{name: greedy, builtin: greedy}")
    doc = json.loads(outcome.log_path.read_text(encoding="utf-8"))
    doc["players"][0]["builtin"] = "greedy"
    doc["digest"] = compute_digest(doc)
    report = validate(doc)
    assert report.status is Status.INVALID and "players[0]" in report.message


def test_an_object_given_from_python_is_recorded_by_what_imports_it_again(tmp_path: Path) -> None:
    class Here:
        def choose(self, view: Any, legal: list[str]) -> str:
            return legal[0]

    sys.path.insert(0, str(BOTS))
    try:
        import py_policies
    finally:
        sys.path.remove(str(BOTS))
    config = api.match_config(
        {"here": Here(), "function": py_policies.first, "instance": py_policies.INSTANCE, "g": {"builtin": "greedy"}},
        rules={"holes": 1}, log=str(tmp_path / "{match_id}.json"),
    )  # fmt: skip
    outcome = api.run(config, seed=2)
    here, function, instance, _ = outcome.log.players
    what = f"an instance of {__name__}.{Here.__qualname__}"
    assert (here.python, here.object, here.fingerprint) == ("<object>", what, None)
    assert (function.python, function.cwd) == ("py_policies:first", str(BOTS))
    assert instance.python == "py_policies:INSTANCE" and instance.fingerprint is not None
    with pytest.raises(RerunError, match=r"seat 0 \(here\) was a Python object given directly .* cannot be re-run"):
        load_script(str(outcome.log_path), 0)
    rerun = load_script(str(outcome.log_path), 1).command
    assert rerun == (sys.executable, "-m", "golfref.kit.run", "py_policies:first")


def test_api_errors_name_the_player() -> None:
    with pytest.raises(ConfigError, match=r"^<python>: player 'x': an instance of builtins.int has no choose"):
        api.match_config({"x": 1, "g": {"builtin": "greedy"}})
    with pytest.raises(ConfigError, match=r"^<python>: players\[1\] \(g\)\.builtin: 'best' is not one of"):
        api.match_config({"x": api.PlayerSpec("x", builtin="random"), "g": {"builtin": "best"}})
    with pytest.raises(ConfigError, match=r"players: 3 given, but the config has 2 seats"):
        api.run(api.match_config({"a": {"builtin": "greedy"}, "b": {"builtin": "greedy"}}),
                players=[{"name": n, "builtin": "greedy"} for n in "abc"])  # fmt: skip


def _comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """A log without what differs between two runs of one match: ids, times, digests, paths, decision times."""
    for key in ("match_id", "started_at", "finished_at", "digest", "signature"):
        doc.pop(key)
    for hole in doc["holes"]:
        for step in hole["steps"]:
            if "ms" in step:
                step["ms"] = None
    for fault in doc["faults"]:
        fault["at_ms"] = 0
    return doc


def test_golfref_run_and_api_run_write_the_same_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "match.yaml").write_text(
        config_text(f"{{name: mine, python: 'py_policies:Lowest', cwd: {json.dumps(str(BOTS))}}}",
                    "{name: bad, python: 'py_policies:illegal', cwd: " + json.dumps(str(BOTS)) + "}",
                    "{name: greedy, builtin: greedy}", extra="log: {path: 'logs/{match_id}.json'}\n"),
        encoding="utf-8",
    )  # fmt: skip
    result = CliRunner().invoke(app, ["run", "match.yaml", "--seed", "9", "--quiet", "--json"])
    assert result.exit_code == 1, result.output  # the illegal seat was disqualified
    cli_log = Path(json.loads(result.stdout)["log"])
    sys.modules.pop("py_policies", None)
    outcome = api.run("match.yaml", seed=9)
    assert outcome.log_path != cli_log
    assert _comparable(json.loads(cli_log.read_text())) == _comparable(json.loads(outcome.log_path.read_text()))


@pytest.mark.process
def test_mixed_with_a_command_bot_and_the_same_moves_in_a_child_process(tmp_path: Path) -> None:
    bot = f"{{name: echo, command: [{json.dumps(sys.executable)}, echo_bot.py]}}"
    generous = "time: {startup_ms: 30000, move_ms: 30000}\n"
    inside = play(tmp_path / "in", "{name: mine, python: 'py_policies:Lowest'}", bot, extra=generous)
    child = play(tmp_path / "out", "{name: mine, python: 'py_policies:Lowest', process: true}", bot, extra=generous)
    assert inside.faults == child.faults == ()
    assert inside.log.players[1].command is not None and child.log.players[0].command is not None

    def moves(outcome: api.MatchOutcome) -> list[tuple[int, str, str]]:
        return [(s.seat, s.action, s.by.value) for h in outcome.log.holes for s in h.steps if hasattr(s, "by")]

    assert moves(inside) == moves(child) and inside.totals == child.totals
    assert child.log.players[0].reported_name == inside.log.players[0].reported_name == "lowest"


@pytest.mark.process
def test_replay_bot_reruns_a_python_seat_and_audit_reads_its_transcript(tmp_path: Path) -> None:
    outcome = play(tmp_path, "{name: mine, python: 'py_policies:Lowest'}", "{name: bad, python: 'py_policies:raises'}",
                   transcript=True)  # fmt: skip
    runner = CliRunner()
    for seat in (0, 1):
        result = runner.invoke(app, ["replay-bot", str(outcome.log_path), "--seat", str(seat)])
        assert result.exit_code == 0, result.output
        assert "every answer matches the log" in result.stdout
    shown = runner.invoke(app, ["replay", str(outcome.log_path), "--summary"])
    assert shown.exit_code == 0 and "python py_policies:Lowest" in shown.stdout
    audited = runner.invoke(app, ["audit", str(outcome.log_path), "--json"])
    assert audited.exit_code == 0, audited.output


@pytest.mark.process
def test_check_bot_checks_a_python_player_as_its_bot_program(tmp_path: Path) -> None:
    (tmp_path / "match.yaml").write_text(
        config_text(f"{{name: mine, python: 'py_policies:Lowest', cwd: {json.dumps(str(BOTS))}}}",
                    "{name: greedy, builtin: greedy}", holes=1),
        encoding="utf-8",
    )  # fmt: skip
    result = CliRunner().invoke(app, ["check-bot", str(tmp_path / "match.yaml"), "--player", "mine"])
    assert result.exit_code == 0, result.output
    assert re.search(r"^\d+ checks: \d+ passed, 0 failed$", result.stdout, flags=re.M), result.stdout


def test_golfref_run_warns_that_the_sandbox_leaves_in_process_policies_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    mine = f"{{name: mine, python: 'py_policies:first', cwd: {json.dumps(str(BOTS))}}}"
    players = (mine, "{name: g, builtin: greedy}")
    (tmp_path / "match.yaml").write_text(config_text(*players, holes=1), encoding="utf-8")
    warning = "golfref: warning: sandbox: mine run in golfref's own process, where no sandbox applies"
    for flag, warned in (("--sandbox", True), ("--no-sandbox", False)):
        result = CliRunner().invoke(app, ["run", "match.yaml", "--seed", "1", "--quiet", flag])
        assert result.exit_code == 0, result.output
        assert (warning in result.stderr) is warned, result.stderr


@pytest.mark.process
def test_the_kits_runner_refuses_a_bad_reference_in_one_line() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "golfref.kit.run", "py_policies:NOT_A_POLICY"], cwd=BOTS, input="",
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "golfref.kit.run: py_policies:NOT_A_POLICY: an instance of builtins.int has no choose(view, legal) method "
        "and is not a function\n"
    )


def test_check_config_names_a_python_seat_by_its_reference(tmp_path: Path) -> None:
    config = tmp_path / "m.yaml"
    (tmp_path / "first_policy.py").write_text("def first(view, legal):\n    return legal[0]\n", encoding="utf-8")
    config.write_text(
        "match: m\nplayers:\n  - {name: p, python: 'first_policy:first'}\n  - {name: g, builtin: greedy}\n",
        encoding="utf-8",
    )
    done = CliRunner().invoke(app, ["check-config", str(config)])
    assert done.exit_code == 0, done.output
    assert "players: p (python first_policy:first), g (builtin greedy)" in done.output
