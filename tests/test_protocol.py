"""The protocol module against schemas/protocol.schema.json.

`parse_ready` and `parse_answer` check bot messages against the schema, compiled by
fastjsonschema: a table of lines is run through both jsonschema and the parser, and each
line must be accepted by both or rejected by both; what a bot is told names the first field
at fault. Messages the referee builds must validate, and the three schemas must be valid
JSON Schemas.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given

from golfref.bots import environment
from golfref.game.engine import Game
from golfref.game.rules import PRESETS, KnockPenalty, Rules, resolve_rules
from golfref.game.view import events_for, view
from golfref.match import protocol
from tests.games import turns
from tests.test_properties import rule_sets

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
SCHEMA = json.loads((SCHEMAS / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def only(kind: str) -> jsonschema.Draft202012Validator:
    """A validator for one message type of the protocol schema."""
    return jsonschema.Draft202012Validator({**SCHEMA, "oneOf": [{"$ref": f"#/$defs/{kind}"}]})


READY, ANSWER = only("ready"), only("answer")


def schema_accepts(validator: jsonschema.Draft202012Validator, line: str) -> bool:
    try:
        data = json.loads(line)
    except ValueError:
        return False
    return validator.is_valid(data)


def parser_accepts(parse: Any, line: str) -> bool:
    try:
        parse(line)
    except protocol.MessageError:
        return False
    return True


def j(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


# (id, line, accepted)
READY_CASES = [
    ("minimal", j(type="ready", name="bot"), True),
    ("with-version", j(type="ready", name="bot", version="1.2"), True),
    ("empty-version", j(type="ready", name="bot", version=""), True),
    ("extra-fields", j(type="ready", name="bot", author="me", n=3), True),
    ("name-64", j(type="ready", name="n" * 64), True),
    ("name-64-astral", j(type="ready", name="\U0001f600" * 64), True),
    ("name-control-chars", j(type="ready", name="a\tb\n"), True),
    ("version-64", j(type="ready", name="bot", version="v" * 64), True),
    ("name-65", j(type="ready", name="n" * 65), False),
    ("name-65-astral", j(type="ready", name="\U0001f600" * 65), False),
    ("name-empty", j(type="ready", name=""), False),
    ("name-missing", j(type="ready"), False),
    ("name-number", j(type="ready", name=7), False),
    ("name-null", j(type="ready", name=None), False),
    ("name-list", j(type="ready", name=["bot"]), False),
    ("version-65", j(type="ready", name="bot", version="v" * 65), False),
    ("version-number", j(type="ready", name="bot", version=1), False),
    ("version-null", j(type="ready", name="bot", version=None), False),
    ("wrong-type", j(type="answer", name="bot"), False),
    ("type-case", j(type="Ready", name="bot"), False),
    ("type-missing", j(name="bot"), False),
    ("type-number", j(type=1, name="bot"), False),
    ("array", '["ready"]', False),
    ("string", '"ready"', False),
    ("null", "null", False),
    ("not-json", "ready bot", False),
    ("truncated", '{"type": "ready", "name": "bot"', False),
    ("empty-line", "", False),
]

ANSWER_CASES = [
    ("minimal", j(type="answer", id=1, action="stock"), True),
    ("big-id", j(type="answer", id=10**18, action="swap:3"), True),
    ("extra-fields", j(type="answer", id=3, action="stock", note="hi"), True),
    ("any-text-action", j(type="answer", id=3, action="anything at all"), True),
    ("empty-action", j(type="answer", id=3, action=""), True),
    ("action-32", j(type="answer", id=3, action="a" * 32), True),
    ("action-33", j(type="answer", id=3, action="a" * 33), False),
    ("action-missing", j(type="answer", id=3), False),
    ("action-number", j(type="answer", id=3, action=3), False),
    ("action-null", j(type="answer", id=3, action=None), False),
    ("id-zero", j(type="answer", id=0, action="stock"), False),
    ("id-negative", j(type="answer", id=-4, action="stock"), False),
    ("id-text", j(type="answer", id="1", action="stock"), False),
    ("id-true", j(type="answer", id=True, action="stock"), False),
    ("id-fraction", j(type="answer", id=1.5, action="stock"), False),
    ("id-whole-float", '{"type": "answer", "id": 1.0, "action": "stock"}', True),
    ("id-exponent", '{"type": "answer", "id": 2e0, "action": "stock"}', True),
    ("id-missing", j(type="answer", action="stock"), False),
    ("id-null", j(type="answer", id=None, action="stock"), False),
    ("wrong-type", j(type="ready", id=1, action="stock"), False),
    ("type-missing", j(id=1, action="stock"), False),
    ("array", "[1, 2]", False),
    ("number", "5", False),
    ("not-json", "stock", False),
    ("truncated", '{"type":"answer","id":', False),
]


@pytest.mark.parametrize(("line", "accepted"), [c[1:] for c in READY_CASES], ids=[c[0] for c in READY_CASES])
def test_parse_ready_agrees_with_the_schema(line: str, accepted: bool) -> None:
    assert schema_accepts(READY, line) is accepted, "the table disagrees with the schema"
    assert parser_accepts(protocol.parse_ready, line) is accepted, "the parser disagrees with the schema"


@pytest.mark.parametrize(("line", "accepted"), [c[1:] for c in ANSWER_CASES], ids=[c[0] for c in ANSWER_CASES])
def test_parse_answer_agrees_with_the_schema(line: str, accepted: bool) -> None:
    assert schema_accepts(ANSWER, line) is accepted, "the table disagrees with the schema"
    assert parser_accepts(protocol.parse_answer, line) is accepted, "the parser disagrees with the schema"


# Values an answer's fields take, the everyday and each edge of the schema's bounds; absent is a value too.
_ABSENT = object()
_IDS = [_ABSENT, None, True, False, -1, 0, 1, 2, 10**18, 2**70, 1.0, 1.5, 0.0, "1", [1]]
_ACTIONS = [_ABSENT, None, 3, True, "", "stock", "a" * 31, "a" * 32, "a" * 33, "\U0001f600" * 32, "\U0001f600" * 33, []]


@pytest.mark.parametrize("kind", ["answer", "ready", "Answer"])
def test_a_plain_answer_is_one_the_schema_accepts(kind: str) -> None:
    for request_id, action, note in itertools.product(_IDS, _ACTIONS, [_ABSENT, "hi"]):
        fields = {"type": kind, "id": request_id, "action": action, "note": note}
        data = {name: value for name, value in fields.items() if value is not _ABSENT}
        if protocol.answer_is_plain(data):
            assert ANSWER.is_valid(data), f"the shortcut accepts what the schema refuses: {data!r}"
            assert protocol.parse_answer(json.dumps(data)) == (data["id"], data["action"])
        assert parser_accepts(protocol.parse_answer, json.dumps(data)) is ANSWER.is_valid(data), data


def test_the_answer_definition_has_the_shape_the_shortcut_reads() -> None:
    # answer_is_plain reads the id's minimum and the action's maxLength and nothing else: a keyword the
    # definition gains (a pattern, a maximum, a closed object) would let the shortcut accept too much.
    answer = SCHEMA["$defs"]["answer"]
    assert set(answer) == {"type", "required", "properties", "additionalProperties"}
    assert answer["required"] == ["type", "id", "action"] and answer["additionalProperties"] is True
    assert answer["properties"] == {
        "type": {"const": "answer"},
        "id": {"type": "integer", "minimum": answer["properties"]["id"]["minimum"]},
        "action": {"type": "string", "maxLength": answer["properties"]["action"]["maxLength"]},
    }


_NAMES = [_ABSENT, None, 3, True, "", "b", "a" * 64, "a" * 65, "\U0001f600" * 64, "\U0001f600" * 65, ["b"]]
_VERSIONS = [_ABSENT, None, 2, "", "1.0", "v" * 64, "v" * 65, ["1"]]


@pytest.mark.parametrize("kind", ["ready", "answer", "Ready"])
def test_a_plain_ready_is_one_the_schema_accepts(kind: str) -> None:
    for name, version, note in itertools.product(_NAMES, _VERSIONS, [_ABSENT, "hi"]):
        fields = {"type": kind, "name": name, "version": version, "note": note}
        data = {key: value for key, value in fields.items() if value is not _ABSENT}
        if protocol.ready_is_plain(data):
            assert READY.is_valid(data), f"the shortcut accepts what the schema refuses: {data!r}"
            assert protocol.parse_ready(json.dumps(data)) == (data["name"], data.get("version"))
        assert parser_accepts(protocol.parse_ready, json.dumps(data)) is READY.is_valid(data), data


def test_the_ready_definition_has_the_shape_the_shortcut_reads() -> None:
    # ready_is_plain reads the name's length bounds and the version's maxLength and nothing else.
    ready = SCHEMA["$defs"]["ready"]
    assert set(ready) == {"type", "required", "properties", "additionalProperties"}
    assert ready["required"] == ["type", "name"] and ready["additionalProperties"] is True
    name, version = ready["properties"]["name"], ready["properties"]["version"]
    assert ready["properties"] == {
        "type": {"const": "ready"},
        "name": {"type": "string", "minLength": name["minLength"], "maxLength": name["maxLength"]},
        "version": {"type": "string", "maxLength": version["maxLength"]},
    }


def test_well_behaved_messages_compile_no_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    # The compilations cost a tenth of a second of a run's start: a match of well-behaved bots needs none,
    # and a message that does need the schema still gets it.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a schema was compiled")

    protocol._message_check.cache_clear()
    monkeypatch.setattr(protocol.fastjsonschema, "compile", refuse)
    assert protocol.parse_ready(j(type="ready", name="bot", version="2")) == ("bot", "2")
    assert protocol.parse_answer(j(type="answer", id=3, action="stock")) == (3, "stock")
    monkeypatch.undo()
    with pytest.raises(protocol.InvalidMessage, match="ready needs a 'name'"):
        protocol.parse_ready(j(type="ready", name=""))
    assert protocol.parse_answer(j(type="answer", id=3.0, action="stock")) == (3, "stock")


def test_parsers_return_the_fields() -> None:
    assert protocol.parse_ready(j(type="ready", name="bot", version="2")) == ("bot", "2")
    assert protocol.parse_ready(j(type="ready", name="bot")) == ("bot", None)
    assert protocol.parse_answer(j(type="answer", id=9, action="swap:1", extra=1)) == (9, "swap:1")


@pytest.mark.parametrize("line", ["nope", "[]", '"x"', "1", "null", "{", '{"a": NaNx}', "[" * 100_000])
def test_lines_that_are_no_json_object_are_not_json(line: str) -> None:
    for parse in (protocol.parse_ready, protocol.parse_answer):
        with pytest.raises(protocol.NotJson):
            parse(line)


@pytest.mark.parametrize(
    "line",
    [j(type="answer", id=1, action="x"), j(name="bot"), j(type=None), j(type="ready")],
)
def test_json_objects_of_the_wrong_shape_are_invalid_messages(line: str) -> None:
    with pytest.raises(protocol.InvalidMessage):
        protocol.parse_ready(line)



READY_NAME = "ready needs a 'name' string of 1 to 64 characters"
READY_VERSION = "ready's 'version' must be a string of at most 64 characters"
ANSWER_ID = "answer needs an integer 'id' of at least 1"
ANSWER_ACTION = "answer needs an 'action' string of at most 32 characters"


@pytest.mark.parametrize(
    ("parse", "line", "told"),
    [
        (protocol.parse_ready, j(type="answer", name="bot"), "expected a ready message, got type 'answer'"),
        (protocol.parse_ready, j(type="ready"), READY_NAME),
        (protocol.parse_ready, j(type="ready", name=""), READY_NAME),
        (protocol.parse_ready, j(type="ready", name="bot", version=None), READY_VERSION),
        (protocol.parse_ready, j(type="ready", name="bot", version="v" * 65), READY_VERSION),
        # The first field the schema lists is named, whether it is missing or wrong.
        (protocol.parse_ready, j(type="ready", version=3), READY_NAME),
        (protocol.parse_ready, j(type="ready", version=3, name=7), READY_NAME),
        (protocol.parse_answer, j(type="ready", id=1, action="stock"), "expected an answer message, got type 'ready'"),
        (protocol.parse_answer, j(type="answer", id=0, action="stock"), ANSWER_ID),
        (protocol.parse_answer, j(type="answer", id=True, action="stock"), ANSWER_ID),
        (protocol.parse_answer, j(type="answer", id=1.5, action="stock"), ANSWER_ID),
        (protocol.parse_answer, j(type="answer", id=1, action="a" * 33), ANSWER_ACTION),
        (protocol.parse_answer, j(type="answer", id=1), ANSWER_ACTION),
        (protocol.parse_answer, j(type="answer", action=None, id="1"), ANSWER_ID),
        (protocol.parse_answer, j(type="answer", id=-1), ANSWER_ID),
        (protocol.parse_answer, j(type="answer"), ANSWER_ID),
    ],
)
def test_a_bot_is_told_the_first_field_at_fault(parse: Any, line: str, told: str) -> None:
    with pytest.raises(protocol.InvalidMessage) as caught:
        parse(line)
    assert str(caught.value) == told


@pytest.mark.parametrize("kind", ["ready", "answer"])
def test_every_field_of_the_schema_has_its_own_words(kind: str) -> None:
    """A field the schema gains must get a message in protocol.py, not the library's fallback."""
    parse = {"ready": protocol.parse_ready, "answer": protocol.parse_answer}[kind]
    fields = [f for f in SCHEMA["$defs"][kind]["properties"] if f != "type"]
    assert fields
    for field in fields:
        with pytest.raises(protocol.InvalidMessage) as caught:
            parse(j(**{"type": kind, "name": "bot", "id": 1, "action": "stock", field: [field]}))
        assert not str(caught.value).startswith(f"{kind}: ") and repr(field) in str(caught.value), field

