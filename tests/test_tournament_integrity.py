"""A bot whose files change during a tournament is noticed (issue 21, item 5).

Without the sandbox a bot can rewrite another bot's program: `tests/bots/hostile/rewrite_bot.py`
does, once, at its first request. Each bot's build is checked before every match, so the next
match does not start: the tournament stops with one line naming the bot and what changed,
exit 4, its finished matches kept, and it resumes once the file is restored. With
`--allow-bot-changes` (or `allow_bot_changes: true`) it plays on, and the matches played with
the changed program say so in the summary, the JSON and the store.

Files in a bot's folder that are not the bot's (issue 36, item 5) have ways past the refusal:
what golfref writes (a report, a JUnit file, the file its output is redirected into) is never
the bot's, and a player's `fingerprint: {exclude: [...]}` leaves out files the user names; the
refusal names the files and says each way out. Where no bot process is what is tested, the
matches are played by scripted bots in this process (`ScriptedExecutor`).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from golfref.bots.sandbox import bubblewrap_problem
from golfref.bots.scripted import PolicyBrain, ScriptedLauncher
from golfref.config.tournament import load_tournament
from golfref.game.policies import RandomPolicy
from golfref.match.referee import run_match
from golfref.record.log import read_log
from golfref.record.matchlog import read_match_log
from golfref.tournament.executor import Executor, MatchJob, MatchOutcome, bots_changed, record_from_log
from golfref.tournament.runner import BotChanged, load_stored, run_tournament
from golfref.tournament.store import Store

from .conftest import BOTS, ROOT

GOLFREF = [sys.executable, "-m", "golfref"]
REWRITER = BOTS / "hostile" / "rewrite_bot.py"
ECHO = BOTS / "echo_bot.py"
MATCHES = 6  # 3 deal sets of the two seatings


def _tournament(
    tmp_path: Path, extra: str = "", sandbox: bool = False, python: str = sys.executable
) -> tuple[Path, Path, Path]:
    """A tournament of an honest bot (its own folder) and the rewriter aimed at its program: (config, program, OUT)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    program = victim / "bot.py"
    program.write_bytes(ECHO.read_bytes())
    out = tmp_path / "rewrote.json"
    players = [
        f"{{name: victim, command: {json.dumps([python, str(program)])}}}",
        f"{{name: rewriter, command: {json.dumps([python, str(REWRITER), str(out), str(program)])}}}",
    ]
    seats = "".join(f"  - {p}\n" for p in players)
    config = tmp_path / "t.yaml"
    config.write_text(
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: 2}}\nplayers:\n{seats}deal_sets: 3\n"
        f"seed: 5\nsandbox: {{enabled: {json.dumps(sandbox)}}}\ntime: {{startup_ms: 60000, move_ms: 10000}}\n"
        f"results: out\n{extra}",
        encoding="utf-8",
    )
    return config, program, out


