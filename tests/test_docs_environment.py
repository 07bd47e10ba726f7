"""docs/ENVIRONMENT.md keeps its promises: every Python example runs, and its tables are the code's.

The observation and action tables are rebuilt from golfbot's OBSERVATION_LAYOUT and ACTIONS
and compared line for line; the bot example is given a real request and must answer a legal
string.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest

from golfref.game.engine import Game
from golfref.game.rules import resolve_rules
from golfref.kit import golfbot
from golfref.match.protocol import hello_rules
from golfref.match.seat_messages import request_line

from .conftest import ROOT

TEXT = (ROOT / "docs" / "ENVIRONMENT.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def table_after(heading: str) -> list[str]:
    """The lines of the first table after `heading`, header and rule included."""
    rest = TEXT[TEXT.index(heading) :]
    lines = rest.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def test_the_observation_table_is_the_layout() -> None:
    rows = ["| field | positions | size | meaning |", "| --- | --- | --- | --- |"]
    for name, size, meaning in golfbot.OBSERVATION_LAYOUT:
        at = golfbot.OBSERVATION_OFFSETS[name]
        rows.append(f"| `{name}` | {at}-{at + size - 1} | {size} | {meaning} |")
    assert table_after("## The observation") == rows
    assert f"`OBSERVATION_SIZE` ({golfbot.OBSERVATION_SIZE})" in TEXT
    assert ", ".join(golfbot.RULE_FEATURES) in " ".join(TEXT.split())
    assert f"`golfbot.OBSERVATION_VERSION` ({golfbot.OBSERVATION_VERSION})" in TEXT
    assert f"`golfbot.ACTION_TABLE_VERSION` ({golfbot.ACTION_TABLE_VERSION})" in TEXT


def test_the_action_table_is_the_table() -> None:
    rows = table_after("## The action table")[2:]
    listed: dict[int, str] = {}
    for row in rows:
        index, text, _ = (cell.strip() for cell in row.strip("|").split("|"))
        pattern = text.strip("`")
        if index.isdigit():
            listed[int(index)] = pattern
            continue
        base = int(index.split(" ")[0])
        for seat in range(golfbot.MAX_SEATS if "S" in pattern else 1):
            for slot in range(golfbot.MAX_SLOTS):
                at = base + (golfbot.MAX_SLOTS * seat if "S" in pattern else 0) + slot
                listed[at] = pattern.replace("S", str(seat)).replace("N", str(slot))
    assert [listed[i] for i in range(len(listed))] == list(golfbot.ACTIONS)
    assert f"`Discrete({len(golfbot.ACTIONS)})`" in TEXT


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) == 4


def run_block(code: str, name: str = "__doc__") -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(code, "docs/ENVIRONMENT.md", "exec"), namespace)
    return namespace


def test_the_pettingzoo_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install -e .[rl]")
    run_block(BLOCKS[0])
    assert "hole 8 of 0-8, match over" in capsys.readouterr().out
    run_block(BLOCKS[1])
    printed = capsys.readouterr().out.strip()
    assert printed == "golfref.env: unknown rule option 'layuot'; did you mean 'layout'?"
    assert f"prints `{printed}`" in TEXT


def test_the_gymnasium_example_runs() -> None:
    pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install -e .[rl]")
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install -e .[rl]")
    run_block(BLOCKS[3])


def test_the_bot_example_answers_a_real_request_with_a_legal_string(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "golfbot", golfbot)
    bot = run_block(BLOCKS[2])
    rules = resolve_rules("arena", {"card_powers": True}, 3)
    kit = golfbot.Rules.from_json(hello_rules(rules))
    game = Game(rules)
    game.apply_shuffle(list(game.chance or ()))
    answered = 0
    while not game.over and answered < 60:
        if game.chance is not None:
            game.apply_shuffle(list(game.chance))
            continue
        seat = game.to_move
        assert seat is not None
        request = json.loads(request_line(game, seat, 1, (game.hole, 0), 1000)[0])
        seen = golfbot.View.from_request(request, kit, golfbot.TimeControl(1, 1, 0, 0, 0))
        answer = bot["choose"](seen, request["legal"])
        assert answer in request["legal"]
        game.apply(next(a for a in game.legal_actions() if a.text == answer))
        answered += 1
    assert answered == 60
