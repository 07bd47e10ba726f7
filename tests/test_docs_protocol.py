"""docs/PROTOCOL.md tells the truth: its minimal bot plays, its transcript is real, and
what it says about hello.rules and the view holds.

- The ```python block is the minimal bot: at most 40 lines, and it plays whole matches
  without a single fault under several rule sets (every decision kind).
- Every `>` / `<` line of the annotated transcript appears, in order, in the transcript
  of the very match the doc describes (seed 3, standard, 2x2, 1 hole), with `...` standing
  for any text.
- The hello.rules table names the fields and JSON types of the schema, and the referee
  really sends that.
- Every statement of the current protocol version in docs/ and README.md (GOLFREF_PROTOCOL=N,
  hello's `"protocol": N`, the page's title) is golfref.PROTOCOL_VERSION.
- The statements on `view.turns`, an empty discard pile, `reveal` events and `ready`'s
  `name` hold in random games (tests marked `process` start real bots; the rest do not).
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from golfref import PROTOCOL_VERSION
from golfref.bots.environment import bot_environment
from golfref.config.match import parse_config
from golfref.game.engine import Action, Decision, Game, Pile
from golfref.game.rules import RevealChoice, Rules, resolve_rules
from golfref.game.view import events_for, view
from golfref.match import protocol
from golfref.match.referee import run_match
from golfref.record.faults import FLUSH_FIXES, silence_hint
from tests.test_properties import rule_sets
from tests.test_protocol import RULES_VALIDATOR, SCHEMA, schema_types

DOC = (Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC, flags=re.S)


@pytest.fixture
def minimal_bot(tmp_path: Path) -> Path:
    (code,) = _blocks("python")
    path = tmp_path / "minimal_bot.py"
    path.write_text(code, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.process
def test_minimal_bot_has_at_most_40_lines() -> None:
    (code,) = _blocks("python")
    assert len(code.rstrip("\n").splitlines()) <= 40


def _match(tmp_path: Path, bot: Path, rules: str, seed: int, transcript: bool = False) -> dict:
    text = f"""
match: transcript
rules: {rules}
seed: {seed}
players:
  - name: minimal
    command: {shlex.quote(sys.executable)} {shlex.quote(str(bot))}
  - name: greedy
    builtin: greedy
log:
  path: {json.dumps(str(tmp_path / "out" / "{match}.json"))}
  transcript: {str(transcript).lower()}