def test_a_whole_number_written_as_a_float_is_the_request_id() -> None:
    request_id, _ = protocol.parse_answer('{"type": "answer", "id": 7.0, "action": "stock"}')
    assert request_id == 7 and type(request_id) is int

# -- messages the referee builds -----------------------------------------------------------------


def played_game(preset: str, overrides: dict[str, Any], players: int) -> tuple[Game, list[str], list[str]]:
    """A whole match of random legal moves; every request's line and every seat's hole_end lines."""
    rules = resolve_rules(preset, overrides, players)
    game = Game(rules)
    rng = random.Random(5)
    names = [str(c) for c in game.cards]
    requests, hole_ends = [], []
    seen_holes = 0
    for rid, seat in enumerate(turns(game, rng), start=1):
        assert game.decision is not None
        legal = game.legal_actions()
        requests.append(
            protocol.request(
                rid,
                game.decision.value,
                view(game, seat).to_json(),
                events_for(game, seat),
                [a.text for a in legal],
                2000,
            )
        )
        game.apply(rng.choice(legal))
        if len(game.results) > seen_holes:
            seen_holes = len(game.results)
            hole_ends += [
                protocol.hole_end(game.results[-1], names, events_for(game, s, 0, finished=True))
                for s in range(players)
            ]
    return game, requests, hole_ends


