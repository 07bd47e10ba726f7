"""`golfref check-bot`: every sample bot passes; each broken bot fails exactly the checks of what it cannot do.

The broken bots (tests/bots/broken/) each miss one capability; a run restricted to the
presets and layouts that matter keeps each short. A bot that is never heard, or never
answers its first request, fails one check with the hint and stops the run (counted in
checks and starts, never timed); debug lines on stdout are one failure. A config's rules
and `--set` decide the rule sets checked. Bad command lines get one `golfref: error:` line
and exit 2.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
import yaml
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.cli.exits import EXIT_FAULTED, EXIT_OK, EXIT_USAGE
from golfref.config.match import TimeControl
from golfref.game.cards import Rank
from golfref.game.policies import POLICIES
from golfref.game.rules import HOUSE_OPTIONS, PRESETS
from golfref.record.faults import silence_hint
from golfref.tools.botcheck import (
    ALL_LAYOUTS,
    HOUSE_CHECKED,
    SCORING_HOUSE_OPTIONS,
    STDOUT_CHECK,
    BotCommand,
    BotWontStart,
    CheckRun,
    Outcome,
    build_groups,
    check_bot,
)

from .conftest import BOTS, ROOT, TESTS

pytestmark = [pytest.mark.process]

BROKEN = BOTS / "broken"
SAMPLES = ROOT / "sample_matches" / "bots"
GENEROUS = TimeControl(startup_ms=20_000, move_ms=10_000)
runner = CliRunner()


def run(bot: Path, presets: tuple[str, ...], layouts: tuple[str, ...], *args: str) -> CheckRun:
    return check_bot(BotCommand((sys.executable, str(bot), *args)), presets, layouts, time_control=GENEROUS)


def failed(report: CheckRun) -> dict[str, str]:
    return {r.name: r.message for r in report.results if r.outcome is Outcome.FAIL}


def sample_commands() -> list[tuple[str, ...]]:
    commands: list[tuple[str, ...]] = [
        (sys.executable, str(SAMPLES / "greedy_bot.py")),
        (sys.executable, str(SAMPLES / "random_bot.py")),
    ]
    node = shutil.which("node")
    if node is not None:
        commands.append((node, str(SAMPLES / "random_bot.js")))
    return commands


@pytest.mark.parametrize("argv", sample_commands(), ids=lambda a: Path(a[-1]).name)
def test_every_sample_bot_passes_every_check(argv: tuple[str, ...]) -> None:
    report = check_bot(BotCommand(argv), time_control=GENEROUS, house=True)  # the house options too
    assert report.passed, failed(report)
    assert not [r.name for r in report.results if r.outcome is Outcome.SKIP]
    names = " ".join(r.name for r in report.results)
    situations = (
        "target: a king's second card", "after a reshuffle", "8 players", "layout 1x1", "layout 4x4", "reveal",
        "the turn owed after a knock", "the turn owed after a close", "a joker", "match end", "flip",
        "after a face-down swap", "a card of the third deck", "flip_out offered", "the scoring house options",
    )  # fmt: skip
    for situation in situations:
        assert situation in names
    assert report.times_ms and "median" in report.times_line()


def test_node_is_there_or_the_skip_says_why() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: sample_matches/bots/random_bot.js is not checked")


def test_a_bot_that_cannot_handle_a_card_power_fails_each_target_check() -> None:
    report = run(BROKEN / "no_target_bot.py", ("standard",), ("2x3",))
    assert sorted(failed(report)) == sorted(
        f"standard with card powers: target: {what}"
        for what in ("a jack's peek", "a queen's peek", "a king's first card", "a king's second card")
    )
    for name, message in failed(report).items():
        assert "exited" in message and "[decision target]" in message, name
    result = next(r for r in report.results if r.outcome is Outcome.FAIL)
    assert result.request is not None and '"decision":"target"' in result.request
    assert result.stderr is not None and "NotImplementedError" in result.stderr


def test_a_bot_of_protocol_2_passes_its_preset_and_with_house_names_the_house_option_it_lacks() -> None:
    # Written for the plain rules: a run without --house checks the preset's rules alone, and it passes.
    bot = (sys.executable, str(BROKEN / "protocol2_bot.py"))
    plain = run(BROKEN / "protocol2_bot.py", ("classic",), ("2x3",))
    assert plain.passed, failed(plain)
    assert plain.house_summary() is None and all(r.house is None for r in plain.results)
    result = runner.invoke(app, ["check-bot", "--preset", "classic", "--layout", "2x3", "--house", "--", *bot])
    assert result.exit_code == EXIT_FAULTED, result.output  # asked for, the house options count
    lines = result.stdout.splitlines()
    fails = [line for line in lines if line.startswith("FAIL")]
    assert fails == [
        "FAIL  classic with flip_out: draw: flip_out offered: house option flip_out not supported: exited: "
        "the bot exited (code 1) before its answer to request 1 [decision draw]"
    ]
    assert "      stderr: protocol2_bot: unknown action 'flip_out'" in lines
    presets_line = re.fullmatch(r"(\d+) checks: (\d+) passed, 0 failed", lines[-2])
    assert presets_line is not None and presets_line[1] == presets_line[2], lines[-2]
    assert int(presets_line[1]) == len(plain.results)  # the preset's checks, as without --house
    assert lines[-1] == "house options: 5 checks: 4 passed, 1 failed; not supported: flip_out"
    for name in (
        "classic with flip_instead_of_draw: draw: a flip offered instead of drawing",
        "classic with flip_after_throw=endgame: flip: pass offered",
        "classic with the scoring house options: a hole",
        "classic with the scoring house options: hole end",
    ):
        assert any(line.startswith(f"pass  {name}") for line in lines), name


def test_house_options_are_checked_with_house_only_each_on_its_own() -> None:
    assert set(HOUSE_OPTIONS) <= set(HOUSE_CHECKED), set(HOUSE_OPTIONS) - set(HOUSE_CHECKED)
    assert HOUSE_CHECKED["flip_after_throw"] == "endgame"
    for preset in PRESETS:
        plain = build_groups((preset,), ("2x3",), 0, 0)
        assert all(not g.rules.house_dict() and g.rules.flip_after_throw.value != "endgame" for g in plain), preset
        assert all(c.house is None for g in plain for c in g.checks)
        house = build_groups((preset,), ("2x3",), 0, 0, house=True)[len(plain) :]
        assert [[c.name for c in g.checks] for g in house] == [
            [f"{preset} with flip_instead_of_draw: draw: a flip offered instead of drawing"],
            [f"{preset} with flip_out: draw: flip_out offered"],
            [f"{preset} with flip_after_throw=endgame: flip: pass offered"],
            [f"{preset} with the scoring house options: a hole", f"{preset} with the scoring house options: hole end"],
        ]
        # Each decision's group sets its one house option; the scoring group sets every other one.
        assert [set(g.rules.house_dict()) for g in house[:2]] == [{"flip_instead_of_draw"}, {"flip_out"}]
        assert not house[2].rules.house_dict() and house[2].rules.flip_after_throw.value == "endgame"
        assert set(house[3].rules.house_dict()) == set(HOUSE_OPTIONS) - {"flip_instead_of_draw", "flip_out"}
        assert [c.house for g in house for c in g.checks] == [
            "flip_instead_of_draw", "flip_out", "flip_after_throw=endgame", SCORING_HOUSE_OPTIONS,
            SCORING_HOUSE_OPTIONS,
        ]  # fmt: skip


def test_a_house_option_given_is_the_rules_asked_for_not_a_house_check() -> None:
    given = {"flip_out": 2, "card_values": {"K": -2}}
    groups = build_groups(("standard",), ("2x3",), 0, 0, given, house=True)
    house = [c.name for g in groups for c in g.checks if c.house is not None]
    assert "standard with flip_out: draw: flip_out offered" not in house  # the preset's own checks have it
    assert "standard 2x3: draw: flip_out offered" in [c.name for g in groups for c in g.checks]
    scoring = next(g for g in groups if g.checks[0].name.startswith("standard with the scoring"))
    assert dict(scoring.rules.card_values)[Rank.KING] == -2  # the value given, not HOUSE_CHECKED's


def test_the_fuzz_draws_house_options_only_with_house() -> None:
    def fuzz(house: bool) -> list:  # type: ignore[type-arg]
        groups = build_groups(("knock", "arena"), ("2x2", "3x3"), 30, 5, house=house)
        return [g for g in groups if g.checks[0].name.startswith("fuzz")]

    plain = fuzz(False)
    assert all(not g.rules.house_dict() and g.rules.flip_after_throw.value != "endgame" for g in plain)
    assert all(g.checks[0].house is None for g in plain)
    housed = [g for g in fuzz(True) if g.checks[0].house is not None]
    assert housed, "30 draws and no house option"
    for group in housed:
        check = group.checks[0]
        assert re.fullmatch(r"one of [a-z_=, ]+ \(fuzz \d+\)", check.house), check.house
        assert check.unsupported == f"house options not supported ({check.house})"


def test_a_bot_that_knocks_wrongly_fails_the_turns_owed() -> None:
    report = run(BROKEN / "bad_knock_bot.py", ("knock",), ("2x3",))
    assert set(failed(report)) == {
        "knock 2x3: draw: the turn owed after a knock",
        "knock 2x3: draw: the turn owed after a close",
    }
    for message in failed(report).values():
        assert "illegal_action: 'knock' is not a legal choice" in message and "[decision draw]" in message
    passed = {r.name for r in report.results if r.outcome is Outcome.PASS}
    assert "knock 2x3: draw: knock offered" in passed


def test_a_bot_that_crashes_at_8_players_fails_the_8_player_checks_only() -> None:
    report = run(BROKEN / "eight_bot.py", ("classic",), ("2x3",))
    assert set(failed(report)) == {
        "8 players (classic 2x3): a hole",
        "classic 8 players, 1 deck: draw: after a reshuffle",
    }
    assert all("exited" in m for m in failed(report).values())
    assert any(r.name.startswith("7 players") and r.outcome is Outcome.PASS for r in report.results)


def test_a_bot_that_misreads_1x1_fails_the_1x1_layout_only() -> None:
    report = run(BROKEN / "one_by_one_bot.py", ("standard",), ("1x1", "2x1"))
    assert list(failed(report)) == ["layout 1x1 (standard): a hole"]
    message = failed(report)["layout 1x1 (standard): a hole"]
    assert "'swap:1' is not a legal choice (legal: swap:0" in message and "[decision place]" in message


def test_fuzz_positions_are_seeded() -> None:
    def names(seed: int) -> list[str]:
        return [c.name for g in build_groups(("knock", "arena"), ("2x2", "3x3"), 6, seed) for c in g.checks]

    assert names(5) == names(5)
    assert names(5) != names(6)
    report = check_bot(BotCommand((sys.executable, str(BOTS / "echo_bot.py"))), ("knock",), ("2x2",), 3, 5, GENEROUS)
    fuzz = [r for r in report.results if r.name.startswith("fuzz")]
    assert len(fuzz) == 3 and all(r.outcome is Outcome.PASS for r in fuzz), fuzz


def test_a_bot_that_never_flushes_fails_one_check_with_the_flush_hint_and_stops(tmp_path: Path) -> None:
    # The start limit comes from the config: the one wait is short, and the test counts, never times.
    config = tmp_path / "m.yaml"
    data = {
        "match": "m",
        "rules": {"preset": "standard"},
        "players": [
            {"name": "quiet", "command": [sys.executable, str(BOTS / "stdout_bot.py"), "no-flush"]},
            {"name": "g", "builtin": "greedy"},
        ],
        "time": {"startup_ms": 500, "grace_ms": 100},
    }
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = tmp_path / "checks.xml"
    result = runner.invoke(app, ["check-bot", str(config), "--player", "quiet", "--junit", str(out)])
    assert result.exit_code == EXIT_FAULTED, result.output
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith(("FAIL", "pass", "skip"))] == [
        "FAIL  standard 2x3: handshake: timeout: no ready within the time limit"
    ]
    hint = next(line for line in lines if line.startswith("      hint: "))
    assert hint == f"      hint: {silence_hint('ready')}"
    for fix in ("print(..., flush=True)", "fflush(stdout)", "setvbuf(stdout, NULL, _IOLBF, 0)", "System.out"):
        assert fix in hint
    stopped = next(line for line in lines if line.startswith("stopped: "))
    assert "not run: the bot sent no ready within startup_ms + grace_ms (600 ms)" in stopped
    assert lines[-1].startswith("1 check: 0 passed, 1 failed; ") and lines[-1].endswith(" not run")
    (case,) = ET.parse(out).getroot().iter("testcase")
    assert "hint: no ready arrived: is each line the bot prints flushed?" in (case.findtext("failure") or "")
    # The library's view of the same run: one start, one failure, the rest unplayed.
    tc = TimeControl(startup_ms=500)
    report = check_bot(BotCommand((sys.executable, str(BOTS / "stdout_bot.py"), "no-flush")), time_control=tc)
    assert report.starts == 1 and [r.outcome for r in report.results] == [Outcome.FAIL]
    assert report.not_run == sum(len(g.checks) for g in build_groups(tuple(PRESETS), ALL_LAYOUTS, 0, 0)) + 1


def test_a_bot_that_never_answers_its_first_request_fails_one_check_and_stops() -> None:
    # Ready, then silence: the same likely cause (an answer never flushed). The limit is what is tested.
    tc = TimeControl(startup_ms=20_000, move_ms=200, grace_ms=100)
    report = check_bot(BotCommand((sys.executable, str(BOTS / "bad_bot.py"), "sleep-forever")), time_control=tc)
    assert report.starts == 1
    assert [(r.name, r.outcome) for r in report.results] == [
        ("standard 2x3: handshake", Outcome.PASS), ("standard 2x3: draw", Outcome.FAIL)
    ]  # fmt: skip
    failure = report.results[1]
    assert failure.message.startswith("timeout: no answer to request 1 within the time limit [decision draw]")
    assert failure.hint == silence_hint("answer")
    assert (failure.hole, failure.step, failure.request_id) == (0, 0, 1)
    assert report.stopped is not None and "never answered its first request (timeout)" in report.stopped
    assert report.not_run > 100 and report.summary().endswith(f"; {report.not_run} not run")


def test_a_bot_that_crashes_at_startup_fails_one_check_with_its_traceback_and_stops() -> None:
    bot = BotCommand((sys.executable, str(BOTS / "bad_bot.py"), "crash-at-startup"))
    report = check_bot(bot, time_control=GENEROUS)
    assert report.starts == 1
    (failure,) = report.results
    assert failure.name == "standard 2x3: handshake" and failure.message.startswith("exited: the bot exited (code 1)")
    assert "RuntimeError: bad_bot: crashing at startup on purpose" in (failure.stderr or "")
    assert failure.stderr is not None and failure.stderr.startswith("Traceback (most recent call last):")
    assert report.stopped == "the bot never got through a handshake; every check starts with one"


def test_debug_lines_on_stdout_are_one_failure_with_the_stderr_hint() -> None:
    # A debug line before ready, one before each answer and one after it: the stdout check
    # fails once, counting them all; every other check judges the bot's answers and passes.
    report = run(BOTS / "stdout_bot.py", ("knock",), ("2x2",), "debug")
    assert list(failed(report)) == [STDOUT_CHECK]
    failure = next(r for r in report.results if r.outcome is Outcome.FAIL)
    assert failure.message.startswith("not_json: expected ready: not JSON; the bot sent 'debug: starting' (")
    assert failure.message.endswith(" stray lines in all)")
    assert failure.hint == "bots print only protocol lines on stdout; write debug output to stderr"
    assert failure.place() == "the hello"
    assert len(report.results) > 20 and report.stopped is None


def test_unasked_lines_after_an_answer_are_the_stdout_check_too() -> None:
    # 100 lines of chatter with each ready (one write, so all there once ready is): one
    # failure that counts them all, not one per check.
    report = run(BOTS / "bad_bot.py", ("standard",), ("2x3",), "chatter")
    assert list(failed(report)) == [STDOUT_CHECK]
    message = failed(report)[STDOUT_CHECK]
    assert message.startswith("unasked_output: printed a line while no request was open; the bot sent ")
    assert message.endswith(f"({100 * report.starts} stray lines in all)") and report.starts > 1
    failure = next(r for r in report.results if r.outcome is Outcome.FAIL)
    assert failure.hint is not None and "debug output goes to stderr" in failure.hint


def test_junit_and_exit_code_of_a_failing_run(tmp_path: Path) -> None:
    out = tmp_path / "checks.xml"
    result = runner.invoke(
        app,
        ["check-bot", "--preset", "standard", "--layout", "1x1", "--junit", str(out), "--",
         sys.executable, str(BROKEN / "one_by_one_bot.py")],
    )  # fmt: skip
    assert result.exit_code == EXIT_FAULTED, result.output
    lines = result.stdout.splitlines()
    assert "FAIL  layout 1x1 (standard): a hole: illegal_action: 'swap:1' is not a legal choice" in "\n".join(lines)
    assert any(line.startswith('      sent: {"type":"request"') for line in lines)
    assert lines[-1].endswith("1 failed") and lines[-2].startswith("decision times: median ")
    xmlschema.XMLSchema(TESTS / "data" / "junit-10.xsd").validate(str(out))
    suite = ET.parse(out).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    failures = [case for case in suite.iter("testcase") if case.find("failure") is not None]
    assert [case.get("name") for case in failures] == ["layout 1x1 (standard): a hole"]
    text = failures[0].findtext("failure") or ""
    assert '"decision":"place"' in text
    assert re.search(r"^at: hole 0, step \d+, request \d+$", text, flags=re.M), text
    assert "\nhint: choose one of the request's legal strings, exactly as written\n" in text
    # Every check that ran took its own time, measured from its session's start.
    for case in suite.iter("testcase"):
        if case.find("skipped") is None:
            assert float(case.get("time") or 0) > 0, case.get("name")


def test_junit_failures_hold_the_stderr_tail(tmp_path: Path) -> None:
    out = tmp_path / "checks.xml"
    result = runner.invoke(
        app,
        ["check-bot", "--preset", "standard", "--layout", "2x3", "--junit", str(out), "--",
         sys.executable, str(BROKEN / "no_target_bot.py")],
    )  # fmt: skip
    assert result.exit_code == EXIT_FAULTED, result.output
    xmlschema.XMLSchema(TESTS / "data" / "junit-10.xsd").validate(str(out))
    failures = [c for c in ET.parse(out).getroot().iter("testcase") if c.find("failure") is not None]
    assert len(failures) == 4
    for case in failures:
        text = case.findtext("failure") or ""
        message = case.find("failure").get("message")  # type: ignore[union-attr]
        assert text.startswith(f"{message}\nat: hole ") and "[decision target]" in text
        assert "\nhint: the bot's stderr, shown in the log and here, usually says why\n" in text
        assert "\nstderr: NotImplementedError" in text or "\nstderr: Traceback" in text
    assert "      stderr: Traceback (most recent call last):" in result.stdout.splitlines()


def _config(tmp_path: Path, rules: dict[str, object], tournament: bool = False) -> Path:
    players = [
        {"name": "mine", "command": [sys.executable, str(BOTS / "echo_bot.py")]},
        {"name": "g", "builtin": "greedy"},
    ]
    data = {"tournament" if tournament else "match": "m", "rules": rules, "players": players}
    data["time"] = {"startup_ms": 20_000, "move_ms": 10_000}
    config = tmp_path / "m.yaml"
    config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return config


@pytest.mark.parametrize("tournament", [False, True], ids=["match", "tournament"])
def test_a_bot_named_in_a_config_is_checked_under_its_rules(tmp_path: Path, tournament: bool) -> None:
    # The config's preset with every option it sets, not the four presets: standard has no
    # optional flip, and this config's has one.
    config = _config(tmp_path, {"preset": "standard", "layout": "2x2", "flip_after_throw": "may"}, tournament)
    result = runner.invoke(app, ["check-bot", str(config), "--player", "mine", "--layout", "1x2"])
    assert result.exit_code == EXIT_OK, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "rules: standard, with layout: 2x2, flip_after_throw: may"
    names = [line.split("  ", 1)[1].split(":")[0] for line in lines if line.startswith("pass")]
    assert "standard 2x2" in names and "layout 1x2 (standard)" in names
    assert not [n for n in names if n.startswith(("classic", "knock", "arena"))]
    assert "pass  standard 2x2: flip: pass offered: request " in result.stdout
    assert lines[-1].endswith("0 failed")
    bad = runner.invoke(app, ["check-bot", str(config), "--player", "g"])
    assert bad.exit_code == EXIT_USAGE
    assert bad.stderr.strip() == "golfref: error: --player 'g': a built-in player (greedy), not a bot"


def test_the_time_control_of_the_config_is_the_checks(tmp_path: Path) -> None:
    config = _config(tmp_path, {"preset": "knock", "layout": "2x2"})
    result = runner.invoke(app, ["check-bot", str(config), "--player", "mine", "--layout", "2x2"])
    assert result.exit_code == EXIT_OK, result.output
    assert "(time control: move_ms 10000, bank_ms 0, grace_ms 100)" in result.stdout.splitlines()[-2]


def test_set_overrides_every_preset_checked() -> None:
    echo = (sys.executable, str(BOTS / "echo_bot.py"))
    report = check_bot(BotCommand(echo), ("standard", "knock"), ("2x2",), time_control=GENEROUS,
                       options={"flip_after_throw": "may"})  # fmt: skip
    names = {r.name for r in report.results}
    assert {"standard 2x3: flip: pass offered", "knock 2x3: flip: pass offered"} <= names
    assert report.passed


def test_an_option_that_cannot_apply_skips_those_checks_with_the_reason() -> None:
    # Diagonals need a square grid: the 2x3 groups are skipped, saying so; the 2x2 layout is played.
    report = check_bot(BotCommand((sys.executable, str(BOTS / "echo_bot.py"))), ("standard",), ("2x2",),
                       time_control=GENEROUS, options={"lines": "columns+rows+diagonals"})  # fmt: skip
    outcomes = {r.name: (r.outcome, r.message) for r in report.results}
    outcome, message = outcomes["standard 2x3: handshake"]
    assert outcome is Outcome.SKIP
    assert message == (
        "not under the rules given: lines: diagonals need a square grid, but layout is 2x3 (options lines and layout)"
    )
    assert outcomes["layout 2x2 (standard): a hole"][0] is Outcome.PASS
    assert report.passed


def test_set_on_the_command_line(tmp_path: Path) -> None:
    config = _config(tmp_path, {"preset": "standard", "layout": "2x2"})
    result = runner.invoke(
        app, ["check-bot", str(config), "--player", "mine", "--layout", "2x2", "--set", "flip_after_throw=may"]
    )
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.splitlines()[0] == "rules: standard, with layout: 2x2, flip_after_throw: may"
    assert "pass  standard 2x2: flip: pass offered: request " in result.stdout


def test_a_config_with_several_problems_is_one_error_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("match: m\nrules: {preset: nope}\nplayers: 3\ncolour: red\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "golfref", "check-bot", str(config), "--player", "x"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert result.returncode == EXIT_USAGE and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"golfref: error: {config}:")
    assert line.endswith(f"more: golfref check-config {config} lists them)")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ([], "give the bot's command after --"),
        (["--preset", "golf", "--", "x"], "--preset 'golf': expected one of standard, classic, knock, arena"),
        (["--layout", "5x5", "--", "x"], "--layout '5x5': expected one of 1x1"),
        (["--fuzz", "-1", "--", "x"], "--fuzz"),
        (["nope.yaml", "--player", "x"], "nope.yaml"),
        (["a.yaml", "b.yaml", "--player", "x"], "with --player give one config and no command"),
        (["a.yaml", "--player", "x", "--preset", "knock"], "--preset: with a config, its rules are checked (a.yaml)"),
        (["a.yaml", "--player", "x", "--house"], "--house: with a config, its rules are checked as they are (a.yaml)"),
        (["--set", "knocking=maybe", "--", "x"], "no check can be played under the rules given: knocking: expected"),
        (["--set", "colour=red", "--", "x"], "no check can be played under the rules given: unknown rule option"),
        # --house's own options would hide a bad value given: the rules asked for decide.
        (["--set", "card_values=2:x", "--house", "--", "x"], "under the rules given: card_values.2: expected a whole"),
        (["--set", "knocking", "--", "x"], "--set 'knocking': expected KEY=VALUE"),
    ],
)
def test_bad_command_lines_are_one_line_errors(args: list[str], error: str) -> None:
    # Through the console entry point: it turns typer's usage errors into one line too.
    result = subprocess.run(
        [sys.executable, "-m", "golfref", "check-bot", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error:") and error in lines[0], lines
    assert result.stdout == ""


def test_a_bot_that_cannot_start_is_one_error_line() -> None:
    with pytest.raises(BotWontStart, match="not found"):
        check_bot(BotCommand(("/nonexistent/bot",)), ("standard",), ("2x2",), time_control=GENEROUS)
    result = subprocess.run(
        [sys.executable, "-m", "golfref", "check-bot", "--", "/nonexistent/bot"], capture_output=True, text=True
    )
    assert result.returncode == EXIT_USAGE and result.stdout == ""
    assert result.stderr.startswith("golfref: error: cannot start bot") and len(result.stderr.splitlines()) == 1


def test_decisions_over_move_ms_fail_the_time_control_check() -> None:
    # 0.25 s on each bot's first request: over move_ms (0.2 s), within the deadline (grace 2 s).
    tc = TimeControl(startup_ms=20_000, move_ms=200, grace_ms=2_000)
    bot = BotCommand((sys.executable, str(BOTS / "slow_bot.py"), "0.25"))
    report = check_bot(bot, ("standard",), ("2x2",), time_control=tc)
    assert list(failed(report)) == ["time control: every decision within move_ms (200 ms)"]
    assert (
        "decisions took longer, the slowest" in failed(report)["time control: every decision within move_ms (200 ms)"]
    )
    assert max(report.times_ms) >= 250 and "move_ms 200" in report.times_line()


# The search bot at its smallest budget: the checks are about the protocol, not its strength,
# and its default budget on the 8-player and 4x4 checks would take minutes.
BUILTIN_OPTIONS = {"expert": ("iterations=1",)}


@pytest.mark.parametrize("name", POLICIES)
def test_every_builtin_as_a_bot_program_passes_every_check(name: str) -> None:
    argv = (sys.executable, "-m", "golfref.tools.builtin_bot", name, *BUILTIN_OPTIONS.get(name, ()))
    report = check_bot(BotCommand(argv), time_control=GENEROUS, house=True)
    assert report.passed, failed(report)
    assert not [r.name for r in report.results if r.outcome is Outcome.SKIP]
