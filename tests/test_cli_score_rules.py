"""The `golfref score` and `golfref rules` commands, in-process and as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.game.rules import resolve_rules, rules_from_dict

ROOT = Path(__file__).resolve().parent.parent

runner = CliRunner()

CARLA = "7S KH 5D / 7C 2S QD"


def invoke(*args: str):  # -> click Result
    return runner.invoke(app, list(args))


def assert_usage_error(result, *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line starting `golfref: error:`."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("golfref: error: "), lines[0]
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --- score ------------------------------------------------------------------------------


def test_score_carla_classic_prints_13_first() -> None:
    result = invoke("score", "--preset", "classic", CARLA)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "13"
    assert result.stderr == ""


def test_score_short_preset_option_and_default_preset() -> None:
    assert invoke("score", "-p", "classic", CARLA).stdout.splitlines() == ["13"]
    assert invoke("score", CARLA).stdout.splitlines() == ["13"]  # standard: columns on 2x3


def test_score_gamehelp_arena_prints_2() -> None:
    result = invoke("score", "--preset", "arena", "KS 6S KH / 4D 6H 2C")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "2"


def test_score_explain_lists_the_cancelled_column() -> None:
    result = invoke("score", "--preset", "classic", "--explain", CARLA)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "13"
    cancelled = [line for line in lines if line.startswith("cancelled:")]
    assert cancelled == ["cancelled: column 0 (7♠ 7♣)"]
    # the per-card table shows the queen's 10 and the two's -2
    assert any("Q♦" in line and "10" in line for line in lines)
    assert any("2♠" in line and "-2" in line for line in lines)


def test_score_explain_lists_a_block() -> None:
    result = invoke("score", "--preset", "classic", "--set", "block_bonus=on", "--explain", "7S 7H / 7D 7C")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "-20"
    assert any(line.startswith("block:") and "-20" in line for line in lines)


def test_score_json_gives_an_object_with_score() -> None:
    result = invoke("score", "--preset", "classic", "--json", CARLA)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    assert data["score"] == 13
    assert data["layout"] == "2x3"
    assert data["preset"] == "classic"
    assert data["points"] == [[0, 0, 5], [0, -2, 10]]
    assert data["cancelled"] == [{"kind": "column", "index": 0, "slots": [0, 3]}]
    assert data["blocks"] == []


def test_score_layout_follows_grid_shape() -> None:
    """standard on 3x3 cancels rows too: the grid's shape sets the layout."""
    assert invoke("score", "7 7 7 / 3 4 5 / 6 8 9").stdout.splitlines()[0] == "35"
    assert invoke("score", "-p", "classic", "7 7 7 / 3 4 5 / 6 8 9").stdout.splitlines()[0] == "56"


@pytest.mark.parametrize(
    ("grid", "needle"),
    [
        ("7S ZZ 5D / 7C 2S QD", "'ZZ'"),  # bad card
        ("7S KH 5D / 7C 2S", "different lengths"),  # ragged rows
        ("7S KH 5D / 7C 2S QD 4H", "different lengths"),
        ("7S KH / ", "row 1"),  # empty row
        ("/ 7S KH", "row 0"),
        ("7S KH // 7C 2S", "row 1"),
        ("", "row 0"),  # empty grid
        ("7S 1H", "'1H'"),
        ("XS 3H", "'XS'"),
        ("7S#9 3H", "'7S#9'"),
    ],
)
def test_score_malformed_grid_is_a_one_line_usage_error(grid: str, needle: str) -> None:
    assert_usage_error(invoke("score", "--preset", "classic", grid), needle)


@pytest.mark.parametrize("grid", ["7S#² 3H", "7S#³ 3H / 4D 5C"])
def test_score_bad_deck_digit_is_a_usage_error_not_a_crash(grid: str) -> None:
    """BUG (cards.parse_card): `int('²')` raises a bare ValueError that score does not catch."""
    result = invoke("score", "--preset", "classic", grid)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert_usage_error(result)


@pytest.mark.parametrize(
    "grid",
    ["7 7 7 7 7", "7 / 7 / 7 / 7 / 7"],
)
def test_score_grid_larger_than_4_is_a_usage_error(grid: str) -> None:
    assert_usage_error(invoke("score", grid), "layout")


def test_score_unknown_set_option_is_a_usage_error_with_suggestion() -> None:
    assert_usage_error(
        invoke("score", "--preset", "classic", "--set", "jokres=-5", CARLA), "'jokres'", "did you mean 'jokers'"
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--set", "jokers"], "KEY=VALUE"),
        (["--set", "=3"], "KEY=VALUE"),
        (["--set", "twos=3"], "twos"),
        (["--set", "lines=columns+rows+diagonals"], "diagonal"),
        (["--set", "layout=2x3"], "layout"),
        (["--preset", "clasic"], "did you mean 'classic'"),
    ],
)
def test_score_bad_options_are_usage_errors(args: list[str], needle: str) -> None:
    assert_usage_error(invoke("score", *args, CARLA), needle)


