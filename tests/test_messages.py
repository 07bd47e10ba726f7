"""Messages a newcomer can act on (issue 20): suggestions for typos, locations that exist,
problems found before any bot starts, one exit status per kind of failure, help texts about
their own command, and one counting base for every index shown.

Commands run in process through typer's runner (`golfref.cli.app.app`), as the other CLI tests do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.cli.exits import EXIT_OK, EXIT_USAGE
from golfref.config.match import ConfigError, missing_script, parse_config
from golfref.config.tournament import parse_tournament

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "logs"
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def problems(text: str, tmp_path: Path, tournament: bool = False) -> list[str]:
    """Every problem a config's first check reports, in order."""
    parse = parse_tournament if tournament else parse_config
    with pytest.raises(ConfigError) as info:
        parse(text, source="c.yaml", base_dir=tmp_path)
    return list(info.value.errors)


# -- did you mean ------------------------------------------------------------------------------


def test_a_misspelt_preset_builtin_or_option_value_gets_a_suggestion(tmp_path: Path) -> None:
    text = (
        "rules:\n  preset: clasic\n  holse: 3\n"
        "players:\n  - {name: a, builtin: gredy}\n  - {name: b, builtin: random}\n"
    )
    assert problems(text, tmp_path) == [
        "c.yaml:2: rules.preset: 'clasic' is not one of: standard, classic, knock, arena; did you mean 'classic'?",
        # a bad preset no longer hides a misspelt option until it is fixed
        "c.yaml:3: rules.holse: unknown rule option 'holse'; did you mean 'holes'?",
        "c.yaml:5: players[0].builtin: 'gredy' is not one of: random, greedy, good, expert, human; "
        "did you mean 'greedy'?",
    ]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("reveal=flp", "reveal: expected one of peek, flip; got 'flp'; did you mean 'flip'?"),
        ("swap_face=dwn", "swap_face: expected up or down, got 'dwn'; did you mean 'down'?"),
        ("knocking=of", "knocking: expected on or off, got 'of'; did you mean 'off'?"),
        (
            "flip_after_throw=mst",
            "flip_after_throw: expected one of none, may, must, endgame; got 'mst'; did you mean 'must'?",
        ),
        ("reveal=zzzzzz", "reveal: expected one of peek, flip; got 'zzzzzz'"),  # nothing close: no guess
    ],
)
def test_a_misspelt_option_value_on_the_command_line_gets_a_suggestion(option: str, message: str) -> None:
    code, out, err = invoke("rules", "--set", option)
    assert (code, out, err) == (EXIT_USAGE, "", f"golfref: error: {message}\n")


def test_duplicate_names_come_with_the_first_batch_of_a_tournament_s_problems(tmp_path: Path) -> None:
    text = (
        "tournament: t\nrules:\n  holes: many\n"
        "players:\n  - {name: a, builtin: greedy}\n  - {name: a, builtin: random}\ndeal_sets: zero\n"
    )
    assert problems(text, tmp_path, tournament=True) == [
        "c.yaml:3: rules.holes: expected a whole number from 1 to 36, got 'many'",
        "c.yaml:6: players[1].name: name 'a' is already used by players[0]",
        "c.yaml:7: deal_sets: 'zero' is not of type 'integer'",
    ]


# -- locations that exist ----------------------------------------------------------------------


def test_play_names_the_option_not_a_line_of_yaml_its_user_never_saw() -> None:
    code, out, err = invoke("play", "--against", "no-such-program-here", "--preset", "clasic", "--set", "holse=3")
    assert code == EXIT_USAGE and out == ""
    assert err.splitlines() == [
        "golfref: error: golfref play: --preset: 'clasic' is not one of: standard, classic, knock, arena; "
        "did you mean 'classic'?",
        "golfref: error: golfref play: --set holse: unknown rule option 'holse'; did you mean 'holes'?",
        "golfref: error: golfref play: --against: program 'no-such-program-here' is not on PATH",
    ]
    assert "golfref play:" not in err.replace("golfref play: --", "")


