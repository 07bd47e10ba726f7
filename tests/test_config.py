"""Match configs: YAML text into frozen values, and every bad config as one located error.

A bad config is a table of cases: the YAML text, the line the error must name, the key path
and a fragment of the message. Every `ConfigError` reads `FILE:LINE: key.path: message`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from golfref.config.match import (
    ConfigError,
    FaultMode,
    FaultPolicy,
    LogSpec,
    MatchConfig,
    PlayerSpec,
    TimeControl,
    load_config,
    parse_config,
)
from golfref.game.rules import resolve_rules

SOURCE = "match.yaml"
TWO = "players:\n  - {name: a, builtin: random}\n  - {name: b, builtin: greedy}\n"  # lines 1-3


def seats(n: int) -> str:
    return "players:\n" + "".join(f"  - {{name: p{i}, builtin: random}}\n" for i in range(n))


def parse(text: str, base: Path) -> MatchConfig:
    return parse_config(text, source=SOURCE, base_dir=base)


# (id, YAML text, line, key path or None for a YAML syntax error, message fragment)
BAD = [
    *[
        (
            f"fingerprint-exclude-{case}",
            f"players:\n  - name: a\n    command: [python3]\n    fingerprint: {value}\n" + TWO.split("\n", 2)[2],
            4,
            f"players[0].fingerprint{at}",
            message,
        )
        for case, value, at, message in [
            ("absolute", "{exclude: [out.txt, /tmp/out.txt]}", ".exclude[1]",
             "'/tmp/out.txt' is an absolute path: a pattern is relative to the bot's folder"),
            ("outside", "{exclude: [../out.txt]}", ".exclude[0]", "'../out.txt' reaches out of the bot's folder (..)"),
            ("everything", "{exclude: ['**/*']}", ".exclude[0]", "'**/*' would leave out every file of the bot"),
            ("not-a-list", "{exclude: out.txt}", ".exclude", "'out.txt' is not of type 'array'"),
            ("not-a-string", "{exclude: [3]}", ".exclude[0]", "3 is not of type 'string'"),
            ("empty", "{exclude: ['']}", ".exclude[0]", "should be non-empty"),
            ("unknown-key", "{exlude: [out.txt]}", ".exlude", "unknown key 'exlude'; did you mean 'exclude'?"),
        ]
    ],  # fmt: skip
    (
        "fingerprint-on-a-builtin",
        "players:\n  - name: a\n    builtin: random\n    fingerprint: {exclude: [x]}\n  - {name: b, builtin: greedy}\n",
        4,
        "players[0].fingerprint",
        "applies only to a player with a command",
    ),
    ("unknown-top-level-key", "match: x\nrulez: {}\n" + TWO, 2, "rulez", "unknown key 'rulez'; did you mean 'rules'?"),
    (
        "unknown-player-key",
        "players:\n  - name: a\n    builtin: random\n    comand: x\n  - {name: b, builtin: greedy}\n",
        4,
        "players[0].comand",
        "unknown key 'comand'; did you mean 'command'?",
    ),
    (
        "unknown-rule-option",
        TWO + "rules:\n  preset: standard\n  layot: 2x2\n",
        6,
        "rules.layot",
        "unknown rule option 'layot'; did you mean 'layout'?",
    ),
    (
        "bad-preset",
        "rules:\n  preset: standart\n" + TWO,
        2,
        "rules.preset",
        "'standart' is not one of: standard, classic, knock, arena",
    ),
    ("rules-not-a-mapping", "rules: standard\n" + TWO, 1, "rules", "is not of type 'object'"),
    ("one-player", seats(1), 1, "players", "a match needs at least 2 players"),
    ("nine-players", seats(9), 1, "players", "a match takes at most 8 players"),
    ("players-not-a-list", "players: a\n", 1, "players", "is not of type 'array'"),
    ("no-players", "match: x\n", 1, "(top level)", "'players' is required"),
    (
        "too-many-for-the-preset",
        "rules:\n  preset: standard\n" + seats(7),
        3,
        "players",
        "preset 'standard' is for 2 to 6 players, got 7",
    ),
    (
        "duplicate-names",
        "players:\n  - {name: a, builtin: random}\n  - {name: a, builtin: greedy}\n",
        3,
        "players[1].name",
        "name 'a' is already used by players[0]",
    ),
    (
        "command-and-builtin",
        "players:\n  - {name: b, builtin: greedy}\n  - {name: a, builtin: random, command: python3}\n",
        3,
        "players[1]",
        "a player needs exactly one of command (a bot program), builtin (random, greedy, good, expert, human) "
        "or python (a policy, module:object)",
    ),
    (
        "neither-command-nor-builtin",
        "players:\n  - {name: a}\n  - {name: b, builtin: greedy}\n",
        2,
        "players[0]",
        "a player needs exactly one of command (a bot program), builtin (random, greedy, good, expert, human) "
        "or python (a policy, module:object)",
    ),
    (
        "unknown-builtin",
        "players:\n  - {name: a, builtin: smart}\n  - {name: b, builtin: greedy}\n",
        2,
        "players[0].builtin",
        "'smart' is not one of: random, greedy",
    ),
    (
        "env-on-a-builtin",
        "players:\n  - name: a\n    builtin: random\n    env: {X: 1}\n  - {name: b, builtin: greedy}\n",
        4,
        "players[0].env",
        "applies only to a player with a command",
    ),
    (
        "env-value-a-list",
        "players:\n  - name: a\n    command: [python3]\n    env:\n      X: [1]\n  - {name: b, builtin: greedy}\n",
        5,
        "players[0].env.X",
        "is not of type 'string', 'number', 'boolean'",
    ),
    (
        "control-character-in-name",
        'players:\n  - {name: "a\\tb", builtin: random}\n  - {name: b, builtin: greedy}\n',
        2,
        "players[0].name",
        "may not hold control characters",
    ),
    ("move-ms-zero", TWO + "time:\n  move_ms: 0\n", 5, "time.move_ms", "0 is less than the minimum of 1"),
    ("move-ms-text", TWO + "time:\n  move_ms: fast\n", 5, "time.move_ms", "'fast' is not of type 'integer'"),
    ("move-ms-fraction", TWO + "time:\n  move_ms: 2.5\n", 5, "time.move_ms", "2.5 is not of type 'integer'"),
    ("startup-negative", TWO + "time:\n  startup_ms: -1\n", 5, "time.startup_ms", "less than the minimum of 1"),
    ("grace-too-long", TWO + "time:\n  grace_ms: 20000\n", 5, "time.grace_ms", "greater than the maximum of 10000"),
    ("time-misspelt", TWO + "time:\n  mov_ms: 10\n", 5, "time.mov_ms", "unknown key 'mov_ms'; did you mean 'move_ms'?"),
    ("time-not-a-mapping", TWO + "time: 5\n", 4, "time", "is not of type 'object'"),
    (
        "bad-policy",
        TWO + "faults:\n  policy: forfit\n",
        5,
        "faults.policy",
        "'forfit' is not one of: fallback, forfeit",
    ),
    ("max-faults-zero", TWO + "faults:\n  max_faults: 0\n", 5, "faults.max_faults", "less than the minimum of 1"),
    ("negative-seed", "seed: -1\n" + TWO, 1, "seed", "-1 is less than the minimum of 0"),
    ("top-level-key-given-twice", "seed: 1\n" + TWO + "seed: 2\n", 5, "seed", "the key is given twice"),
    (
        "nested-key-given-twice",
        TWO + "time:\n  move_ms: 10\n  startup_ms: 10\n  move_ms: 20\n",
        7,
        "time.move_ms",
        "the key is given twice",
    ),
    (
        "player-key-given-twice",
        "players:\n  - name: a\n    builtin: random\n    name: b\n  - {name: c, builtin: greedy}\n",
        4,
        "players[0].name",
        "the key is given twice",
    ),
    ("quoted-key-given-twice", TWO + "rules: {holes: 1, 'holes': 2}\n", 4, "rules.holes", "the key is given twice"),
    (
        "unknown-log-placeholder",
        TWO + "log:\n  path: logs/{matchid}.json\n",
        5,
        "log.path",
        "unknown placeholder {matchid} (use {match_id}, {match}, {date})",
    ),
    ("broken-log-template", TWO + "log:\n  path: logs/{match_id.json\n", 5, "log.path", "bad template"),
    (
        "yaml-syntax-error",
        "match: x\nplayers:\n  - {name: a, builtin: random}\n  - name: b\n   builtin: greedy\n",
        5,
        None,
        "not valid YAML",
    ),
    ("yaml-tab", "match: x\nplayers:\n  - {name: a, builtin: random}\n\tbad: 1\n", 4, None, "not valid YAML"),
    (
        "a-list-not-a-mapping",
        "- a\n- b\n",
        1,
        "(top level)",
        "a match config is a mapping with at least a players list",
    ),
    ("a-scalar-not-a-mapping", "hello\n", 1, "(top level)", "a match config is a mapping"),
    (
        "reveal-count-above-the-grid",
        TWO + "rules:\n  layout: 2x2\n  reveal_count: 5\n",
        6,
        "rules.reveal_count",
        "5 is more than the 4 cards of layout 2x2",
    ),
    (
        "twos-value",
        TWO + "rules:\n  twos: 1\n",
        5,
        "rules.twos",
        "must be -2 or 2, got 1",
    ),
    (
        "diagonals-on-a-rectangle",
        TWO + "rules:\n  layout: 2x3\n  lines: columns+rows+diagonals\n",
        6,
        "rules.lines",
        "diagonals need a square grid",
    ),
    ("empty-option", TWO + "rules:\n  layout:\n", 5, "rules.layout", "needs a value"),
    (
        "deal-does-not-fit",
        seats(6) + "rules:\n  layout: 3x3\n  decks: 1\n",
        8,
        "rules",
        "the deal does not fit: 6 players x 9 cards + 1 discard + 1 stock card needs 56 cards, but 1 deck(s) hold 52",
    ),
    (
        "unsplittable-command",
        "players:\n  - name: a\n    command: 'python3 \"my bot.py'\n  - {name: b, builtin: greedy}\n",
        3,
        "players[0].command",
        "cannot split the command",
    ),
    (
        "blank-command",
        "players:\n  - {name: a, command: '   '}\n  - {name: b, builtin: greedy}\n",
        2,
        "players[0].command",
        "the command is empty",
    ),
    (
        "missing-program",
        "players:\n  - {name: b, builtin: greedy}\n  - name: a\n    command: ./no_such_bot.py --fast\n",
        4,
        "players[1].command",
        "no such program: ./no_such_bot.py",
    ),
    (
        "program-not-on-path",
        "players:\n  - name: a\n    command: no-such-program-golfref --x\n  - {name: b, builtin: greedy}\n",
        3,
        "players[0].command",
        "program 'no-such-program-golfref' is not on PATH",
    ),
    (
        "missing-cwd",
        "players:\n  - name: a\n    command: [./bot.py]\n    cwd: nowhere\n  - {name: b, builtin: greedy}\n",
        4,
        "players[0].cwd",
        "no such directory",
    ),
]


@pytest.mark.parametrize(("text", "line", "path", "fragment"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_config_names_file_line_and_key(
    tmp_path: Path, text: str, line: int, path: str | None, fragment: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse(text, tmp_path)
    message = str(info.value)
    where = f"{SOURCE}:{line}: " + (f"{path}: " if path is not None else "")
    assert message.startswith(where), message
    assert fragment in message, message
    assert "\n" not in message


def test_a_program_that_is_not_executable(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("print()\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^match\.yaml:3: players\[0\]\.command: \./bot\.py is not executable"):
        parse("players:\n  - name: a\n    command: ./bot.py\n  - {name: b, builtin: greedy}\n", tmp_path)


def test_an_empty_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^match\.yaml: \(top level\): a match config is a mapping"):
        parse("", tmp_path)


def test_load_config_reports_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"match: caf\xe9\n")
    with pytest.raises(ConfigError, match=r"latin\.yaml: not UTF-8"):
        load_config(latin)


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("players:\n  - {name: a, builtin: random}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}:1: players: a match needs at least 2 players"


# -- good configs --------------------------------------------------------------------------------


def test_defaults(tmp_path: Path) -> None:
    config = parse(TWO, tmp_path)
    assert config == MatchConfig(
        name="match",  # the file's stem
        rules=resolve_rules("standard", {}, 2),
        seed=None,
        players=(PlayerSpec(name="a", builtin="random"), PlayerSpec(name="b", builtin="greedy")),
        time=TimeControl(startup_ms=10_000, move_ms=2_000, bank_ms=0, increment_ms=0, grace_ms=100),
        faults=FaultPolicy(mode=FaultMode.FALLBACK, fallback="greedy", max_faults=3),
        log=LogSpec(path="logs/{match_id}.json", transcript=False, directory=str(tmp_path)),
        source=SOURCE,
    )


def test_every_section(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text("", encoding="utf-8")
    text = f"""\
