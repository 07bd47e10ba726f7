"""Messages between the referee and bots: protocol version 3, one JSON object per line.

Every message type is described in `schemas/protocol.schema.json`. A bot's `ready` and
`answer` are checked against their definitions there, compiled by fastjsonschema the first
time a message of the everyday shape does not settle it (see `answer_is_plain`); a violation
becomes one message naming the field, in the order the fields are listed, which is what the
bot is told and what its fault records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache, cached_property
from typing import Any

import fastjsonschema
import orjson

from .. import PROTOCOL_VERSION
from ..config.schemas import load_schema
from ..game.engine import HoleResult
from ..game.rules import HOUSE_OPTIONS, KnockPenalty, Rules, rules_from_dict

__all__ = [
    "PROTOCOL_VERSION",
    "hello_rules",
    "rules_from_hello",
    "MessageError",
    "NotJson",
    "InvalidMessage",
    "hello",
    "request",
    "hole_end",
    "match_end",
    "goodbye",
    "parse_ready",
    "parse_answer",
    "parse_message",
    "clip",
]


def _loads(line: str) -> Any:
    # orjson decodes an answer in a fraction of the json module's time. What it refuses
    # (lone surrogates, NaN, nesting past 1024), and a message with a float field (orjson
    # reads an integer past 64 bits as a float), goes to the json module, whose reading
    # was and stays the protocol's: a bot's line means the same either way.
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
    if isinstance(data, dict) and any(type(value) is float for value in data.values()):
        return json.loads(line)
    return data


def _dumps(message: dict[str, Any]) -> str:
    # orjson encodes a request ten times faster than the json module (2 us against 21 us),
    # a large share of the referee's own time per decision.
    return orjson.dumps(message).decode("utf-8")


_CLIP = 40


def clip(value: object, limit: int = _CLIP) -> str:
    """A value from a bot as a message quotes it: its repr, cut to about `limit` characters.

    Everything a bot sends may be as long as a line can be; a fault message must not be.
    """
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


class MessageError(ValueError):
    """A line from a bot that is not a valid protocol message."""


class NotJson(MessageError):
    """The line is not a JSON object."""


class InvalidMessage(MessageError):
    """The line is JSON but not the message expected."""


def hello_rules(rules: Rules) -> dict[str, Any]:
    """The rule set as hello carries it: `Rules.to_dict()` with one JSON type per field.

    A config writes `off` and `double` among numbers; a bot in a typed language should not
    have to parse that, so an option that is off is null and a doubling knock penalty is
    its own boolean, `knock_double` (with `knock_penalty` null).
    """
    out: dict[str, Any] = {}
    for name, value in rules.to_dict().items():
        if name in HOUSE_OPTIONS:
            continue
        if name in ("jokers", "block_bonus"):
            out[name] = getattr(rules, name)
        elif name == "knock_penalty":
            double = rules.knock_penalty is KnockPenalty.DOUBLE
            out[name] = None if double else rules.knock_penalty
            out["knock_double"] = double
        else:
            out[name] = value
    # The house options, every one present: the whole card table (not only its overrides),
    # so that a bot reads each rank's points instead of rebuilding them from twos and court_values.
    out["card_values"] = {rank.value: points for rank, points in rules.card_table().items()}
    out["suit_values"] = {rank.value + suit.value: points for rank, suit, points in rules.suit_values}
    out["joker_count"] = rules.joker_count
    out["joker_pair"] = rules.joker_pair
    out["negative_pairs"] = rules.negative_pairs.value
    out["two_column_bonus"] = rules.two_column_bonus
    out["jack_columns_bonus"] = rules.jack_columns_bonus
    out["exact_score"] = None if rules.exact_score is None else list(rules.exact_score)
    for name in ("closer_penalty", "closer_bonus", "low_score_bonus", "tie_penalty"):
        out[name] = getattr(rules, name)
    out["flip_instead_of_draw"] = rules.flip_instead_of_draw
    out["flip_out"] = rules.flip_out
    return out


def rules_from_hello(data: dict[str, Any]) -> Rules:
    """The `Rules` of a hello message's rules (the inverse of `hello_rules`); RulesError if they do not resolve."""
    plain = {k: v for k, v in data.items() if k != "knock_double" and k not in HOUSE_OPTIONS}
    for name in ("jokers", "block_bonus"):
        if plain.get(name) is None:
            plain[name] = "off"
    if data.get("knock_double"):
        plain["knock_penalty"] = KnockPenalty.DOUBLE.value
    base = rules_from_dict(plain)
    # hello carries every house option, the whole card table included; a config (and
    # `rules_from_dict`) names only those that differ from the neutral rules.
    house: dict[str, Any] = {}
    table = {rank.value: points for rank, points in base.card_table().items()}
    values = {r: v for r, v in (data.get("card_values") or {}).items() if table.get(r) != v}
    if values:
        house["card_values"] = values
    if data.get("suit_values"):
        house["suit_values"] = data["suit_values"]
    for name in HOUSE_OPTIONS:
        value = data.get(name)
        if name in ("card_values", "suit_values") or value is None or value is False:
            continue
        if name == "negative_pairs" and value == "cancel":
            continue
        house[name] = value
    return rules_from_dict({**base.to_dict(), **house}) if house else base


