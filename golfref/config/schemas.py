"""The JSON Schemas that golfref ships (the package golfref.schemas), loaded when first needed.

Its own module, importing nothing heavier than `json`, so that a bot program built on golfref
(the built-in players' `golfref.tools.builtin_bot`) reads the protocol's schema without
importing the config reader and its jsonschema and yaml.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["load_schema"]


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load one JSON Schema of the package golfref.schemas, when it is first needed."""
    # Through the import system, not a path next to this file: in site-packages, the folder
    # next to golfref/ holds other distributions (one may be called schemas).
    text = resources.files("golfref.schemas").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