match: full match
rules:
  preset: knock
  layout: 2x2
  knock_penalty: double
  holes: 4
seed: 12345
players:
  - name: bot
    command: [{sys.executable}, -u, my_bot.py]
    env: {{MODE: fast}}
  - name: house
    builtin: random
  - name: house2
    builtin: greedy
time:
  startup_ms: 5000
  move_ms: 250
  bank_ms: 1000
  increment_ms: 10
  grace_ms: 50
faults:
  policy: forfeit
  fallback: random
  max_faults: 5
log:
  path: out/{{match}}-{{date}}.json
  transcript: true
"""
    config = parse(text, tmp_path)
    assert config.name == "full match" and config.seed == 12345 and config.source == SOURCE
    assert config.rules == resolve_rules("knock", {"layout": "2x2", "knock_penalty": "double", "holes": 4}, 3)
    assert config.players == (
        PlayerSpec(name="bot", command=(sys.executable, "-u", "my_bot.py"), cwd=str(tmp_path), env=(("MODE", "fast"),)),
        PlayerSpec(name="house", builtin="random"),
        PlayerSpec(name="house2", builtin="greedy"),
    )
    assert config.time == TimeControl(startup_ms=5000, move_ms=250, bank_ms=1000, increment_ms=10, grace_ms=50)
    assert config.faults == FaultPolicy(mode=FaultMode.FORFEIT, fallback="random", max_faults=5)
    assert config.log == LogSpec(path="out/{match}-{date}.json", transcript=True, directory=str(tmp_path))


def test_values_are_frozen(tmp_path: Path) -> None:
    config = parse(TWO, tmp_path)
    for value, field in (
        (config, "seed"),
        (config.players[0], "name"),
        (config.time, "move_ms"),
        (config.faults, "max_faults"),
        (config.log, "path"),
        (config.rules, "holes"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, 1)
    assert isinstance(config.players, tuple)


def test_command_string_is_split_like_a_shell(tmp_path: Path) -> None:
    (tmp_path / "my bot.py").write_text("", encoding="utf-8")
    exe = shlex.quote(sys.executable)
    text = f"players:\n  - name: a\n    command: '{exe} \"my bot.py\" --x'\n  - {{name: b, builtin: greedy}}\n"
    assert parse(text, tmp_path).players[0].command == (sys.executable, "my bot.py", "--x")


@pytest.mark.skipif(shutil.which("python3") is None, reason="no python3 on PATH")
def test_command_found_on_path(tmp_path: Path) -> None:
    (tmp_path / "my bot.py").write_text("", encoding="utf-8")
    text = 'players:\n  - name: a\n    command: python3 "my bot.py" --x\n  - {name: b, builtin: greedy}\n'
    assert parse(text, tmp_path).players[0].command == ("python3", "my bot.py", "--x")


def test_command_list_is_kept_as_is(tmp_path: Path) -> None:
    (tmp_path / "a b").write_text("", encoding="utf-8")
    text = (
        f"players:\n  - name: a\n    command: ['{sys.executable}', 'a b', '\"c\"']\n  - {{name: b, builtin: greedy}}\n"
    )
    assert parse(text, tmp_path).players[0].command == (sys.executable, "a b", '"c"')


def test_cwd_is_relative_to_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "conf"
    bots = folder / "bots"
    bots.mkdir(parents=True)
    bot = bots / "bot.py"
    bot.write_text("#!/usr/bin/env python3\n", encoding="utf-8")
    bot.chmod(0o755)
    path = folder / "match.yaml"
    path.write_text(
        "players:\n"
        "  - name: inside\n    command: ./bot.py --x\n    cwd: bots\n"
        f"  - name: default\n    command: [{sys.executable}, bots/bot.py]\n",
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # where golfref runs does not matter
    config = load_config(path)
    inside, default = config.players
    assert inside.command == ("./bot.py", "--x")
    assert inside.cwd is not None and Path(inside.cwd).resolve() == bots.resolve()
    assert default.cwd is not None and Path(default.cwd).resolve() == folder.resolve()
    # the program is looked up in the player's cwd: from the config's folder it is not there
    path.write_text("players:\n  - name: a\n    command: ./bot.py\n  - {name: b, builtin: greedy}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"match\.yaml:3: players\[0\]\.command: no such program: \./bot\.py"):
        load_config(path)


def test_env_values_become_strings(tmp_path: Path) -> None:
    text = (
        "players:\n  - name: a\n"
        f"    command: [{sys.executable}]\n"
        "    env: {TEXT: x, INT: 5, FLOAT: 1.5, FLAG_ON: true, FLAG_OFF: false, EMPTY: ''}\n"
        "  - {name: b, builtin: greedy}\n"
    )
    assert parse(text, tmp_path).players[0].env == (
        ("TEXT", "x"),
        ("INT", "5"),
        ("FLOAT", "1.5"),
        ("FLAG_ON", "1"),
        ("FLAG_OFF", "0"),
        ("EMPTY", ""),
    )


def test_name_defaults_to_the_file_stem(tmp_path: Path) -> None:
    assert parse_config(TWO, source="some/dir/weekly.yaml", base_dir=tmp_path).name == "weekly"


# -- configs that pass the check but cannot be played ---------------------------------------------


@pytest.mark.parametrize(
    ("env", "key"),
    [("{GOLFREF_SEAT: '5'}", "GOLFREF_SEAT"), ("{GOLFREF_PROTOCOL: '2'}", "GOLFREF_PROTOCOL"), ("{'A=B': x}", "A=B")],
    ids=["seat", "protocol", "equals-sign"],
)
def test_env_the_referee_cannot_give_is_a_config_error(tmp_path: Path, env: str, key: str) -> None:
    """The bot's environment is built when it starts; a config it cannot be built from must fail here.

    Otherwise `check-config` says ok and `golfref run` stops with an internal error (exit 3).
    """
    text = f"players:\n  - name: a\n    command: [{sys.executable}]\n    env: {env}\n  - {{name: b, builtin: greedy}}\n"
    with pytest.raises(ConfigError, match=r"^match\.yaml:4: players\[0\]\.env") as info:
        parse(text, tmp_path)
    assert key in str(info.value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (TWO + "seed: 5.0\n", lambda c: c.seed),
        (TWO + "time:\n  move_ms: 1500.0\n", lambda c: c.time.move_ms),
        (TWO + "faults:\n  max_faults: 2.0\n", lambda c: c.faults.max_faults),
    ],
    ids=["seed", "move_ms", "max_faults"],
)
def test_whole_numbers_are_ints(tmp_path: Path, text: str, value) -> None:  # type: ignore[no-untyped-def]
    """JSON Schema's "integer" accepts 5.0; the config must then hold 5, or reject it.

    A float seed reaches the referee as is: `seed ^ 0x5EEDF00D` raises TypeError, so
    `golfref run` exits 3 (internal error) on a config `check-config` called ok.
    """
    try:
        config = parse(text, tmp_path)
    except ConfigError:
        return
    assert type(value(config)) is int, repr(value(config))


HOSTILE_YAML = {
    "alias-bomb": "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
    + "".join(f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))
    + "players: *i\n",
    "deep": "players: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "self-alias": "x: &a [*a]\n",
}


def test_a_key_merged_in_and_then_given_is_not_given_twice(tmp_path: Path) -> None:
    """A YAML merge key (`<<`) followed by an override is one key each time, not a repetition."""
    text = TWO + "x-time: &t {move_ms: 10, grace_ms: 5}\ntime:\n  <<: *t\n  move_ms: 20\n"
    with pytest.raises(ConfigError) as info:  # x-time is an unknown key; time itself is fine
        parse(text, tmp_path)
    assert "given twice" not in str(info.value) and "unknown key 'x-time'" in str(info.value)


def test_a_config_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    parses = []
    original = yaml.SafeLoader.get_single_node

    def counting(self: yaml.SafeLoader) -> object:
        parses.append(1)
        return original(self)

    monkeypatch.setattr(yaml.SafeLoader, "get_single_node", counting)
    monkeypatch.setattr(yaml, "compose", lambda *a, **k: pytest.fail("a second parse"))
    monkeypatch.setattr(yaml, "safe_load", lambda *a, **k: pytest.fail("a second parse"))
    parse(TWO + "time:\n  move_ms: 10\n", tmp_path)
    assert parses == [1]


@pytest.mark.parametrize("name", list(HOSTILE_YAML))
def test_hostile_yaml_is_refused_quickly_with_one_line(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(HOSTILE_YAML[name], source="m.yaml")
    message = str(info.value)
    assert message.startswith("m.yaml") and "\n" not in message


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('command: ["python3", "a\\0b"]', "players[1].command: the command holds a NUL character"),
        ('command: python3\n    env: {A: "x\\0y"}', "players[1].env.A: the value holds a NUL character"),
    ],
)
def test_nul_characters_are_config_errors(extra: str, fragment: str) -> None:
    text = f"players:\n  - name: a\n    builtin: greedy\n  - name: b\n    {extra}\n"
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        parse_config(text, source="m.yaml")


@pytest.mark.parametrize("option", ["jokers", "block_bonus"])
def test_huge_rule_values_are_config_errors(option: str) -> None:
    players = "players: [{name: a, builtin: greedy}, {name: b, builtin: greedy}]\n"
    text = f"rules: {{{option}: 99999999999999999999}}\n" + players
    with pytest.raises(ConfigError, match=f"rules.{option}: must be off or -100 to 100"):
        parse_config(text, source="m.yaml")


# -- every problem at once (issue 7, item 7) ------------------------------------------------------


def test_every_problem_is_reported_in_file_order(tmp_path: Path) -> None:
    text = (
        "match: x\n"  # 1
        "rules:\n"  # 2
        "  layot: 2x2\n"  # 3
        "players:\n"  # 4
        "  - {name: a, builtin: random}\n"  # 5
        "  - {name: a, builtin: greedy}\n"  # 6
        "time:\n"  # 7
        "  mov_ms: 10\n"  # 8
        "faults:\n"  # 9
        "  policy: forfit\n"  # 10
        "log:\n"  # 11
        "  path: logs/{matchid}.json\n"  # 12
    )
    with pytest.raises(ConfigError) as info:
        parse(text, tmp_path)
    errors = info.value.errors
    assert [e.split(": ", 2)[:2] for e in errors] == [
        [f"{SOURCE}:3", "rules.layot"],
        [f"{SOURCE}:6", "players[1].name"],
        [f"{SOURCE}:8", "time.mov_ms"],
        [f"{SOURCE}:10", "faults.policy"],
        [f"{SOURCE}:12", "log.path"],
    ], errors
    assert str(info.value).splitlines() == list(errors)


@pytest.mark.parametrize("key", ["player", "playerz", "Players"])
def test_a_misspelt_players_key_suggests_players(tmp_path: Path, key: str) -> None:
    text = f"match: x\n{key}:\n  - {{name: a, builtin: random}}\n  - {{name: b, builtin: greedy}}\n"
    with pytest.raises(ConfigError) as info:
        parse(text, tmp_path)
    # one mistake, one message: not also "'players' is required"
    assert info.value.errors == (f"{SOURCE}:2: {key}: unknown key {key!r}; did you mean 'players'?",)


@pytest.mark.parametrize(
    ("log", "line"),
    [
        ("log:\n  path: {match_id}.json\n", 5),
        ("log:\n  path: {match_id}\n", 5),
        ("log: {path: logs/{match_id}.json}\n", 4),
    ],
    ids=["yaml-error", "read-as-a-mapping", "flow-mapping"],
)
def test_an_unquoted_placeholder_gets_a_hint_to_quote_it(tmp_path: Path, log: str, line: int) -> None:
    with pytest.raises(ConfigError) as info:
        parse(TWO + log, tmp_path)
    message = str(info.value)
    assert message.startswith(f"{SOURCE}:{line}: "), message
    assert 'quote a value holding a placeholder, as in path: "logs/{match_id}.json"' in message, message


@pytest.mark.parametrize(
    ("tail", "operator"),
    [
        ("bot.py | tee out.txt", "|"),
        ("bot.py > out.txt", ">"),
        ("bot.py 2>&1", ">"),
        ("bot.py < in.txt", "<"),
        ("bot.py && echo done", "&&"),
        ("bot.py || echo failed", "||"),
        ("bot.py; echo done", ";"),
        ("bot.py `date`", "`"),
        ("bot.py $(date)", "$("),
        ("bot.py &", "&"),
    ],
)
def test_shell_syntax_in_a_command_is_an_error(tmp_path: Path, tail: str, operator: str) -> None:
    command = f"{shlex.quote(sys.executable)} {tail}"
    text = f"players:\n  - name: a\n    command: {json.dumps(command)}\n  - {{name: b, builtin: greedy}}\n"
    with pytest.raises(ConfigError) as info:
        parse(text, tmp_path)
    message = str(info.value)
    assert message.startswith(f"{SOURCE}:3: players[0].command: {operator!r} is shell syntax"), message
    assert "no shell runs the command" in message and "[sh, -c," in message


@pytest.mark.parametrize(
    "tail", ["-c 'print(1 | 2)'", '"a > b"', "a\\;b", "--x='$(y)'"], ids=["single", "double", "escaped", "inner"]
)
def test_quoted_shell_characters_are_plain_arguments(tmp_path: Path, tail: str) -> None:
    command = f"{shlex.quote(sys.executable)} {tail}"
    script = shlex.split(tail)[0]
    if not script.startswith("-"):
        (tmp_path / script).write_text("", encoding="utf-8")  # a missing script is a problem of its own
    text = f"players:\n  - name: a\n    command: {json.dumps(command)}\n  - {{name: b, builtin: greedy}}\n"
    assert parse(text, tmp_path).players[0].command == tuple(shlex.split(command))


@pytest.mark.skipif(shutil.which("sh") is None, reason="no sh on PATH")
def test_an_env_path_that_hides_the_program_is_an_error(tmp_path: Path) -> None:
    text = (
        "players:\n  - name: a\n    command: sh -c 'exit 0'\n    env:\n      PATH: /no/such/folder\n"
        "  - {name: b, builtin: greedy}\n"
    )
    with pytest.raises(ConfigError) as info:
        parse(text, tmp_path)
    assert str(info.value).startswith(f"{SOURCE}:5: players[0].env.PATH: this PATH hides the program 'sh'")
    folder = str(Path(shutil.which("sh") or "").parent)
    assert parse(text.replace("/no/such/folder", folder), tmp_path).players[0].env == (("PATH", folder),)


def test_the_log_path_is_read_from_the_config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    path = folder / "match.yaml"
    path.write_text(TWO + "log:\n  path: out/{match}.json\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(path)
    assert config.log.directory is not None and Path(config.log.directory).resolve() == folder.resolve()


def test_a_config_keeps_the_rule_options_it_sets_as_written(tmp_path: Path) -> None:
    # check-bot plays its checks under these: the preset's defaults for the rest, re-derived per check.
    text = (
        "match: m\nrules: {preset: knock, layout: 3x3, jokers: on, decks: 2}\n"
        "players: [{name: a, builtin: greedy}, {name: b, builtin: random}]\n"
    )
    cfg = parse_config(text, base_dir=tmp_path)
    assert cfg.rules.preset == "knock"
    assert cfg.rule_options == (("layout", "3x3"), ("jokers", True), ("decks", 2))
    assert parse_config(text.replace(", layout: 3x3, jokers: on, decks: 2", ""), base_dir=tmp_path).rule_options == ()


@pytest.mark.parametrize(
    ("options", "card_values", "exact_score"),
    [
        ("card_values: 10:1, exact_score: 21:0", (("T", 1),), (21, 0)),  # YAML 1.1: 601 and 1260
        ("card_values: 2:5", (("2", 5),), None),  # YAML 1.1: 125
        ('card_values: "K:-2,10:1", exact_score: 21=0', (("T", 1), ("K", -2)), (21, 0)),
        ("card_values: {10: 1, K: -2}, exact_score: [21, 0]", (("T", 1), ("K", -2)), (21, 0)),
    ],
)
def test_a_table_option_written_as_text_is_read_as_written(
    tmp_path: Path, options: str, card_values: tuple[tuple[str, int], ...], exact_score: tuple[int, int] | None
) -> None:
    # A number with colons is never YAML 1.1's base 60 in a config: no key takes one.
    cfg = parse("rules: {" + options + "}\n" + TWO, tmp_path)
    assert tuple((rank.value, points) for rank, points in cfg.rules.card_values) == card_values
    assert cfg.rules.exact_score == exact_score


def test_a_colon_number_where_a_number_belongs_is_a_located_type_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        parse(TWO + "time: {move_ms: 1:30}\n", tmp_path)
    assert str(info.value) == "match.yaml:4: time.move_ms: '1:30' is not of type 'integer'"


WHOLE = "expected a whole number from -100 to 100"


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("{card_values: {K: 200}}", "match.yaml:1: rules.card_values: K: must be -100 to 100, got 200"),
        ('{card_values: "K:1, Q:x"}', f"match.yaml:1: rules.card_values: Q: {WHOLE}, got 'x'"),
        ("{suit_values: {JH: x}}", f"match.yaml:1: rules.suit_values: JH: {WHOLE}, got 'x'"),
    ],
)
def test_a_bad_entry_of_a_table_option_is_located_at_the_option(tmp_path: Path, rules: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse(f"rules: {rules}\n" + TWO, tmp_path)
    assert str(info.value) == message


@pytest.mark.process
def test_reading_configs_loads_no_process_layer() -> None:
    """Parsing a match and a tournament config (programs found on the PATH, sandbox paths checked) loads
    neither subprocess nor golfref.bots: the sandbox's settings are values (golfref/config/sandbox_spec.py)."""
    import os
    import subprocess

    root = Path(__file__).resolve().parent.parent
    code = (
        "import sys\n"
        "from golfref.config.match import load_config\n"
        "from golfref.config.tournament import load_tournament\n"
        "load_config('sample_matches/quickstart.yaml')\n"
        "load_tournament('sample_matches/tournament.yaml')\n"
        "print(sorted(m for m in sys.modules if m == 'subprocess' or m.startswith('golfref.bots')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60,
        env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