def hello(seat: int, names: Sequence[str], rules: dict[str, Any], time: dict[str, int]) -> str:
    """The handshake the referee sends first."""
    return _dumps(
        {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "seat": seat,
            "players": list(names),
            "rules": rules,
            "time": time,
        }
    )


def request(
    request_id: int,
    decision: str,
    view: dict[str, Any],
    events: list[dict[str, Any]],
    legal: Sequence[str],
    time_ms: int,
) -> str:
    """One decision request."""
    return _dumps(
        {
            "type": "request",
            "id": request_id,
            "decision": decision,
            "view": view,
            "events": events,
            "legal": list(legal),
            "time_ms": time_ms,
        }
    )


def hole_end(result: HoleResult, card_names: Sequence[str], events: list[dict[str, Any]]) -> str:
    """The notice sent to a bot when a hole ends: its last events, revealed grids and scores."""
    return _dumps(
        {
            "type": "hole_end",
            "hole": result.hole,
            "events": events,
            "end": result.end.value,
            "ender": result.ender,
            "grids": [[card_names[c] for c in g] for g in result.grids],
            "scores": list(result.scores),
            "penalties": list(result.penalties),
            "totals": list(result.totals),
        }
    )


def match_end(totals: Sequence[int], placings: Sequence[int], disqualified: Sequence[int]) -> str:
    """The notice sent to every bot when the match ends."""
    return _dumps(
        {
            "type": "match_end",
            "totals": list(totals),
            "placings": list(placings),
            "disqualified": sorted(disqualified),
        }
    )


def goodbye() -> str:
    """The last message; the referee closes stdin after it."""
    return '{"type":"goodbye"}'


def parse_message(line: str) -> dict[str, Any]:
    """Decode one line as a JSON object with a string `type`."""
    try:
        data = _loads(line)
    except (ValueError, RecursionError):
        raise NotJson("not JSON") from None
    if not isinstance(data, dict):
        raise NotJson(f"a message is a JSON object, got {type(data).__name__}")
    if not isinstance(data.get("type"), str):
        raise InvalidMessage("the message has no string field 'type'")
    return data


# What a bot is told about a field of its ready or answer that breaks the schema, field by field in
# the order the schema lists them: the first field at fault is the one named.
_PROBLEMS: dict[str, dict[str, str]] = {
    "ready": {
        "name": "ready needs a 'name' string of 1 to 64 characters",
        "version": "ready's 'version' must be a string of at most 64 characters",
    },
    "answer": {
        "id": "answer needs an integer 'id' of at least 1",
        "action": "answer needs an 'action' string of at most 32 characters",
    },
}


class _MessageCheck:
    """One message type of schemas/protocol.schema.json compiled by fastjsonschema: the whole, and each field."""

    def __init__(self, schema: dict[str, Any], kind: str) -> None:
        definition = schema["$defs"][kind]
        self.kind = kind
        self.schema = schema
        self.whole = _compile(schema, definition)
        self.required: list[str] = definition["required"]

    @cached_property
    def fields(self) -> dict[str, Callable[[Any], Any]]:
        """Each field on its own, compiled when a message first breaks the whole: to name the first one at fault,
        since the whole check stops at the first violation it meets, which may be a field listed later."""
        properties = self.schema["$defs"][self.kind]["properties"]
        return {name: _compile(self.schema, properties[name]) for name in _PROBLEMS[self.kind]}

    def problem(self, data: dict[str, Any], violation: fastjsonschema.JsonSchemaValueException) -> InvalidMessage:
        """The error naming the first field of `data`, in the schema's order, that breaks it."""
        for name, words in _PROBLEMS[self.kind].items():
            if name not in data:
                if name in self.required:
                    return InvalidMessage(words)
                continue
            try:
                self.fields[name](data[name])
            except fastjsonschema.JsonSchemaValueException:
                return InvalidMessage(words)
        # A field the schema gained without words here: the library's (no value quoted).
        return InvalidMessage(f"{self.kind}: {violation.message}")