def _golfref(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GOLFREF, *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def _error(stderr: str) -> str:
    """The one error line, after the warning that bots run as the referee's own user (sandbox off)."""
    lines = [line for line in stderr.splitlines() if not line.startswith("golfref: warning: sandbox: off, ")]
    assert len(lines) == 1, stderr
    return lines[0]


def _stored(results: Path) -> list[int]:
    with Store(results, create=False) as store:
        return [m.record.match_index for m in store.matches()]


@pytest.mark.process
def test_a_bot_that_rewrites_its_opponent_stops_the_tournament_which_resumes_once_restored(tmp_path: Path) -> None:
    config, program, out = _tournament(tmp_path)
    honest = program.read_bytes()
    done = _golfref("tournament", str(config), "-q", "-j", "1")
    assert json.loads(out.read_text(encoding="utf-8"))["rewrote"] == "done"  # the attack worked
    assert done.returncode == 4, done.stderr
    assert done.stdout == ""
    line = _error(done.stderr)
    assert line.startswith("golfref: error: bot victim changed during the tournament: "), line
    assert "its file " in line and f"{program} changed" in line, line
    assert "restore its files and run the same command again to resume" in line and "--allow-bot-changes" in line
    kept = _stored(tmp_path / "out")
    assert kept and len(kept) < MATCHES  # the match under way when it struck is kept; no later one started
    # Run again with the file still rewritten: refused before any match, in one line.
    again = _golfref("tournament", str(config), "-q", "-j", "1")
    assert again.returncode == 4
    assert _error(again.stderr).startswith("golfref: error: bot victim changed since the tournament started: its file ")
    assert _stored(tmp_path / "out") == kept
    # Restored (and the attack spent), the same command resumes and finishes.
    program.write_bytes(honest)
    resumed = _golfref("tournament", str(config), "-q", "-j", "1", "--json")
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["stored"] == MATCHES and data["bot_changes"] == []
    assert _stored(tmp_path / "out") == list(range(MATCHES))


@pytest.mark.process
@pytest.mark.parametrize("how", ["option", "config"])
def test_allowed_changes_play_on_and_are_reported(tmp_path: Path, how: str) -> None:
    config, program, out = _tournament(tmp_path, "allow_bot_changes: true\n" if how == "config" else "")
    allow = ["--allow-bot-changes"] if how == "option" else []
    done = _golfref("tournament", str(config), "-j", "1", "--json", *allow)
    assert json.loads(out.read_text(encoding="utf-8"))["rewrote"] == "done"
    assert done.returncode == 1, done.stderr  # every match played; the rewritten victim exits, a fault that ends it
    data = json.loads(done.stdout)
    assert data["stored"] == MATCHES
    changed = data["bot_changes"]
    assert changed and {c["player"] for c in changed} == {"victim"}
    assert all(c["change"] == f"its file {program} changed" for c in changed), changed
    first = min(c["match"] for c in changed)
    assert [c["match"] for c in changed] == list(range(first, MATCHES))  # every match from the rewrite on
    # The same from the store (golfref standings), on stderr beside the tables.
    shown = _golfref("standings", str(tmp_path / "out"))
    assert shown.returncode == 0, shown.stderr
    assert "golfref: bots whose files changed during the tournament (allowed; match indexes from 0):" in shown.stderr
    assert "  victim: in match" in shown.stderr and f": its file {program} changed" in shown.stderr
    assert len(load_stored(tmp_path / "out").bot_changes) == len(changed)


@pytest.mark.process
def test_the_check_runs_in_the_library_too_and_a_later_run_compares_with_the_first_builds(tmp_path: Path) -> None:
    config, program, out = _tournament(tmp_path)
    cfg = load_tournament(config)
    with pytest.raises(BotChanged, match=r"^bot victim changed during the tournament: its file .*bot\.py changed"):
        run_tournament(cfg, workers=2)
    # A helper file added beside the program is named too.
    program.write_bytes(ECHO.read_bytes())
    (program.parent / "helper.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(BotChanged, match=r"added in its folder: helper\.py;"):
        run_tournament(cfg, workers=2)
    (program.parent / "helper.py").unlink()
    result = run_tournament(cfg, workers=2)
    assert len(result.records) == MATCHES and not result.errors


def _stored_changes(results: Path) -> dict[int, Any]:
    with Store(results, create=False) as store:
        return store.bot_changes()


@pytest.mark.process
def test_logs_written_inside_a_bots_folder_are_stored_changes(tmp_path: Path) -> None:
    # The results under the honest bot's own folder (as the quick form's ./tournaments/ may be):
    # the logs written there as matches are played are not the bot's files.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "bot.py").write_bytes(ECHO.read_bytes())
    players = [f"{{name: victim, command: {json.dumps([sys.executable, 'bot.py'])}, cwd: {json.dumps(str(victim))}}}",
               "{name: g, builtin: greedy}"]  # fmt: skip
    seats = "".join(f"  - {p}\n" for p in players)
    config = victim / "t.yaml"
    config.write_text(
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: 1}}\nplayers:\n{seats}deal_sets: 3\n"
        "seed: 5\nsandbox: {enabled: false}\nresults: tournaments/t\n",
        encoding="utf-8",
    )
    result = run_tournament(load_tournament(config), workers=2)
    assert len(result.records) == MATCHES and not result.errors
    assert _stored_changes(victim / "tournaments" / "t") == {}


# A sandbox shows a bot its own folder and the system, not this test's virtual environment.
BOT_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else os.path.realpath(sys.executable)


