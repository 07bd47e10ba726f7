"""docs/OPPONENTS.md agrees with the code.

- Its config example is a valid match config (with rules added) whose built-in gets the options shown.
- Its tables name every built-in, and `expert`'s options with the defaults and bounds policies.OPTIONS has.
- Its bot-program command line starts the built-in it names with those options (parsed, not run).
"""

from __future__ import annotations

import re
from pathlib import Path

from golfref.config.match import parse_config
from golfref.game.policies import OPTIONS, POLICIES
from golfref.tools.builtin_bot import parse_arguments

DOC = Path(__file__).resolve().parent.parent / "docs" / "OPPONENTS.md"
TEXT = DOC.read_text(encoding="utf-8")


def test_the_config_example_is_a_valid_config_with_those_options(tmp_path: Path) -> None:
    block = re.search(r"```yaml\n(.*?)```", TEXT, re.S)
    assert block is not None
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "my_bot.py").write_text("")
    config = parse_config("rules: {preset: standard}\n" + block.group(1), "example.yaml", tmp_path)
    boss = next(p for p in config.players if p.builtin is not None)
    assert boss.builtin == "expert" and dict(boss.options) == {"iterations": 400, "seed": 7}


def test_every_builtin_and_option_is_in_the_tables() -> None:
    for name in POLICIES:
        assert re.search(rf"^\| `{name}` \|", TEXT, re.M), name
    for name, options in OPTIONS.items():
        for option, (lo, _, default) in options.items():
            row = re.search(rf"^\| `{option}` \| (.*) \| (\S+) \|$", TEXT, re.M)
            assert row is not None, (name, option)
            assert row.group(2) == str(default), (option, row.group(2))
            assert f"{lo} to " in row.group(1), (option, row.group(1))
    assert f"(1 to {OPTIONS['expert']['iterations'][1]})" in TEXT


def test_the_bot_program_example_parses() -> None:
    line = re.search(r"`python -m golfref.tools.builtin_bot (expert [^`]*)`", TEXT)
    assert line is not None
    assert parse_arguments(line.group(1).split()) == ("expert", {"iterations": 400})