def test_a_quick_tournament_names_its_options_too(tmp_path: Path) -> None:
    code, out, err = invoke(
        "tournament", "--bot", "a=no-such-program-here", "--builtin", "b=gredy", "--preset", "clasic",
        "--results", str(tmp_path / "t"),
    )  # fmt: skip
    assert (code, out) == (EXIT_USAGE, "")
    assert err.splitlines() == [
        "golfref: error: golfref tournament: --preset: 'clasic' is not one of: standard, classic, knock, arena; "
        "did you mean 'classic'?",
        "golfref: error: golfref tournament: --bot a: program 'no-such-program-here' is not on PATH",
        "golfref: error: golfref tournament: --builtin b: 'gredy' is not one of: random, greedy, good, expert; "
        "did you mean 'greedy'?",
    ]
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "--builtin", "a=random", "--builtin", "b=greedy"],
        ["play", "--against", "python3 no-such-bot.py"],
    ],
    ids=["tournament", "play"],
)
def test_a_bad_entry_of_a_table_option_names_its_set(args: list[str], tmp_path: Path) -> None:
    code, out, err = invoke(*args, "--set", "card_values=10:x", "--set", "holes=1")
    assert (code, out) == (EXIT_USAGE, "")
    assert f"golfref {args[0]}: --set card_values: 10: expected a whole number from -100 to 100, got 'x'" in err


@pytest.mark.parametrize("item", ["card_values=10:1", "card_values=K:-2,10:1", "exact_score=21:0", "suit_values=JH:0"])
def test_set_values_reach_a_config_as_written(item: str, tmp_path: Path) -> None:
    # play and the quick tournament write their --set into a config's YAML, read back as a config is.
    import yaml

    from golfref.cli.options import parse_sets
    from golfref.game.rules import resolve_rules

    overrides = parse_sets([item])
    players = [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "greedy"}]
    text = yaml.safe_dump({"rules": {"preset": "classic", **overrides}, "players": players})
    assert parse_config(text, source="c.yaml", base_dir=tmp_path).rules == resolve_rules("classic", overrides)


# -- found before any bot starts -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "missing"),
    [
        ([sys.executable, "bot.py"], "bot.py"),
        ([sys.executable, "-u", "-X", "dev", "bots/bot.py", "--fast"], "bots/bot.py"),
        (["node", "--require", "x", "bot.js"], "bot.js"),
        (["java", "-Xmx1g", "-jar", "bot.jar"], "bot.jar"),
        (["bash", "run.sh"], "run.sh"),
        ([sys.executable, "-c", "print(1)"], None),
        ([sys.executable, "-mbot"], None),
        ([sys.executable, "-m", "bot"], None),
        (["node", "-e", "1"], None),
        (["./my-bot", "no-file-meant"], None),  # not an interpreter: its arguments are its own
    ],
)
def test_a_missing_script_is_named_before_any_bot_starts(
    tmp_path: Path, command: list[str], missing: str | None
) -> None:
    problem = missing_script(command, tmp_path)
    if missing is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith(f"no such file: {missing} ") and str(tmp_path) in problem
        (tmp_path / missing).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / missing).write_text("", encoding="utf-8")
        assert missing_script(command, tmp_path) is None