@pytest.mark.parametrize(
    ("preset", "overrides", "players"),
    [
        ("standard", {"holes": 2}, 2),
        ("arena", {"layout": "2x2", "card_powers": True, "holes": 2}, 3),
        ("classic", {"reveal": "peek", "decks": 2, "jokers": "on", "holes": 1, "turn_limit": 30}, 4),
    ],
)
def test_built_messages_validate(preset: str, overrides: dict[str, Any], players: int) -> None:
    game, requests, hole_ends = played_game(preset, overrides, players)
    time = {"startup_ms": 10_000, "move_ms": 2_000, "bank_ms": 0, "increment_ms": 0, "grace_ms": 100}
    names = [f"p{i}" for i in range(players)]
    lines = [protocol.hello(i, names, protocol.hello_rules(game.rules), time) for i in range(players)]
    lines += requests + hole_ends
    lines.append(protocol.match_end(game.totals, game.placings([players - 1]), [players - 1]))
    lines.append(protocol.goodbye())
    assert len(hole_ends) == game.rules.holes * players and requests
    for line in lines:
        assert "\n" not in line and "\r" not in line
        message = json.loads(line)
        errors = [e.message for e in VALIDATOR.iter_errors(message)]
        assert errors == [], (message["type"], errors[:3])
    assert json.loads(protocol.goodbye()) == {"type": "goodbye"}
    hello = json.loads(lines[0])
    assert hello["protocol"] == protocol.PROTOCOL_VERSION == 3 and hello["seat"] == 0 and hello["players"] == names


