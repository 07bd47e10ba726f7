"""golfref/show/summary.py: what `golfref score` and `golfref run` print, built in the library."""

from __future__ import annotations

from pathlib import Path

import pytest

from golfref.game.cards import Card, parse_grid
from golfref.game.rules import Rules, resolve_rules
from golfref.game.scoring import GridScore, score_grid
from golfref.match.referee import MatchResult
from golfref.record.faults import FLUSH_FIXES, Fault, FaultKind, SeatStatus, fault_hint, silence_hint
from golfref.record.log import read_log
from golfref.record.stderr import TERMINAL_STDERR_LINES as STDERR_TAIL
from golfref.show.summary import fault_lines, score_json, score_lines, standings_lines, summary_json

HOSTILE = "\x1b[31mevil[bold]x[/]"


def scored(text: str, preset: str, **overrides: object) -> tuple[tuple[tuple[Card, ...], ...], GridScore, Rules]:
    grid = parse_grid(text)
    rules = resolve_rules(preset, {"layout": f"{len(grid)}x{len(grid[0])}", **overrides})
    return grid, score_grid([c.rank for row in grid for c in row], rules), rules


def test_score_lines_explain_names_lines_blocks_and_points() -> None:
    grid, result, rules = scored("5S 5H 5D / 5C 5S 3D", "classic", block_bonus=-20)
    lines = score_lines(grid, result, rules, explain=True)
    assert lines[0] == str(result.total)
    assert "block: 5♠ 5♥ 5♣ 5♠ scores -20" in lines
    assert lines[-2:] == ["5♠  -5   5♥  -5   5♦   5", "5♣  -5   5♠  -5   3♦   3"]
    assert score_lines(grid, result, rules, explain=False) == [lines[0]]


def test_score_json_has_points_by_row() -> None:
    grid, result, _ = scored("7S KH 5D / 7C 2S QD", "classic")
    data = score_json(grid, result, "classic")
    assert data == {
        "score": 13,
        "layout": "2x3",
        "preset": "classic",
        "points": [[0, 0, 5], [0, -2, 10]],
        "cancelled": [{"kind": "column", "index": 0, "slots": [0, 3]}],
        "blocks": [],
    }


@pytest.fixture()
def result() -> MatchResult:
    fault = Fault(0, FaultKind.NOT_JSON, f"bad {HOSTILE}", HOSTILE * 20, 1, 7, 12)
    stderr = "".join(f"line {i}\n" for i in range(STDERR_TAIL + 3)) + HOSTILE + "\n"
    log = read_log(Path(__file__).parent / "logs" / "standard_2p.json")  # a whole log: read as a log is
    log.update(match_id="m-1", seed=4)
    log["players"][0]["stderr"], log["players"][1]["stderr"] = stderr, ""
    return MatchResult(
        log_path=Path("logs/m.json"),
        log=log,
        names=(HOSTILE, "bob"),
        hole_scores=((3, 5), (9, 1)),
        totals=(12, 6),
        placings=(2, 1),
        statuses=(SeatStatus.FAULTED, SeatStatus.OK),
        faults=(fault,),
    )


def test_standings_lines_best_first_with_faults_escaped(result: MatchResult) -> None:
    lines = standings_lines(result)
    name = "\\x1b[31mevil[bold]x[/]"  # printed literally: no escape, rich markup left as text
    assert lines[0].split() == ["place", "player", "0", "1", "total", "status"]
    assert lines[1].split() == ["1", "bob", "5", "1", "6", "ok"]
    assert lines[2].split() == ["2", name, "3", "9", "12", "faulted", "(1", "fault)"]
    assert lines[3] == f"fault: {name}: not_json (hole 1, request 7): bad {name}"
    assert lines[-1] == "log: logs/m.json"
    assert not any("\x1b" in line for line in lines)


def test_fault_report_shows_the_line_a_hint_and_the_stderr_tail(result: MatchResult) -> None:
    lines = fault_lines(result)
    assert lines[0].startswith("golfref: \\x1b[31mevil[bold]x[/] (seat 0): not_json: bad ")
    assert lines[1].startswith("  the line: ") and lines[1].endswith("...")
    assert lines[2].startswith("  hint: ")
    assert lines[3] == "  its stderr ends with:"
    assert len(lines[4:]) == STDERR_TAIL and lines[-1] == "    \\x1b[31mevil[bold]x[/]"
    assert not any("\x1b" in line for line in lines)


def test_summary_json(result: MatchResult) -> None:
    data = summary_json(result)
    assert data["match_id"] == "m-1" and data["log"] == "logs/m.json" and data["seed"] == 4
    hint = "bots print only protocol lines on stdout; write debug output to stderr"
    first = {**result.faults[0].to_json(), "hint": hint}
    tail = [f"line {i}" for i in range(3, STDERR_TAIL + 3)] + [HOSTILE]
    assert data["players"][0] == {
        "seat": 0, "name": HOSTILE, "status": "faulted", "faults": 1, "fault_kinds": {"not_json": 1},
        "first_fault": first, "stderr_tail": tail[-STDERR_TAIL:], "holes": [3, 9], "total": 12, "place": 2,
    }  # fmt: skip
    assert data["players"][1]["fault_kinds"] == {} and data["players"][1]["first_fault"] is None
    assert data["faults"] == [result.faults[0].to_json()]


def test_several_faults_are_counted_by_kind_in_the_text_and_the_json(result: MatchResult) -> None:
    import dataclasses

    more = (
        *result.faults,
        Fault(0, FaultKind.TIMEOUT, "no answer in time", None, 1, 8, 20),
        Fault(0, FaultKind.NOT_JSON, "not JSON", "x", 1, 9, 30),
    )
    several = dataclasses.replace(result, faults=more)
    lines = fault_lines(several)
    assert lines[0].startswith("golfref: \\x1b[31mevil[bold]x[/] (seat 0): not_json (and 2 more): bad ")
    assert lines[1] == "  faults by kind: not_json 2, timeout 1"
    data = summary_json(several)
    assert data["players"][0]["fault_kinds"] == {"not_json": 2, "timeout": 1}
    assert data["players"][0]["first_fault"]["request"] == 7  # the first fault, as the text shows it


def test_a_bot_never_heard_gets_the_flush_fix_of_each_language() -> None:
    # The one place for these words is golfref.record.faults.FLUSH_FIXES; check-bot uses them too.
    startup = Fault(0, FaultKind.TIMEOUT, "no ready within the time limit", None, None, None, 10_100)
    hint = fault_hint(startup)
    assert hint == silence_hint("ready") and hint.startswith("no ready arrived: is each line the bot prints flushed? ")
    for language, fix in FLUSH_FIXES:
        assert f"{language}: {fix}" in hint
    late = Fault(0, FaultKind.TIMEOUT, "no answer to request 3 within the time limit", None, 0, 3, 20_000)
    assert fault_hint(late) == "a bot must answer within time_ms and flush each line it prints"