def _compile(schema: dict[str, Any], part: dict[str, Any]) -> Callable[[Any], Any]:
    """`part` of `schema` (with the definitions it may refer to) compiled by fastjsonschema."""
    check: Callable[[Any], Any] = fastjsonschema.compile(
        {"$schema": schema["$schema"], "$defs": schema["$defs"], **part}, use_default=False, use_formats=False
    )
    return check


_PROTOCOL_SCHEMA = load_schema("protocol.schema.json")


# Compiled when first needed, not at import: the six compilations cost about 0.1 s of every
# `golfref run`'s start, and a match between well-behaved bots needs none of them (their ready
# and answers take the shortcuts below). A bot whose message does need the schema has its own
# message checked after it arrived, off its clock.
@cache
def _message_check(kind: str) -> _MessageCheck:
    return _MessageCheck(_PROTOCOL_SCHEMA, kind)


def _check(kind: str, data: dict[str, Any]) -> None:
    """Raise InvalidMessage unless `data` is a valid message of type `kind`."""
    if data["type"] != kind:
        article = "an" if kind == "answer" else "a"
        raise InvalidMessage(f"expected {article} {kind} message, got type {clip(data['type'])}")
    check = _message_check(kind)
    try:
        check.whole(data)
    except fastjsonschema.JsonSchemaValueException as e:
        raise check.problem(data, e) from None


# The ready's bounds, read from its definition: ready_is_plain takes them from here, not from copies.
_READY_FIELDS = _PROTOCOL_SCHEMA["$defs"]["ready"]["properties"]
_SHORTEST_NAME: int = _READY_FIELDS["name"]["minLength"]
_LONGEST_NAME: int = _READY_FIELDS["name"]["maxLength"]
_LONGEST_VERSION: int = _READY_FIELDS["version"]["maxLength"]


def ready_is_plain(data: dict[str, Any]) -> bool:
    """Whether `data` is a ready of the everyday shape, which the schema accepts without asking it.

    Nearly every ready is one: a name string of the allowed length and no version or a short
    string one. tests/test_protocol.py holds that the schema accepts everything this accepts, and
    that the definition still has the shape this reads; anything else goes to the schema.
    """
    name = data.get("name")
    version = data.get("version")
    return (
        data["type"] == "ready"
        and type(name) is str
        and _SHORTEST_NAME <= len(name) <= _LONGEST_NAME
        and ("version" not in data or (type(version) is str and len(version) <= _LONGEST_VERSION))
    )


def parse_ready(line: str) -> tuple[str, str | None]:
    """Read a ready message: (name, version or None)."""
    data = parse_message(line)
    if not ready_is_plain(data):
        _check("ready", data)
    return data["name"], data.get("version")


# The answer's bounds, read from its definition: answer_is_plain takes them from here, not from copies.
_ANSWER_FIELDS = _PROTOCOL_SCHEMA["$defs"]["answer"]["properties"]
_LEAST_ID: int = _ANSWER_FIELDS["id"]["minimum"]
_LONGEST_ACTION: int = _ANSWER_FIELDS["action"]["maxLength"]


def answer_is_plain(data: dict[str, Any]) -> bool:
    """Whether `data` is an answer of the everyday shape, which the schema accepts without asking it.

    Nearly every answer is one: an int id and a short string action. Asking the compiled schema
    doubles the referee's own work per decision, so this shape skips it; tests/test_protocol.py
    holds that the schema accepts everything this accepts, and that the definition still has the
    shape this reads. Anything else (a float id, a missing field, a wrong type) goes to the schema.
    """
    request_id = data.get("id")
    action = data.get("action")
    return (
        data["type"] == "answer"
        and type(request_id) is int
        and request_id >= _LEAST_ID
        and type(action) is str
        and len(action) <= _LONGEST_ACTION
    )


def parse_answer(line: str) -> tuple[int, str]:
    """Read an answer message: (request id, action text)."""
    data = parse_message(line)
    if answer_is_plain(data):
        return data["id"], data["action"]
    _check("answer", data)
    request_id = data["id"]
    if type(request_id) is float:
        request_id = int(request_id)  # JSON has one number type: 7.0 is the integer 7
    return request_id, data["action"]