def test_the_schema_rejects_what_no_message_is() -> None:
    messages: list[Any] = [{"type": "hello"}, {"type": "goodbye", "x": 1}, {"type": "chatter"}, [], "goodbye"]
    for message in messages:
        assert not VALIDATOR.is_valid(message)


@pytest.mark.parametrize("name", ["protocol.schema.json", "log.schema.json", "match-config.schema.json"])
def test_schemas_are_valid_against_their_metaschema(name: str) -> None:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_the_environment_announces_the_protocol_version() -> None:
    assert environment.bot_environment(None, 0)["GOLFREF_PROTOCOL"] == str(protocol.PROTOCOL_VERSION)


# -- hello's rules: one JSON type per field ---------------------------------------------

RULES_SCHEMA = SCHEMA["$defs"]["rules"]
RULES_VALIDATOR = jsonschema.Draft202012Validator(RULES_SCHEMA)


def json_type(value: Any) -> str:
    """The JSON type name of a decoded JSON scalar."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    for name, kind in (("integer", int), ("number", float), ("string", str), ("array", list), ("object", dict)):
        if isinstance(value, kind):
            return name
    raise AssertionError(f"not JSON: {value!r}")


def schema_types() -> dict[str, tuple[str, ...]]:
    """Each field of hello.rules and its JSON types, as the schema declares them."""
    out = {}
    for name, prop in RULES_SCHEMA["properties"].items():
        declared = prop["type"]
        out[name] = (declared,) if isinstance(declared, str) else tuple(declared)
    return out


def test_the_schema_gives_every_rules_field_one_type_or_null() -> None:
    assert RULES_SCHEMA["required"] == list(RULES_SCHEMA["properties"])
    assert RULES_SCHEMA["additionalProperties"] is False
    for name, types in schema_types().items():
        assert types[0] != "null" and types[1:] in ((), ("null",)), f"rules.{name}: {types}"


def check_hello_rules(rules: Rules) -> None:
    """hello.rules for `rules`, as a bot decodes it, has exactly the schema's types and meaning."""
    time = {"startup_ms": 1, "move_ms": 1, "bank_ms": 0, "increment_ms": 0, "grace_ms": 0}
    sent = json.loads(protocol.hello(0, ["a"] * rules.players, protocol.hello_rules(rules), time))["rules"]
    types = schema_types()
    assert list(sent) == list(types), "hello.rules has the schema's fields, in its order"
    for name, value in sent.items():
        assert json_type(value) in types[name], f"rules.{name} = {value!r} is not {' or '.join(types[name])}"
    assert [e.message for e in RULES_VALIDATOR.iter_errors(sent)] == []
    assert VALIDATOR.is_valid(json.loads(protocol.hello(0, ["a"] * rules.players, sent, time)))
    # null means off; a doubling knock penalty is its own boolean.
    assert (sent["jokers"], sent["block_bonus"]) == (rules.jokers, rules.block_bonus)
    assert sent["knock_double"] == (rules.knock_penalty is KnockPenalty.DOUBLE)
    assert sent["knock_penalty"] == (None if sent["knock_double"] else rules.knock_penalty)
    plain = rules.to_dict()
    for name in set(plain) - {"jokers", "block_bonus", "knock_penalty"}:
        assert sent[name] == plain[name], f"rules.{name} differs from `golfref rules --json`"


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"jokers": "on", "block_bonus": "on", "knocking": True, "knock_penalty": "double"},
        {"jokers": -5, "block_bonus": -8, "knock_penalty": 0},
        {"layout": "2x2"},
        {"layout": "3x3", "jokers": 0, "block_bonus": 0},
    ],
)
def test_hello_rules_have_the_documented_type_for_every_preset(preset: str, overrides: dict[str, Any]) -> None:
    check_hello_rules(resolve_rules(preset, overrides, 2))


