"""golfref.record.schema_check: a schema compiled to one check agrees with jsonschema, keyword by keyword."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from golfref.record.schema_check import SchemaCheckError, compile_check

# Values of every JSON type, and the edges the keywords below care about.
VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    7,
    8,
    -2,
    1.5,
    -0.5,
    "",
    "a",
    "ab",
    "7S",
    "7S#2",
    "7S#5",
    "x7S",
    "XR",
    "2x3",
    "off",
    [],
    [1],
    [1, 2, 3],
    ["7S", "XB#4"],
    ["7S", 1],
    ["7S", ["7S"]],
    [{}],
    {},
    {"a": 1},
    {"a": "x"},
    {"a": 1, "b": 2},
    {"b": 2},
    {"a": 1, "c": None},
    {"reshuffle": ["7S"]},
    {"reshuffle": ["7S"], "a": 1},
]

DEFS = {
    "card": {"type": "string", "pattern": "^(?:[A2-9TJQK][SHDC]|X[RB])(?:#[2-4])?$"},
    "seat": {"type": "integer", "minimum": 0, "maximum": 7},
    "pair": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}},
}

# One schema per keyword, and the combinations golfref's schemas use.
SCHEMAS: dict[str, dict[str, Any]] = {
    "type integer": {"type": "integer"},
    "type number": {"type": "number"},
    "type string": {"type": "string"},
    "type boolean": {"type": "boolean"},
    "type null": {"type": "null"},
    "type array": {"type": "array"},
    "type object": {"type": "object"},
    "type list": {"type": ["string", "null"]},
    "const string": {"const": "off"},
    "const integer": {"const": 1},
    "enum strings": {"enum": ["a", "ab", "off"]},
    "enum integers": {"enum": [-2, 2]},
    "minimum alone": {"minimum": 1},
    "maximum alone": {"maximum": 1},
    "integer or null with minimum": {"type": ["integer", "null"], "minimum": 1},
    "number or null with minimum": {"type": ["number", "null"], "minimum": 0},
    "minLength": {"type": "string", "minLength": 1},
    "minLength alone": {"minLength": 1},
    "pattern": {"$ref": "#/$defs/card"},
    "pattern alone": {"pattern": "^[1-4]x[1-4]$"},
    "minItems maxItems": {"type": "array", "minItems": 1, "maxItems": 2},
    "minItems alone": {"minItems": 1},
    "items inline": {"type": "array", "items": {"type": "integer"}},
    "items alone": {"items": {"type": "integer"}},
    "items of names": {"type": "array", "items": {"$ref": "#/$defs/card"}},
    "items of objects": {"type": "array", "items": {"$ref": "#/$defs/pair"}},
    "closed object, all required": {
        "type": "object",
        "required": ["a", "b"],
        "additionalProperties": False,
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    },
    "closed object, one optional": {
        "type": "object",
        "required": ["a"],
        "additionalProperties": False,
        "properties": {"a": {"type": "integer"}, "c": {"type": ["string", "null"]}},
    },
    "open object": {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}},
    "object keywords alone": {"required": ["a"], "properties": {"a": {"type": "integer"}}},
    "additionalProperties schema": {"type": "object", "additionalProperties": {"type": "string"}},
    "additionalProperties beside properties": {
        "type": "object",
        "properties": {"b": {"type": "integer"}},
        "additionalProperties": {"type": "string"},
    },
    "oneOf by type": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/seat"}]},
    "oneOf const or integer": {"oneOf": [{"const": "off"}, {"type": "integer"}]},
    "oneOf closed objects": {
        "oneOf": [
            {"type": "object", "required": ["a"], "additionalProperties": False, "properties": {"a": {}}},
            {
                "type": "object",
                "required": ["reshuffle"],
                "additionalProperties": False,
                "properties": {"reshuffle": {"type": "array", "items": {"$ref": "#/$defs/card"}}},
            },
        ]
    },
    "oneOf closed and open, untyped": {
        "oneOf": [{"additionalProperties": False, "properties": {"a": {}}}, {"required": ["reshuffle"]}]
    },
    "oneOf overlapping": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "oneOf overlapping numbers": {"oneOf": [{"type": "integer"}, {"minimum": 1}]},
}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_each_keyword_agrees_with_jsonschema(name: str) -> None:
    schema = {"$defs": DEFS, **SCHEMAS[name]}
    check = compile_check(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for value in VALUES:
        assert check(value) == validator.is_valid(value), (name, value, check.__doc__)


def test_a_whole_float_is_not_an_integer() -> None:
    # JSON Schema counts 1.0 as an integer; golfref writes 1. Rejecting it lets the caller
    # say "golfref writes a whole number here" rather than fail later on a float.
    for schema, value in (
        ({"type": "integer"}, 1.0),
        ({"items": {"type": "integer"}}, [1.0]),
        ({"enum": [-2, 2]}, -2.0),
    ):
        assert jsonschema.Draft202012Validator(schema).is_valid(value)
        assert not compile_check(schema)(value)
    assert compile_check({"type": "number"})(1.0)


def test_a_definition_may_refer_to_itself() -> None:
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "required": ["next"],
                "properties": {"next": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]}},
            }
        },
        "$ref": "#/$defs/node",
    }
    check = compile_check(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for value in ({"next": None}, {"next": {"next": None}}, {"next": {"next": 1}}, {"next": {}}, {}):
        assert check(value) == validator.is_valid(value), value


def test_names_seen_before_are_still_checked_by_type() -> None:
    check = compile_check({"$defs": DEFS, "type": "array", "items": {"$ref": "#/$defs/card"}})
    assert check(["7S", "7S"])
    assert check(["7S"])
    assert not check(["7S", "nope"])
    assert not check(["7S", 7])
    assert not check(["7S", ["7S"]])  # unhashable among known names: no exception, just no


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "patternProperties": {}}, "keyword 'patternProperties' is not supported"),
        ({"$ref": "other.json#/x"}, "only references to #/$defs/NAME"),
        ({"$ref": "#/$defs/missing"}, "no such definition"),
        ({"enum": [1.5]}, "only strings, integers, booleans and null"),
        ({"enum": [True, 1]}, "booleans and integers together"),
    ],
)
def test_what_it_does_not_understand_is_refused(schema: dict[str, Any], problem: str) -> None:
    with pytest.raises(SchemaCheckError, match=problem.replace("$", r"\$")):
        compile_check(schema)


def test_every_schema_golfref_ships_compiles_or_is_refused_by_name() -> None:
    from golfref.config.schemas import load_schema

    compile_check(load_schema("log.schema.json"))
