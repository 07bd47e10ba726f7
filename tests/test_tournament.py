"""Tournaments: configs, schedules, duplicate deals, running, resuming, faults, the store and the gate."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from golfref.config import ConfigError
from golfref.executor import MatchJob
from golfref.schedule import match_config, schedule, tables
from golfref.store import Store
from golfref.tournament import TournamentError, run_tournament
from golfref.tournament_config import Format, GateRule, load_tournament, parse_gate, parse_tournament

from .conftest import BOTS, ROOT, default_signals
from .test_junit import SCHEMA

GOLFREF = [sys.executable, "-m", "golfref"]


def config_text(players: list[str], extra: str = "", holes: int = 2, deal_sets: int = 2) -> str:
    seats = "".join(f"  - {p}\n" for p in players)
    return (
        f"tournament: t\nrules: {{preset: standard, layout: 2x2, holes: {holes}}}\n"
        f"players:\n{seats}deal_sets: {deal_sets}\nseed: 3\n{extra}"
    )


BUILTINS = ["{name: a, builtin: greedy}", "{name: b, builtin: random}", "{name: c, builtin: greedy}"]
# Bots run by this file's interpreter (a virtual environment the sandbox hides): tests of
# the sandbox itself are in test_sandbox.py.
NO_SANDBOX = "sandbox: {enabled: false}\n"


def write(tmp: Path, text: str, results: str = "out") -> Path:
    path = tmp / "t.yaml"
    path.write_text(text + f"results: {results}\n", encoding="utf-8")
    return path


def golfref(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GOLFREF, *args], capture_output=True, text=True, cwd=ROOT, timeout=120, **kw)


# -- configs -----------------------------------------------------------------------------------


def test_a_tournament_config_reports_each_problem_with_its_line() -> None:
    text = config_text(BUILTINS, "format: {type: gauntlet, table: 2}\nseatings: shuffled\n")
    with pytest.raises(ConfigError) as e:
        parse_tournament(text, source="t.yaml")
    assert e.value.errors == (
        "t.yaml:9: format: a gauntlet needs a challenger (one of the players)",
        "t.yaml:10: seatings: 'shuffled' is not one of: rotations, permutations",
    )


def test_gate_and_sprt_must_name_players_of_the_pool() -> None:
    extra = "gate: {player: new, baseline: a}\nstop: {sprt: {player: a, baseline: b, d0: 0, d1: 0}}\n"
    with pytest.raises(ConfigError) as e:
        parse_tournament(config_text(BUILTINS, extra), source="t.yaml")
    text = "\n".join(e.value.errors)
    assert "gate.player: 'new' is not one of the players (a, b, c)" in text
    assert "stop.sprt.d1: d1 must differ from d0" in text


def test_check_config_tells_a_tournament_from_a_match(tmp_path: Path) -> None:
    done = golfref("check-config", str(write(tmp_path, config_text(BUILTINS))))
    assert done.returncode == 0, done.stderr
    assert "ok: tournament t: round_robin, tables of 2, 2 deal sets" in done.stdout
    bad = write(tmp_path, config_text(BUILTINS, "format: {type: round_robin, tabel: 2}\n"))
    done = golfref("check-config", str(bad))
    assert done.returncode == 2
    assert "format.tabel: unknown key 'tabel'; did you mean 'table'?" in done.stderr


# -- schedules ---------------------------------------------------------------------------------


def test_round_robin_puts_every_player_in_every_seat_against_every_other() -> None:
    cfg = parse_tournament(config_text(BUILTINS + ["{name: d, builtin: random}"], deal_sets=3))
    specs = schedule(cfg)
    assert len(specs) == 6 * 2 * 3  # pairs x rotations x deal sets
    for deal_set in range(3):
        seatings = Counter(s.seating for s in specs if s.deal_set == deal_set)
        for x in "abcd":
            for y in "abcd":
                if x != y:
                    assert seatings[(x, y)] == 1
    assert len({s.seed for s in specs}) == 3  # one seed per deal set
    assert [s.index for s in specs] == list(range(len(specs)))


def test_permutations_and_one_table_for_a_small_pool() -> None:
    cfg = parse_tournament(config_text(BUILTINS, "format: {type: round_robin, table: 4}\nseatings: permutations\n"))
    assert tables(cfg) == [("a", "b", "c")]
    assert {s.seating for s in schedule(cfg) if s.deal_set == 0} == {
        ("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"), ("b", "c", "a"), ("c", "a", "b"), ("c", "b", "a")
    }


def test_a_gauntlet_seats_the_challenger_against_each_other_player() -> None:
    pool = BUILTINS + ["{name: d, builtin: random}"]
    cfg = parse_tournament(config_text(pool, "format: {type: gauntlet, challenger: c}\n"))
    assert cfg.format is Format.GAUNTLET
    assert tables(cfg) == [("c", "a"), ("c", "b"), ("c", "d")]
    per_set = [s.seating for s in schedule(cfg) if s.deal_set == 0]
    assert sorted(per_set) == sorted([("c", "a"), ("a", "c"), ("c", "b"), ("b", "c"), ("c", "d"), ("d", "c")])


# -- running -----------------------------------------------------------------------------------


def _deals(path: Path) -> list[list[str]]:
    return [h["deal"] for h in orjson.loads(path.read_bytes())["holes"]]


def test_every_seating_of_a_deal_set_sees_the_same_deals(tmp_path: Path) -> None:
    cfg = parse_tournament(
        config_text(BUILTINS, "format: {type: round_robin, table: 3}\n", holes=3), base_dir=tmp_path
    )
    result = run_tournament(cfg, workers=2)
    assert len(result.records) == 6 and not result.errors
    for deal_set in range(2):
        specs = [s for s in schedule(cfg) if s.deal_set == deal_set]
        deals = [_deals(cfg.results / s.log_name) for s in specs]
        assert all(d == deals[0] for d in deals)
    assert _deals(cfg.results / schedule(cfg)[0].log_name) != _deals(cfg.results / schedule(cfg)[-1].log_name)
    check = golfref("replay", "--check", *(str(p) for p in sorted((cfg.results / "logs").iterdir())))
    assert check.returncode == 0, check.stdout


def test_a_crashing_bot_is_counted_and_the_rest_goes_on(tmp_path: Path) -> None:
    script = json.dumps(str(BOTS / "bad_bot.py"))
    quitter = f"{{name: q, command: [{json.dumps(sys.executable)}, {script}, exit-mid-match, '2']}}"
    cfg = parse_tournament(config_text(BUILTINS[:2] + [quitter], NO_SANDBOX), base_dir=tmp_path)
    result = run_tournament(cfg, workers=2)
    assert len(result.records) == result.scheduled == 12
    for record in result.records:
        if "q" in record.seating:
            seat = record.seating.index("q")
            assert record.statuses[seat] == "disqualified" and record.faults[seat] >= 1
            assert record.placings[seat] == 2
        else:
            assert set(record.statuses) == {"ok"}


def test_a_changed_config_is_refused_in_the_same_directory(tmp_path: Path) -> None:
    cfg = parse_tournament(config_text(BUILTINS[:2], deal_sets=1), base_dir=tmp_path)
    run_tournament(cfg, workers=1)
    changed = parse_tournament(config_text(BUILTINS[:2], deal_sets=2), base_dir=tmp_path)
    with pytest.raises(TournamentError, match="holds a tournament with another config"):
        run_tournament(changed, workers=1)
    again = run_tournament(cfg, workers=1)  # the same config: everything kept, nothing played
    assert again.played == 0 and again.kept == 2


def _comparable(records: Any) -> list[tuple[Any, ...]]:
    return [(r.match_index, r.seating, r.hole_scores, r.totals, r.placings, r.statuses) for r in records]


def _stored(directory: Path) -> int:
    try:
        with sqlite3.connect(directory / "results.sqlite", timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_tournament_resumes_to_the_results_of_an_uninterrupted_one(tmp_path: Path, sig: int) -> None:
    # The bot is greedy behind a gate: in the run that is cut, its first 3 starts play and the
    # rest wait, so the tournament cannot finish before the signal, however fast the machine.
    def players(gate: Path) -> list[str]:
        gate.mkdir()
        argv = [sys.executable, str(BOTS / "gated_bot.py"), str(gate), "3"]
        return [*BUILTINS[:2], f"{{name: py, command: {json.dumps(argv)}}}"]

    (tmp_path / "open").mkdir()
    held = "time: {startup_ms: 120000}\n" + NO_SANDBOX  # a held bot is never timed out
    text = config_text(players(tmp_path / "open" / "gate"), held, holes=2, deal_sets=4)
    (tmp_path / "open" / "gate" / "open").touch()
    whole = run_tournament(parse_tournament(text + "results: whole\n", base_dir=tmp_path), workers=2)
    gate = tmp_path / "gate"
    path = write(tmp_path, config_text(players(gate), held, holes=2, deal_sets=4), "cut")
    proc = subprocess.Popen([*GOLFREF, "tournament", str(path), "-q", "-j", "2"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=default_signals())
    try:
        deadline = time.monotonic() + 60
        while _stored(tmp_path / "cut") < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the tournament ended while its bots were held"
        os.kill(proc.pid, sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # a failed test leaves nothing running
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    stored_before = _stored(tmp_path / "cut")
    assert 3 <= stored_before < 24
    if sig == signal.SIGINT:
        assert proc.returncode == 130, stderr
        assert b"run it again to resume" in stderr
    (gate / "open").touch()
    done = golfref("tournament", str(path), "-q", "-j", "2")
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "cut", create=False) as store:
        assert _comparable(store.records()) == _comparable(whole.records)
        for m in store.matches():
            assert orjson.loads((tmp_path / "cut" / m.log_path).read_bytes())["digest"] == m.digest


def test_the_store_under_two_workers_with_a_reader(tmp_path: Path) -> None:
    path = write(tmp_path, config_text(BUILTINS, deal_sets=6))
    cfg = load_tournament(path)
    proc = subprocess.Popen([*GOLFREF, "tournament", str(path), "-q", "-j", "2", "--json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reads = 0
    while proc.poll() is None:
        if (cfg.results / "results.sqlite").exists():
            seen = golfref("standings", str(cfg.results), "--json")
            assert seen.returncode == 0, seen.stderr
            reads += 1
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(cfg.results / "results.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        rows = db.execute("SELECT match_index FROM matches ORDER BY match_index").fetchall()
    assert [r[0] for r in rows] == list(range(36))
    assert json.loads(golfref("standings", str(cfg.results), "--json").stdout)["matches"] == 36


def test_standings_of_a_directory_without_results_is_a_one_line_error(tmp_path: Path) -> None:
    done = golfref("standings", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip() == f"golfref: error: {tmp_path}: no tournament results here (no results.sqlite)"


def test_the_quick_form_needs_two_players(tmp_path: Path) -> None:
    done = golfref("tournament", "--bot", "x=python3 bot.py")
    assert done.returncode == 2
    assert "needs at least two players" in done.stderr


def test_the_quick_form_takes_set_as_golfref_rules_does(tmp_path: Path) -> None:
    out = tmp_path / "quick"
    args = ["tournament", "--builtin", "g=greedy", "--builtin", "r=random", "--deal-sets", "1", "-q"]
    done = golfref(*args, "--set", "layout=2x2", "-s", "holes=1", "--results", str(out))
    assert done.returncode == 0, done.stderr
    logs = sorted((out / "logs").glob("*.json"))
    assert logs and {json.loads(p.read_text())["rules"]["layout"] for p in logs} == {"2x2"}
    assert {len(json.loads(p.read_text())["holes"]) for p in logs} == {1}
    bad = golfref(*args, "--set", "knocking=maybe", "--results", str(tmp_path / "bad"))
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "golfref: error: <command line>:4: rules.knocking: expected on or off, got 'maybe'"
    config = write(tmp_path, config_text(BUILTINS[:2]))
    refused = golfref("tournament", str(config), "--set", "holes=1")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"golfref: error: --set goes with a quick tournament (--bot, --builtin): change {config}'s rules: instead"
    )


# -- the gate ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("player", "baseline", "code"), [("a", "b", 0), ("b", "a", 1)])
def test_the_gate_decides_the_exit_code(tmp_path: Path, player: str, baseline: str, code: int) -> None:
    # a (greedy) beats b (random) by several points a hole: a passes against b, b fails against a.
    extra = f"gate: {{player: {player}, baseline: {baseline}, margin: 0.5, confidence: 0.9}}\n"
    done = golfref("tournament", str(write(tmp_path, config_text(BUILTINS[:2], extra, deal_sets=5))), "-q")
    assert done.returncode == code, done.stdout + done.stderr
    gate_lines = [line for line in done.stdout.splitlines() if line.startswith("gate: ")]
    assert len(gate_lines) == 1
    assert gate_lines[0].startswith(f"gate: {'pass' if code == 0 else 'fail'}: {player} - {baseline} = ")
    assert "90% CI" in gate_lines[0]


QUICK = ["tournament", "--builtin", "g=greedy", "--builtin", "r=random", "--deal-sets", "4", "-q"]


@pytest.mark.parametrize(
    ("gate", "code", "verdict"),
    [
        ("g <= r + 0.5 @ 95%", 0, "pass: g - r = "),
        ("r <= g + 0.5", 1, "fail: r - g = "),
        # A margin no data can clear in 4 deal sets: "not enough data" is no pass.
        ("g <= r + 0 @ 99.99%", 1, "not enough data: g - r = "),
    ],
)
def test_the_gate_option_decides_the_exit_code_both_ways(tmp_path: Path, gate: str, code: int, verdict: str) -> None:
    done = golfref(*QUICK, "--results", str(tmp_path / "q"), "--gate", gate, "--json")
    assert done.returncode == code, done.stderr
    data = json.loads(done.stdout)
    assert data["gate"]["verdict"] == verdict.split(":")[0]
    # Beside JSON the verdict is one line on stderr, the exit code's reason.
    assert done.stderr.splitlines() == [f"golfref: gate: {data['gate']['message']}"]
    assert data["gate"]["message"].startswith(verdict)
    # The same gate on the stored results: standings gives the same verdict and exit code.
    again = golfref("standings", str(tmp_path / "q"), "--gate", gate)
    assert again.returncode == code
    assert again.stdout.splitlines()[-1] == f"gate: {data['gate']['message']}"


def test_gate_options_that_make_no_sense_are_one_line_errors(tmp_path: Path) -> None:
    for gate, message in [
        ("g >= r", "--gate 'g >= r': expected PLAYER <= BASELINE [+ MARGIN] [@ CONFIDENCE%]"),
        ("g <= x", "--gate 'g <= x': 'x' is not one of the players (g, r)"),
        ("g <= r @ 40%", "the confidence is a percentage between 50 and 100, got 40%"),
        ("g <= g", "the baseline must be another player"),
    ]:
        done = golfref(*QUICK, "--results", str(tmp_path / "q"), "--gate", gate)
        assert done.returncode == 2
        assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "q").exists()  # refused before any match


def test_parse_gate_reads_the_documented_form() -> None:
    assert parse_gate("new <= old + 0.5 @ 95%") == GateRule("new", "old", 0.5, 0.95)
    assert parse_gate("py greedy<=greedy+1@90") == GateRule("py greedy", "greedy", 1.0, 0.9)
    assert parse_gate("new <= old") == GateRule("new", "old", 0.0, GateRule("x", "y").confidence)


def test_the_sprt_stops_a_clear_tournament_early(tmp_path: Path) -> None:
    # Greedy against random differ by far more than d1 - d0: with loose error rates the test
    # is decided after a few deal sets, long before the 30 scheduled.
    extra = "stop: {sprt: {player: a, baseline: b, d0: 0, d1: -3, alpha: 0.2, beta: 0.2}}\n"
    path = write(tmp_path, config_text(BUILTINS[:2], extra, deal_sets=30))
    done = golfref("tournament", str(path), "-q", "-j", "2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["stopped_by"] == "sprt"
    assert data["sprt"]["state"] == "H1" and data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert data["sprt"]["blocks"] < 30 and data["matches"] < 60
    assert done.stderr.startswith("golfref: stopped early: SPRT accept H1 (diff = -3): LLR +")
    # Run again: the decided test plays nothing more, and says why in the text output.
    again = golfref("tournament", str(path), "-q")
    assert again.returncode == 0
    assert "stopped early: SPRT accept H1" in again.stdout
    with Store(tmp_path / "out", create=False) as store:
        assert len(store.records()) == data["matches"]


def test_the_final_output_has_every_table(tmp_path: Path) -> None:
    done = golfref(*QUICK, "--results", str(tmp_path / "q"))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for heading in ("standings", "pairwise: A - B per hole", "seats: score per hole by seat"):
        assert f"\n\n{heading}" in text
    assert re.search(r"^1  g  .*\n2  r  ", text, flags=re.M)
    assert re.search(r"^g  r\s+4\s+-\d+\.\d{3}\s+\[-\d+\.\d\d, -\d+\.\d\d\]\s+100\.0%", text, flags=re.M)
    assert re.search(r"^\s+0\s+72\s", text, flags=re.M) and re.search(r"^\s+1\s+72\s", text, flags=re.M)  # 8 x 9 holes
    assert re.search(r"^duplicate deals: paired SD / unpaired SD \d\.\d\d over 1 pair: ", text, flags=re.M)


def test_standings_json_and_csv_from_a_real_directory(tmp_path: Path) -> None:
    assert golfref(*QUICK, "--results", str(tmp_path / "q")).returncode == 0
    data = json.loads(golfref("standings", str(tmp_path / "q"), "--json").stdout)
    assert data["matches"] == 8 and data["stats"]["deal_sets"] == 4
    assert [p["name"] for p in data["stats"]["players"]] == ["g", "r"]
    assert data["stats"]["pairs"][0]["diff"]["n"] == 4
    ratio = data["stats"]["pairs"][0]["sd_ratio"]
    assert data["duplicate_deals"]["pooled_sd_ratio"] == pytest.approx(ratio)
    assert data["duplicate_deals"]["variance_reduction"] == pytest.approx(1 - ratio**2)
    assert (data["gate"], data["sprt"]) == (None, None)
    rows = list(csv.reader(io.StringIO(golfref("standings", str(tmp_path / "q"), "--csv", "standings").stdout)))
    assert rows[0][:3] == ["rank", "player", "ordinal"] and [r[1] for r in rows[1:]] == ["g", "r"]
    assert float(rows[1][7]) == pytest.approx(data["stats"]["players"][0]["score_per_hole"]["mean"])
    rows = list(csv.reader(io.StringIO(golfref("standings", str(tmp_path / "q"), "--csv", "pairwise").stdout)))
    assert rows[0][:4] == ["a", "b", "deal_sets", "diff_per_hole"] and rows[1][:3] == ["g", "r", "4"]
    bad = golfref("standings", str(tmp_path / "q"), "--csv", "seats")
    assert bad.returncode == 2
    assert bad.stderr == "golfref: error: --csv 'seats': the tables are standings and pairwise\n"


def test_junit_of_a_real_tournament_is_valid_and_quotes_a_crashing_bots_stderr(tmp_path: Path) -> None:
    script = json.dumps(str(BOTS / "bad_bot.py"))
    crasher = f"{{name: q, command: [{json.dumps(sys.executable)}, {script}, crash-at-startup]}}"
    extra = "gate: {player: q, baseline: a, margin: 0.5}\n" + NO_SANDBOX
    path = write(tmp_path, config_text(BUILTINS[:1] + [crasher], extra, deal_sets=2))
    junit = tmp_path / "junit.xml"
    done = golfref("tournament", str(path), "-q", "--junit", str(junit))
    # q is disqualified at every start and the fallback (greedy) plays its seat: a faulted
    # match is a failed test case, but the scores, and so the gate, are greedy's.
    assert done.returncode == 0, done.stderr
    SCHEMA.validate(str(junit))
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert (suite.get("tests"), suite.get("failures")) == ("5", "4")  # 4 matches, each faulted, and the gate
    failure = cases[0].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("message") == "seat 1 (q): 1 fault(s), disqualified"
    assert "RuntimeError: bad_bot: crashing at startup on purpose" in failure.text
    assert f"log: {tmp_path / 'out' / 'logs'}" in failure.text
    assert cases[-1].get("name", "").startswith("gate: q not worse than a") and cases[-1].find("failure") is None
    # standings writes the same file from the store.
    again = tmp_path / "again.xml"
    assert golfref("standings", str(tmp_path / "out"), "--junit", str(again), "--gate", "q <= a + 0.5").returncode == 0
    assert again.read_bytes() == junit.read_bytes()


# -- the executor ------------------------------------------------------------------------------


def _stopped_at_set_up(job: Any) -> Any:
    raise KeyboardInterrupt  # as a stop signal raises in a worker outside run_match's own handling


def _broken(job: Any) -> Any:
    raise ValueError("a bug")


def test_a_stop_that_comes_just_after_a_match_ended_keeps_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stop signal (a SIGINT from an SPRT stop or Ctrl-C) lands after run_match let go of a
    # finished match: the match is kept now, not left for a resume to find (which made a
    # stopped run report fewer matches than its store then held).
    import golfref.executor as executor

    play = executor._play

    def finished_then_stopped(job: MatchJob) -> Any:
        play(job)
        raise KeyboardInterrupt

    cfg = parse_tournament(config_text(BUILTINS[:2], deal_sets=1), base_dir=tmp_path)
    jobs = [MatchJob(s.index, s.deal_set, match_config(cfg, s), tmp_path / s.log_name) for s in schedule(cfg)]
    monkeypatch.setattr(executor, "_play", finished_then_stopped)
    outcomes = [executor.play(job) for job in jobs]
    assert all(o.record is not None and not o.interrupted for o in outcomes), outcomes
    # A match stopped before it ended is not played: nothing of it is kept.
    monkeypatch.setattr(executor, "_play", _stopped_at_set_up)
    jobs[0].log_path.unlink()
    assert executor.play(jobs[0]).interrupted


def test_a_stop_that_escapes_a_match_counts_as_not_played_but_a_bug_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import golfref.executor as executor

    cfg = parse_tournament(config_text(BUILTINS[:2], deal_sets=1), base_dir=tmp_path)
    jobs = [MatchJob(s.index, s.deal_set, match_config(cfg, s), tmp_path / s.log_name) for s in schedule(cfg)]
    monkeypatch.setattr(executor, "_play", _stopped_at_set_up)  # the workers are forked: they see it too
    runner = executor.LocalExecutor(2)
    try:
        # Not played: each comes back interrupted, with no record, and is no error.
        outcomes = list(runner.run(jobs))
        assert outcomes and all(o.record is None and o.interrupted for o in outcomes), outcomes
    finally:
        runner.close()
    monkeypatch.setattr(executor, "_play", _broken)
    runner = executor.LocalExecutor(1)
    try:
        with pytest.raises(ValueError, match="a bug"):
            list(runner.run(jobs))
    finally:
        runner.close()
    runner = executor.LocalExecutor(1)
    try:
        outcomes = runner.run(jobs)
        runner.stop()  # once stopping, whatever a worker raised is a match cut short
        assert list(outcomes) == []
    finally:
        runner.close()


# -- the docs ----------------------------------------------------------------------------------

TOURNAMENTS_MD = (ROOT / "docs" / "TOURNAMENTS.md").read_text(encoding="utf-8")


def _blocks(text: str, fence: str) -> list[str]:
    return re.findall(rf"^```{fence}\n(.*?)^```$", text, flags=re.M | re.S)


def _ci_directory(tmp_path: Path) -> Path:
    """A repository as the CI example assumes it: ci/gate.yaml from the docs, and two bots."""
    (config,) = [b for b in _blocks(TOURNAMENTS_MD, "yaml") if b.startswith("# ci/gate.yaml\n")]
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "gate.yaml").write_text(config, encoding="utf-8")
    (tmp_path / "bots").mkdir()
    for name, sample in (("new_bot.py", "greedy_bot.py"), ("old_bot.py", "random_bot.py")):
        (tmp_path / "bots" / name).write_bytes((ROOT / "sample_matches" / "bots" / sample).read_bytes())
    # The greedy bot's protocol library, next to it as in a bot author's repository.
    (tmp_path / "bots" / "golfbot.py").write_bytes((ROOT / "sample_matches" / "bots" / "golfbot.py").read_bytes())
    return tmp_path


def _run_as_written(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    assert argv[0] == "golfref"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*GOLFREF, *argv[1:]], capture_output=True, text=True, cwd=cwd, timeout=300, env=env)


def test_the_ci_gate_example_works_as_written(tmp_path: Path) -> None:
    (workflow,) = [b for b in _blocks(TOURNAMENTS_MD, "yaml") if b.startswith("# .github/workflows/")]
    steps = yaml.safe_load(workflow)["jobs"]["bot-gate"]["steps"]
    (command,) = [s["run"] for s in steps if s.get("run", "").startswith("golfref tournament")]
    cwd = _ci_directory(tmp_path)
    done = _run_as_written(command, cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^gate: pass: new - old = -\d+\.\d{3} points per hole", done.stdout, flags=re.M)
    SCHEMA.validate(str(cwd / "gate.xml"))
    assert (cwd / "tournaments" / "gate" / "results.sqlite").is_file()
    # The same gate on the command line, without the config.
    (quick,) = [b.strip() for b in _blocks(TOURNAMENTS_MD, "text") if b.startswith("golfref tournament --bot new=")]
    done = _run_as_written(quick, cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^gate: pass: new - old = ", done.stdout, flags=re.M)
    SCHEMA.validate(str(cwd / "gate.xml"))


def test_the_readme_tournament_example_prints_what_the_readme_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from golfref.cli import app

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in _blocks(readme, "text") if b.startswith("$ golfref tournament ")]
    command, *expected = block.splitlines()
    monkeypatch.chdir(tmp_path)  # the quick form's directory is made under the current one
    result = CliRunner().invoke(app, shlex.split(command[2:])[1:])
    assert result.exit_code == 0, result.output
    assert [line.rstrip() for line in result.output.splitlines()] == expected
