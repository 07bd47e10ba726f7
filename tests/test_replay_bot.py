"""`golfref replay-bot`: the sample logs replay decision for decision with the bots that played them;
a modified bot's planted divergence is found at its request; `--stop-at` stops there; what is
rebuilt from a log is byte for byte what the referee sent (its transcript), and a transcript
showing more than the seat could see is refused.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.cli.exits import EXIT_FAULTED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from golfref.config.match import parse_config
from golfref.game.rules import rules_from_dict
from golfref.match.outputs import transcript_path
from golfref.match.referee import run_match
from golfref.match.seat_messages import log_messages
from golfref.record.log import read_log
from golfref.tools.rerun import RerunError, load_script, rerun_seat

from .conftest import BOTS, ROOT, TESTS, default_signals

pytestmark = [pytest.mark.process]

LOGS = TESTS / "logs"
GREEDY_BOT = ROOT / "sample_matches" / "bots" / "greedy_bot.py"
EXAMPLE = LOGS / "example_1hole_2p_2x2.json"
runner = CliRunner()


def bot_seats() -> list[tuple[str, int]]:
    """Every (sample log, seat) a bot played."""
    found = []
    for path in sorted(LOGS.glob("*.json")):
        for player in read_log(path)["players"]:
            if "command" in player:
                found.append((path.name, player["seat"]))
    return found


@pytest.mark.parametrize(("name", "seat"), bot_seats())
def test_every_sample_log_replays_with_the_bot_that_played_it(name: str, seat: int) -> None:
    script = load_script(str(LOGS / name), seat)
    # The folder the log records is the examples' (sample_matches/test_bots, `golfref examples`).
    assert script.source == "rebuilt from the log" and script.cwd == "test_bots"
    argv = [sys.executable, *script.command[1:]]  # the log says python3; this interpreter is one
    result = rerun_seat(script, argv, seat, str(ROOT / "sample_matches" / script.cwd), script.env, timeout=30)
    assert result.divergence is None, result.divergence.line() if result.divergence else ""
    assert result.matched == len(script.requests) > 0


def test_the_samples_cover_answers_and_faults() -> None:
    faults = {
        m.expected.fault
        for name, seat in bot_seats()
        for m in load_script(str(LOGS / name), seat).messages
        if m.expected
    }
    assert {None, "illegal_action", "exited", "not_json"} <= faults


def _requests_with_choices(path: Path, seat: int) -> list[int]:
    return [
        m.request
        for m in load_script(str(path), seat).messages
        if m.request is not None and len(json.loads(m.line)["legal"]) > 1
    ]


def test_a_planted_divergence_is_found_at_its_request() -> None:
    planted = _requests_with_choices(EXAMPLE, 1)[2]
    bot = [sys.executable, str(BOTS / "broken" / "diverge_bot.py"), str(planted)]
    result = runner.invoke(app, ["replay-bot", str(EXAMPLE), "--seat", "1", "--", *bot])
    assert result.exit_code == EXIT_FAULTED, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"diverged at request {planted} (hole 0): the log says answered ")
    sent = json.loads(lines[1].removeprefix("  sent: "))
    assert sent["id"] == planted and lines[0].endswith(f"the bot answered {sent['legal'][-1]!r}")


def test_stop_at_sends_the_request_and_reports_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "sample_matches")  # the log's own bot, from the folder it records: test_bots/
    stop = _requests_with_choices(EXAMPLE, 1)[0]
    result = runner.invoke(
        app, ["replay-bot", str(EXAMPLE), "--seat", "1", "--stop-at", str(stop)], catch_exceptions=False
    )
    assert result.exit_code == EXIT_OK, result.output
    out = result.stdout.splitlines()
    assert json.loads(out[0])["id"] == stop
    assert out[-1] == f"request {stop}: the bot did what the log says ({stop} requests matched)"
    assert "the bot is process " in result.stderr and "gdb -p " in result.stderr
    assert "the bot answered: " in result.stderr


def test_stop_at_waits_without_a_limit_until_ctrl_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "golfref", "replay-bot", str(EXAMPLE), "--seat", "1", "--stop-at", "1",
         "--timeout", "0.5", "--", sys.executable, str(BOTS / "bad_bot.py"), "sleep-forever"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        preexec_fn=default_signals(),
    )  # fmt: skip
    assert proc.stderr is not None
    said = ""
    try:
        give_up = time.monotonic() + 60
        while "waiting for the answer" not in said:
            ready, _, _ = select.select([proc.stderr], [], [], max(0.0, give_up - time.monotonic()))
            assert ready and time.monotonic() < give_up, said
            chunk = os.read(proc.stderr.fileno(), 4096).decode()  # unbuffered: select sees what is left
            assert chunk, said
            said += chunk
        time.sleep(1.0)  # past --timeout: a stop-at request has no time limit
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == EXIT_INTERRUPTED
    pid = int(said.split("the bot is process ")[1].split()[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _match_with_transcripts(directory: Path) -> Path:
    data = {
        "match": "replay",
        "rules": {"preset": "arena", "layout": "2x2", "card_powers": True, "holes": 2},
        "players": [
            {"name": "greedy", "command": [sys.executable, str(GREEDY_BOT)]},
            {"name": "r", "builtin": "random"},
            {"name": "echo", "command": [sys.executable, str(BOTS / "echo_bot.py")]},
        ],
        "time": {"startup_ms": 20_000, "move_ms": 10_000, "bank_ms": 3_000, "increment_ms": 7},
        "log": {"path": str(directory / "m.json"), "transcript": True},
    }
    config = parse_config(yaml.safe_dump(data), source=str(directory / "m.yaml"), base_dir=directory)
    return run_match(config, seed=4).log_path


def test_rebuilt_messages_are_what_the_referee_sent_and_the_transcript_replays(tmp_path: Path) -> None:
    log = _match_with_transcripts(tmp_path)
    doc = read_log(log)
    for seat in (0, 2):
        sent = [
            json.loads(line)["line"]
            for line in transcript_path(log, seat).read_text(encoding="utf-8").splitlines()
            if json.loads(line)["dir"] == "to_bot"
        ]
        rebuilt = [m.line for m in log_messages(doc, rules_from_dict(doc["rules"]), seat)]
        assert rebuilt == sent
    script = load_script(str(log), 0)
    assert script.source == "transcript"
    result = rerun_seat(script, script.command, 0, None, {}, timeout=30)
    assert result.divergence is None and result.matched == len(script.requests)


def test_a_transcript_showing_more_than_the_seat_saw_is_refused(tmp_path: Path) -> None:
    log = _match_with_transcripts(tmp_path)
    path = transcript_path(log, 2)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first = next(r for r in records if r["dir"] == "to_bot" and '"type":"request"' in r["line"])
    request = json.loads(first["line"])
    request["view"]["grids"][0] = ["AS" if c is None else c for c in request["view"]["grids"][0]]
    first["line"] = json.dumps(request, separators=(",", ":"))
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(RerunError, match="is not what seat 2 could see then"):
        load_script(str(log), 2)
    result = runner.invoke(app, ["replay-bot", str(log), "--seat", "2"])
    assert result.exit_code == EXIT_USAGE and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ([str(EXAMPLE), "--seat", "0"], "--seat 0: seat 0 (greedy) is the built-in greedy, not a bot"),
        ([str(EXAMPLE), "--seat", "5"], "--seat 5: the match has 2 seats (0 to 1)"),
        ([str(EXAMPLE), "--seat", "1", "--stop-at", "99"], "--stop-at 99: seat 1 was not sent request 99"),
        ([str(LOGS / "nope.json"), "--seat", "1"], "nope.json: no such file"),
        ([str(EXAMPLE)], "--seat"),
    ],
)
def test_bad_command_lines_are_one_line_errors(args: list[str], error: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "golfref", "replay-bot", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.returncode == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("golfref: error:") and error in lines[0], lines
