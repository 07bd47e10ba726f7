"""The hot path's speed tricks, each named once: building a named tuple and reading an enum's word.

Both skip a Python-level step that the plain spelling takes on every decision and every
request a bot is sent (bench/engine.py and bench/referee.py measure them):

- `new_tuple(Type, (field, ...))` builds a named tuple without the Python-level `__new__`
  its class call goes through: one frame less. It does not check the number of fields, so
  every call names its type and spells its fields as a tuple; tests/test_fast.py compares
  each call's count with the type's `_fields`.
- `enum_value(member)` reads an enum member's value as `_value_`: `.value` goes through a
  Python-level descriptor.

Compiled with the rest of the game (pyproject.toml [tool.golfref.mypyc]).
"""

from __future__ import annotations

from enum import Enum

__all__ = ["new_tuple", "enum_value"]

new_tuple = tuple.__new__
"""`new_tuple(Type, fields)`: the named tuple `Type` of `fields`, in its fields' order (unchecked)."""


def enum_value(member: Enum) -> str:
    """The word of a str-valued enum member (its `_value_`, without `.value`'s descriptor)."""
    value: str = member._value_
    return value