@pytest.mark.process
@pytest.mark.skipif(
    bubblewrap_problem() is not None or os.geteuid() != 0,
    reason=f"needs root and a usable bubblewrap ({bubblewrap_problem() or 'not root'})",
)
def test_with_the_sandbox_the_rewrite_fails_and_the_tournament_plays_on(tmp_path: Path) -> None:
    config, program, _ = _tournament(tmp_path, sandbox=True, python=BOT_PYTHON)
    honest = program.read_bytes()
    done = _golfref("tournament", str(config), "-q", "-j", "1", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["stored"] == MATCHES and data["bot_changes"] == []
    assert program.read_bytes() == honest  # the rewriter could not reach it
    with Store(tmp_path / "out", create=False) as store:
        log = json.loads((tmp_path / "out" / store.matches()[0].log_path).read_text(encoding="utf-8"))
    rewriter = next(p for p in log["players"] if p["name"] == "rewriter")
    report = [line for line in (rewriter["stderr"] or "").splitlines() if line.startswith("ATTACK-REPORT ")]
    assert report and json.loads(report[-1].removeprefix("ATTACK-REPORT "))["rewrote"] != "done"


# -- files in a bot's folder that are not the bot's ----------------------------------------------


class ScriptedExecutor(Executor):
    """Plays each job here, its bots scripted: the runner's checks run as they would, no bot process starts."""

    def run(self, jobs: Sequence[MatchJob]) -> Iterator[MatchOutcome]:
        """Play the jobs one after the other, each checked for changed bots first, as a worker does."""
        for job in jobs:
            changed = bots_changed(job)
            if changed and not job.allow_bot_changes:
                yield MatchOutcome(job.index, None, None, job.log_path, "not played", True, changed)
                continue
            brains = {s: PolicyBrain(RandomPolicy(random.Random(s))) for s, p in enumerate(job.config.players)
                      if p.command is not None}  # fmt: skip
            result = run_match(job.config, log_path=str(job.log_path), launcher=ScriptedLauncher(brains))
            log = read_match_log(read_log(result.log_path))
            record = record_from_log(log, job.index, job.deal_set)
            yield MatchOutcome(job.index, record, log.digest, result.log_path, changed=changed)

    def outcomes(self) -> Iterator[MatchOutcome]:
        """Nothing is left running: each job is played whole in `run`."""
        return iter(())

    def stop(self) -> None:
        """Nothing to stop."""

    def close(self) -> None:
        """Nothing to release."""


def _bot_folder_tournament(tmp_path: Path, exclude: str = "", sandbox: bool = False) -> tuple[Path, Path]:
    """A tournament of a bot in its own folder (cwd) and a built-in: (its config, the bot's folder)."""
    bot = tmp_path / "bot"
    bot.mkdir(exist_ok=True)
    (bot / "bot.py").write_bytes(ECHO.read_bytes())
    fingerprint = f", fingerprint: {{exclude: {exclude}}}" if exclude else ""
    config = tmp_path / "t.yaml"
    config.write_text(
        "tournament: t\nrules: {preset: standard, layout: 2x2, holes: 1}\nplayers:\n"
        f"  - {{name: mine, command: [{BOT_PYTHON}, bot.py], cwd: bot{fingerprint}}}\n"
        "  - {name: g, builtin: greedy}\n"
        f"deal_sets: 1\nseed: 5\nsandbox: {{enabled: {json.dumps(sandbox)}}}\nresults: out\n",
        encoding="utf-8",
    )
    return config, bot


def _scripted_run(config: Path, **options: Any) -> Any:
    return run_tournament(load_tournament(config), executor=ScriptedExecutor(), **options)


def test_a_file_that_is_not_the_bots_is_named_with_every_way_out_and_an_exclusion_resumes(tmp_path: Path) -> None:
    config, bot = _bot_folder_tournament(tmp_path)
    assert len(_scripted_run(config).records) == 2
    (bot / "out.txt").write_text("what a user kept in the bot's folder\n", encoding="utf-8")
    with pytest.raises(BotChanged) as refused:
        _scripted_run(config)
    line = str(refused.value)
    assert line.startswith("bot mine changed since the tournament started: added in its folder: out.txt; "), line
    assert f"restore its files to resume the tournament in {tmp_path / 'out'}" in line
    assert 'leave them out of its fingerprint with fingerprint: {exclude: ["out.txt"]} in bot mine\'s entry' in line
    assert line.endswith("or allow changes with --allow-bot-changes (allow_bot_changes: true)")
    # The key named there, added to the config: the same tournament resumes (the key decides no match).
    config, _ = _bot_folder_tournament(tmp_path, exclude='["out.txt"]')
    result = _scripted_run(config)
    assert result.played == 0 and len(result.records) == 2 and not result.errors
    # The exclusion is no blanket: a file it does not name still stops the tournament.
    (bot / "helper.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(BotChanged, match=r"added in its folder: helper\.py; .*exclude: \[\"helper\.py\"\]"):
        _scripted_run(config)


def test_golfrefs_own_report_and_junit_in_a_bots_folder_are_no_files_of_the_bot(tmp_path: Path) -> None:
    config, bot = _bot_folder_tournament(tmp_path)
    report, replays, junit = bot / "report.html", bot / "report-replays", bot / "junit.xml"
    replays.mkdir()
    for path, text in ((report, "<html>1"), (replays / "m0.html", "<html>1"), (junit, "<testsuites/>")):
        path.write_text(text, encoding="utf-8")
    # Each match's check (as a worker makes it) leaves them out as the start's does: every match plays.
    result = _scripted_run(config, outputs=[report, replays, junit])
    assert result.played == 2 and not result.errors
    # Written again at the end; a later run that does not write them (golfref standings did, say) still
    # knows them: the store noted them.
    report.write_text("<html>2", encoding="utf-8")
    (replays / "m1.html").write_text("<html>2", encoding="utf-8")
    result = _scripted_run(config)
    assert not result.errors and len(result.records) == 2
    # Files golfref never wrote are the bot's.
    (bot / "notes.html").write_text("<html>\n", encoding="utf-8")
    with pytest.raises(BotChanged, match=r"added in its folder: notes\.html;"):
        _scripted_run(config)


def _redirected_run(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """`golfref tournament CONFIG > OUT`, as a shell runs it: OUT created anew before golfref starts."""
    with open(out, "w", encoding="utf-8") as stdout:
        command = [*GOLFREF, "tournament", str(config), "-q", "-j", "1"]
        return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=out.parent, timeout=300)


@pytest.mark.process
@pytest.mark.parametrize(
    "sandbox",
    [
        False,
        pytest.param(True, marks=pytest.mark.skipif(
            bubblewrap_problem() is not None or os.geteuid() != 0,
            reason=f"needs root and a usable bubblewrap ({bubblewrap_problem() or 'not root'})",
        )),
    ],
    ids=["no sandbox", "sandbox"],
)  # fmt: skip
def test_a_tournament_whose_output_is_redirected_into_the_bots_folder_resumes(tmp_path: Path, sandbox: bool) -> None:
    # `golfref tournament t.yaml > out.txt` from inside the bot's folder: the shell makes out.txt anew
    # on every run, which once stopped every rerun as a changed bot with no way to restore it. Sandboxed,
    # the bot's folder is shown with out.txt hidden, as the results are (the output may say the seed).
    config, bot = _bot_folder_tournament(tmp_path, sandbox=sandbox)
    out = bot / "out.txt"
    own = "golfref: out.txt is this run's own redirected output, left out of bot mine's fingerprint"
    for _ in range(2):
        done = _redirected_run(config, out)
        assert done.returncode == 0, done.stderr
        assert own in done.stderr.splitlines(), done.stderr
        assert "standings:" in out.read_text(encoding="utf-8")
    # Another file changed beside it: refused for that file, and the redirected output said as such.
    (bot / "helper.py").write_text("x = 1\n", encoding="utf-8")
    done = _redirected_run(config, out)
    assert done.returncode == 4
    line = _error(done.stderr)
    assert line.startswith("golfref: error: bot mine changed since the tournament started: added in its folder: "
                           "helper.py (out.txt is this run's own redirected output, left out of bot mine's "
                           "fingerprint); restore its files"), line  # fmt: skip
    # Once its output goes elsewhere, the out.txt left behind is a file like any other.
    (bot / "helper.py").unlink()
    elsewhere = subprocess.run([*GOLFREF, "tournament", str(config), "-q"], capture_output=True, text=True,
                               cwd=bot, timeout=300)  # fmt: skip
    assert elsewhere.returncode == 4 and "added in its folder: out.txt;" in _error(elsewhere.stderr)
