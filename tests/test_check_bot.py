"""`golfref check-bot`: every sample bot passes; each broken bot fails exactly the checks of what it cannot do.

The broken bots (tests/bots/broken/) each miss one capability; a run restricted to the
presets and layouts that matter keeps each short. Bad command lines get one
`golfref: error:` line and exit 2.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
import yaml
from typer.testing import CliRunner

from golfref.botcheck import BotCommand, BotWontStart, CheckReport, Outcome, build_groups, check_bot
from golfref.cli import EXIT_FAULTED, EXIT_OK, EXIT_USAGE, app
from golfref.config import TimeControl

from .conftest import BOTS, ROOT, TESTS

pytestmark = [pytest.mark.process]

BROKEN = BOTS / "broken"
SAMPLES = ROOT / "sample_matches" / "bots"
GENEROUS = TimeControl(startup_ms=20_000, move_ms=10_000)
runner = CliRunner()


def run(bot: Path, presets: tuple[str, ...], layouts: tuple[str, ...], *args: str) -> CheckReport:
    return check_bot(BotCommand((sys.executable, str(bot), *args)), presets, layouts, time_control=GENEROUS)


def failed(report: CheckReport) -> dict[str, str]:
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
    report = check_bot(BotCommand(argv), time_control=GENEROUS)
    assert report.passed, failed(report)
    assert not [r.name for r in report.results if r.outcome is Outcome.SKIP]
    names = " ".join(r.name for r in report.results)
    situations = (
        "target: a king's second card", "after a reshuffle", "8 players", "layout 1x1", "layout 4x4", "reveal",
        "the turn owed after a knock", "the turn owed after a close", "a joker", "match end", "flip",
        "after a face-down swap", "a card of the third deck",
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


def test_a_bot_named_in_a_config(tmp_path: Path) -> None:
    config = tmp_path / "m.yaml"
    data = {
        "match": "m",
        "rules": {"preset": "standard"},
        "players": [
            {"name": "mine", "command": [sys.executable, str(BOTS / "echo_bot.py")]},
            {"name": "g", "builtin": "greedy"},
        ],
    }
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = runner.invoke(app, ["check-bot", str(config), "--player", "mine", "--preset", "knock", "--layout", "2x2"])
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.splitlines()[-1].endswith("0 failed")
    bad = runner.invoke(app, ["check-bot", str(config), "--player", "g"])
    assert bad.exit_code == EXIT_USAGE
    assert bad.stderr.strip() == "golfref: error: --player 'g': a built-in player (greedy), not a bot"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ([], "give the bot's command after --"),
        (["--preset", "golf", "--", "x"], "--preset 'golf': expected one of standard, classic, knock, arena"),
        (["--layout", "5x5", "--", "x"], "--layout '5x5': expected one of 1x1"),
        (["--fuzz", "-1", "--", "x"], "--fuzz"),
        (["nope.yaml", "--player", "x"], "nope.yaml"),
        (["a.yaml", "b.yaml", "--player", "x"], "with --player give one match config and no command"),
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