def test_score_joker_with_jokers_off_is_an_error() -> None:
    line = assert_usage_error(invoke("score", "--preset", "classic", "X 3H / 4D 5C"))
    assert "joker" in line.lower()


@pytest.mark.parametrize(
    ("sets", "grid", "expected"),
    [
        (["--set", "jokers=-5"], "X 3H / 4D 5C", "7"),
        (["--set", "jokers=-5"], "XR 3H / XB 5C", "8"),  # the two jokers cancel (D9)
        (["--set", "jokers=on"], "X 3H / 4D 5C", "10"),
        (["--set", "jokers=-5", "--set", "twos=2"], "X 2H / 4D 5C", "6"),
        (["-s", "court_values=11/12"], "JS QH / 3D 4C", "30"),
    ],
)
def test_score_set_options_apply(sets: list[str], grid: str, expected: str) -> None:
    result = invoke("score", "--preset", "classic", *sets, grid)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == expected


# --- rules ----------------------------------------------------------------------------------


def test_rules_arena_2x2_yaml_shows_knocking_and_face_down_swaps() -> None:
    result = invoke("rules", "--preset", "arena", "--set", "layout=2x2")
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    assert data["layout"] == "2x2"
    assert data["knocking"] is True
    assert data["swap_face"] == "down"
    assert data["reveal"] == "peek"
    assert data["decks"] == 1
    assert "knocking: true" in result.stdout.splitlines()
    assert "swap_face: down" in result.stdout.splitlines()


def test_rules_yaml_round_trips_to_the_same_rules() -> None:
    result = invoke("rules", "--preset", "knock", "--players", "5", "--set", "knock_penalty=double")
    data = yaml.safe_load(result.stdout)
    assert rules_from_dict(data) == resolve_rules("knock", {"knock_penalty": "double"}, 5)


def test_rules_json_parses_and_matches_the_library() -> None:
    result = invoke("rules", "--preset", "arena", "--json", "--players", "7", "--set", "layout=3x3")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    expected = resolve_rules("arena", {"layout": "3x3"}, 7)
    assert data == expected.to_dict()
    assert data["decks"] == 3 and data["reveal_count"] == 3 and data["players"] == 7
    assert rules_from_dict(data) == expected


def test_rules_default_is_standard() -> None:
    data = json.loads(invoke("rules", "--json").stdout)
    assert data == resolve_rules("standard").to_dict()
    assert data["reveal"] == "peek" and data["flip_after_throw"] == "must"


@pytest.mark.parametrize("players", ["7", "8"])
def test_rules_standard_with_too_many_players_is_a_usage_error(players: str) -> None:
    assert_usage_error(invoke("rules", "--players", players), "players", "standard")


def test_rules_seven_players_fine_for_classic() -> None:
    result = invoke("rules", "--preset", "classic", "--players", "7", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["decks"] == 2


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--players", "1"], "players"),
        (["--players", "9", "--preset", "classic"], "players"),
        (["--set", "holes=0"], "holes"),
        (["--set", "swap_face_up=down"], "did you mean 'swap_face'"),
        (["--preset", "arena", "--set", "layout=2x3", "--set", "lines=columns+rows+diagonals"], "lines"),
        (["--preset", "classic", "--set", "layout=3x3", "--set", "decks=1", "--players", "6"], "does not fit"),
        (["--set", "layout=2x2", "--set", "reveal_count=5"], "reveal_count"),
        (["--preset", "poker"], "preset"),
    ],
)
def test_rules_bad_config_is_a_one_line_usage_error(args: list[str], needle: str) -> None:
    assert_usage_error(invoke("rules", *args), needle)