"""
    result = run_match(parse_config(text, source="doc", base_dir=tmp_path))
    return result.log


@pytest.mark.process
@pytest.mark.parametrize(
    "rules",
    [
        "{preset: standard, layout: 2x2, holes: 2}",
        "{preset: classic, holes: 1}",
        "{preset: knock, holes: 1}",
        "{preset: arena, layout: 2x2, card_powers: on, holes: 1}",
        "{preset: standard, flip_after_throw: may, reveal_choice: player, holes: 1}",
    ],
)
def test_minimal_bot_plays_without_faults(tmp_path: Path, minimal_bot: Path, rules: str) -> None:
    log = _match(tmp_path, minimal_bot, rules, seed=5)
    assert log["status"] == "finished"
    assert log["faults"] == []
    steps = [s for h in log["holes"] for s in h["steps"] if s.get("seat") == 0]
    assert steps and all(s["by"] == "bot" for s in steps)


@pytest.mark.process
def test_annotated_transcript_is_a_real_one(tmp_path: Path, minimal_bot: Path) -> None:
    _match(tmp_path, minimal_bot, "{preset: standard, layout: 2x2, holes: 1}", seed=9, transcript=True)
    (path,) = (tmp_path / "out").glob("*.seat0.transcript.jsonl")
    real = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        real.append(("> " if entry["dir"] == "to_bot" else "< ") + entry["line"])
    documented = [line for block in _blocks("text") for line in block.splitlines() if line[:2] in ("> ", "< ")]
    assert len(documented) >= 10
    at = 0
    for doc_line in documented:
        pattern = ".*".join(re.escape(part) for part in doc_line.split("..."))
        while at < len(real) and not re.fullmatch(pattern, real[at]):
            at += 1
        assert at < len(real), f"not in the real transcript (in order): {doc_line}"
        at += 1


# -- hello.rules ---------------------------------------------------------------------------


def _rules_table() -> list[list[str]]:
    lines = DOC.splitlines()
    start = lines.index("| field | JSON type | values |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_hello_rules_table_gives_the_schemas_fields_and_types() -> None:
    rows = _rules_table()
    types = schema_types()
    assert [row[0].strip("`") for row in rows] == list(types), "one row per field, in the schema's order"
    properties = SCHEMA["$defs"]["rules"]["properties"]
    for name, json_type, values in rows:
        name = name.strip("`")
        assert json_type == " or ".join(types[name]), f"PROTOCOL.md: rules.{name} is {json_type}"
        for value in properties[name].get("enum", []):
            assert f"`{value}`" in values, f"PROTOCOL.md: rules.{name} does not list {value}"


@pytest.mark.process
def test_the_referee_sends_hello_rules_of_the_documented_types(tmp_path: Path, minimal_bot: Path) -> None:
    rules = "{preset: knock, jokers: -5, knock_penalty: double, holes: 1}"
    _match(tmp_path, minimal_bot, rules, seed=1, transcript=True)
    (path,) = (tmp_path / "out").glob("*.seat0.transcript.jsonl")
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    hello = json.loads(first["line"])
    assert hello["type"] == "hello" and hello["protocol"] == protocol.PROTOCOL_VERSION
    assert [e.message for e in RULES_VALIDATOR.iter_errors(hello["rules"])] == []
    expected = resolve_rules("knock", {"jokers": -5, "knock_penalty": "double", "holes": 1}, 2)
    assert hello["rules"] == protocol.hello_rules(expected)
    assert (hello["rules"]["jokers"], hello["rules"]["block_bonus"]) == (-5, None)
    assert (hello["rules"]["knock_penalty"], hello["rules"]["knock_double"]) == (None, True)


# -- the view: turns, the discard pile, reveal events ----------------------------------------

_IN_TURN = (Decision.PLACE, Decision.FLIP, Decision.TARGET)


def _check_view_facts(rules: Rules, seed: int) -> int:
    """Play a random game, checking PROTOCOL.md's statements on every seat's view; return
    how often the discard pile was empty."""
    rng = random.Random(seed)
    game = Game(rules)
    players = rules.players
    hole, begun, empty = -1, [0] * players, 0
    while not game.over:
        if game.is_chance:
            order = list(game.chance or ())
            rng.shuffle(order)
            reshuffle = not game.dealing
            game.apply_shuffle(order)
            if reshuffle:
                assert len(game.discard) == 1, "a reshuffle leaves exactly the pile's top card"
            continue
        if game.hole != hole:
            hole, begun = game.hole, [0] * players  # turns start at 0 for every seat
        for seat in range(players):
            v = view(game, seat)
            # turns[s] is seat s's finished turns; the turn being played is not counted yet.
            playing = [int(s == game.to_move and game.decision in _IN_TURN) for s in range(players)]
            assert list(v.turns) == [begun[s] - playing[s] for s in range(players)]
            if game.decision is Decision.DRAW:
                assert v.discard, "the pile holds a card at every draw decision"
            if not v.discard:
                empty += 1
                assert game.decision is Decision.PLACE and v.drawn_from is Pile.DISCARD and v.drawn is not None
        if game.decision is Decision.DRAW:
            begun[game.to_move or 0] += 1  # a turn starts at the draw (a knock is a turn)
        holes_done = len(game.results)
        game.apply(rng.choice(game.legal_actions()))
        if len(game.results) > holes_done:
            _check_reveal_events(game)
    return empty


def _check_reveal_events(game: Game) -> None:
    """Reveal events of the hole just scored: only with reveal_choice player, one per slot chosen."""
    rules = game.rules
    for seat in range(rules.players):
        reveals = [e for e in events_for(game, seat, 0, finished=True) if e["event"] == "reveal"]
        chosen = rules.reveal_choice is RevealChoice.PLAYER
        assert len(reveals) == (rules.players * rules.reveal_count if chosen else 0)
        for event in reveals:
            hidden = rules.reveal.value == "peek" and event["seat"] != seat
            assert (event["card"] is None) == hidden


@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_view_facts_hold_in_random_games(rules: Rules, seed: int) -> None:
    _check_view_facts(rules, seed)


@pytest.mark.parametrize("choice", ["fixed", "player"])
def test_view_facts_hold_under_each_reveal_choice(choice: str) -> None:
    empty = 0
    for seed in range(20):
        rules = resolve_rules("standard", {"layout": "2x2", "reveal_choice": choice, "holes": 2}, 3)
        empty += _check_view_facts(rules, seed)
    assert empty > 0, "taking the pile's only card happens in ordinary games"


def test_taking_the_piles_only_card_at_the_start_of_a_hole_empties_it() -> None:
    game = Game(resolve_rules("standard", {"layout": "2x2"}, 2))
    game.apply_shuffle(list(game.chance or ()))
    assert len(view(game, 0).discard) == 1 and game.decision is Decision.DRAW
    game.apply(Action.parse("discard"))
    for seat in (0, 1):
        v = view(game, seat)
        assert v.discard == () and v.decision is Decision.PLACE and v.drawn_from is Pile.DISCARD


# -- ready ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line", ['{"type": "ready"}', '{"type": "ready", "version": "1"}', '{"type": "ready", "name": ""}']
)
def test_ready_without_a_name_is_an_invalid_message(line: str) -> None:
    assert "name" in SCHEMA["$defs"]["ready"]["required"]
    with pytest.raises(protocol.InvalidMessage, match="name"):
        protocol.parse_ready(line)
    assert "`name` is required" in DOC


def test_the_flush_table_is_the_hints() -> None:
    # One place holds the words (golfref.record.faults.FLUSH_FIXES): the page shows what the hint says.
    rows = re.findall(r"^\| ([\w+]+) \| (.+) \|$", DOC.split("| language |", 1)[1].split("\n\n", 1)[0], flags=re.M)
    assert tuple(rows) == FLUSH_FIXES
    assert all(f"{language}: {fix}" in silence_hint("ready") for language, fix in FLUSH_FIXES)


# -- the protocol's version ----------------------------------------------------------------

_ROOT = Path(__file__).resolve().parent.parent
_CURRENT_VERSION_STATEMENTS = (
    # What a doc says the current version is: the bot's environment, hello's field, a title.
    re.compile(r"GOLFREF_PROTOCOL=(\d+)"),
    re.compile(r'"protocol": ?(\d+)'),
    re.compile(r"^# The bot protocol \(version (\d+)\)", flags=re.M),
    re.compile(r"standard library only, protocol version (\d+)"),
)


def _current_version_statements() -> list[tuple[str, str, int]]:
    found = []
    for path in [_ROOT / "README.md", *sorted((_ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for pattern in _CURRENT_VERSION_STATEMENTS:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append((f"{path.relative_to(_ROOT)}:{line}", m.group(0), int(m.group(1))))
    return found


def test_the_docs_state_the_current_protocol_version() -> None:
    # A bot gets golfref.PROTOCOL_VERSION in GOLFREF_PROTOCOL (bots/environment.py); docs that
    # state the version a bot gets must say that number, not the one it had when they were written.
    assert bot_environment(None, 0)["GOLFREF_PROTOCOL"] == str(PROTOCOL_VERSION)
    found = _current_version_statements()
    assert any("GOLFREF_PROTOCOL=" in text for _, text, _ in found), "the docs state GOLFREF_PROTOCOL's value"
    assert any(where.startswith("docs/PROTOCOL.md") and "version" in text for where, text, _ in found)
    stale = [f"{where}: {text}" for where, text, version in found if version != PROTOCOL_VERSION]
    assert not stale, f"the protocol is version {PROTOCOL_VERSION}, the docs say otherwise: {stale}"