@given(rules=rule_sets())
def test_hello_rules_have_the_documented_type_for_random_rule_sets(rules: Rules) -> None:
    check_hello_rules(rules)


@pytest.mark.parametrize(
    "line",
    [
        json.dumps({"type": "t" * 4000, "id": 1, "action": "stock"}),
        json.dumps({"type": ["x"] * 2000, "id": 1, "action": "stock"}),
    ],
    ids=["long-type", "list-type"],
)
def test_a_message_error_quotes_at_most_a_little_of_the_line(line: str) -> None:
    for parse in (protocol.parse_answer, protocol.parse_ready):
        with pytest.raises(protocol.MessageError) as caught:
            parse(line)
        assert len(str(caught.value)) < 100, str(caught.value)


def test_clip_cuts_long_values_and_keeps_short_ones() -> None:
    assert protocol.clip(10**3999).endswith("...") and len(protocol.clip(10**3999)) == 40
    assert protocol.clip("stock") == "'stock'"
    assert protocol.clip(1001) == "1001"


@pytest.mark.process
def test_the_process_layer_takes_the_version_without_the_message_layer() -> None:
    """One protocol version, in golfref/__init__.py: the process layer reads it without importing
    protocol.py (JSON, the engine, the rules), which would break its layering. The sandbox,
    its system-call filter and its control groups are process plumbing too; of the config, only the
    sandbox's settings as values and where a program is found; of the game, only the hot path's
    helpers (game/fast.py, which imports nothing)."""
    code = (
        "import json, sys, golfref.bots.bot_process\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'golfref')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )
    assert json.loads(done.stdout) == [
        "golfref", "golfref.bots", "golfref.bots.bot_process", "golfref.bots.cgroups", "golfref.bots.environment",
        "golfref.bots.framing", "golfref.bots.lifetime", "golfref.bots.multiplex", "golfref.bots.pythons",
        "golfref.bots.sandbox",
        "golfref.bots.seccomp", "golfref.config", "golfref.config.programs", "golfref.config.sandbox_spec",
        "golfref.game", "golfref.game.fast",
    ]  # fmt: skip


_TRICKY_LINES = [
    '{"type":"answer","id":7,"action":"stock"}',
    '{"type":"answer","id":' + "1" * 60 + ',"action":"x"}',  # past 64 bits: orjson would read a float
    '{"type":"answer","id":-' + "9" * 30 + ',"action":"x"}',
    '{"type":"answer","id":7.0,"action":"x"}',
    '{"type":"answer","id":1e400,"action":"x"}',
    '{"type":"answer","id":NaN,"action":"x"}',
    '{"type":"answer","id":Infinity,"action":"x"}',
    '{"type":"answer","id":3,"action":"\\ud800"}',  # a lone surrogate
    '{"type":"answer","type":"ready","name":"twice"}',  # a repeated key: the last one counts
    '{"type":"answer","id":3,"action":"x","extra":{"deep":[1.5,2,{"x":null}]}}',
    "[" * 2000 + "]" * 2000,
    '{"type":"answer","id":3,"action":"x"} trailing',
    '{"type":"answer","id":3,"action":"x"',
]


@pytest.mark.parametrize("line", _TRICKY_LINES)
def test_a_bot_line_means_what_the_json_module_reads_in_it(line: str) -> None:
    """The fast decoder (orjson) must never read a bot's line otherwise than the json module did."""
    import json as json_module

    try:
        expected: object = json_module.loads(line)
    except (ValueError, RecursionError):
        expected = protocol.NotJson
    try:
        got: object = protocol._loads(line)
    except (ValueError, RecursionError):
        got = protocol.NotJson
    if isinstance(expected, float) or (isinstance(expected, dict) and expected.get("id") != expected.get("id")):
        assert repr(got) == repr(expected)  # NaN is not equal to itself
    else:
        assert got == expected and type(got) is type(expected)
        if isinstance(expected, dict):
            assert isinstance(got, dict)
            assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}