# --- --set values of the table options ------------------------------------------------------
# `--set` values are read as YAML 1.2 reads them: YAML 1.1 would read `10:1` as the base-60
# number 601 and `2:5` as 125, so a single entry of card_values or exact_score was refused.


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("card_values", "10:1", {"T": 1}),  # one entry, a 10 (YAML 1.1: 601)
        ("card_values", "2:5", {"2": 5}),  # (YAML 1.1: 125)
        ("card_values", "9:59", {"9": 59}),  # (YAML 1.1: 599)
        ("card_values", "T:1", {"T": 1}),
        ("card_values", "K:-2", {"K": -2}),  # a negative value
        ("card_values", "2:-5", {"2": -5}),
        ("card_values", "K:-2,10:1", {"T": 1, "K": -2}),  # several, as docs/RULES.md writes them
        ("card_values", "10:1,K:0", {"T": 1, "K": 0}),
        ("card_values", "K:-2, T:1", {"T": 1, "K": -2}),
        ("card_values", "{K: -2, 10: 1}", {"T": 1, "K": -2}),  # a config's form
        ("suit_values", "JH:0", {"JH": 0}),
        ("suit_values", "JH:0,JS:0", {"JS": 0, "JH": 0}),
        ("suit_values", "10H:-1", {"TH": -1}),
        ("suit_values", "TH:-1,KS:5", {"TH": -1, "KS": 5}),
        ("suit_values", "{JH: 0, JS: 0}", {"JS": 0, "JH": 0}),
        ("exact_score", "21=0", [21, 0]),
        ("exact_score", "21:0", [21, 0]),  # (YAML 1.1: 1260)
        ("exact_score", "-5:0", [-5, 0]),  # (YAML 1.1: -300)
        ("exact_score", "[21, 0]", [21, 0]),  # a config's form
    ],
)
def test_rules_set_reads_a_table_option_as_written(option: str, value: str, expected: object) -> None:
    result = invoke("rules", "--json", "--set", f"{option}={value}")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[option] == expected


def test_rules_set_card_values_of_a_joker() -> None:
    result = invoke("rules", "--json", "--set", "jokers=on", "--set", "card_values=X:-5")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["card_values"] == {"X": -5}


@pytest.mark.parametrize(
    ("sets", "grid", "expected"),
    [
        (["card_values=10:1"], "TS 5H", "6"),  # 1 + 5
        (["card_values=2:5"], "2S 5H", "10"),
        (["card_values=K:-2,10:1"], "KS 10H", "-1"),
        (["suit_values=JH:0,JS:0"], "JH JD", "10"),
    ],
)
def test_score_set_table_options_apply(sets: list[str], grid: str, expected: str) -> None:
    result = invoke("score", *(arg for item in sets for arg in ("--set", item)), grid)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [expected]


@pytest.mark.parametrize(
    ("item", "needles"),
    [
        ("card_values=K", ["card_values:", "'K'", "K:-2,10:1"]),
        ("card_values=Z:1", ["card_values:", "'Z'"]),
        ("card_values=11:0", ["card_values:", "'11'"]),
        ("card_values=K:abc", ["card_values.K:", "'abc'"]),
        ("card_values=K:200", ["card_values.K:", "200"]),
        ("card_values=K:-2,Q", ["card_values:", "'Q'"]),
        ("card_values=X:1", ["card_values:", "jokers on"]),
        ("card_values=5", ["card_values:", "got 5"]),
        ("suit_values=JH", ["suit_values:", "'JH'", "JH:0,JS:0"]),
        ("suit_values=J:0", ["suit_values:", "'J'"]),
        ("suit_values=JH:x", ["suit_values.JH:", "'x'"]),
        ("exact_score=21", ["exact_score:", "21=0", "got 21"]),
        ("exact_score=21:x", ["exact_score:", "'x'"]),
        ("exact_score=[21]", ["exact_score:", "[21]"]),
    ],
)
def test_rules_set_bad_table_values_are_one_line_naming_the_option_and_the_part(
    item: str, needles: list[str]
) -> None:
    assert_usage_error(invoke("rules", "--set", item), *needles)


# --- a real process ------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "golfref.cli.app", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=60,
    )


@pytest.mark.process
def test_process_score_carla() -> None:
    proc = run_cli("score", "--preset", "classic", "--explain", CARLA)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "13"
    assert "cancelled: column 0 (7♠ 7♣)" in lines


@pytest.mark.process
def test_process_usage_errors_exit_2_with_one_line() -> None:
    for args in (
        ["score", "--preset", "classic", "7S ZZ 5D / 7C 2S QD"],
        ["score", "--set", "nosuch=1", CARLA],
        ["rules", "--players", "7"],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("golfref: error: "), lines


@pytest.mark.process
def test_process_rules_json() -> None:
    proc = run_cli("rules", "--preset", "arena", "--set", "layout=2x2", "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["knocking"] is True and data["swap_face"] == "down"


@pytest.mark.process
def test_process_bad_deck_digit_does_not_crash() -> None:
    """BUG (cards.parse_card): `golfref score "7S#² 3H"` is a malformed grid, so it must be a
    one-line `golfref: error:` with exit 2; parse_card leaks a bare ValueError instead, which
    the score command does not catch (a traceback/exit 1, or "internal error"/exit 3 once
    main() turns stray errors into exit 3)."""
    proc = run_cli("score", "7S#² 3H")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
    assert proc.stderr.startswith("golfref: error: ")
