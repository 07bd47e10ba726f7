"""docs/WRITING_A_BOT.md tells the truth: its bots play as written, its match config runs
them, its last bot is the Python kit's starter bot, and its table of JSON types is the
schema's (schemas/protocol.schema.json)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from golfref.config.match import parse_config
from golfref.match.referee import run_match
from golfref.record.faults import SeatStatus

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "WRITING_A_BOT.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
KIT = ROOT / "kits" / "python"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", DOC, flags=re.M | re.S)


BOTS = [b for b in _blocks("python") if b.startswith("# my_bot.py\n")]


def _folder(tmp_path: Path, bot: str) -> Path:
    """A bot author's folder as the tutorial makes it: golfbot.py copied, my_bot.py written."""
    shutil.copy(KIT / "golfbot.py", tmp_path / "golfbot.py")
    (tmp_path / "my_bot.py").write_text(bot, encoding="utf-8")
    return tmp_path


def test_the_tutorial_has_its_two_bots() -> None:
    assert len(BOTS) == 2


@pytest.mark.process
@pytest.mark.parametrize("step", range(len(BOTS)))
def test_the_tutorials_bots_play_every_preset_without_a_fault(step: int, tmp_path: Path) -> None:
    folder = _folder(tmp_path, BOTS[step])
    (config_text,) = _blocks("yaml")
    for preset, extra in (("standard", ""), ("knock", ""), ("arena", "  layout: 2x2\n  card_powers: true\n")):
        text = config_text.replace("  preset: standard\n", f"  preset: {preset}\n{extra}")
        text += f"log:\n  path: {json.dumps(str(tmp_path / preset / '{match_id}.json'))}\n"
        text += "time: {startup_ms: 30000, move_ms: 30000}\n"
        # The config's python3 is this interpreter here (-B: no __pycache__ left behind).
        text = text.replace("command: python3 my_bot.py", f"command: [{json.dumps(sys.executable)}, -B, my_bot.py]")
        result = run_match(parse_config(text, source="my_match.yaml", base_dir=folder), seed=4)
        assert result.faults == (), [f.to_json() for f in result.faults]
        assert set(result.statuses) == {SeatStatus.OK}
        mine = result.log["players"][0]
        assert mine["reported_name"] == "my_bot" and not mine["stderr"], mine["stderr"]


def test_the_tutorials_last_bot_is_the_kits_starter_bot() -> None:
    kit_bot = (KIT / "bot.py").read_text(encoding="utf-8")
    body = kit_bot.split('"""\n\n', 1)[1]
    written = BOTS[-1].split("\n", 1)[1].replace(
        'golfbot.play(choose, name="my_bot", version="2")', 'golfbot.play(choose, name="python-starter", version="1")'
    )
    assert body == written


# -- the table of JSON types ---------------------------------------------------------------

DEFS = SCHEMA["$defs"]
MESSAGES = {"time": "time_control", "event": "event", "view": "view"}


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = DEFS[node["$ref"].rsplit("/", 1)[1]]
    return node


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", str: "string", type(None): "null"}[type(value)]


def _schema_types(node: dict[str, Any]) -> set[str]:
    """The JSON types a schema node admits at its top level (empty: anything)."""
    node = _resolve(node)
    if "type" in node:
        return {node["type"]} if isinstance(node["type"], str) else set(node["type"])
    if "const" in node:
        return {_json_type(node["const"])}
    if "enum" in node:
        return {_json_type(v) for v in node["enum"]}
    if "oneOf" in node:
        return set().union(*(_schema_types(n) for n in node["oneOf"]))
    return set()


_WORDS = {"string": "string", "integer": "integer", "seat": "integer", "card": "string", "object": "object",
          "array": "array", "null": "null", "boolean": "boolean", "event": "object"}


def _split_or(text: str) -> list[str]:
    """`text` cut at each " or " outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith(" or ", i):
            parts.append(text[start:i])
            start = i + 4
    return [*parts, text[start:]]


def _check(text: str, node: dict[str, Any], where: str) -> None:
    """A cell of the table (`text`) names the types of the schema's `node`, arrays' items included."""
    declared = _schema_types(node)
    if not declared:
        return  # `cards` is two things, told apart by the event kind
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]  # grouped: "array of (card or null)"
    text = re.sub(r"(?<!of )\([^()]*\)", "", text).strip()  # remarks in parentheses
    alternatives = _split_or(text)
    words = [a.split()[1] if a.startswith("two ") else a.split()[0] for a in alternatives]
    assert {_WORDS[w.removesuffix("s")] for w in words} == declared, f"{where}: {text!r} is not {declared}"
    for alt in alternatives:
        if alt.startswith(("array of ", "arrays of ")):
            kinds = [_resolve(node), *map(_resolve, _resolve(node).get("oneOf", []))]
            arrays = [n for n in kinds if n.get("type") == "array"]
            _check(alt.split(" of ", 1)[1], arrays[0].get("items", {}), where + "[]")


def _table() -> list[tuple[str, str, str]]:
    section = DOC.split("## 4. The JSON types", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\w+) \| `(\w+)` \| (.+?) \|$", section, flags=re.M)
    assert rows
    return rows


def test_the_type_table_names_every_field_of_every_message_once() -> None:
    rows = _table()
    documented = [(message, name) for message, name, _ in rows]
    assert len(documented) == len(set(documented))
    expected = []
    for message in ("hello", "time", "request", "view", "event", "hole_end", "match_end", "goodbye", "ready", "answer"):
        node = DEFS[MESSAGES.get(message, message)]
        expected += [(message, name) for name in node["properties"]]
    assert sorted(documented) == sorted(expected)


def test_the_type_table_gives_the_schemas_types() -> None:
    for message, name, cell in _table():
        _check(cell, DEFS[MESSAGES.get(message, message)]["properties"][name], f"{message}.{name}")



def test_the_tutorial_checks_its_bot_with_check_bot() -> None:
    # The bot it checks is the kit's starter bot (test_the_tutorials_last_bot_is_the_kits_starter_bot),
    # which tests/test_kits.py::test_kit_passes_check_bot runs through check-bot.
    (line,) = [b for b in _blocks("text") if b.startswith("golfref check-bot")]
    assert line.strip() == "golfref check-bot -- python3 my_bot.py"