def test_check_config_reports_a_misspelt_script(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("", encoding="utf-8")
    config = tmp_path / "m.yaml"
    config.write_text(
        f"players:\n  - {{name: a, command: [{sys.executable}, bto.py]}}\n  - {{name: b, builtin: greedy}}\n",
        encoding="utf-8",
    )
    code, out, err = invoke("check-config", str(config))
    assert (code, out) == (EXIT_USAGE, "")
    assert err == (
        f"golfref: error: {config}:2: players[0].command: no such file: bto.py "
        f"(the script {sys.executable} runs; looked in {tmp_path})\n"
    )


def test_check_bot_names_a_missing_script_before_starting_anything(tmp_path: Path) -> None:
    code, out, err = invoke("check-bot", "--", sys.executable, str(tmp_path / "bto.py"))
    assert (code, out) == (EXIT_USAGE, "")
    assert err == (
        f"golfref: error: the bot's command: no such file: {tmp_path / 'bto.py'} "
        f"(the script {sys.executable} runs; looked in {Path.cwd()})\n"
    )


def test_log_may_be_given_as_a_path_and_a_tournament_says_where_its_logs_go(tmp_path: Path) -> None:
    players = "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\n"
    config = parse_config(f"log: out/{{match}}.json\n{players}", source="c.yaml", base_dir=tmp_path)
    assert config.log.path == "out/{match}.json"
    assert problems(f"tournament: t\nlog: out/x.json\n{players}", tmp_path, tournament=True) == [
        "c.yaml:2: log: unknown key 'log' (a tournament writes every match's log into its results folder: "
        "results: DIR)"
    ]


def test_keygen_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    code, out, err = invoke("keygen", str(tmp_path / "no" / "key"))
    assert (code, out) == (EXIT_USAGE, "")
    assert err == (
        f"golfref: error: keygen: {tmp_path / 'no' / 'key'}: no such folder: {tmp_path / 'no'} "
        "(golfref keygen creates no folders)\n"
    )
    assert not (tmp_path / "no").exists()


# -- one exit status per kind of failure ----------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["run", "{missing}"],
        ["check-config", "{missing}"],
        ["tournament", "{missing}"],
        ["replay", "{missing}"],
        ["replay", "--check", "{missing}"],
        ["audit", "{missing}"],
        ["replay-bot", "{missing}", "--seat", "0"],
        ["check-bot", "{missing}", "--player", "x"],
        ["standings", "{missing}"],
    ],
    ids=lambda args: " ".join(a for a in args if a != "{missing}"),
)
def test_a_missing_file_is_exit_2_in_every_command(tmp_path: Path, args: list[str]) -> None:
    missing = str(tmp_path / "nothing-here")
    code, out, err = invoke(*(missing if a == "{missing}" else a for a in args))
    assert code == EXIT_USAGE, (out, err)
    assert "no such file" in err + out or "no tournament results here" in err


@pytest.mark.parametrize("command", [["replay"], ["replay", "--check"], ["audit"], ["replay-bot", "--seat", "0"]])
def test_json_that_is_not_a_golfref_log_is_exit_2_and_says_so(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "package.json"
    path.write_text(json.dumps({"name": "my-bot", "version": "1.0.0"}), encoding="utf-8")
    args = [command[0], *command[1:2], str(path), *command[2:]] if command[0] != "replay-bot" else [
        "replay-bot", str(path), *command[1:]
    ]
    code, out, err = invoke(*args)
    assert code == EXIT_USAGE
    assert 'not a golfref log: a JSON object without the "format": "golfref-log" field' in out + err


# -- help texts about their own command ----------------------------------------------------------


def test_each_help_text_is_about_its_own_command() -> None:
    _, play, _ = invoke("play", "--help")
    assert "log.path" not in play and "--strict" not in play and "tournament" not in play
    _, check, _ = invoke("check-config", "--help")
    assert "Write the log here" not in check and "Check this log path" in check
    _, run, _ = invoke("run", "--help")
    assert "tournament" not in run
    _, standings, _ = invoke("standings", "--help")
    assert "config's gate" not in standings


@pytest.mark.parametrize(
    "command",
    ["run", "play", "check-config", "tournament", "standings", "replay", "audit", "check-bot", "replay-bot",
     "keygen", "score", "rules"],
)  # fmt: skip
def test_every_command_lists_its_exit_codes_in_its_help(command: str) -> None:
    code, out, _ = invoke(command, "--help")
    assert code == EXIT_OK
    assert "Exit codes:" in out and "\n      0  " in out


# -- one counting base ---------------------------------------------------------------------------


def test_cancelled_lines_and_grid_rows_count_from_0_as_everything_else() -> None:
    code, out, _ = invoke("score", "--preset", "classic", "--explain", "7S KH 5D / 7C 2S 5H")
    assert code == EXIT_OK
    assert "cancelled: column 0 (7♠ 7♣)" in out and "cancelled: column 2 (5♦ 5♥)" in out
    code, _, err = invoke("score", "7S KH / 7C ZZ")
    assert code == EXIT_USAGE and err.startswith("golfref: error: grid row 1: cannot read card 'ZZ'")
